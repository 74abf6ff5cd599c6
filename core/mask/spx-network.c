/* spx-network.c: a network's entries from a network file (through its
 * row of the format table), a mask file, or a folder of both */
#include "spx-network.h"
#include "spx-mask-io.h"
#include "spx-util.h"

#include <string.h>
#include <sys/stat.h>

/* Folders nested deeper than this are not walked (and links to folders
 * are not followed): a loop of links ends. */
#define MAX_DEPTH 32

/* Where entries come from: a network file's row and handle, or one mask
 * file. */
typedef struct {
  const SpxFormat *row;     /* a row that reads networks; NULL: a mask */
  char            *path;    /* the mask file */
  SpxIoFile       *file;    /* a network file: open while handle lives */
  gpointer         handle;
  GPtrArray       *own;     /* the row's entries, as it made them */
  GMutex           lock;
} Source;

typedef struct {
  guint source, index; /* in sources, and in its own entries */
} Ref;

struct _SpxNetwork {
  char      *path;
  const char *format;
  GPtrArray *entries; /* SpxNetworkEntry *: names from the folder */
  GArray    *refs;    /* Ref, one per entry */
  GPtrArray *sources; /* Source * */
};

void
spx_network_entry_free (gpointer p)
{
  SpxNetworkEntry *e = p;
  g_free (e->name);
  g_free (e->skipped);
  g_free (e);
}

static void
source_free (gpointer p)
{
  Source *s = p;
  if (s->handle != NULL)
    s->row->network->close (s->handle);
  g_clear_pointer (&s->file, spx_io_file_free);
  g_clear_pointer (&s->own, g_ptr_array_unref);
  g_free (s->path);
  g_mutex_clear (&s->lock);
  g_free (s);
}

void
spx_network_free (SpxNetwork *network)
{
  if (network == NULL)
    return;
  g_ptr_array_unref (network->entries);
  g_array_unref (network->refs);
  g_ptr_array_unref (network->sources);
  g_free (network->path);
  g_free (network);
}

static SpxNetwork *
network_new (const char *path, const char *format)
{
  SpxNetwork *n = g_new0 (SpxNetwork, 1);
  n->path = g_strdup (path);
  n->format = format;
  n->entries = g_ptr_array_new_with_free_func (spx_network_entry_free);
  n->refs = g_array_new (FALSE, FALSE, sizeof (Ref));
  n->sources = g_ptr_array_new_with_free_func (source_free);
  return n;
}

void
spx_network_entry_view (SpxNetworkEntry *e)
{
  const guint64 *s = e->shape;
  e->rows = e->cols = 0;
  if (e->skipped != NULL)
    return;
  if (e->n_dims == 2 || e->n_dims == 4)
    {
      guint64 cols = s[1];
      for (guint d = 2; d < e->n_dims; d++)
        if (!g_uint64_checked_mul (&cols, cols, s[d]))
          cols = 0;
      if (s[0] != 0 && cols != 0)
        {
          e->rows = s[0];
          e->cols = cols;
          return;
        }
      e->skipped = g_strdup ("empty: a dimension is 0");
    }
  else if (e->n_dims == 0)
    e->skipped = g_strdup ("a scalar");
  else if (e->n_dims == 1)
    e->skipped = g_strdup ("1-D: a bias or a norm");
  else
    e->skipped = g_strdup_printf ("%u-D: not a matrix or a convolution "
                                  "weight", e->n_dims);
}

/* Adds source's entries, their names after prefix. */
static void
add_source (SpxNetwork *n, Source *source, const char *prefix)
{
  guint si = n->sources->len;
  g_mutex_init (&source->lock);
  g_ptr_array_add (n->sources, source);
  for (guint i = 0; i < source->own->len; i++)
    {
      const SpxNetworkEntry *own = source->own->pdata[i];
      SpxNetworkEntry *e = g_new0 (SpxNetworkEntry, 1);
      *e = *own;
      e->name = prefix != NULL ? g_strconcat (prefix, own->name, NULL)
                               : g_strdup (own->name);
      e->skipped = g_strdup (own->skipped);
      spx_network_entry_view (e);
      g_ptr_array_add (n->entries, e);
      Ref ref = { si, i };
      g_array_append_val (n->refs, ref);
    }
}

/* A source of one entry, named name, of a file of row's. */
static Source *
single_source (const char *path, const char *name, const SpxFormat *row,
               SpxNetworkEntry **entry)
{
  Source *s = g_new0 (Source, 1);
  SpxNetworkEntry *e = g_new0 (SpxNetworkEntry, 1);
  s->path = g_strdup (path);
  s->own = g_ptr_array_new_with_free_func (spx_network_entry_free);
  e->name = g_strdup (name);
  g_strlcpy (e->dtype, spx_format_to_string (row), sizeof e->dtype);
  e->n_dims = 2;
  g_ptr_array_add (s->own, e);
  *entry = e;
  return s;
}

/* A mask file: one entry, its shape read now (the file is read again when
 * loaded); a file that does not load is listed as skipped, with why. */
static Source *
mask_source (const char *path, const char *name, const SpxFormat *row)
{
  SpxNetworkEntry *e;
  Source *s = single_source (path, name, row, &e);
  g_autoptr (GError) local = NULL;
  g_autoptr (SpxMask) mask = spx_mask_load (path, NULL, &local);
  if (mask != NULL)
    {
      e->shape[0] = mask->rows;
      e->shape[1] = mask->cols;
    }
  else
    e->skipped = g_strdup (local->message);
  return s;
}

/* A network file through its row (file then owned by the source). */
static Source *
network_source (const char *path, const SpxFormat *row, SpxIoFile *file,
                GError **error)
{
  g_autoptr (GPtrArray) own =
    g_ptr_array_new_with_free_func (spx_network_entry_free);
  gpointer handle = row->network->open (file, own, error);
  if (handle == NULL)
    {
      spx_io_file_free (file);
      return NULL;
    }
  spx_io_file_test_hook (file);
  Source *s = g_new0 (Source, 1);
  s->row = row;
  s->path = g_strdup (path);
  s->file = file;
  s->handle = handle;
  s->own = g_steal_pointer (&own);
  return s;
}

/* Bytes at the start of a file that detection looks at: banners and
 * magic numbers, a safetensors header's length. */
#define DETECT_BYTES 4096

/* A file: a network's entries, or one mask. */
static gboolean
add_file (SpxNetwork *n, const char *path, const char *name,
          const char **format, GError **error)
{
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (SpxIoFile) file = spx_io_file_open (path, shown, error);
  guint8 head[DETECT_BYTES];
  gsize len = 0;
  if (file == NULL ||
      !spx_io_file_read_some (file, 0, head, sizeof head, &len, error))
    return FALSE;
  const SpxFormat *row = spx_format_detect (head, len, path);
  if (spx_format_can (row, SPX_FORMAT_READS_NETWORK))
    {
      Source *s = network_source (path, row, g_steal_pointer (&file), error);
      if (s == NULL)
        return FALSE;
      g_autofree char *prefix = name != NULL ? g_strconcat (name, "/", NULL)
                                             : NULL;
      add_source (n, s, prefix);
    }
  else if (spx_format_can (row, SPX_FORMAT_READS_MASK))
    {
      g_clear_pointer (&file, spx_io_file_free); /* mapped when loaded */
      g_autofree char *base = g_path_get_basename (path);
      add_source (n, mask_source (path, name != NULL ? name : base, row),
                  NULL);
    }
  else
    {
      g_autofree char *masks = spx_format_list (SPX_FORMAT_READS_MASK, TRUE);
      g_autofree char *nets = spx_format_list (SPX_FORMAT_READS_NETWORK,
                                               TRUE);
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT,
                   "%s: unknown format: expected a network (%s), a mask "
                   "file (%s) or a folder of them", shown, nets, masks);
      return FALSE;
    }
  if (format != NULL)
    *format = row->name;
  return TRUE;
}

/* A run of digits at *p, its leading zeros skipped: where it starts
 * and how long it is; *p moves past it. */
static gsize
digit_run (const char **p, const char **start)
{
  while (**p == '0' && g_ascii_isdigit ((*p)[1]))
    (*p)++;
  *start = *p;
  while (g_ascii_isdigit (**p))
    (*p)++;
  return (gsize) (*p - *start);
}

/* Names in the order people number layers: "layer_2" before "layer_10"
 * (runs of digits compared as numbers); byte order otherwise, the same
 * in every locale. */
static gint
compare_names (gconstpointer pa, gconstpointer pb)
{
  const char *a = *(const char *const *) pa, *b = *(const char *const *) pb;
  while (*a != '\0' && *b != '\0')
    {
      if (g_ascii_isdigit (*a) && g_ascii_isdigit (*b))
        {
          const char *sa, *sb;
          gsize la = digit_run (&a, &sa), lb = digit_run (&b, &sb);
          if (la != lb)
            return la < lb ? -1 : 1;
          gint c = memcmp (sa, sb, la);
          if (c != 0)
            return c;
          continue;
        }
      if (*a != *b)
        return (guchar) *a < (guchar) *b ? -1 : 1;
      a++, b++;
    }
  if (*a != *b)
    return (guchar) *a < (guchar) *b ? -1 : 1;
  return strcmp (*(const char *const *) pa, *(const char *const *) pb);
}

/* The names in folder, sorted (a listing that does not depend on the
 * file system's order). */
static GPtrArray *
sorted_names (const char *folder, GError **error)
{
  g_autoptr (GDir) dir = g_dir_open (folder, 0, error);
  if (dir == NULL)
    return NULL;
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  for (const char *name; (name = g_dir_read_name (dir)) != NULL;)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* What in a folder did not open, or lies (a file of row's, or a
 * folder): no reason to refuse the rest, so listed as skipped with why,
 * as a mask file that does not load is. FALSE, passing why on, only
 * when the work was cancelled. */
static gboolean
add_unread (SpxNetwork *n, const char *path, const char *name,
            const SpxFormat *row, GError **why, GError **error)
{
  if (g_error_matches (*why, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (why));
      return FALSE;
    }
  SpxNetworkEntry *e;
  Source *s = single_source (path, name, row, &e);
  e->skipped = g_strdup ((*why)->message);
  add_source (n, s, NULL);
  g_clear_error (why);
  return TRUE;
}

/* Every file under folder that a row reads, its name relative to the top
 * folder (rel: NULL at the top). Files no row reads are passed over. */
static gboolean
add_folder (SpxNetwork *n, const char *folder, const char *rel, guint depth,
            GError **error)
{
  g_autoptr (GPtrArray) names = sorted_names (folder, error);
  if (names == NULL)
    return FALSE;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autofree char *sub = rel != NULL ? g_strconcat (rel, "/", name, NULL)
                                         : g_strdup (name);
      struct stat st;
      if (spx_cancelled (error))
        return FALSE;
      if (lstat (path, &st) != 0 || name[0] == '.')
        continue;
      g_autoptr (GError) local = NULL;
      if (S_ISDIR (st.st_mode))
        {
          if (depth < MAX_DEPTH &&
              !add_folder (n, path, sub, depth + 1, &local) &&
              !add_unread (n, path, sub, NULL, &local, error))
            return FALSE;
          continue;
        }
      const SpxFormat *row = spx_format_from_path (name);
      if (!spx_format_can (row, SPX_FORMAT_READS_MASK) &&
          !spx_format_can (row, SPX_FORMAT_READS_NETWORK))
        continue;
      if (!add_file (n, path, sub, NULL, &local) &&
          !add_unread (n, path, sub, row, &local, error))
        return FALSE;
    }
  return TRUE;
}

SpxNetwork *
spx_network_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autoptr (SpxNetwork) n = NULL;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      n = network_new (path, "folder");
      if (!add_folder (n, path, NULL, 0, error))
        return NULL;
      if (n->entries->len == 0)
        {
          g_autofree char *shown = g_filename_display_name (path);
          g_autofree char *list = spx_format_list (SPX_FORMAT_READS_MASK,
                                                   FALSE);
          g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                       "%s: a folder without mask or network files "
                       "(expected %s files)", shown, list);
          return NULL;
        }
      return g_steal_pointer (&n);
    }
  n = network_new (path, NULL);
  if (!add_file (n, path, NULL, &n->format, error))
    return NULL;
  return g_steal_pointer (&n);
}

const char *
spx_network_path (const SpxNetwork *network)
{
  return network->path;
}

const char *
spx_network_format (const SpxNetwork *network)
{
  return network->format;
}

guint
spx_network_n_entries (const SpxNetwork *network)
{
  return network->entries->len;
}

const SpxNetworkEntry *
spx_network_entry (const SpxNetwork *network, guint i)
{
  g_return_val_if_fail (i < network->entries->len, NULL);
  return network->entries->pdata[i];
}

guint
spx_network_n_layers (const SpxNetwork *network)
{
  guint count = 0;
  for (guint i = 0; i < network->entries->len; i++)
    count += spx_network_entry (network, i)->skipped == NULL;
  return count;
}

gint
spx_network_find (const SpxNetwork *network, const char *name)
{
  for (guint i = 0; i < network->entries->len; i++)
    if (g_strcmp0 (spx_network_entry (network, i)->name, name) == 0)
      return (gint) i;
  return -1;
}

const char *
spx_network_entry_file (const SpxNetwork *network, guint i,
                        const char **tensor)
{
  g_return_val_if_fail (i < network->entries->len, NULL);
  const Ref *ref = &g_array_index (network->refs, Ref, i);
  const Source *s = network->sources->pdata[ref->source];
  if (tensor != NULL)
    *tensor = s->row == NULL ? NULL
      : ((const SpxNetworkEntry *) s->own->pdata[ref->index])->name;
  return s->path;
}

/* The row's load of own, from a file that has not changed since it was
 * opened; a read that failed on a file that changed meanwhile says so. */
static SpxMask *
load_unchanged (Source *s, const SpxNetworkEntry *own, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!spx_io_file_unchanged (s->file, error))
    return NULL;
  SpxMask *mask = s->row->network->load (s->handle, own, &local);
  GError *changed = NULL;
  if (mask == NULL && local != NULL &&
      !g_error_matches (local, SPX_BUDGET_ERROR,
                        SPX_BUDGET_ERROR_CANCELLED) &&
      !spx_io_file_unchanged (s->file, &changed))
    {
      g_clear_error (&local);
      local = changed;
    }
  if (local != NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  return mask;
}

SpxMask *
spx_network_load (SpxNetwork *network, guint i, GError **error)
{
  g_return_val_if_fail (i < network->entries->len, NULL);
  const SpxNetworkEntry *e = network->entries->pdata[i];
  const Ref *ref = &g_array_index (network->refs, Ref, i);
  Source *s = network->sources->pdata[ref->source];

  if (e->skipped != NULL)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s: not a layer: %s", e->name, e->skipped);
      return NULL;
    }
  if (s->row == NULL)
    return spx_mask_load (s->path, NULL, error);
  /* The row sees its own entry, viewed as the network views it. */
  SpxNetworkEntry own = *(const SpxNetworkEntry *) s->own->pdata[ref->index];
  own.rows = e->rows;
  own.cols = e->cols;
  g_mutex_lock (&s->lock);
  SpxMask *mask = load_unchanged (s, &own, error);
  g_mutex_unlock (&s->lock);
  return mask;
}
