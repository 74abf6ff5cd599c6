/* fuzz-spx.c: libFuzzer harness for the scenario (.spx) loader: load,
 * validate, save and load again identically, and a small one is planned
 * on teach16 */
#include "spx-ipu.h"
#include "spx-mask-gen.h"
#include "spx-scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* Big enough for every path, small enough for 10 s an input. */
#define MAX_FUZZ_BLOCKS 4096
#define MAX_FUZZ_N      1024

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-spx: %s: %s\n", what, detail ? detail : "");
  abort ();
}

static void
plan_small (SpxScenario *s)
{
  if (s->m / s->block * (s->k / s->block) > MAX_FUZZ_BLOCKS ||
      s->n > MAX_FUZZ_N)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = s->mask ? spx_mask_copy (s->mask, NULL)
    : spx_mask_generate (s->m, s->k, s->block, &s->gen, &error);
  if (mask == NULL)
    return; /* options that clash once combined: refused, fine */
  g_autoptr (SpxIpuMachine) m = spx_ipu_machine_preset ("teach16");
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    {
      g_autoptr (GError) err = NULL;
      g_autoptr (SpxIpuProgram) p = spx_ipu_plan (m, mode, mask, s->n,
                                                  s->dtype, &err);
      if ((p == NULL) == (err == NULL))
        fail ("plan", err ? err->message : "no program and no error");
    }
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  g_setenv ("SPX_MEMORY_BUDGET", "256M", TRUE);
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  SpxScenario *s = spx_scenario_load_data ("fuzz.spx", (const char *) data,
                                           size, &error);
  if ((s == NULL) == (error == NULL))
    fail ("load", "exactly one of a scenario and an error expected");
  if (s == NULL)
    {
      if (!g_str_has_prefix (error->message, "fuzz.spx"))
        fail ("message does not name the file", error->message);
      g_error_free (error);
      return 0;
    }
  if (!spx_scenario_validate (s, &error))
    fail ("validate after load", error->message);
  gsize len = 0, again_len = 0;
  g_autofree char *text = spx_scenario_to_data (s, &len);
  SpxScenario *back = spx_scenario_load_data ("again.spx", text, len, &error);
  if (back == NULL)
    fail ("reload", error->message);
  g_autofree char *again = spx_scenario_to_data (back, &again_len);
  if (len != again_len || memcmp (text, again, len) != 0)
    fail ("saved twice differently", again);
  plan_small (back);
  spx_scenario_free (back);
  spx_scenario_free (s);
  return 0;
}
