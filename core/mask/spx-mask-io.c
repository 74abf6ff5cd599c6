/* spx-mask-io.c: the table of formats, detection, load and save through
 * it, and the helpers the format files share */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"
#include "spx-util.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const guint8 gzip_magic[] = { 0x1f, 0x8b };
static const guint8 zip_magic[] = { 'P', 'K', 0x03, 0x04 };

gboolean
spx_io_has_prefix (const guint8 *data, gsize len, const void *prefix,
                   gsize n)
{
  return len >= n && memcmp (data, prefix, n) == 0;
}

gboolean
spx_io_is_zip (const guint8 *data, gsize len)
{
  return spx_io_has_prefix (data, len, zip_magic, sizeof zip_magic);
}

/* The table: core's rows, then those registered, in the order messages
 * list them; NULL-terminated. */
enum { MAX_FORMATS = 16 };
static const SpxFormat *table[MAX_FORMATS + 1] = {
  &spx_format_mtx, &spx_format_smtx, &spx_format_npy,
  &spx_format_safetensors, &spx_format_npz,
};

void
spx_format_register (const SpxFormat *format)
{
  guint n = 0;
  while (table[n] != NULL && table[n] != format)
    n++;
  g_return_if_fail (n < MAX_FORMATS);
  g_return_if_fail (table[n] == format ||
                    spx_format_lookup (format->name) == NULL);
  table[n] = format;
}

const SpxFormat *const *
spx_formats (void)
{
  return table;
}

const SpxFormat *
spx_format_lookup (const char *name)
{
  for (const SpxFormat *const *f = table; *f != NULL; f++)
    if (g_strcmp0 ((*f)->name, name) == 0)
      return *f;
  return NULL;
}

gboolean
spx_format_can (const SpxFormat *format, SpxFormatCaps caps)
{
  if (format == NULL)
    return FALSE;
  SpxFormatCaps has = (format->load != NULL ? SPX_FORMAT_READS_MASK : 0) |
                      (format->save != NULL ? SPX_FORMAT_WRITES_MASK : 0) |
                      (format->network != NULL ? SPX_FORMAT_READS_NETWORK : 0);
  return (has & caps) == caps;
}

const char *
spx_format_to_string (const SpxFormat *format)
{
  return format != NULL ? format->name : "unknown";
}

char **
spx_format_extensions (SpxFormatCaps caps, const char *prefix)
{
  GPtrArray *out = g_ptr_array_new ();
  for (const SpxFormat *const *f = table; *f != NULL; f++)
    if (spx_format_can (*f, caps))
      for (const char *const *ext = (*f)->extensions; *ext != NULL; ext++)
        g_ptr_array_add (out, g_strconcat (prefix, *ext, NULL));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* "Matrix Market (.mtx)" */
static char *
named_item (const SpxFormat *format)
{
  g_autoptr (GString) s = g_string_new (format->title);
  for (const char *const *ext = format->extensions; *ext != NULL; ext++)
    g_string_append_printf (s, "%s.%s", ext == format->extensions ? " ("
                            : ", ", *ext);
  g_string_append_c (s, ')');
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
spx_format_list (SpxFormatCaps caps, gboolean named)
{
  if (!named)
    {
      g_auto (GStrv) exts = spx_format_extensions (caps, ".");
      return spx_join_choices ((const char *const *) exts, -1);
    }
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  for (const SpxFormat *const *f = table; *f != NULL; f++)
    if (spx_format_can (*f, caps))
      g_ptr_array_add (items, named_item (*f));
  g_ptr_array_add (items, NULL);
  return spx_join_choices ((const char *const *) items->pdata, -1);
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

static const SpxFormat *
format_from_name (const char *path, gsize len)
{
  const char *ext = extension (path, len);
  if (ext == NULL)
    return NULL;
  gsize n = len - (gsize) (ext - path);
  for (const SpxFormat *const *f = table; *f != NULL; f++)
    for (const char *const *e = (*f)->extensions; *e != NULL; e++)
      if (n == strlen (*e) && g_ascii_strncasecmp (ext, *e, n) == 0)
        return *f;
  return NULL;
}

const SpxFormat *
spx_format_from_path (const char *path)
{
  if (path == NULL)
    return NULL;
  return format_from_name (path, strlen (path));
}

/* "x.mtx.gz" names a gzip-compressed .mtx: look behind the ".gz". */
static const SpxFormat *
format_from_gz_name (const char *name)
{
  gsize len = strlen (name);
  if (len > 3 && g_ascii_strcasecmp (name + len - 3, ".gz") == 0)
    len -= 3;
  return format_from_name (name, len);
}

const SpxFormat *
spx_format_detect (const guint8 *data, gsize len, const char *name)
{
  for (const SpxFormat *const *f = table; *f != NULL; f++)
    if ((*f)->detect != NULL && (*f)->detect (data, len))
      return *f;
  /* Compressed data: the loader for the inner format refuses it with a
   * clear message. */
  if (spx_io_has_prefix (data, len, gzip_magic, sizeof gzip_magic))
    return name != NULL ? format_from_gz_name (name) : NULL;
  /* Unrecognised content: the extension picks the loader, whose error
   * then says precisely what is wrong. */
  return spx_format_from_path (name);
}

gboolean
spx_io_refuse_compressed (const char *name, const guint8 *data, gsize len,
                          GError **error)
{
  if (spx_io_has_prefix (data, len, gzip_magic, sizeof gzip_magic))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: gzip-compressed: decompress it first", name);
      return TRUE;
    }
  if (spx_io_is_zip (data, len))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: a zip archive, not a mask file (an .npz archive of "
                   ".npy files opens as a network: `sparse-explorer layers "
                   "FILE`)", name);
      return TRUE;
    }
  return FALSE;
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

/* path opened, if a regular file (or a link to one): a FIFO would block
 * the open, and a device or a directory has no end or no bytes. Errors
 * are SPX_MASK_ERROR_IO and name the file as shown. */
static int
open_shown (const char *path, const char *shown, GError **error)
{
  g_autoptr (GError) local = NULL;
  int fd = spx_open_regular (path, "a mask file", &local);
  if (fd < 0)
    g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO, "%s: %s", shown,
                 without_path (local->message, path));
  return fd;
}

GMappedFile *
spx_mask_io_map (const char *path, const char *shown, GError **error)
{
  int fd = open_shown (path, shown, error);
  if (fd < 0)
    return NULL;
  GMappedFile *file = map_fd (fd, shown, error);
  close (fd); /* the mapping stays */
  return file;
}

SpxIoFile *
spx_io_file_open (const char *path, const char *shown, GError **error)
{
  int fd = open_shown (path, shown, error);
  return fd >= 0 ? spx_io_file_new (fd, shown, error) : NULL;
}

/* A network file given for a mask: what it holds, and where it opens
 * (or why it does not). */
static SpxMask *
refuse_network (const char *path, const char *shown, const SpxFormat *row,
                GError **error)
{
  g_autoptr (SpxNetwork) network = spx_network_open (path, error);
  if (network == NULL)
    return NULL;
  guint layers = spx_network_n_layers (network);
  /* quoted for a shell only when it must be */
  gboolean plain = shown[strspn (shown, "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                 "._+-/,:@%=")] == '\0';
  g_autofree char *quoted = plain ? g_strdup (shown) : g_shell_quote (shown);
  g_autofree char *count = spx_count_text (layers, "layer", "layers");
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
               "%s: a network of %s (%s), not one mask: open it with "
               "`sparse-explorer layers %s` or in the window", shown, count,
               row->title, quoted);
  return NULL;
}

/* The loading thread's warning: loads run on workers too. */
static GPrivate load_warning = G_PRIVATE_INIT (g_free);

void
spx_mask_io_warn (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_private_replace (&load_warning, g_strdup_vprintf (format, args));
  va_end (args);
}

char *
spx_mask_io_take_warning (void)
{
  char *text = g_private_get (&load_warning);
  g_private_set (&load_warning, NULL); /* set does not free it */
  return text;
}

SpxMask *
spx_mask_load (const char *path, const SpxFormat **format, GError **error)
{
  g_private_replace (&load_warning, NULL);
  /* Messages may reach a window: the name in them is valid UTF-8. */
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (GMappedFile) file = spx_mask_io_map (path, shown, error);
  if (file == NULL)
    return NULL;
  gsize len = g_mapped_file_get_length (file);
  const guint8 *data = (const guint8 *) g_mapped_file_get_contents (file);
  if (data == NULL) /* empty files are not mapped */
    data = (const guint8 *) "";

  const SpxFormat *detected = spx_format_detect (data, len, path);
  if (format != NULL)
    *format = detected;
  if (spx_format_can (detected, SPX_FORMAT_READS_NETWORK))
    return refuse_network (path, shown, detected, error);
  if (spx_io_refuse_compressed (shown, data, len, error))
    return NULL;
  if (!spx_format_can (detected, SPX_FORMAT_READS_MASK))
    {
      g_autofree char *list = spx_format_list (SPX_FORMAT_READS_MASK, TRUE);
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: unknown format: expected a %s file", shown, list);
      return NULL;
    }
  return detected->load (shown, data, len, error);
}

gboolean
spx_mask_save (const SpxMask *mask, const char *path, SpxSaveFlags flags,
               GError **error)
{
  const SpxFormat *format = spx_format_from_path (path);
  if (!spx_format_can (format, SPX_FORMAT_WRITES_MASK))
    {
      g_autofree char *list = spx_format_list (SPX_FORMAT_WRITES_MASK, FALSE);
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: unknown extension: expected %s", path, list);
      return FALSE;
    }
  return format->save (mask, path, flags, error);
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

