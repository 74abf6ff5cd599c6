/* fuzz-png.c: libFuzzer harness for the PNG loader (ui/render) */
#include "spx-render-png.h"
#include "fuzz-check.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  SpxMask *mask = spx_mask_load_png_data ("fuzz.png", data, size, &error);
  fuzz_check ("fuzz.png", mask, error);
  return 0;
}
