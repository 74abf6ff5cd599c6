/* fuzz-smtx.c: libFuzzer harness for the DLMC (.smtx) loader */
#include "spx-mask-io.h"
#include "fuzz-check.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_load_smtx_data ("fuzz.smtx", data, size, &error);
  fuzz_check ("fuzz.smtx", mask, error);
  return 0;
}
