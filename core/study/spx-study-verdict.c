/* spx-study-verdict.c: what a study says of its subject: densities in
 * words, the block size at which it reads, and the verdict of its sweep
 * or, before one, of its bounds */
#include "spx-study.h"
#include "spx-defaults.h"

#include <math.h>
#include <string.h>

/* ---- words ---------------------------------------------------------- */

static double
element_density (const SpxMask *mask)
{
  return (double) spx_mask_count_elements (mask) /
         ((double) mask->rows * (double) mask->cols);
}

static double
block_density (const SpxMask *mask)
{
  return (double) spx_mask_count (mask) / (double) spx_mask_n_blocks (mask);
}

/* 99.9%, 10.0%, 0.05%: enough digits to tell nearly full from full. */
static char *
percent (double fraction)
{
  double p = 100 * fraction;
  if (p > 99 && p < 100)
    return g_strdup_printf ("%.1f%%", floor (p * 10) / 10);
  return g_strdup_printf (p >= 1 || p == 0 ? "%.1f%%" : "%.2g%%", p);
}

char *
spx_study_describe_density (const SpxStudy *s)
{
  const SpxMask *mask = s->scenario->mask;
  if (mask == NULL)
    return g_strdup ("");
  /* a file's own non-zeros; a drawn or generated block counts whole */
  g_autofree char *elements = percent (element_density (
    s->elements ? s->elements : mask));
  if (mask->block == 1)
    return g_strdup_printf ("%s of elements non-zero", elements);
  g_autofree char *blocks = percent (block_density (mask));
  return g_strdup_printf ("%s of elements, %s of %u × %u blocks non-empty",
                          elements, blocks, mask->block, mask->block);
}

/* The fraction of non-empty blocks of elements at block b (1 on error). */
static double
density_at (const SpxMask *elements, guint b)
{
  g_autoptr (SpxMask) blocked = spx_mask_at_block (elements, b, NULL);
  return blocked ? block_density (blocked) : 1;
}

guint
spx_study_readable_block (SpxStudy *s, guint block)
{
  const guint *blocks = spx_defaults ()->blocks;
  const SpxMask *elements = spx_study_elements (s);
  if (elements == NULL || density_at (elements, block) <= SPX_STUDY_SOLID)
    return block;
  for (guint i = spx_defaults ()->n_blocks; i-- > 0;)
    if (blocks[i] < block &&
        density_at (elements, blocks[i]) <= SPX_STUDY_READABLE)
      return blocks[i];
  return 1;
}

double
spx_study_element_density (SpxStudy *s)
{
  const SpxMask *e = spx_study_elements (s);
  const SpxMask *mask = e != NULL ? e : s->scenario->mask;
  g_return_val_if_fail (mask != NULL, 0);
  return element_density (mask);
}

void
spx_study_survey_blocks (SpxStudy *s)
{
  const SpxMask *elements = spx_study_elements (s);
  s->surveyed = elements != NULL;
  s->survey_revision = s->revision;
  s->survey.n = 0;
  if (elements == NULL)
    return;
  SpxSweepOptions o;
  spx_study_sweep_options (s, &o);
  for (guint i = 0; i < o.n_blocks; i++)
    {
      s->survey.blocks[i] = o.blocks[i];
      s->survey.densities[i] = density_at (elements, o.blocks[i]);
    }
  s->survey.n = o.n_blocks;
}

/* ---- verdict -------------------------------------------------------- */

/* Whether p is a point of source at block (and, for a generated
 * subject, at its own density). */
static gboolean
point_at (const SpxSweep *sweep, const SpxSweepPoint *p,
          SpxSweepSource source, guint block, double density)
{
  return p->source == source && p->block == block &&
         (sweep->settings.subject != NULL ||
          fabs (p->density / density - 1) < 1e-9);
}

/* The best speedup of a source at one block size (and, for a generated
 * subject, its own density); 0 when there is none. */
static double
best_at (const SpxSweep *sweep, SpxSweepSource source, guint block,
         double density, SpxSweepMode *mode)
{
  double best = 0;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (point_at (sweep, p, source, block, density) &&
          spx_sweep_point_judged (p) && p->speedup > best)
        {
          best = p->speedup;
          *mode = p->mode;
        }
    }
  return best;
}

/* Whether a sparse point of source at block (and density d for a
 * generated subject) is noisy: its block size was not measured cleanly. */
static gboolean
noisy_at (const SpxSweep *sweep, SpxSweepSource source, guint block,
          double density)
{
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (point_at (sweep, p, source, block, density) &&
          p->mode != SPX_SWEEP_DENSE && p->noise != SPX_NOISE_NONE)
        return TRUE;
    }
  return FALSE;
}

static void
judge_source (const SpxSweep *sweep, SpxSweepSource source, double d,
              SpxVerdictSource *v)
{
  const SpxSweepOptions *o = &sweep->settings;
  memset (v, 0, sizeof *v);
  v->best_mode = SPX_SWEEP_STATIC;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      v->points += p->source == source;
      v->noisy += p->source == source && p->noise != SPX_NOISE_NONE;
      if (p->source == source && v->numbers[0] == '\0')
        {
          g_strlcpy (v->numbers, spx_dtype_to_string (p->dtype),
                     sizeof v->numbers);
          g_strlcpy (v->dense, p->dense, sizeof v->dense);
        }
    }
  for (guint b = 0; b < o->n_blocks; b++)
    {
      SpxSweepMode mode = SPX_SWEEP_STATIC;
      double speedup = best_at (sweep, source, o->blocks[b], d, &mode);
      if (speedup >= SPX_VERDICT_FASTER)
        v->faster[v->n_faster++] = o->blocks[b];
      else if (noisy_at (sweep, source, o->blocks[b], d))
        v->unclean[v->n_unclean++] = o->blocks[b];
      if (speedup > v->best)
        {
          v->best = speedup;
          v->best_block = o->blocks[b];
          v->best_mode = mode;
        }
    }
}

static void
add_bound (SpxVerdict *v, guint block, double block_density)
{
  SpxVerdictBound *b = &v->bounds[v->n_bounds++];
  b->block = block;
  b->bound = 1 / block_density;
  b->possible = b->bound >= SPX_VERDICT_WORTH;
}

/* Before a sweep: every surveyed block size's bound, else the
 * scenario's. */
static void
judge_bounds (const SpxStudy *s, SpxVerdict *v)
{
  if (!s->surveyed || s->survey_revision != s->revision)
    {
      v->kind = SPX_VERDICT_BOUND;
      add_bound (v, s->scenario->mask->block,
                 block_density (s->scenario->mask));
      return;
    }
  v->kind = SPX_VERDICT_BOUNDS;
  for (guint i = 0; i < s->survey.n; i++)
    add_bound (v, s->survey.blocks[i], s->survey.densities[i]);
}

void
spx_study_judge (const SpxStudy *s, SpxVerdict *v)
{
  memset (v, 0, sizeof *v);
  v->kind = SPX_VERDICT_EMPTY;
  if (s->scenario->mask == NULL || spx_mask_count (s->scenario->mask) == 0)
    return;
  if (s->sweep->points->len == 0 || spx_study_sweep_stale (s))
    {
      judge_bounds (s, v);
      return;
    }
  v->kind = SPX_VERDICT_SWEPT;
  for (guint i = 0; i < SPX_SWEEP_N_SOURCES; i++)
    judge_source (s->sweep, (SpxSweepSource) i, s->scenario->gen.density,
                  &v->sources[i]);
  v->machine = s->machine->name;
  v->done = s->sweep->points->len;
  v->total = spx_sweep_total (&s->sweep->settings);
}
