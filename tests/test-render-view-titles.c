/* test-render-view-titles.c: every view draws the user's title (the
 * style's: --title, Export's Title) in place of its own, wrapped, never
 * cut; the Timeline's term panel says each term in words, the model's
 * own (spx_ipu_terms_say's). What a picture says is read from the
 * record of the text it drew. */
#include "spx-render-views.h"
#include "test-small-study.h"

#include <string.h>

static const char long_title[] =
  "Figure 4: how the static planner spreads a quarter-dense 64 × 64 "
  "mask over sixteen tiles, for a paper";

static SpxRenderViewState
state_of (SpxStudy *s, gint step)
{
  return (SpxRenderViewState) {
    .mask = s->scenario->mask, .programs = s->programs,
    .mode = SPX_IPU_MODE_STATIC, .tile = -1, .step = step,
    .lane = SPX_IPU_MODE_STATIC,
    .superstep = spx_ipu_program_first_exchange (
      s->programs[SPX_IPU_MODE_STATIC]) };
}

/* The texts view draws of st at width × height with style. */
static GPtrArray *
drawn_texts (const SpxRenderView *view, const SpxRenderViewState *st,
             double width, double height, const SpxRenderStyle *style)
{
  g_autofree gpointer data = g_malloc0 (view->data_size);
  spx_render_view_fill (view, st, data);
  GPtrArray *drawn = g_ptr_array_new_with_free_func (spx_text_drawn_free);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24,
                                                   (int) width, (int) height);
  cairo_t *cr = cairo_create (s);
  spx_render_record_text (cr, drawn);
  view->draw (cr, width, height, data, style);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  return drawn;
}

/* The drawn text that is text, or that contains part when whole is
 * FALSE; NULL for none. */
static const SpxTextDrawn *
find_text (GPtrArray *drawn, const char *text, gboolean whole)
{
  for (guint i = 0; i < drawn->len; i++)
    {
      const SpxTextDrawn *d = drawn->pdata[i];
      if (whole ? g_str_equal (d->text, text) : strstr (d->text, text) != NULL)
        return d;
    }
  return NULL;
}

/* Each view's own title draws these words (a part of it that names
 * what it shows), the user's title never. */
static const struct {
  const char *view, *own;
} own_titles[] = {
  { "mask", " blocks · density " },
  { "tiles", "teach16 · static · " },
  { "exchange", "static · step " },
  { "timeline", "BSP supersteps" },
};

/* Every view: its own title without the user's; with it, the user's
 * whole, on more than one line at this width, and its own gone. An
 * empty title is its own. */
static void
test_every_view (void)
{
  g_autoptr (SpxStudy) study = test_small_study ();
  SpxRenderViewState st = state_of (study, -1);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  for (guint i = 0; i < G_N_ELEMENTS (own_titles); i++)
    {
      const SpxRenderView *v = spx_render_view_find (own_titles[i].view);
      g_assert_nonnull (v);
      style.title = "";
      g_autoptr (GPtrArray) own = drawn_texts (v, &st, 480, 400, &style);
      g_assert_nonnull (find_text (own, own_titles[i].own, FALSE));
      g_assert_null (find_text (own, long_title, FALSE));
      style.title = long_title;
      g_autoptr (GPtrArray) set = drawn_texts (v, &st, 480, 400, &style);
      const SpxTextDrawn *t = find_text (set, long_title, TRUE);
      g_assert_nonnull (t);
      g_assert_cmpuint (t->lines, >, 1);
      g_assert_false (t->ellipsized);
      g_assert_null (find_text (set, own_titles[i].own, FALSE));
      /* a wide picture: one line */
      g_autoptr (GPtrArray) wide = drawn_texts (v, &st, 1400, 500, &style);
      g_assert_cmpuint (find_text (wide, long_title, TRUE)->lines, ==, 1);
    }
}

/* The static program's first compute step with terms. */
static gint
compute_step (const SpxIpuProgram *p)
{
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      if (s->kind == SPX_STEP_COMPUTE && s->terms != NULL &&
          s->terms->len > 1)
        return (gint) i;
    }
  g_assert_not_reached ();
}

/* The selected step's every term in words, as the model says it, drawn
 * whole in the panel (wrapped where the panel is narrow), also at the
 * size the view has in a small window; nothing selected: no words. */
static void
test_timeline_words (void)
{
  g_autoptr (SpxStudy) study = test_small_study ();
  const SpxIpuProgram *p = study->programs[SPX_IPU_MODE_STATIC];
  gint step = compute_step (p);
  const GArray *terms = g_array_index (p->steps, SpxIpuStep, step).terms;
  SpxRenderViewState st = state_of (study, step);
  SpxRenderStyle style;
  spx_render_style_init (&style, SPX_THEME_LIGHT);
  const SpxRenderView *v = spx_render_view_find ("timeline");
  g_autoptr (GPtrArray) drawn = drawn_texts (v, &st, 1024, 768, &style);
  g_autoptr (GPtrArray) narrow = drawn_texts (v, &st, 520, 900, &style);
  /* the view's size in a window of 1024 × 768: the panel keeps room */
  g_autoptr (GPtrArray) view = drawn_texts (v, &st, 720, 560, &style);
  guint wrapped = 0;
  for (guint i = 0; i < terms->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (terms, SpxIpuTerm, i);
      g_assert_nonnull (t->words);
      g_assert_cmpuint (strlen (t->words), >, 20);
      const SpxTextDrawn *d = find_text (drawn, t->words, TRUE);
      g_assert_nonnull (d);
      g_assert_false (d->ellipsized);
      g_assert_nonnull (find_text (view, t->words, TRUE));
      d = find_text (narrow, t->words, TRUE);
      g_assert_nonnull (d);
      wrapped += d->lines > 1;
    }
  g_assert_cmpuint (wrapped, >, 0);
  st.step = -1;
  g_autoptr (GPtrArray) none = drawn_texts (v, &st, 1024, 768, &style);
  const SpxIpuTerm *first = &g_array_index (terms, SpxIpuTerm, 0);
  g_assert_null (find_text (none, first->words, TRUE));
  g_assert_nonnull (find_text (none, "Click a superstep", FALSE));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/view-title/every-view", test_every_view);
  g_test_add_func ("/render/view-title/timeline-words", test_timeline_words);
  return g_test_run ();
}
