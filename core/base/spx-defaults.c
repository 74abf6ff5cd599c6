/* spx-defaults.c: the one table of measuring defaults */
#include "spx-defaults.h"
#include "spx-util.h"

/* n = 1024: the default scenario's n, which the window and `model`
 * always had; a measurement at the n the model plans makes the two
 * comparable. */
static const SpxDefaults defaults = {
  .n = 1024,
  .threads = 0,
  .reps = 7,
  .warmup = 2,
  .block = 16,
  .blocks = { 1, 2, 4, 8, 16 },
  .n_blocks = 5,
  .generated_blocks = { 1, 4, 8, 16 },
  .n_generated_blocks = 4,
};

const SpxDefaults *
spx_defaults (void)
{
  return &defaults;
}

char *
spx_defaults_blocks_text (const guint *blocks, guint n, const char *sep)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%u", i ? sep : "", blocks[i]);
  return g_string_free (s, FALSE);
}

char *
spx_defaults_threads_text (guint threads)
{
  return threads == 0 ? g_strdup ("all cores")
                      : spx_count_text (threads, "thread", "threads");
}

char *
spx_defaults_describe (void)
{
  g_autofree char *blocks = spx_defaults_blocks_text (defaults.blocks,
                                                      defaults.n_blocks,
                                                      ", ");
  return g_strdup_printf ("CPU: median of %u runs after %u warm-up; a "
                          "mask's sweep re-blocks it to %s", defaults.reps,
                          defaults.warmup, blocks);
}
