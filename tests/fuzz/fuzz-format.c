/* fuzz-format.c: libFuzzer harness for the loader of one row of the
 * format table, the one named SPX_FUZZ_FORMAT (meson builds one harness
 * per row: fuzz-mtx, fuzz-png, …) */
#include "spx-mask-io.h"
#include "spx-render-png.h"
#include "fuzz-check.h"

#define NAME "fuzz." SPX_FUZZ_FORMAT

static const SpxFormat *format;

int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  spx_mask_png_register (); /* the rows that live in ui/render */
  format = spx_format_lookup (SPX_FUZZ_FORMAT);
  if (!spx_format_can (format, SPX_FORMAT_READS_MASK))
    {
      fprintf (stderr, "fuzz: no row reads '%s'\n", SPX_FUZZ_FORMAT);
      abort ();
    }
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  SpxMask *mask = format->load (NAME, data, size, &error);
  fuzz_check (NAME, mask, error);
  return 0;
}
