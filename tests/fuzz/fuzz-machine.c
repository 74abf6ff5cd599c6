/* fuzz-machine.c: libFuzzer harness for machine key files: load,
 * validate, save and load again to the same machine, and plan a small
 * mask on it */
#include "spx-ipu.h"
#include "spx-mask-gen.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static SpxMask *small_mask;

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-machine: %s: %s\n", what, detail ? detail : "");
  abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* a machine of many tiles must be refused, not take the fuzzer down */
  g_setenv ("SPX_MEMORY_BUDGET", "256M", TRUE);
  SpxGenOptions gen;
  spx_gen_options_init (&gen);
  gen.density = 0.25;
  small_mask = spx_mask_generate (64, 64, 8, &gen, NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  g_autoptr (SpxIpuMachine) m =
    spx_ipu_machine_load_data ("fuzz.machine", (const char *) data, size,
                               &error);
  if ((m == NULL) == (error == NULL))
    fail ("load", "exactly one of a machine and an error expected");
  if (m == NULL)
    {
      if (!g_str_has_prefix (error->message, "fuzz.machine"))
        fail ("message does not name the file", error->message);
      g_error_free (error);
      return 0;
    }
  if (!spx_ipu_machine_validate (m, &error))
    fail ("validate after load", error->message);
  gsize len = 0;
  g_autofree char *text = spx_ipu_machine_to_data (m, &len);
  g_autoptr (SpxIpuMachine) back =
    spx_ipu_machine_load_data ("again.machine", text, len, &error);
  if (back == NULL)
    fail ("reload", error->message);
  if (!spx_ipu_machine_equal (m, back))
    fail ("saved and read back differently", text);
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    {
      g_autoptr (GError) err = NULL;
      g_autoptr (SpxIpuProgram) p = spx_ipu_plan (back, mode, small_mask, 16,
                                                  SPX_DTYPE_FP16, &err);
      if ((p == NULL) == (err == NULL))
        fail ("plan", err ? err->message : "no program and no error");
    }
  return 0;
}
