/* spx-mask-io-npz.c: NumPy .npz archives, as networks
 *
 * A zip of .npy members, stored (numpy.savez) or deflated
 * (savez_compressed), read through libzip from the file (by offset, as
 * SpxIoFile reads: a file cut short fails a read, not the program). open
 * reads each member's .npy header (its first bytes, inflated if need
 * be); load streams one member through a fixed buffer into its mask, so
 * that no member is ever held whole. An entry is named by its member
 * without ".npy". */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"

#include <string.h>
#include <zip.h>

/* Deflate makes at most about 1032 bytes of one: a member declaring more
 * is a bomb. */
#define MAX_RATIO 1032
#define CHUNK SPX_IO_CHUNK

typedef struct {
  zip_uint64_t index;
  guint64      size;  /* its bytes, as the archive declares them */
  gsize        start; /* where its items begin, past the .npy header */
  SpxIoArray   array;
  char        *label; /* "FILE: member 'w.npy'", for messages */
} Member;

typedef struct {
  const char *name;    /* the file, as messages show it */
  SpxIoFile  *file;    /* the network's */
  gint64      at;      /* where libzip reads next */
  zip_error_t failed;  /* why a read failed, for libzip */
  zip_t      *zip;
  GHashTable *members; /* entry name → Member * */
} Npz;

/* The first member's local header names an .npy: numpy's archives. */
static gboolean
detect_npz (const guint8 *data, gsize len)
{
  if (!spx_io_is_zip (data, len) || len < 30)
    return FALSE;
  gsize name_len = (gsize) data[26] | (gsize) data[27] << 8;
  return name_len >= 4 && 30 + name_len <= len &&
         g_ascii_strncasecmp ((const char *) data + 30 + name_len - 4, ".npy",
                              4) == 0;
}

static void
member_free (gpointer p)
{
  Member *m = p;
  g_free (m->label);
  g_free (m);
}

static void
npz_close (gpointer handle)
{
  Npz *z = handle;
  if (z == NULL)
    return;
  if (z->zip != NULL)
    zip_discard (z->zip);
  g_hash_table_unref (z->members);
  zip_error_fini (&z->failed);
  g_free (z);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Npz, npz_close)

static gboolean
zip_failed (GError **error, const char *label, const char *why)
{
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID, "%s: %s",
               label, why);
  return FALSE;
}

/* n bytes of f into buf: FALSE with an error when it ends before or
 * libzip fails (a CRC, inflating). */
static gboolean
read_full (zip_file_t *f, guint8 *buf, guint64 n, const char *label,
           GError **error)
{
  guint64 done = 0;
  while (done < n)
    {
      zip_int64_t got = zip_fread (f, buf + done, n - done);
      if (got < 0)
        return zip_failed (error, label, zip_file_strerror (f));
      if (got == 0)
        {
          g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                       "%s: ends after %" G_GUINT64_FORMAT " of its %"
                       G_GUINT64_FORMAT " bytes", label, done, n);
          return FALSE;
        }
      done += (guint64) got;
    }
  return TRUE;
}

/* Its .npy header's bytes (m->start of them) read from f. */
static guint8 *
header_bytes (zip_file_t *f, Member *m, GError **error)
{
  guint8 pre[SPX_NPY_PREAMBLE];
  gsize have = (gsize) MIN (m->size, sizeof pre);
  if (!read_full (f, pre, have, m->label, error))
    return NULL;
  m->start = spx_npy_header_end (m->label, pre, m->size, error);
  if (m->start == 0)
    return NULL;
  guint8 *header = spx_budget_alloc0 (m->start, 1, m->label, error);
  if (header == NULL)
    return NULL;
  have = MIN (have, m->start);
  memcpy (header, pre, have);
  if (!read_full (f, header + have, m->start - have, m->label, error))
    g_clear_pointer (&header, g_free);
  return header;
}

/* Its .npy header, read and parsed into m. FALSE with *skipped set when
 * it holds no numbers (complex, strings) or a variant not read here;
 * FALSE with an error when it lies. */
static gboolean
read_header (zip_t *zip, Member *m, char **skipped, GError **error)
{
  zip_file_t *f = zip_fopen_index (zip, m->index, 0);
  if (f == NULL)
    return zip_failed (error, m->label, zip_strerror (zip));
  g_autoptr (GError) local = NULL;
  g_autofree guint8 *header = header_bytes (f, m, &local);
  zip_fclose (f);
  gsize shape_at;
  const char *refused = NULL;
  if (header != NULL &&
      spx_npy_parse_header (m->label, header, m->start, &m->array,
                            &shape_at, &refused, &local))
    return TRUE;
  if (g_error_matches (local, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT))
    *skipped = refused != NULL
      ? g_strdup_printf ("%s items have no zero test here", refused)
      : g_strdup (local->message + strlen (m->label) + 2);
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

/* The bytes after the header are as many as its shape needs. */
static gboolean
check_size (const Member *m, GError **error)
{
  guint64 bytes;
  char descr[8];
  spx_npy_descr (&m->array, descr);
  if (m->array.n_dims > SPX_NETWORK_MAX_DIMS)
    return TRUE; /* listed as skipped */
  if (!spx_io_array_bytes (&m->array, &bytes))
    return zip_failed (error, m->label, "its shape has more bytes than 64 "
                       "bits can count");
  if (bytes != m->size - m->start)
    {
      g_autofree char *shape = spx_io_array_shape (&m->array, "()");
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s: shape %s of %s needs %" G_GUINT64_FORMAT " bytes, "
                   "but %" G_GUINT64_FORMAT " follow its header", m->label,
                   shape, descr, bytes, m->size - m->start);
      return FALSE;
    }
  return TRUE;
}

/* Why a member is not read, or NULL; FALSE with an error when the
 * archive lies about it. */
static gboolean
check_member (const zip_stat_t *st, const char *label, char **skipped,
              GError **error)
{
  if (!g_str_has_suffix (st->name, ".npy"))
    *skipped = g_strdup ("not an .npy member");
  else if ((st->valid & ZIP_STAT_ENCRYPTION_METHOD) &&
           st->encryption_method != ZIP_EM_NONE)
    *skipped = g_strdup ("encrypted");
  else if (!zip_compression_method_supported (st->comp_method, 0))
    *skipped = g_strdup_printf ("compressed with method %u, which libzip "
                                "here does not read", st->comp_method);
  else if (st->comp_method == ZIP_CM_STORE && st->size != st->comp_size)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s: stored, yet declares %" G_GUINT64_FORMAT " bytes "
                   "in %" G_GUINT64_FORMAT, label, (guint64) st->size,
                   (guint64) st->comp_size);
      return FALSE;
    }
  else if (st->comp_method == ZIP_CM_DEFLATE &&
           st->size / MAX_RATIO > st->comp_size + 1024)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s: declares %" G_GUINT64_FORMAT " bytes from %"
                   G_GUINT64_FORMAT " deflated, more than deflate can make "
                   "(a zip bomb?)", label, (guint64) st->size,
                   (guint64) st->comp_size);
      return FALSE;
    }
  return TRUE;
}

/* The entry's shape and dtype from its header. */
static void
describe (SpxNetworkEntry *e, const SpxIoArray *array)
{
  spx_npy_descr (array, e->dtype);
  if (array->n_dims > SPX_NETWORK_MAX_DIMS)
    e->skipped = g_strdup_printf ("%u-D: not a matrix or a convolution "
                                  "weight", array->n_dims);
  else
    {
      e->n_dims = array->n_dims;
      memcpy (e->shape, array->shape, sizeof e->shape);
    }
}

/* The entry for member i (none for a folder). */
static gboolean
read_member (Npz *z, zip_uint64_t i, GPtrArray *entries, GError **error)
{
  zip_stat_t st;
  zip_stat_init (&st);
  if (zip_stat_index (z->zip, i, 0, &st) != 0)
    return zip_failed (error, z->name, zip_strerror (z->zip));
  if (g_str_has_suffix (st.name, "/"))
    return TRUE;
  g_autofree char *esc = spx_escape (st.name);
  g_autofree char *label = g_strdup_printf ("%s: member '%s'", z->name, esc);
  char *name = g_str_has_suffix (st.name, ".npy")
    ? g_strndup (st.name, strlen (st.name) - 4) : g_strdup (st.name);
  if (g_hash_table_contains (z->members, name))
    {
      g_free (name);
      return zip_failed (error, label, "a second member of this name");
    }
  Member *m = g_new0 (Member, 1);
  m->index = i;
  m->size = st.size;
  m->label = g_steal_pointer (&label);
  g_hash_table_insert (z->members, name, m);
  SpxNetworkEntry *e = g_new0 (SpxNetworkEntry, 1);
  e->name = g_strdup (name);
  g_ptr_array_add (entries, e);
  if (!check_member (&st, m->label, &e->skipped, error))
    return FALSE;
  if (e->skipped != NULL)
    return TRUE;
  if (!read_header (z->zip, m, &e->skipped, error))
    return e->skipped != NULL;
  describe (e, &m->array);
  return check_size (m, error);
}

/* libzip's source: the file, read by offset. */
static zip_int64_t
read_source (void *data, void *out, zip_uint64_t len, zip_source_cmd_t cmd)
{
  Npz *z = data;
  gsize got = 0;
  switch (cmd)
    {
    case ZIP_SOURCE_OPEN:
      z->at = 0;
      return 0;
    case ZIP_SOURCE_READ:
      if (!spx_io_file_read_some (z->file, (guint64) z->at, out, len, &got,
                                  NULL))
        {
          zip_error_set (&z->failed, ZIP_ER_READ, EIO);
          return -1;
        }
      z->at += (gint64) got;
      return (zip_int64_t) got;
    case ZIP_SOURCE_SEEK:
      {
        zip_int64_t at = zip_source_seek_compute_offset (
          (zip_uint64_t) z->at, spx_io_file_size (z->file), out, len,
          &z->failed);
        if (at < 0)
          return -1;
        z->at = at;
        return 0;
      }
    case ZIP_SOURCE_TELL:
      return z->at;
    case ZIP_SOURCE_STAT:
      {
        zip_stat_t *st = out;
        zip_stat_init (st);
        st->size = spx_io_file_size (z->file);
        st->valid |= ZIP_STAT_SIZE;
        return sizeof *st;
      }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data (&z->failed, out, len);
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap (
        ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT,
        ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL,
        ZIP_SOURCE_SUPPORTS, -1);
    default: /* CLOSE, FREE: nothing is held */
      return 0;
    }
}

static gpointer
npz_open (SpxIoFile *file, GPtrArray *entries, GError **error)
{
  zip_error_t why;
  zip_error_init (&why);
  g_autoptr (Npz) z = g_new0 (Npz, 1);
  const char *name = spx_io_file_name (file);
  z->name = name;
  z->file = file;
  zip_error_init (&z->failed);
  z->members = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      member_free);
  zip_source_t *source = zip_source_function_create (read_source, z, &why);
  if (source != NULL)
    {
      z->zip = zip_open_from_source (source, ZIP_RDONLY | ZIP_CHECKCONS,
                                     &why);
      if (z->zip == NULL)
        zip_source_free (source);
    }
  if (z->zip == NULL)
    g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                 "%s: %s; libzip: %s", name,
                 zip_error_code_zip (&why) == ZIP_ER_EXISTS
                 ? "two members of one name"
                 : "expected a zip archive of .npy files",
                 zip_error_strerror (&why));
  zip_error_fini (&why);
  if (z->zip == NULL)
    return NULL;
  guint first = entries->len;
  zip_int64_t n = zip_get_num_entries (z->zip, 0);
  for (zip_int64_t i = 0; i < n; i++)
    if (spx_cancelled (error) ||
        !read_member (z, (zip_uint64_t) i, entries, error))
      {
        g_ptr_array_remove_range (entries, first, entries->len - first);
        return NULL;
      }
  return g_steal_pointer (&z);
}

/* The member's items, a chunk at a time, and nothing after them. */
static gboolean
scan_member (zip_file_t *f, const Member *m, SpxMask *mask, GError **error)
{
  g_autofree guint8 *buf = g_malloc (CHUNK);
  guint64 skip = m->start, left = m->size - m->start;
  guint size = m->array.size;
  SpxIoScan scan;
  spx_io_scan_init (&scan, &m->array, mask);
  while (skip > 0)
    {
      guint64 n = MIN (skip, CHUNK);
      if (!read_full (f, buf, n, m->label, error))
        return FALSE;
      skip -= n;
    }
  while (left > 0)
    {
      guint64 n = MIN (left, CHUNK / size * size);
      if (!read_full (f, buf, n, m->label, error) ||
          !spx_io_scan (&scan, buf, n / size, error))
        return FALSE;
      left -= n;
    }
  zip_int64_t more = zip_fread (f, buf, 1);
  if (more < 0)
    return zip_failed (error, m->label, zip_file_strerror (f));
  if (more > 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s: inflates to more than the %" G_GUINT64_FORMAT
                   " bytes the archive declares (a zip bomb?)", m->label,
                   m->size);
      return FALSE;
    }
  return TRUE;
}

static SpxMask *
npz_load (gpointer handle, const SpxNetworkEntry *entry, GError **error)
{
  Npz *z = handle;
  const Member *m = g_hash_table_lookup (z->members, entry->name);
  g_return_val_if_fail (m != NULL, NULL);
  g_autoptr (SpxMask) mask = spx_mask_new (entry->rows, entry->cols, 1,
                                           error);
  if (mask == NULL)
    {
      g_prefix_error (error, "%s: ", m->label);
      return NULL;
    }
  zip_file_t *f = zip_fopen_index (z->zip, m->index, 0);
  if (f == NULL)
    {
      zip_failed (error, m->label, zip_strerror (z->zip));
      return NULL;
    }
  gboolean ok = scan_member (f, m, mask, error);
  zip_fclose (f);
  return ok ? g_steal_pointer (&mask) : NULL;
}

static const SpxNetworkClass npz_network = {
  .open = npz_open,
  .load = npz_load,
  .close = npz_close,
};

const SpxFormat spx_format_npz = {
  .name = "npz",
  .title = "NumPy archive",
  .extensions = (const char *const[]) { "npz", NULL },
  .detect = detect_npz,
  .network = &npz_network,
};
