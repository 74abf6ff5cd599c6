/* fuzz-format.c: libFuzzer harness for the loader of one row of the
 * format table, the one named SPX_FUZZ_FORMAT (meson builds one harness
 * per row: fuzz-mtx, fuzz-png, …). A row that reads networks opens the
 * data and loads every layer it lists. */
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
  if (!spx_format_can (format, SPX_FORMAT_READS_MASK) &&
      !spx_format_can (format, SPX_FORMAT_READS_NETWORK))
    {
      fprintf (stderr, "fuzz: no row reads '%s'\n", SPX_FUZZ_FORMAT);
      abort ();
    }
  return 0;
}

static void
fuzz_network (const guint8 *data, size_t size)
{
  GError *error = NULL;
  GPtrArray *entries = g_ptr_array_new ();
  gpointer handle = format->network->open (NAME, data, size, entries,
                                           &error);
  if (handle == NULL)
    {
      fuzz_check (NAME, NULL, error);
      if (entries->len != 0)
        abort (); /* a refused file lists nothing */
    }
  for (guint i = 0; i < entries->len; i++)
    {
      SpxNetworkEntry *e = entries->pdata[i];
      spx_network_entry_view (e);
      if (e->skipped == NULL)
        fuzz_check (NAME, format->network->load (handle, e, &error), error);
      g_free (e->name);
      g_free (e->skipped);
      g_free (e);
    }
  if (handle != NULL)
    format->network->close (handle);
  g_ptr_array_unref (entries);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  if (format->network != NULL)
    {
      fuzz_network (data, size);
      return 0;
    }
  GError *error = NULL;
  SpxMask *mask = format->load (NAME, data, size, &error);
  fuzz_check (NAME, mask, error);
  return 0;
}
