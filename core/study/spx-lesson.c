/* spx-lesson.c: lessons: loading (each step's scenario goes through the
 * .spx reader, so a lesson means what a scenario file would) and the
 * figures its text quotes from the live plan. */
#include "spx-lesson.h"
#include "spx-util.h"

#include <string.h>

#define GROUP_LESSON "lesson"
#define NONE "—"     /* a figure that does not exist now */

static const char *const step_keys[] = {
  "title", "text", "view", "mode", "tile", "superstep", "colour-by-tile",
  "timeline-fit", NULL,
};

/* ---- figures ------------------------------------------------------ */

static const SpxIpuProgram *
program_of (const SpxLessonView *v, const char *which)
{
  if (v->study == NULL)
    return NULL;
  if (g_str_equal (which, "shown"))
    return v->study->programs[v->mode];
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    if (g_str_equal (which, spx_ipu_mode_to_string (mode)))
      return v->study->programs[mode];
  return NULL;
}

static gboolean
is_program (const char *which)
{
  if (g_str_equal (which, "shown"))
    return TRUE;
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    if (g_str_equal (which, spx_ipu_mode_to_string (mode)))
      return TRUE;
  return FALSE;
}

/* Tiles that multiply something (tiles-used also counts those that only
 * hold data, such as their share of Y). */
static guint
computing_tiles (const SpxIpuProgram *p)
{
  guint n = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    n += p->tiles[t].macs > 0;
  return n;
}

/* A figure of program p (NULL: not planned), or NULL for no such key. */
static char *
program_figure (const SpxLessonView *v, const SpxIpuProgram *p,
                const char *key)
{
  static const char *const keys[] = { "cycles", "time", "steps", "plan",
                                      "tiles-used", "tiles-computing", "fits",
                                      "max-bytes", "speedup", NULL };
  if (!g_strv_contains (keys, key))
    return NULL;
  if (p == NULL)
    return g_strdup (NONE);
  if (g_str_equal (key, "cycles"))
    return spx_format_count (p->cycles);
  if (g_str_equal (key, "time"))
    return g_strdup_printf ("%.1f µs", p->ms * 1000);
  if (g_str_equal (key, "steps"))
    return g_strdup_printf ("%u", p->steps->len);
  if (g_str_equal (key, "plan"))
    return g_strdup (p->plan ? p->plan : NONE);
  if (g_str_equal (key, "tiles-used"))
    return spx_format_count (p->tiles_used);
  if (g_str_equal (key, "tiles-computing"))
    return spx_format_count (computing_tiles (p));
  if (g_str_equal (key, "fits"))
    return g_strdup (p->fits ? "fits" : "does not fit");
  if (g_str_equal (key, "max-bytes"))
    return spx_format_bytes ((double) p->max_tile_bytes);
  const SpxIpuProgram *dense = program_of (v, "dense");
  if (dense == NULL || p->cycles == 0)
    return g_strdup (NONE);
  return g_strdup_printf ("%.2f×", (double) dense->cycles / p->cycles);
}

/* A count of tile t's blocks, said with its words; NULL for no such
 * key. */
static char *
count_figure (const SpxIpuProgram *p, guint t, const char *key)
{
  static const struct { const char *key; SpxIpuCount what; } counts[] = {
    { "stored", SPX_IPU_COUNT_STORED },
    { "received", SPX_IPU_COUNT_RECEIVED },
    { "held", SPX_IPU_COUNT_HELD },
    { "products", SPX_IPU_COUNT_PRODUCTS },
    { "per-worker", SPX_IPU_COUNT_PER_WORKER },
  };
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    if (g_str_equal (key, counts[i].key))
      return p == NULL || t >= p->n_tiles || p->mode == SPX_IPU_MODE_DENSE
               ? g_strdup (NONE)
               : spx_ipu_count_text (counts[i].what,
                                     spx_ipu_tile_count (p, t,
                                                         counts[i].what));
  return NULL;
}

static char *
tile_figure (const SpxLessonView *v, const char *key)
{
  static const char *const keys[] = { "", "values", "indices", "input",
                                      "partials", "output", "bytes", "cycles",
                                      "macs", NULL };
  const SpxIpuProgram *p = program_of (v, "shown");
  guint tile = v->tile < 0 ? G_MAXUINT : (guint) v->tile;
  char *count = count_figure (p, tile, key);
  if (count != NULL || !g_strv_contains (keys, key))
    return count;
  if (p == NULL || tile >= p->n_tiles)
    return g_strdup (NONE);
  const SpxIpuTile *t = &p->tiles[tile];
  if (key[0] == '\0')
    return g_strdup_printf ("%u", tile);
  if (g_str_equal (key, "cycles"))
    return spx_format_count (t->compute_cycles);
  if (g_str_equal (key, "macs"))
    return spx_format_count (t->macs);
  static const char *const kinds[SPX_N_BYTE_KINDS] = {
    "values", "indices", "input", "partials", "output",
  };
  for (guint k = 0; k < SPX_N_BYTE_KINDS; k++)
    if (g_str_equal (key, kinds[k]))
      return spx_format_bytes ((double) t->bytes[k]);
  return spx_format_bytes ((double) spx_ipu_tile_bytes (t)); /* "bytes" */
}

/* The tile a step's terms are about: {step.tile}, {step.tile.KEY} with
 * the counts of {tile.KEY}. */
static char *
step_tile_figure (const SpxIpuProgram *p, const SpxIpuStep *s,
                  const char *key)
{
  if (g_str_equal (key, "tile"))
    return s ? g_strdup_printf ("%u", s->worst_tile) : g_strdup (NONE);
  return count_figure (p, s ? s->worst_tile : G_MAXUINT,
                       key + strlen ("tile."));
}

static char *
step_figure (const SpxLessonView *v, const char *key)
{
  static const char *const keys[] = { "", "name", "cycles", "share",
                                      "terms", "tile", NULL };
  gboolean of_tile = g_str_has_prefix (key, "tile.");
  if (!of_tile && !g_strv_contains (keys, key))
    return NULL;
  const SpxIpuProgram *p = program_of (v, "shown");
  const SpxIpuStep *s = NULL;
  if (p != NULL && v->superstep >= 0 && (guint) v->superstep < p->steps->len)
    s = &g_array_index (p->steps, SpxIpuStep, v->superstep);
  if (of_tile || g_str_equal (key, "tile"))
    return step_tile_figure (p, s, key);
  if (s == NULL)
    return g_strdup (NONE);
  if (key[0] == '\0')
    return g_strdup_printf ("%d", v->superstep + 1);
  if (g_str_equal (key, "name"))
    return spx_ipu_step_name (s);
  if (g_str_equal (key, "cycles"))
    return spx_format_count (s->cycles);
  if (g_str_equal (key, "share"))
    return g_strdup_printf ("%.1f%%", p->cycles ? 100.0 * s->cycles /
                                                  p->cycles : 0.0);
  char *terms = spx_ipu_step_explain (s);
  g_strchomp (terms);
  return terms;
}

static char *
study_figure (const SpxLessonView *v, const char *key)
{
  static const char *const keys[] = { "machine", "tiles", "sram", "budget",
                                      "m", "k", "n", "block", "density",
                                      "dtype", NULL };
  if (!g_strv_contains (keys, key))
    return NULL;
  if (v->study == NULL)
    return g_strdup (NONE);
  const SpxIpuMachine *mc = v->study->machine;
  const SpxScenario *sc = v->study->scenario;
  if (g_str_equal (key, "machine"))
    return g_strdup (mc->name);
  if (g_str_equal (key, "tiles"))
    return spx_format_count (mc->tiles);
  if (g_str_equal (key, "sram"))
    return spx_format_bytes ((double) mc->sram_bytes);
  if (g_str_equal (key, "budget"))
    return spx_format_bytes ((double) spx_ipu_tile_budget (mc));
  if (g_str_equal (key, "m"))
    return spx_format_count (sc->m);
  if (g_str_equal (key, "k"))
    return spx_format_count (sc->k);
  if (g_str_equal (key, "n"))
    return spx_format_count (sc->n);
  if (g_str_equal (key, "block"))
    return g_strdup_printf ("%u", sc->block);
  if (g_str_equal (key, "density"))
    return g_strdup_printf ("%.3g%%", 100 * sc->gen.density);
  return g_strdup (spx_dtype_to_string (sc->dtype));
}

/* The figure called name, or NULL when there is no such figure. */
static char *
figure (const SpxLessonView *v, const char *name)
{
  const char *dot = strchr (name, '.');
  g_autofree char *head = g_strndup (name, dot ? (gsize) (dot - name)
                                               : strlen (name));
  const char *key = dot ? dot + 1 : "";
  if (g_str_equal (head, "tile"))
    return tile_figure (v, key);
  if (g_str_equal (head, "step"))
    return step_figure (v, key);
  if (dot != NULL && is_program (head))
    return program_figure (v, program_of (v, head), key);
  return dot ? NULL : study_figure (v, name);
}

/* Expand text; with check, stop at the first unknown name instead and
 * return NULL with it in *unknown. */
static char *
expand (const char *text, const SpxLessonView *v, char **unknown)
{
  GString *out = g_string_new (NULL);
  const char *p = text;
  const char *open;
  while ((open = strchr (p, '{')) != NULL)
    {
      const char *close = strchr (open, '}');
      if (close == NULL)
        break;
      g_string_append_len (out, p, open - p);
      g_autofree char *name = g_strndup (open + 1, close - open - 1);
      char *value = figure (v, name);
      if (value == NULL && unknown != NULL)
        {
          *unknown = g_steal_pointer (&name);
          g_string_free (out, TRUE);
          return NULL;
        }
      g_string_append (out, value ? value : name);
      g_free (value);
      p = close + 1;
    }
  g_string_append (out, p);
  return g_string_free (out, FALSE);
}

char *
spx_lesson_expand (const char *text, const SpxLessonView *v)
{
  return expand (text, v, NULL);
}

gint
spx_lesson_find_step (const SpxIpuProgram *p, const char *selector)
{
  if (p == NULL || selector == NULL)
    return -1;
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      g_autofree char *name = g_strdup_printf (
        "%s %s", spx_ipu_step_kind_to_string (s->kind), s->phase);
      if (g_str_equal (name, selector))
        return (gint) i;
    }
  return -1;
}

/* ---- loading ------------------------------------------------------ */

static void
step_free (gpointer data)
{
  SpxLessonStep *s = data;
  g_free (s->title);
  g_free (s->text);
  spx_scenario_free (s->scenario);
  g_free (s->view);
  g_free (s->superstep);
  g_free (s);
}

void
spx_lesson_free (SpxLesson *lesson)
{
  if (lesson == NULL)
    return;
  g_free (lesson->title);
  g_ptr_array_unref (lesson->steps);
  g_free (lesson);
}

typedef struct {
  const char *name;         /* the file, for errors */
  const char *group;        /* the step's */
  GKeyFile   *kf;
  GKeyFile   *spx;          /* the scenario so far, as a .spx */
  const char *const *views;
  GError    **error;
} Reader;

static gboolean
fail (Reader *r, const char *key, const char *what)
{
  g_set_error (r->error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
               "%s: [%s] %s: %s", r->name, r->group, key, what);
  return FALSE;
}

/* scenario.KEY and mask.KEY go to the .spx so far; others must be a
 * step's own. */
static gboolean
take_keys (Reader *r)
{
  g_auto (GStrv) keys = g_key_file_get_keys (r->kf, r->group, NULL, NULL);
  for (guint i = 0; keys && keys[i]; i++)
    {
      const char *dot = strchr (keys[i], '.');
      g_autofree char *head = g_strndup (keys[i], dot ? (gsize) (dot -
                                                                 keys[i])
                                                      : 0);
      if (dot && (g_str_equal (head, "scenario") ||
                  g_str_equal (head, "mask")))
        {
          g_autofree char *value = g_key_file_get_value (r->kf, r->group,
                                                         keys[i], NULL);
          g_key_file_set_value (r->spx, head, dot + 1, value);
        }
      else if (!g_strv_contains (step_keys, keys[i]))
        return fail (r, keys[i], "unknown key (expected title, text, view, "
                     "mode, tile, superstep, colour-by-tile, timeline-fit, "
                     "scenario.KEY or mask.KEY)");
    }
  return TRUE;
}

static gboolean
read_scenario (Reader *r, SpxLessonStep *s)
{
  gsize len = 0;
  g_autofree char *data = g_key_file_to_data (r->spx, &len, NULL);
  g_autofree char *what = g_strdup_printf ("%s, [%s]", r->name, r->group);
  s->scenario = spx_scenario_load_data (what, data, len, r->error);
  if (s->scenario == NULL)
    return FALSE;
  if (s->scenario->source != SPX_MASK_SOURCE_GENERATED)
    return fail (r, "mask.source", "a lesson generates its masks");
  return TRUE;
}

/* A string key, kept from the step before when absent. */
static char *
string_or (Reader *r, const char *key, const char *before)
{
  char *v = g_key_file_get_string (r->kf, r->group, key, NULL);
  return v ? v : g_strdup (before);
}

/* A program's name as key (or "all" and "broken" where allowed). */
static gboolean
read_program (Reader *r, const char *key, gboolean all, gint *out)
{
  g_autofree char *name = g_key_file_get_string (r->kf, r->group, key, NULL);
  if (name == NULL)
    return TRUE;
  for (guint m = 0; m < SPX_IPU_N_MODES; m++)
    if (g_str_equal (name, spx_ipu_mode_to_string (m)))
      {
        *out = (gint) m;
        return TRUE;
      }
  if (all && (g_str_equal (name, "all") || g_str_equal (name, "broken")))
    {
      *out = g_str_equal (name, "all") ? SPX_LESSON_FIT_ALL
                                       : SPX_LESSON_FIT_BROKEN;
      return TRUE;
    }
  return fail (r, key, all ? "expected dense, static, dynamic, all or broken"
                           : "expected dense, static or dynamic");
}

static gboolean
read_mode (Reader *r, SpxLessonStep *s)
{
  gint mode = (gint) s->mode;
  gboolean ok = read_program (r, "mode", FALSE, &mode) &&
                read_program (r, "timeline-fit", TRUE, &s->timeline_fit);
  s->mode = (SpxIpuMode) mode;
  return ok;
}

static gboolean
read_selection (Reader *r, SpxLessonStep *s)
{
  GError *e = NULL;
  if (g_key_file_has_key (r->kf, r->group, "tile", NULL))
    {
      s->tile = g_key_file_get_integer (r->kf, r->group, "tile", &e);
      if (e != NULL || s->tile < -1)
        {
          g_clear_error (&e);
          return fail (r, "tile", "expected a tile number, or -1 for none");
        }
    }
  if (g_key_file_has_key (r->kf, r->group, "colour-by-tile", NULL))
    {
      s->colour_by_tile = g_key_file_get_boolean (r->kf, r->group,
                                                  "colour-by-tile", &e);
      if (e != NULL)
        {
          g_clear_error (&e);
          return fail (r, "colour-by-tile", "expected true or false");
        }
    }
  if (s->view == NULL || !g_strv_contains (r->views, s->view))
    return fail (r, "view", "expected one of the window's views");
  if (s->superstep == NULL || s->superstep[0] == '\0')
    return TRUE;
  g_auto (GStrv) parts = g_strsplit (s->superstep, " ", 2);
  for (guint k = 0; k < 3; k++)
    if (g_strv_length (parts) == 2 && parts[1][0] != '\0' &&
        g_str_equal (parts[0], spx_ipu_step_kind_to_string (k)))
      return TRUE;
  return fail (r, "superstep", "expected KIND PHASE, like 'exchange "
               "distribute' (kinds: compute, sync, exchange), or nothing");
}

/* Title and text are each step's own; the text names known figures. */
static gboolean
read_words (Reader *r, SpxLessonStep *s)
{
  s->title = g_key_file_get_string (r->kf, r->group, "title", NULL);
  s->text = g_key_file_get_string (r->kf, r->group, "text", NULL);
  if (s->title == NULL || s->text == NULL)
    return fail (r, s->title ? "text" : "title", "missing (required)");
  SpxLessonView none = { NULL, SPX_IPU_MODE_STATIC, -1, -1 };
  g_autofree char *unknown = NULL;
  g_autofree char *out = expand (s->text, &none, &unknown);
  if (out != NULL)
    return TRUE;
  g_autofree char *what = g_strdup_printf ("no figure called {%s}", unknown);
  return fail (r, "text", what);
}

static SpxLessonStep *
read_step (Reader *r, const SpxLessonStep *before)
{
  SpxLessonStep *s = g_new0 (SpxLessonStep, 1);
  s->mode = before ? before->mode : SPX_IPU_MODE_STATIC;
  s->tile = before ? before->tile : -1;
  s->colour_by_tile = before ? before->colour_by_tile : FALSE;
  s->timeline_fit = before ? before->timeline_fit : SPX_LESSON_FIT_ALL;
  s->view = string_or (r, "view", before ? before->view : NULL);
  s->superstep = string_or (r, "superstep", before ? before->superstep
                                                   : NULL);
  if (!take_keys (r) || !read_scenario (r, s) || !read_mode (r, s) ||
      !read_selection (r, s) || !read_words (r, s))
    {
      step_free (s);
      return NULL;
    }
  return s;
}

static gboolean
read_steps (Reader *r, SpxLesson *lesson)
{
  g_auto (GStrv) groups = g_key_file_get_groups (r->kf, NULL);
  const SpxLessonStep *before = NULL;
  for (guint i = 0; groups[i]; i++)
    {
      if (g_str_equal (groups[i], GROUP_LESSON))
        continue;
      r->group = groups[i];
      SpxLessonStep *s = read_step (r, before);
      if (s == NULL)
        return FALSE;
      g_ptr_array_add (lesson->steps, s);
      before = s;
    }
  if (lesson->steps->len > 0)
    return TRUE;
  g_set_error (r->error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
               "%s: no steps (a group per step expected)", r->name);
  return FALSE;
}

SpxLesson *
spx_lesson_load_data (const char *name, const char *data, gsize len,
                      const char *const *views, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  GError *e = NULL;
  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &e))
    {
      g_set_error (error, SPX_SCENARIO_ERROR, SPX_SCENARIO_ERROR_INVALID,
                   "%s: %s", name, e->message);
      g_error_free (e);
      return NULL;
    }
  SpxLesson *lesson = g_new0 (SpxLesson, 1);
  lesson->steps = g_ptr_array_new_with_free_func (step_free);
  lesson->title = g_key_file_get_string (kf, GROUP_LESSON, "title", NULL);
  g_autoptr (GKeyFile) spx = g_key_file_new ();
  g_key_file_set_integer (spx, "scenario", "version", SPX_SCENARIO_VERSION);
  Reader r = { name, GROUP_LESSON, kf, spx, views, error };
  if (lesson->title == NULL)
    fail (&r, "title", "missing (required)");
  if (lesson->title == NULL || !read_steps (&r, lesson))
    {
      spx_lesson_free (lesson);
      return NULL;
    }
  return lesson;
}
