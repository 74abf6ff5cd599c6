/* spx-mask-io.c: format names and detection, load and save dispatch, and
 * the helpers the format files share */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"
#include "spx-util.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const guint8 npy_magic[] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };
static const guint8 png_magic[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
static const guint8 gzip_magic[] = { 0x1f, 0x8b };
static const guint8 zip_magic[] = { 'P', 'K', 0x03, 0x04 };
static const char mtx_banner[] = "%%MatrixMarket";

static gboolean
has_prefix (const guint8 *data, gsize len, const void *prefix, gsize n)
{
  return len >= n && memcmp (data, prefix, n) == 0;
}

/* Every format, in the order messages list them: the one place that
 * names them. */
static const struct {
  SpxFormat   format;
  const char *ext, *name;
} formats[] = {
  { SPX_FORMAT_MTX, "mtx", "Matrix Market" },
  { SPX_FORMAT_SMTX, "smtx", "DLMC" },
  { SPX_FORMAT_NPY, "npy", "NumPy" },
  { SPX_FORMAT_PNG, "png", "PNG" },
};

const char *
spx_format_to_string (SpxFormat format)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (formats[i].format == format)
      return formats[i].ext;
  return "unknown";
}

/* The extension of the last path component, or NULL. */
static const char *
extension (const char *path, gsize len)
{
  for (gsize i = len; i > 0; i--)
    {
      char c = path[i - 1];
      if (c == '/' || c == G_DIR_SEPARATOR)
        return NULL;
      if (c == '.')
        return path + i;
    }
  return NULL;
}

static SpxFormat
format_from_name (const char *path, gsize len)
{
  const char *ext = extension (path, len);
  if (ext == NULL)
    return SPX_FORMAT_UNKNOWN;
  gsize n = len - (gsize) (ext - path);
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (n == strlen (formats[i].ext) &&
        g_ascii_strncasecmp (ext, formats[i].ext, n) == 0)
      return formats[i].format;
  return SPX_FORMAT_UNKNOWN;
}

SpxFormat
spx_format_from_path (const char *path)
{
  if (path == NULL)
    return SPX_FORMAT_UNKNOWN;
  return format_from_name (path, strlen (path));
}

/* "x.mtx.gz" names a gzip-compressed .mtx: look behind the ".gz". */
static SpxFormat
format_from_gz_name (const char *name)
{
  gsize len = strlen (name);
  if (len > 3 && g_ascii_strcasecmp (name + len - 3, ".gz") == 0)
    len -= 3;
  return format_from_name (name, len);
}

static gboolean
looks_like_smtx (const guint8 *data, gsize len)
{
  SpxText t;
  guint64 v[3];
  guint n;
  spx_text_init (&t, "", data, len);
  return spx_smtx_parse_header (&t, v, &n);
}

SpxFormat
spx_format_detect (const guint8 *data, gsize len, const char *name)
{
  SpxFormat by_name = spx_format_from_path (name);

  if (has_prefix (data, len, npy_magic, sizeof npy_magic))
    return SPX_FORMAT_NPY;
  if (has_prefix (data, len, png_magic, sizeof png_magic))
    return SPX_FORMAT_PNG;
  if (has_prefix (data, len, mtx_banner, strlen (mtx_banner)))
    return SPX_FORMAT_MTX;
  /* Compressed data: the loader for the inner format refuses it with a
   * clear message. .npz archives are zip files of .npy. */
  if (has_prefix (data, len, gzip_magic, sizeof gzip_magic))
    return name != NULL ? format_from_gz_name (name) : SPX_FORMAT_UNKNOWN;
  if (has_prefix (data, len, zip_magic, sizeof zip_magic))
    return SPX_FORMAT_NPY;
  if (looks_like_smtx (data, len))
    return SPX_FORMAT_SMTX;
  /* Unrecognised content: the extension picks the loader, whose error
   * then says precisely what is wrong. */
  return by_name;
}

gboolean
spx_io_refuse_compressed (const char *name, const guint8 *data, gsize len,
                          GError **error)
{
  if (has_prefix (data, len, gzip_magic, sizeof gzip_magic))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: gzip-compressed: decompress it first", name);
      return TRUE;
    }
  if (has_prefix (data, len, zip_magic, sizeof zip_magic))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: a zip archive: .npz archives are not supported, "
                   "extract the .npy first", name);
      return TRUE;
    }
  return FALSE;
}

/* Formats registered by higher layers, by SpxFormat. */
static struct {
  SpxMaskLoadFunc load;
  SpxMaskSaveFunc save;
} registered[SPX_FORMAT_PNG + 1];

void
spx_mask_io_register (SpxFormat format, SpxMaskLoadFunc load,
                      SpxMaskSaveFunc save)
{
  g_return_if_fail (format > SPX_FORMAT_UNKNOWN && format <= SPX_FORMAT_PNG);
  registered[format].load = load;
  registered[format].save = save;
}

/* Core's own formats, and those a higher layer registered. */
static gboolean
format_available (SpxFormat format)
{
  return format != SPX_FORMAT_PNG || registered[format].load != NULL;
}

char *
spx_format_list (gboolean named)
{
  const char *items[G_N_ELEMENTS (formats) + 1];
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (format_available (formats[i].format))
      {
        char *item = named ? g_strdup_printf ("%s (.%s)", formats[i].name,
                                              formats[i].ext)
                           : g_strconcat (".", formats[i].ext, NULL);
        g_ptr_array_add (owned, item);
        items[n++] = item;
      }
  items[n] = NULL;
  return spx_join_choices (items, -1);
}

/* message without its leading "PATH: ", when it has one: messages from
 * helpers that name the raw path are named again with the shown one. */
static const char *
without_path (const char *message, const char *path)
{
  gsize n = strlen (path);
  if (strncmp (message, path, n) == 0 && g_str_has_prefix (message + n, ": "))
    return message + n + 2;
  return message;
}

/* fd mapped; GLib's message names no file ("Failed to map fd: mmap()
 * failed: REASON"), so the error says which and how large. */
static GMappedFile *
map_fd (int fd, const char *shown, GError **error)
{
  g_autoptr (GError) local = NULL;
  GMappedFile *file = g_mapped_file_new_from_fd (fd, FALSE, &local);
  if (file != NULL)
    return file;
  struct stat st;
  g_autofree char *size = g_format_size_full (
    fstat (fd, &st) == 0 ? (guint64) st.st_size : 0, G_FORMAT_SIZE_IEC_UNITS);
  const char *why = strstr (local->message, "failed: ");
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO,
               "%s: its %s could not be mapped into memory (%s)", shown, size,
               why != NULL ? why + strlen ("failed: ") : local->message);
  return NULL;
}

/* Maps path, which must be a regular file (or a link to one): a FIFO
 * would block the open, and a device or a directory has no end or no
 * bytes. Errors are SPX_MASK_ERROR_IO and name the file as shown. */
static GMappedFile *
map_regular (const char *path, const char *shown, GError **error)
{
  g_autoptr (GError) local = NULL;
  int fd = spx_open_regular (path, "a mask file", &local);
  if (fd < 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO, "%s: %s", shown,
                   without_path (local->message, path));
      return NULL;
    }
  GMappedFile *file = map_fd (fd, shown, error);
  close (fd); /* the mapping stays */
  return file;
}

static SpxMask *
load_data (SpxFormat format, const char *name, const guint8 *data, gsize len,
           GError **error)
{
  switch (format)
    {
    case SPX_FORMAT_MTX:
      return spx_mask_load_mtx_data (name, data, len, error);
    case SPX_FORMAT_SMTX:
      return spx_mask_load_smtx_data (name, data, len, error);
    case SPX_FORMAT_NPY:
      return spx_mask_load_npy_data (name, data, len, error);
    case SPX_FORMAT_PNG:
      if (registered[format].load != NULL)
        return registered[format].load (name, data, len, error);
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: PNG images are read by the graphics layer, which "
                   "this program did not load", name);
      return NULL;
    case SPX_FORMAT_UNKNOWN:
    default:
      {
        g_autofree char *list = spx_format_list (TRUE);
        g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                     "%s: unknown format: expected a %s file", name, list);
        return NULL;
      }
    }
}

SpxMask *
spx_mask_load (const char *path, SpxFormat *format, GError **error)
{
  /* Messages may reach a window: the name in them is valid UTF-8. */
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (GMappedFile) file = map_regular (path, shown, error);
  if (file == NULL)
    return NULL;
  gsize len = g_mapped_file_get_length (file);
  const guint8 *data = (const guint8 *) g_mapped_file_get_contents (file);
  if (data == NULL) /* empty files are not mapped */
    data = (const guint8 *) "";

  SpxFormat detected = spx_format_detect (data, len, path);
  if (format != NULL)
    *format = detected;
  if (spx_io_refuse_compressed (shown, data, len, error))
    return NULL;
  return load_data (detected, shown, data, len, error);
}

gboolean
spx_mask_save (const SpxMask *mask, const char *path, SpxSaveFlags flags,
               GError **error)
{
  switch (spx_format_from_path (path))
    {
    case SPX_FORMAT_MTX:
      return spx_mask_save_mtx (mask, path, flags, error);
    case SPX_FORMAT_SMTX:
      return spx_mask_save_smtx (mask, path, flags, error);
    case SPX_FORMAT_NPY:
      return spx_mask_save_npy (mask, path, flags, error);
    case SPX_FORMAT_PNG:
      if (registered[SPX_FORMAT_PNG].save != NULL)
        return registered[SPX_FORMAT_PNG].save (mask, path, flags,
                                                 error);
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: PNG images are written by the graphics layer, which "
                   "this program did not load", path);
      return FALSE;
    case SPX_FORMAT_UNKNOWN:
    default:
      {
        g_autofree char *list = spx_format_list (FALSE);
        g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                     "%s: unknown extension: expected %s", path, list);
        return FALSE;
      }
    }
}

/* Shared helpers */

char *
spx_io_excerpt (const char *p, const char *end)
{
  enum { MAX_CHARS = 32 };
  /* enough bytes for one character past the limit, so the cut shows */
  const char *stop = p + MIN ((gsize) (end - p), 4 * (MAX_CHARS + 1));
  const char *q = p;
  while (q < stop && !g_ascii_isspace (*q))
    q++;
  g_autofree char *inner = spx_escape_len (p, q - p, MAX_CHARS);
  return g_strdup_printf ("'%s'", inner);
}

static char *
describe_text_at (const SpxText *t)
{
  const char *p = t->p;
  if (p >= t->end)
    return g_strdup ("end of file");
  if (*p == '\n' || (*p == '\r' && p + 1 < t->end && p[1] == '\n'))
    return g_strdup ("end of line");
  if (*p == ' ' || *p == '\t' || *p == '\r')
    return g_strdup_printf ("a %s", *p == '\r' ? "carriage return" :
                            *p == '\t' ? "tab" : "space");
  return spx_io_excerpt (p, t->end);
}

void
spx_text_error (const SpxText *t, GError **error, SpxMaskError code,
                const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *expected = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_autofree char *got = describe_text_at (t);
  g_set_error (error, SPX_MASK_ERROR, code,
               "%s:%" G_GUINT64_FORMAT ": expected %s, got %s",
               t->name, t->line, expected, got);
}

guint64
spx_io_next_in_row (const SpxMask *mask, guint64 br, guint64 from)
{
  guint64 start = br * mask->bcols, stop = start + mask->bcols;
  guint64 i = start + from;
  while (i < stop)
    {
      guint64 word = mask->bits[i >> 6] >> (i & 63);
      if (word != 0)
        {
          i += (guint64) __builtin_ctzll (word);
          return i < stop ? i - start : mask->bcols;
        }
      i = (i | 63) + 1;
    }
  return mask->bcols;
}

char *
spx_io_alloc_output (const char *path, guint64 size, GError **error)
{
  /* Refused before asking: a request beyond the budget could take the
   * machine's memory, or abort under some allocators (sanitizers). */
  if (!spx_budget_check (size, path, error))
    return NULL;
  char *buf = size <= G_MAXSIZE ? g_try_malloc (MAX (size, 1)) : NULL;
  if (buf == NULL)
    g_set_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE,
                 "%s: could not get memory for the file's %" G_GUINT64_FORMAT
                 " bytes", path, size);
  return buf;
}

