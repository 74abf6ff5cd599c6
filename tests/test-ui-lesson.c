/* test-ui-lesson.c: the lesson in the window under a display: reading it
 * marks nothing unsaved (each step's scenario is the lesson's, named
 * after its step, with no file of the user's behind it); only an edit
 * does; a scenario with unsaved edits is not lost to it; the Timeline's
 * axis is broken where a step asks. */
#include "spx-render-timeline.h"
#include "spx-util.h"
#include "test-ui.h"

#include <string.h>

/* The Timeline's axis is broken at the steps that ask for it only. */
static void
assert_axis (SpxWindow *w, guint i)
{
  const SpxLessonStep *s = g_ptr_array_index (w->lesson->steps, i - 1);
  const SpxRenderTimelineData *d =
    w->view_data[SPX_RENDER_VIEW_TIMELINE];
  gboolean broken = s->timeline_fit == SPX_LESSON_FIT_BROKEN;
  g_assert_true (w->view_state.axis_break == broken);
  g_assert_true (d->axis_break == broken);
}

/* The window's title says the lesson's step i (from 1), clean. */
static void
assert_named_clean (SpxWindow *w, guint i)
{
  assert_axis (w, i);
  const char *title = gtk_window_get_title (GTK_WINDOW (w));
  g_autofree char *want = g_strdup_printf ("Sparse Explorer — %s, step %u",
                                           w->lesson->title, i);
  g_test_message ("%s", title);
  g_assert_false (spx_window_is_dirty (w));
  g_assert_cmpstr (title, ==, want);
  g_assert_null (strstr (title, "unsaved"));
  g_assert_null (w->study->path); /* saving asks for a name */
}

static void
test_clean (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  activate (w, "lesson", NULL);
  wait_idle (w);
  g_assert_true (_spx_window_lesson_active (w));
  assert_named_clean (w, 1);
  guint n = w->lesson->steps->len;
  for (guint i = 1; i < n; i++)
    {
      activate (w, "lesson-next", NULL);
      wait_idle (w);
      assert_named_clean (w, i + 1);
    }
  for (guint i = n - 1; i-- > 0;)
    {
      activate (w, "lesson-back", NULL);
      wait_idle (w);
      assert_named_clean (w, i + 1);
    }
  /* a zoom (here Ctrl+0, all of it) puts the axis back to scale */
  for (guint i = 1; i < n; i++)
    if (((SpxLessonStep *) g_ptr_array_index (w->lesson->steps, i))
          ->timeline_fit == SPX_LESSON_FIT_BROKEN)
      {
        for (guint k = 0; k < i; k++)
          activate (w, "lesson-next", NULL);
        wait_idle (w);
        g_assert_true (w->view_state.axis_break);
        spx_window_show_view (w, "timeline");
        activate (w, "timeline-zoom-all", NULL);
        g_assert_false (w->view_state.axis_break);
        for (guint k = 0; k < i; k++)
          activate (w, "lesson-back", NULL);
        wait_idle (w);
        break;
      }
  /* an edit marks it, as it would any scenario */
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spx_scenario_panel_get_control (
                               w->panel, SPX_SCENARIO_FIELD_N)), 32);
  wait_idle (w);
  g_assert_true (spx_window_is_dirty (w));
  g_autofree char *edited = g_strdup_printf ("Sparse Explorer — •%s, step 1",
                                             w->lesson->title);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (w)), ==, edited);
  window_close (w);
}

/* Starting the lesson over unsaved edits asks first: Cancel keeps them,
 * Discard goes on. */
static void
test_asks_unsaved (void)
{
  SKIP_WITHOUT_DISPLAY ();
  SpxWindow *w = window_new ();
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spx_scenario_panel_get_control (
                               w->panel, SPX_SCENARIO_FIELD_N)), 48);
  wait_idle (w);
  g_assert_true (spx_window_is_dirty (w));
  activate_answering (w, "lesson", GTK_RESPONSE_CANCEL);
  g_assert_false (_spx_window_lesson_active (w));
  g_assert_true (spx_window_is_dirty (w));
  g_assert_cmpuint (w->study->scenario->n, ==, 48);

  activate_answering (w, "lesson", GTK_RESPONSE_REJECT);
  g_assert_true (_spx_window_lesson_active (w));
  assert_named_clean (w, 1);
  window_close (w);
}

int
main (int argc, char **argv)
{
  g_autofree char *home = test_ui_init (&argc, &argv);
  g_test_add_func ("/ui/lesson/clean", test_clean);
  g_test_add_func ("/ui/lesson/asks-unsaved", test_asks_unsaved);
  return test_ui_run (home);
}
