/* spx-mask-file.c: every mask format behind one pair of calls */
#include "spx-mask-file.h"
#include "spx-render-png.h"

SpxMask *
spx_mask_file_load (const char *path, SpxFormat *format, GError **error)
{
  g_autoptr (GError) err = NULL;
  g_autoptr (GMappedFile) file = g_mapped_file_new (path, FALSE, &err);
  if (file == NULL)
    {
      g_set_error_literal (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO,
                           err->message);
      return NULL;
    }
  const guint8 *data = (const guint8 *) g_mapped_file_get_contents (file);
  gsize len = g_mapped_file_get_length (file);
  if (spx_format_detect (data, len, path) != SPX_FORMAT_PNG)
    return spx_mask_load (path, format, error);
  if (format != NULL)
    *format = SPX_FORMAT_PNG;
  return spx_mask_load_png_data (path, data, len, error);
}

gboolean
spx_mask_file_save (const SpxMask *mask, const char *path, GError **error)
{
  if (spx_format_from_path (path) == SPX_FORMAT_PNG)
    return spx_mask_save_png (mask, path, error);
  return spx_mask_save (mask, path, error);
}
