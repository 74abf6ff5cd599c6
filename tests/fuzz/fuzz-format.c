/* fuzz-format.c: libFuzzer harness for the loader of one row of the
 * format table, the one named SPX_FUZZ_FORMAT (meson builds one harness
 * per row: fuzz-mtx, fuzz-png, …). A row that reads networks opens the
 * data and loads every layer it lists. */
#include "spx-mask-io.h"
#include "spx-render-png.h"
#include "fuzz-check.h"

#include <sys/mman.h> /* memfd_create */
#include <unistd.h>

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

/* data as a network's rows get it: a file, read by offset. */
static SpxIoFile *
as_file (const guint8 *data, size_t size)
{
  int fd = memfd_create ("fuzz", 0);
  if (fd < 0 || (size > 0 && write (fd, data, size) != (ssize_t) size))
    abort ();
  SpxIoFile *file = spx_io_file_new (fd, NAME, NULL);
  if (file == NULL)
    abort ();
  return file;
}

static void
fuzz_network (const guint8 *input, size_t size)
{
  GError *error = NULL;
  GPtrArray *entries =
    g_ptr_array_new_with_free_func (spx_network_entry_free);
  SpxIoFile *file = as_file (input, size);
  gpointer handle = format->network->open (file, entries, &error);
  if (handle == NULL)
    {
      fuzz_check (NAME, NULL, error); /* frees error */
      error = NULL;
      if (entries->len != 0)
        abort (); /* a refused file lists nothing */
    }
  for (guint i = 0; i < entries->len; i++)
    {
      SpxNetworkEntry *e = entries->pdata[i];
      spx_network_entry_view (e);
      if (e->skipped != NULL)
        continue;
      SpxMask *mask = format->network->load (handle, e, &error);
      fuzz_check (NAME, mask, error); /* frees both */
      error = NULL;
    }
  if (handle != NULL)
    format->network->close (handle);
  g_ptr_array_unref (entries);
  spx_io_file_free (file);
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
