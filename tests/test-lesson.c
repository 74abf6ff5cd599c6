/* test-lesson: the lesson file format (steps inherit, every key and figure
 * checked) and the figures its text quotes, against a planned study. */
#include "spx-lesson.h"
#include "spx-util.h"

#include <string.h>

static const char *const views[] = {
  "mask", "tiles", "exchange", "timeline", "speedup", NULL,
};

#define HEAD "[lesson]\ntitle=T\n"
#define FIRST                                                           \
  "[one]\ntitle=One\ntext=m is {m}\nview=tiles\ntile=3\n"               \
  "scenario.m=64\nscenario.k=32\nscenario.n=16\nscenario.block=8\n"     \
  "scenario.machine=teach16\nmask.source=generated\nmask.density=0.5\n"

static SpxLesson *
load (const char *text, GError **error)
{
  return spx_lesson_load_data ("t.lesson", text, strlen (text), views,
                               error);
}

/* The shipped lesson: every step loads, in order, each whole. */
static void
test_shipped (void)
{
  g_autofree char *path = g_test_build_filename (
    G_TEST_DIST, "..", "data", "lesson", "ipu-model.lesson", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxLesson) l = spx_lesson_load_data ("ipu-model.lesson", data,
                                                  len, views, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (l->title, ==, "Learn the IPU model");
  g_assert_cmpuint (l->steps->len, ==, 9);
  const SpxLessonStep *first = g_ptr_array_index (l->steps, 0);
  const SpxLessonStep *last = g_ptr_array_index (l->steps, 8);
  g_assert_cmpstr (first->scenario->machine, ==, "teach16");
  g_assert_cmpstr (first->view, ==, "tiles");
  g_assert_cmpint (first->tile, ==, 5);
  g_assert_cmpstr (last->scenario->machine, ==, "bow");
  g_assert_cmpuint (last->scenario->m, ==, 4096);
  g_assert_cmpuint (last->scenario->block, ==, 16); /* from step 1 */
  /* the order the lesson teaches: static before dynamic before dense */
  const char *modes[9] = { "static", "static", "static", "static",
                           "static", "static", "dynamic", "static",
                           "static" };
  for (guint i = 0; i < l->steps->len; i++)
    {
      const SpxLessonStep *s = g_ptr_array_index (l->steps, i);
      g_assert_cmpstr (spx_ipu_mode_to_string (s->mode), ==, modes[i]);
    }
}

/* A step keeps what it does not set from the step before. */
static void
test_inherit (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxLesson) l = load (
    HEAD FIRST "[two]\ntitle=Two\ntext=t\nscenario.m=128\nmode=dense\n"
    "superstep=exchange reduce\ncolour-by-tile=true\n", &error);
  g_assert_no_error (error);
  const SpxLessonStep *two = g_ptr_array_index (l->steps, 1);
  g_assert_cmpuint (two->scenario->m, ==, 128);
  g_assert_cmpuint (two->scenario->k, ==, 32);
  g_assert_cmpfloat (two->scenario->gen.density, ==, 0.5);
  g_assert_cmpstr (two->view, ==, "tiles");
  g_assert_cmpint (two->tile, ==, 3);
  g_assert_true (two->colour_by_tile);
  g_assert_cmpint (two->mode, ==, SPX_IPU_MODE_DENSE);
  g_assert_cmpstr (two->superstep, ==, "exchange reduce");
}

/* Every mistake names the file, the step and the key. */
static void
test_errors (void)
{
  static const struct { const char *text, *message; } cases[] = {
    { HEAD FIRST "colour=true\n",
      "t.lesson: [one] colour: unknown key" },
    { HEAD FIRST "view=graph\n",
      "t.lesson: [one] view: expected one of the window's views" },
    { HEAD FIRST "[two]\ntitle=Two\ntext={nope} and {m}\n",
      "t.lesson: [two] text: no figure called {nope}" },
    { HEAD FIRST "[two]\ntitle=Two\ntext={static.speed}\n",
      "t.lesson: [two] text: no figure called {static.speed}" },
    { HEAD FIRST "[two]\ntext=no title\n",
      "t.lesson: [two] title: missing (required)" },
    { HEAD FIRST "[two]\ntitle=Two\ntext=t\nscenario.m=0\n",
      "t.lesson, [two]: [scenario] m" },
    { HEAD FIRST "[two]\ntitle=Two\ntext=t\nmode=sparse\n",
      "t.lesson: [two] mode: expected dense, static or dynamic" },
    { HEAD FIRST "[two]\ntitle=Two\ntext=t\nsuperstep=reduce\n",
      "t.lesson: [two] superstep: expected KIND PHASE" },
    { HEAD FIRST "[two]\ntitle=Two\ntext=t\ntile=x\n",
      "t.lesson: [two] tile: expected a tile number" },
    { HEAD FIRST "[two]\ntitle=Two\ntext=t\nmask.source=drawn\n",
      "t.lesson, [two]" },
    { HEAD, "t.lesson: no steps" },
    { "[lesson]\n" FIRST, "t.lesson: [lesson] title: missing" },
    { "not a key file", "t.lesson: " },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxLesson) l = load (cases[i].text, &error);
      g_assert_null (l);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, cases[i].message));
    }
}

/* Figures read from a planned study; "—" where there is nothing to
 * read. */
static void
test_expand (void)
{
  g_autoptr (SpxStudy) s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_study_set_machine (s, "teach16", &error));
  SpxScenario *sc = s->scenario;
  sc->m = sc->k = 128;
  sc->n = 64;
  sc->block = 16;
  sc->gen.density = 0.25;
  g_assert_true (spx_study_plan (s, &error));
  g_assert_no_error (error);
  const SpxIpuProgram *st = s->programs[SPX_IPU_MODE_STATIC];
  const SpxIpuProgram *de = s->programs[SPX_IPU_MODE_DENSE];
  gint tile = -1;
  for (guint t = 0; t < st->n_tiles && tile < 0; t++)
    if (st->tiles[t].blocks && st->tiles[t].blocks->len == 1)
      tile = (gint) t;
  g_assert_cmpint (tile, >=, 0);
  gint step = spx_lesson_find_step (st, "compute compute");
  g_assert_cmpint (step, >=, 0);
  SpxLessonView v = { s, SPX_IPU_MODE_STATIC, tile, step };
  g_autofree char *got = spx_lesson_expand (
    "{machine} {tiles} {m}x{k} n={n} b={block} {density} {dtype} "
    "{tile.blocks} {static.fits} {step.name} {static.speedup}", &v);
  g_autofree char *want = g_strdup_printf (
    "teach16 16 128x128 n=64 b=16 25%% fp16 1 block fits compute "
    "%.2f×", (double) de->cycles / st->cycles);
  g_assert_cmpstr (got, ==, want);

  /* every tile holds a share of Y; those with blocks also multiply */
  guint with_blocks = 0;
  for (guint t = 0; t < st->n_tiles; t++)
    with_blocks += st->tiles[t].blocks != NULL && st->tiles[t].blocks->len;
  g_autofree char *tiles = spx_lesson_expand (
    "{static.tiles-used} {static.tiles-computing}", &v);
  g_autofree char *tiles_want = g_strdup_printf ("16 %u", with_blocks);
  g_assert_cmpstr (tiles, ==, tiles_want);

  /* blocks held: the tile's bytes of values in whole 16 × 16 fp16 blocks */
  g_autofree char *held = spx_lesson_expand ("{tile.blocks-held}", &v);
  guint64 values = st->tiles[tile].bytes[SPX_BYTES_VALUES];
  g_assert_cmpuint (values % 512, ==, 0);
  g_autofree char *held_want = g_strdup_printf (
    "%" G_GUINT64_FORMAT " block%s", values / 512, values == 512 ? "" : "s");
  g_assert_cmpstr (held, ==, held_want);

  g_autofree char *cycles = spx_lesson_expand ("{shown.cycles}", &v);
  g_autofree char *count = spx_format_count (st->cycles);
  g_assert_cmpstr (cycles, ==, count);
  g_autofree char *terms = spx_lesson_expand ("{step.terms}", &v);
  const SpxIpuStep *cs = &g_array_index (st->steps, SpxIpuStep, step);
  g_autofree char *explain = spx_ipu_step_explain (cs);
  g_assert_cmpstr (terms, ==, g_strchomp (explain));

  SpxLessonView none = { s, SPX_IPU_MODE_STATIC, -1, -1 };
  g_autofree char *dash = spx_lesson_expand ("{tile.bytes}/{step.cycles}",
                                             &none);
  g_assert_cmpstr (dash, ==, "—/—");
  g_assert_cmpint (spx_lesson_find_step (st, "sync nothing"), ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lesson/shipped", test_shipped);
  g_test_add_func ("/lesson/inherit", test_inherit);
  g_test_add_func ("/lesson/errors", test_errors);
  g_test_add_func ("/lesson/expand", test_expand);
  return g_test_run ();
}
