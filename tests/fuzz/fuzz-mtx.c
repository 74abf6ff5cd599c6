/* fuzz-mtx.c: libFuzzer harness for the Matrix Market (.mtx) loader */
#include "spx-mask-io.h"
#include "fuzz-check.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_load_mtx_data ("fuzz.mtx", data, size, &error);
  fuzz_check ("fuzz.mtx", mask, error);
  return 0;
}
