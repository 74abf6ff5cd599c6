/* spx-render-verdict.c: the verdict in words */
#include "spx-render-verdict.h"

/* run_sweep at a sentence's start. */
static char *
sentence (const char *run_sweep)
{
  char *s = g_strdup (run_sweep);
  s[0] = g_ascii_toupper (s[0]);
  return s;
}

/* Before a sweep, at the scenario's block only. */
static char *
bound_text (const SpxVerdictBound *b, const char *run_sweep)
{
  if (!b->possible)
    return g_strdup_printf ("At %u × %u blocks nearly every block holds a "
                            "non-zero: no block-sparse speedup is possible "
                            "(at most %.2f×). Try a smaller block size, or "
                            "%s.", b->block, b->block, b->bound, run_sweep);
  return g_strdup_printf ("At %u × %u blocks a speedup of at most %.3g× is "
                          "possible; %s to measure which block sizes beat "
                          "dense.", b->block, b->block, b->bound, run_sweep);
}

/* Before a sweep, at every block size it will take. */
static char *
bounds_text (const SpxVerdict *v, const char *run_sweep)
{
  GString *yes = g_string_new (NULL), *no = g_string_new (NULL);
  guint lo = G_MAXUINT, hi = 0;
  for (guint i = 0; i < v->n_bounds; i++)
    {
      const SpxVerdictBound *b = &v->bounds[i];
      lo = MIN (lo, b->block);
      hi = MAX (hi, b->block);
      if (b->possible)
        g_string_append_printf (yes, "%s%u (%.3g×)", yes->len ? ", " : "",
                                b->block, b->bound);
      else
        g_string_append_printf (no, "%s%u", no->len ? ", " : "", b->block);
    }
  g_autofree char *y = g_string_free (yes, FALSE);
  g_autofree char *n = g_string_free (no, FALSE);
  if (y[0] == '\0')
    return g_strdup_printf ("Nearly every block holds a non-zero at every "
                            "block size from %u to %u: no block-sparse "
                            "speedup is possible.", lo, hi);
  g_autofree char *run = sentence (run_sweep);
  return g_strdup_printf ("A speedup is possible at most at b = %s%s%s%s. "
                          "%s to measure it.", y, n[0] ? "; not at b = " : "",
                          n, n[0] ? " (blocks nearly full)" : "", run);
}

/* "1, 2, 4" */
static char *
block_list (const guint *blocks, guint n)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%u", i ? ", " : "", blocks[i]);
  return g_string_free (out, FALSE);
}

/* "on this CPU: faster than dense at b = 1, 2 (best static b = 1,
 * 3.1×); b = 16 could not be measured cleanly"; NULL when the sweep has
 * no point of the source. A block size whose points were noisy is named
 * as such, never counted as losing. */
static char *
source_text (const SpxVerdictSource *s, const char *name)
{
  if (s->points == 0)
    return NULL;
  g_autofree char *unclean = block_list (s->unclean, s->n_unclean);
  g_autofree char *unclean_note = s->n_unclean
    ? g_strdup_printf ("b = %s could not be measured cleanly (noisy)",
                       unclean)
    : g_strdup ("");
  if (s->best == 0)
    return g_strdup_printf ("%s: %s", name, s->n_unclean ? unclean_note
                                                         : "no point to "
                                                           "judge");
  const char *mode = spx_sweep_mode_to_string (s->best_mode);
  const char *sep = s->n_unclean ? "; " : "";
  if (s->n_faster == 0)
    return g_strdup_printf ("%s: no block size %sbeats dense (best %s b = "
                            "%u, %.2f×)%s%s", name,
                            s->n_unclean ? "measured cleanly " : "", mode,
                            s->best_block, s->best, sep, unclean_note);
  g_autofree char *list = block_list (s->faster, s->n_faster);
  return g_strdup_printf ("%s: faster than dense at b = %s (best %s b = %u, "
                          "%.2g×)%s%s", name, list, mode, s->best_block,
                          s->best, sep, unclean_note);
}

static char *
swept_text (const SpxVerdict *v)
{
  const SpxVerdictSource *c = &v->sources[SPX_SWEEP_CPU];
  g_autofree char *machine = g_strdup_printf (
    "on the IPU model (%s, %s)", v->machine,
    v->sources[SPX_SWEEP_MODEL].numbers);
  g_autofree char *here = c->dense[0] != '\0'
    ? g_strdup_printf ("on this CPU (%s, over %s dense)", c->numbers,
                       c->dense)
    : g_strdup_printf ("on this CPU (%s)", c->numbers);
  g_autofree char *cpu = source_text (c, here);
  g_autofree char *ipu = source_text (&v->sources[SPX_SWEEP_MODEL], machine);
  g_autofree char *partial = v->done < v->total
    ? g_strdup_printf (" (so far: %u of %u points)", v->done, v->total)
    : g_strdup ("");
  char *line = g_strdup_printf ("%s%s%s%s.", cpu ? cpu : "",
                                cpu && ipu ? "; " : "", ipu ? ipu : "",
                                partial);
  line[0] = g_ascii_toupper (line[0]);
  return line;
}

char *
spx_render_verdict_text (const SpxVerdict *v, const char *run_sweep)
{
  switch (v->kind)
    {
    case SPX_VERDICT_EMPTY:
      return g_strdup ("The mask is empty.");
    case SPX_VERDICT_BOUND:
      return bound_text (&v->bounds[0], run_sweep);
    case SPX_VERDICT_BOUNDS:
      return bounds_text (v, run_sweep);
    case SPX_VERDICT_SWEPT:
    default:
      return swept_text (v);
    }
}
