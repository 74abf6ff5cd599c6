/* test-lesson: the lesson file format (steps inherit, every key and figure
 * checked) and the figures its text quotes, against a planned study. */
#include "spx-lesson.h"
#include "spx-util.h"
#include "test-ipu-check.h"
#include "test-lesson-file.h"

#include <stdio.h>
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

/* The shipped lesson; a study planned on the scenario of its step i. */
static SpxLesson *
shipped (void)
{
  return test_shipped_lesson (views);
}

static SpxStudy *
study_of_step (const SpxLesson *l, guint i)
{
  const SpxLessonStep *step = g_ptr_array_index (l->steps, i);
  SpxStudy *s = spx_study_new ();
  g_autoptr (GError) error = NULL;
  spx_study_use_scenario (s, step->scenario, &error);
  g_assert_no_error (error);
  g_assert_true (spx_study_plan (s, &error));
  g_assert_no_error (error);
  return s;
}

/* The shipped lesson: every step loads, in order, each whole. */
static void
test_shipped (void)
{
  g_autoptr (SpxLesson) l = shipped ();
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
  /* the static program's step fits the Timeline to it, dynamic's to all */
  const SpxLessonStep *program = g_ptr_array_index (l->steps, 2);
  const SpxLessonStep *dynamic = g_ptr_array_index (l->steps, 6);
  g_assert_cmpstr (program->view, ==, "timeline");
  g_assert_cmpint (first->timeline_fit, ==, -1);
  g_assert_cmpint (program->timeline_fit, ==, SPX_IPU_MODE_STATIC);
  g_assert_cmpint (dynamic->timeline_fit, ==, SPX_LESSON_FIT_ALL);
  /* dense beside both: all three bars, on a broken axis */
  const SpxLessonStep *dense = g_ptr_array_index (l->steps, 7);
  g_assert_cmpint (dense->timeline_fit, ==, SPX_LESSON_FIT_BROKEN);
}

/* A step keeps what it does not set from the step before. */
static void
test_inherit (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxLesson) l = load (
    HEAD FIRST "[two]\ntitle=Two\ntext=t\nscenario.m=128\nmode=dense\n"
    "superstep=exchange reduce\ncolour-by-tile=true\ntimeline-fit=static\n"
    "[three]\ntitle=Three\ntext=t\n", &error);
  g_assert_no_error (error);
  const SpxLessonStep *two = g_ptr_array_index (l->steps, 1);
  const SpxLessonStep *three = g_ptr_array_index (l->steps, 2);
  g_assert_cmpint (((SpxLessonStep *) g_ptr_array_index (l->steps, 0))
                   ->timeline_fit, ==, -1);
  g_assert_cmpint (two->timeline_fit, ==, SPX_IPU_MODE_STATIC);
  g_assert_cmpint (three->timeline_fit, ==, SPX_IPU_MODE_STATIC);
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
    { HEAD FIRST "[two]\ntitle=Two\ntext=t\ntimeline-fit=none\n",
      "t.lesson: [two] timeline-fit: expected dense, static, dynamic, all or "
      "broken" },
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
    "{tile.stored} {static.fits} {step.name} {static.speedup}", &v);
  g_autofree char *want = g_strdup_printf (
    "teach16 16 128x128 n=64 b=16 25%% fp16 1 block stored fits compute "
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
  g_autofree char *held = spx_lesson_expand ("{tile.held}", &v);
  guint64 values = st->tiles[tile].bytes[SPX_BYTES_VALUES];
  g_assert_cmpuint (values % 512, ==, 0);
  g_autofree char *held_want = g_strdup_printf (
    "%" G_GUINT64_FORMAT " block%s held", values / 512,
    values == 512 ? "" : "s");
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

/* ---- counts of blocks, worked out again from the plan -------------- */

/* What tile t of a static program does with blocks of W, from what the
 * plan lists and moves rather than from its counts. */
typedef struct {
  guint64 stored, received, products, per_worker;
} Counts;

static void
count_again (const SpxIpuProgram *p, guint t, Counts *c)
{
  const guint64 one = 16 * 16 * 2; /* a 16 × 16 fp16 block */
  const SpxIpuTile *tile = &p->tiles[t];
  const SpxIpuStep *dist = &g_array_index (p->steps, SpxIpuStep,
                                           spx_ipu_program_first_exchange (p));
  memset (c, 0, sizeof *c);
  c->stored = tile->blocks ? tile->blocks->len : 0;
  /* the values it receives: W pieces sent to it, in whole blocks; the
   * block-rows its blocks span, its own and its senders' */
  g_autoptr (GHashTable) rows = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < c->stored; i++)
    g_hash_table_add (rows, GSIZE_TO_POINTER (
      g_array_index (tile->blocks, guint64, i) / (p->k / 16) + 1));
  for (guint i = 0; i < dist->transfers->len; i++)
    {
      const SpxIpuTransfer *x = &g_array_index (dist->transfers,
                                                SpxIpuTransfer, i);
      const SpxIpuPiece *w = &g_array_index (dist->pieces, SpxIpuPiece, i);
      if (x->dst != t || w->kind != SPX_BYTES_VALUES)
        continue;
      g_assert_cmpuint (x->bytes % one, ==, 0);
      c->received += x->bytes / one;
      const GArray *from = p->tiles[x->src].blocks;
      for (guint j = 0; from && j < from->len; j++)
        g_hash_table_add (rows, GSIZE_TO_POINTER (
          g_array_index (from, guint64, j) / (p->k / 16) + 1));
    }
  /* each block times its columns of X: sn = 8 slices of n = 64 */
  guint64 cols = p->n / 8;
  g_assert_cmpuint (tile->macs % (16 * 16 * cols), ==, 0);
  c->products = tile->macs / (16 * 16 * cols);
  /* 6 workers: columns in grains of 4 fp16 (8 columns: 2 workers), the
   * 3 workers of each grain share the block-rows */
  guint64 wn = (cols + 3) / 4, wr = MIN (g_hash_table_size (rows), 6 / wn);
  c->per_worker = c->products ? (c->products + wr - 1) / wr : 0;
}

/* A small plan counted by hand: teach16, W 128 × 128 in 16 × 16 blocks,
 * 16 of 64 non-zero, n = 64; static as 8 n-slices of one k-band, so each
 * block is stored on one tile and multiplied on 8. */
static SpxStudy *
small_study (void)
{
  SpxStudy *s = spx_study_new ();
  g_assert_true (spx_study_set_machine (s, "teach16", NULL));
  SpxScenario *sc = s->scenario;
  sc->m = sc->k = 128;
  sc->n = 64;
  sc->block = 16;
  sc->gen.density = 0.25;
  sc->gen.seed = 1;
  g_assert_true (spx_study_plan (s, NULL));
  g_assert_cmpstr (s->programs[SPX_IPU_MODE_STATIC]->plan, ==, "sn=8 sk=1");
  return s;
}

static void
test_counts (void)
{
  g_autoptr (SpxStudy) s = small_study ();
  const SpxIpuProgram *p = s->programs[SPX_IPU_MODE_STATIC];
  guint64 stored = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    {
      Counts c;
      count_again (p, t, &c);
      g_assert_cmpuint (spx_ipu_tile_count (p, t, SPX_IPU_COUNT_STORED), ==,
                        c.stored);
      g_assert_cmpuint (spx_ipu_tile_count (p, t, SPX_IPU_COUNT_RECEIVED),
                        ==, c.received);
      g_assert_cmpuint (spx_ipu_tile_count (p, t, SPX_IPU_COUNT_HELD), ==,
                        c.stored + c.received);
      g_assert_cmpuint (spx_ipu_tile_count (p, t, SPX_IPU_COUNT_PRODUCTS),
                        ==, c.products);
      g_assert_cmpuint (spx_ipu_tile_count (p, t, SPX_IPU_COUNT_PER_WORKER),
                        ==, c.per_worker);
      g_assert_cmpuint (c.products, ==, c.stored + c.received);
      stored += c.stored;
    }
  g_assert_cmpuint (stored, ==, 16); /* every block stored once */
  /* by hand: 16 blocks over 2 tiles of a slice, each stored on 1 of 8 */
  Counts five;
  count_again (p, 5, &five);
  g_assert_cmpuint (five.stored, ==, 1);
  g_assert_cmpuint (five.products, ==, 8);
  g_assert_cmpuint (five.received, ==, 7);
  g_assert_cmpuint (five.per_worker, ==, 3);
  /* dense multiplies no blocks */
  const SpxIpuProgram *d = s->programs[SPX_IPU_MODE_DENSE];
  g_assert_cmpuint (spx_ipu_tile_count (d, 5, SPX_IPU_COUNT_PRODUCTS), ==, 0);
  g_assert_null (spx_ipu_tile_blocks_text (d, 5, "\n"));
}

/* The shipped lesson's step text says each count with its words. */
static void
test_counts_said (void)
{
  g_autoptr (SpxStudy) s = small_study ();
  const SpxIpuProgram *p = s->programs[SPX_IPU_MODE_STATIC];
  g_autoptr (SpxLesson) l = shipped ();
  const SpxLessonStep *tile = g_ptr_array_index (l->steps, 0);
  const SpxLessonStep *compute = g_ptr_array_index (l->steps, 4);
  g_assert_cmpint (tile->tile, ==, 5);
  gint step = spx_lesson_find_step (p, compute->superstep);
  SpxLessonView v1 = { s, SPX_IPU_MODE_STATIC, 5, -1 };
  g_autofree char *one = spx_lesson_expand (tile->text, &v1);
  Counts c;
  count_again (p, 5, &c);
  g_autofree char *a = g_strdup_printf (
    "Tile 5 computes %" G_GUINT64_FORMAT " block products", c.products);
  g_autofree char *b = g_strdup_printf (
    "%" G_GUINT64_FORMAT " blocks held, %" G_GUINT64_FORMAT " block stored "
    "as its own and %" G_GUINT64_FORMAT " blocks received", c.products,
    c.stored, c.received);
  g_test_message ("%s", one);
  g_assert_nonnull (strstr (one, a));
  g_assert_nonnull (strstr (one, b));

  SpxLessonView v5 = { s, SPX_IPU_MODE_STATIC, -1, step };
  g_autofree char *five = spx_lesson_expand (compute->text, &v5);
  const SpxIpuStep *cs = &g_array_index (p->steps, SpxIpuStep, step);
  Counts w;
  count_again (p, cs->worst_tile, &w);
  g_autofree char *slow = g_strdup_printf (
    "tile %u, computes %" G_GUINT64_FORMAT " block products; its workers "
    "share them, %" G_GUINT64_FORMAT " block products per worker at most",
    cs->worst_tile, w.products, w.per_worker);
  g_autofree char *term = g_strdup_printf (
    "blocks: %" G_GUINT64_FORMAT " block products per worker × ",
    w.per_worker);
  g_test_message ("%s", five);
  g_assert_nonnull (strstr (five, slow));
  g_assert_nonnull (strstr (five, term));
  g_assert_null (strstr (five, " 3 blocks "));
}

/* Every formula the lesson and the Timeline quote is said in words
 * too, from the same figures: every term of every program of every
 * step's problem, and of the same in fp32 and unstructured (b = 1); the
 * compute step's text carries them. */
static void
test_words (void)
{
  g_autoptr (SpxLesson) l = shipped ();
  for (guint i = 0; i < l->steps->len; i++)
    for (guint v = 0; v < 3; v++)
      {
        const SpxLessonStep *step = g_ptr_array_index (l->steps, i);
        if (v > 0 && g_str_equal (step->scenario->machine, "bow"))
          continue; /* the full machine once is enough */
        g_autoptr (SpxScenario) sc = spx_scenario_copy (step->scenario);
        if (v == 1)
          sc->dtype = SPX_DTYPE_FP32;
        if (v == 2)
          sc->block = 1;
        g_autoptr (SpxStudy) s = spx_study_new ();
        g_autoptr (GError) error = NULL;
        spx_study_use_scenario (s, sc, &error);
        g_assert_no_error (error);
        g_assert_true (spx_study_plan (s, &error));
        for (guint m = 0; m < SPX_IPU_N_MODES; m++)
          test_ipu_check_all_words (s->programs[m]);
      }
  g_autoptr (SpxStudy) s = study_of_step (l, 4);
  const SpxLessonStep *compute = g_ptr_array_index (l->steps, 4);
  const SpxIpuProgram *p = s->programs[SPX_IPU_MODE_STATIC];
  gint at = spx_lesson_find_step (p, compute->superstep);
  SpxLessonView v = { s, SPX_IPU_MODE_STATIC, -1, at };
  g_autofree char *text = spx_lesson_expand (compute->text, &v);
  const SpxIpuStep *cs = &g_array_index (p->steps, SpxIpuStep, at);
  for (guint j = 0; j < cs->terms->len; j++)
    {
      const SpxIpuTerm *t = &g_array_index (cs->terms, SpxIpuTerm, j);
      g_autofree char *said = g_strdup_printf ("; in words, %s", t->words);
      g_assert_nonnull (strstr (text, said));
    }
}

/* "How the static planner cuts the matrix" shows a cut: its static plan
 * puts W's block-columns in more than one k-band, as many as it says. */
static void
test_cut (void)
{
  g_autoptr (SpxLesson) l = shipped ();
  const SpxLessonStep *cut = g_ptr_array_index (l->steps, 1);
  g_assert_cmpstr (cut->title, ==, "How the static planner cuts the matrix");
  g_autoptr (SpxStudy) s = study_of_step (l, 1);
  const SpxIpuProgram *p = s->programs[SPX_IPU_MODE_STATIC];
  g_assert_nonnull (p->col_group);
  g_autoptr (GHashTable) bands = g_hash_table_new (NULL, NULL);
  guint64 cols = p->k / p->block;
  for (guint64 c = 0; c < cols; c++)
    g_hash_table_add (bands, GUINT_TO_POINTER (p->col_group[c] + 1));
  guint sn = 0, sk = 0;
  g_assert_cmpint (sscanf (p->plan, "sn=%u sk=%u", &sn, &sk), ==, 2);
  g_test_message ("%s: %u k-bands", p->plan, g_hash_table_size (bands));
  g_assert_cmpuint (g_hash_table_size (bands), >, 1);
  g_assert_cmpuint (g_hash_table_size (bands), ==, sk);
  /* the text says so */
  SpxLessonView v = { s, SPX_IPU_MODE_STATIC, -1, -1 };
  g_autofree char *text = spx_lesson_expand (cut->text, &v);
  g_autofree char *plan = g_strdup_printf ("This plan is %s ", p->plan);
  g_assert_nonnull (strstr (text, plan));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lesson/shipped", test_shipped);
  g_test_add_func ("/lesson/inherit", test_inherit);
  g_test_add_func ("/lesson/errors", test_errors);
  g_test_add_func ("/lesson/expand", test_expand);
  g_test_add_func ("/lesson/counts", test_counts);
  g_test_add_func ("/lesson/counts-said", test_counts_said);
  g_test_add_func ("/lesson/cut", test_cut);
  g_test_add_func ("/lesson/words", test_words);
  return g_test_run ();
}
