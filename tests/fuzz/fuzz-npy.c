/* fuzz-npy.c: libFuzzer harness for the NumPy (.npy) loader */
#include "spx-mask-io.h"
#include "fuzz-check.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_load_npy_data ("fuzz.npy", data, size, &error);
  fuzz_check ("fuzz.npy", mask, error);
  return 0;
}
