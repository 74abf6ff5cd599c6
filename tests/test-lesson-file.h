/* test-lesson-file.h: the lesson the program ships, as the tests read it */
#pragma once

#include "spx-lesson.h"

/* data/lesson/ipu-model.lesson, loaded against views; fails the test
 * when it does not load. Free with spx_lesson_free. */
static inline SpxLesson *
test_shipped_lesson (const char *const *views)
{
  g_autofree char *path = g_test_build_filename (
    G_TEST_DIST, "..", "data", "lesson", "ipu-model.lesson", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_autoptr (GError) error = NULL;
  SpxLesson *l = spx_lesson_load_data ("ipu-model.lesson", data, len, views,
                                       &error);
  g_assert_no_error (error);
  return l;
}
