/* spx-mask-io-safetensors.c: safetensors files, as networks
 *
 * An 8-byte little-endian header length N, N bytes of JSON (an object
 * from each tensor's name to its dtype, shape and data_offsets, and an
 * optional "__metadata__"), then the tensors' bytes, little-endian, C
 * order. open reads and parses the header alone, and load reads the
 * bytes of the one tensor asked for, a piece at a time. */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"
#include "spx-json-check.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* The most the format's reference implementation reads. */
#define MAX_HEADER 100000000
/* Memory per byte of header while it is read: json-glib's tree, the
 * tensors and the entries (17 measured, for 200,000 tensors). */
#define TREE_COST 20
/* A header nests 3 deep; json-glib recurses without a limit, so deeper
 * input is refused before it parses (a stack overflow otherwise). */
#define MAX_NESTING 16

typedef struct {
  const char *name;
  guint       size; /* bytes per item; 0: unknown */
  char        kind; /* SpxIoArray's; 0: no zero test */
} Dtype;

static const Dtype dtypes[] = {
  { "F64", 8, 'f' }, { "F32", 4, 'f' }, { "F16", 2, 'f' },
  { "BF16", 2, 'f' }, { "I64", 8, 'i' }, { "I32", 4, 'i' },
  { "I16", 2, 'i' }, { "I8", 1, 'i' }, { "U64", 8, 'u' },
  { "U32", 4, 'u' }, { "U16", 2, 'u' }, { "U8", 1, 'u' },
  { "BOOL", 1, 'b' },
  /* listed, not read: sizes known, so their byte ranges are checked */
  { "F8_E4M3", 1, 0 }, { "F8_E5M2", 1, 0 }, { "F8_E8M0", 1, 0 },
  { "C64", 8, 0 },
};

typedef struct {
  const char  *name;   /* the key in Safetensors.tensors */
  const char  *dtype_name; /* as the header has it; only while open reads it */
  const Dtype *dtype;  /* NULL: not one of ours */
  guint64      begin, end; /* data_offsets */
  SpxIoArray   array;
} Tensor;

typedef struct {
  const char *name;    /* the file, as messages show it */
  SpxIoFile  *file;    /* the network's */
  guint64     start;   /* where the tensors' bytes begin (after the
                          header) */
  GHashTable *tensors; /* name (owned) → Tensor * */
} Safetensors;

static guint64
read_le64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

/* A header's length that could be one, and its JSON's opening brace:
 * data may be the file's first bytes only, so a length past them is
 * checked by open. */
static gboolean
detect_safetensors (const guint8 *data, gsize len)
{
  if (len < 10)
    return FALSE;
  guint64 n = read_le64 (data);
  return n >= 2 && n <= MAX_HEADER && data[8] == '{';
}

/* 'name', escaped for a terminal. */
static char *
quoted (const char *name, gssize len)
{
  g_autofree char *s = spx_escape_len (name, len, 0);
  return g_strdup_printf ("'%s'", s);
}

static gboolean G_GNUC_PRINTF (4, 5)
tensor_error (GError **error, const char *file, const char *tensor,
              const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *what = g_strdup_vprintf (format, args);
  va_end (args);
  g_autofree char *q = quoted (tensor, -1);
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
               "%s: tensor %s: %s", file, q, what);
  return FALSE;
}

/* Nesting and numbers, checked on the text (spx_json_check); names the
 * tensor whose entry holds what is refused. */
static gboolean
prescan (const char *file, const char *text, gsize len, GError **error)
{
  SpxJsonFlaw flaw;
  if (spx_json_check (text, len, MAX_NESTING, &flaw))
    return TRUE;
  g_autofree char *q = flaw.key != NULL
    ? quoted (flaw.key, (gssize) flaw.key_len) : NULL;
  g_autofree char *where = q != NULL ? g_strconcat ("tensor ", q, NULL)
                                     : g_strdup ("the header");
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
               "%s: %s: byte %" G_GSIZE_FORMAT ": %s", file, where,
               flaw.at + 8, flaw.deep ? "JSON nested deeper than 16 levels "
               "(a header needs 3)" : flaw.why);
  return FALSE;
}

/* ---- the header -------------------------------------------------------- */

/* json-glib keeps the last of two members of one name: the parser says
 * when a member did not make its object larger. */
typedef struct {
  GHashTable *members; /* JsonObject * → members seen */
  JsonObject *object;  /* where a name came twice, or NULL */
  char       *name;
} Twice;

static void
on_member (JsonParser *parser, JsonObject *object, const char *name,
           gpointer data)
{
  Twice *t = data;
  guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (t->members, object));
  g_hash_table_insert (t->members, object, GUINT_TO_POINTER (seen + 1));
  if (seen + 1 > json_object_get_size (object) && t->object == NULL)
    {
      t->object = object;
      t->name = g_strdup (name);
    }
}

static gboolean
refuse_twice (const char *file, JsonObject *root, const Twice *t,
              GError **error)
{
  g_autofree char *q = quoted (t->name, -1);
  if (t->object == root)
    return tensor_error (error, file, t->name, "named twice in the header");
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  json_object_iter_init (&iter, root);
  while (json_object_iter_next (&iter, &name, &node))
    if (JSON_NODE_HOLDS_OBJECT (node) &&
        json_node_get_object (node) == t->object)
      return tensor_error (error, file, name, "%s given twice", q);
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
               "%s: the header: %s given twice in one object", file, q);
  return FALSE;
}

static void
twice_clear (Twice *t)
{
  g_clear_pointer (&t->members, g_hash_table_unref);
  g_clear_pointer (&t->name, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Twice, twice_clear)

/* The parsed header is an object of tensors, each member named once. */
static gboolean
check_root (const char *file, JsonParser *parser, const Twice *twice,
            GError **error)
{
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL)
    return spx_invalid (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                        "%s: the header is empty: expected a JSON object "
                        "of tensors", file);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return spx_invalid (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                        "%s: the header is JSON, but not an object of "
                        "tensors", file);
  return twice->object == NULL ||
         refuse_twice (file, json_node_get_object (root), twice, error);
}

/* The header's text parsed, or NULL. */
static JsonParser *
parse_header (const char *file, const char *text, gsize len, GError **error)
{
  if (!prescan (file, text, len, error))
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (Twice) twice = { g_hash_table_new (NULL, NULL), NULL, NULL };
  gulong id = g_signal_connect (parser, "object-member",
                                G_CALLBACK (on_member), &twice);
  g_autoptr (GError) local = NULL;
  gboolean ok = json_parser_load_from_data (parser, text, (gssize) len,
                                            &local);
  g_signal_handler_disconnect (parser, id);
  if (!ok)
    {
      spx_invalid (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s: the header is not JSON: %s", file, local->message);
      return NULL;
    }
  return check_root (file, parser, &twice, error) ? g_steal_pointer (&parser)
                                                  : NULL;
}

/* Its JSON, quoted and cut for a message. */
static char *
node_excerpt (JsonNode *node)
{
  g_autofree char *text = json_to_string (node, FALSE);
  return spx_excerpt (text);
}

/* Is node a whole number ≥ 0? */
static gboolean
is_count (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_INT64 &&
         json_node_get_int (node) >= 0;
}

/* Member key of o, a JSON list of whole numbers ≥ 0, the first max of
 * them in out (all counted in *n); else a message: "no KEY (WHAT)",
 * "KEY: expected WHAT, got …" or "KEY[I]: expected a whole number ≥ 0,
 * got …". */
static gboolean
read_member_list (const char *file, const char *tensor, JsonObject *o,
                  const char *key, const char *what, guint64 *out,
                  guint max, guint *n, GError **error)
{
  JsonNode *node = json_object_get_member (o, key);
  if (node == NULL)
    return tensor_error (error, file, tensor, "no %s (%s)", key, what);
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_autofree char *got = node_excerpt (node);
      return tensor_error (error, file, tensor, "%s: expected %s, got %s",
                           key, what, got);
    }
  JsonArray *array = json_node_get_array (node);
  *n = json_array_get_length (array);
  for (guint i = 0; i < *n; i++)
    {
      JsonNode *e = json_array_get_element (array, i);
      if (!is_count (e))
        {
          g_autofree char *got = node_excerpt (e);
          return tensor_error (error, file, tensor, "%s[%u]: expected a "
                               "whole number ≥ 0, got %s", key, i, got);
        }
      if (i < max)
        out[i] = (guint64) json_node_get_int (e);
    }
  return TRUE;
}

static const Dtype *
find_dtype (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (strcmp (dtypes[i].name, name) == 0)
      return &dtypes[i];
  return NULL;
}

/* The dtype, shape and data_offsets of one tensor's entry. */
static gboolean
read_tensor (const char *file, Tensor *t, JsonNode *node, GError **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return tensor_error (error, file, t->name, "expected an object of "
                         "dtype, shape and data_offsets");
  JsonObject *o = json_node_get_object (node);
  JsonNode *dtype = json_object_get_member (o, "dtype");
  guint64 offsets[2];
  guint n;
  if (dtype == NULL)
    return tensor_error (error, file, t->name, "no dtype (a string such as "
                         "\"F32\")");
  if (!JSON_NODE_HOLDS_VALUE (dtype) ||
      json_node_get_value_type (dtype) != G_TYPE_STRING)
    {
      g_autofree char *got = node_excerpt (dtype);
      return tensor_error (error, file, t->name, "dtype: expected a string "
                           "such as \"F32\", got %s", got);
    }
  if (!read_member_list (file, t->name, o, "shape", "a list of whole "
                         "numbers ≥ 0", t->array.shape, SPX_NETWORK_MAX_DIMS,
                         &t->array.n_dims, error) ||
      !read_member_list (file, t->name, o, "data_offsets", "two whole "
                         "numbers [begin, end]", offsets, 2, &n, error))
    return FALSE;
  if (n != 2)
    return tensor_error (error, file, t->name, "data_offsets: expected two "
                         "whole numbers [begin, end], got %u", n);
  t->begin = offsets[0];
  t->end = offsets[1];
  t->dtype_name = json_node_get_string (dtype);
  t->dtype = find_dtype (t->dtype_name);
  if (t->dtype != NULL)
    {
      t->array.kind = t->dtype->kind;
      t->array.size = t->dtype->size;
    }
  return TRUE;
}

/* Its bytes within the data, as many as its shape and dtype need. */
static gboolean
check_range (const char *file, const Tensor *t, guint64 data_len,
             GError **error)
{
  const char *dtype = t->dtype_name;
  if (t->begin > t->end)
    return tensor_error (error, file, t->name, "data_offsets [%"
                         G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "] end "
                         "before they begin", t->begin, t->end);
  if (t->end > data_len)
    return tensor_error (error, file, t->name, "data_offsets [%"
                         G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "] run "
                         "past the end of the file (its tensors' bytes "
                         "are %" G_GUINT64_FORMAT ")", t->begin, t->end,
                         data_len);
  g_autofree char *shape = spx_io_array_shape (&t->array, "[]");
  guint64 bytes = 0;
  if (t->dtype != NULL && t->dtype->size != 0 &&
      !spx_io_array_bytes (&t->array, &bytes))
    {
      if (t->array.n_dims > SPX_NETWORK_MAX_DIMS)
        return TRUE; /* listed as skipped */
      return tensor_error (error, file, t->name, "shape %s of %s has more "
                           "bytes than 64 bits can count", shape, dtype);
    }
  if (t->dtype != NULL && t->dtype->size != 0 && bytes != t->end - t->begin)
    return tensor_error (error, file, t->name, "data_offsets [%"
                         G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "] hold %"
                         G_GUINT64_FORMAT " bytes, but shape %s of %s "
                         "needs %" G_GUINT64_FORMAT, t->begin, t->end,
                         t->end - t->begin, shape, dtype, bytes);
  return TRUE;
}

static gint
by_begin (gconstpointer a, gconstpointer b)
{
  const Tensor *x = *(Tensor *const *) a, *y = *(Tensor *const *) b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* No two tensors share a byte: in order of where they begin, none begins
 * before the one before it ends (if two overlap, two neighbours do). */
static gboolean
check_overlaps (const char *file, GPtrArray *tensors, GError **error)
{
  g_autoptr (GPtrArray) sorted = g_ptr_array_copy (tensors, NULL, NULL);
  g_ptr_array_sort (sorted, by_begin);
  const Tensor *last = NULL;
  for (guint i = 0; i < sorted->len; i++)
    {
      const Tensor *t = sorted->pdata[i];
      if (t->begin == t->end)
        continue; /* no bytes */
      if (last != NULL && t->begin < last->end)
        {
          g_autofree char *q = quoted (last->name, -1);
          return tensor_error (error, file, t->name, "data_offsets [%"
                               G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "] "
                               "overlap tensor %s's [%" G_GUINT64_FORMAT
                               ", %" G_GUINT64_FORMAT "]", t->begin, t->end,
                               q, last->begin, last->end);
        }
      last = t;
    }
  return TRUE;
}

/* The entry a network lists for t. */
static SpxNetworkEntry *
entry_for (const Tensor *t)
{
  SpxNetworkEntry *e = g_new0 (SpxNetworkEntry, 1);
  e->name = g_strdup (t->name);
  /* a dtype that is not ours is shown quoted in why it is skipped */
  g_strlcpy (e->dtype, t->dtype != NULL ? t->dtype->name : "?",
             sizeof e->dtype);
  if (t->array.n_dims > SPX_NETWORK_MAX_DIMS)
    e->skipped = g_strdup_printf ("%u-D: not a matrix or a convolution "
                                  "weight", t->array.n_dims);
  else
    {
      e->n_dims = t->array.n_dims;
      memcpy (e->shape, t->array.shape, sizeof e->shape);
    }
  if (e->skipped == NULL && t->dtype == NULL)
    {
      g_autofree char *q = spx_excerpt (t->dtype_name);
      e->skipped = g_strdup_printf ("dtype %s is not one safetensors "
                                    "defines", q);
    }
  else if (e->skipped == NULL && t->dtype->kind == 0)
    e->skipped = g_strdup_printf ("dtype %s has no zero test here",
                                  t->dtype->name);
  return e;
}

static void
safetensors_close (gpointer handle)
{
  Safetensors *s = handle;
  if (s == NULL)
    return;
  g_hash_table_unref (s->tensors);
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Safetensors, safetensors_close)

/* Every tensor of root read and checked, into s and entries. */
static gboolean
read_tensors (Safetensors *s, JsonObject *root, guint64 data_len,
              GPtrArray *entries, GError **error)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  json_object_iter_init_ordered (&iter, root);
  while (json_object_iter_next_ordered (&iter, &name, &node))
    {
      if (strcmp (name, "__metadata__") == 0)
        continue;
      Tensor *t = g_new0 (Tensor, 1);
      char *key = g_strdup (name);
      t->name = key;
      g_hash_table_insert (s->tensors, key, t);
      g_ptr_array_add (all, t);
      if (!read_tensor (s->name, t, node, error))
        return FALSE;
      if (!check_range (s->name, t, data_len, error))
        return FALSE;
      g_ptr_array_add (entries, entry_for (t));
    }
  return check_overlaps (s->name, all, error);
}

/* The header's length, which fits the file and the format; its bytes
 * read, within the budget for what parsing them takes. */
static char *
read_header (SpxIoFile *file, guint64 *n, GError **error)
{
  const char *name = spx_io_file_name (file);
  guint64 size = spx_io_file_size (file);
  guint8 length[8];
  if (size < 8)
    {
      spx_invalid (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID, "%s: "
                   "expected at least 8 bytes (the header's length), got %"
                   G_GUINT64_FORMAT, name, size);
      return NULL;
    }
  if (!spx_io_file_read (file, 0, length, 8, error))
    return NULL;
  *n = read_le64 (length);
  g_autofree char *what = g_strdup_printf ("%s: its JSON header", name);
  if (*n > size - 8)
    spx_invalid (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID, "%s: a "
                 "header of %" G_GUINT64_FORMAT " bytes runs past the end of "
                 "the file (%" G_GUINT64_FORMAT " bytes follow its length)",
                 name, *n, size - 8);
  else if (*n > MAX_HEADER)
    spx_invalid (error, SPX_MASK_ERROR, SPX_MASK_ERROR_TOO_LARGE, "%s: a "
                 "header of %" G_GUINT64_FORMAT " bytes, more than the %d "
                 "safetensors allows", name, *n, MAX_HEADER);
  else if (spx_budget_check (*n * TREE_COST, what, error))
    {
      g_autofree char *text = g_malloc (*n + 1);
      if (spx_io_file_read (file, 8, text, *n, error))
        return g_steal_pointer (&text);
    }
  return NULL;
}

static gpointer
safetensors_open (SpxIoFile *file, GPtrArray *entries, GError **error)
{
  guint64 n = 0;
  const char *name = spx_io_file_name (file);
  g_autofree char *text = read_header (file, &n, error);
  if (text == NULL)
    return NULL;
  g_autoptr (JsonParser) parser = parse_header (name, text, (gsize) n,
                                                error);
  if (parser == NULL)
    return NULL;
  g_autoptr (Safetensors) s = g_new0 (Safetensors, 1);
  s->name = name;
  s->file = file;
  s->start = 8 + n;
  s->tensors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      g_free);
  guint first = entries->len;
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  if (!read_tensors (s, root, spx_io_file_size (file) - s->start, entries,
                     error))
    {
      g_ptr_array_remove_range (entries, first, entries->len - first);
      return NULL;
    }
  return g_steal_pointer (&s);
}

/* The tensor's items scanned into mask, read a piece at a time. */
static gboolean
scan_tensor (Safetensors *s, const Tensor *t, SpxMask *mask, GError **error)
{
  guint size = t->array.size;
  gsize piece = SPX_IO_CHUNK / size * size;
  g_autofree guint8 *buf = g_malloc (piece);
  SpxIoScan scan;
  spx_io_scan_init (&scan, &t->array, mask);
  for (guint64 at = t->begin; at < t->end; at += piece)
    {
      gsize n = (gsize) MIN (piece, t->end - at);
      if (!spx_io_file_read (s->file, s->start + at, buf, n, error) ||
          !spx_io_scan (&scan, buf, n / size, error))
        return FALSE;
    }
  return TRUE;
}

static SpxMask *
safetensors_load (gpointer handle, const SpxNetworkEntry *entry,
                  GError **error)
{
  Safetensors *s = handle;
  const Tensor *t = g_hash_table_lookup (s->tensors, entry->name);
  g_return_val_if_fail (t != NULL && t->dtype != NULL &&
                        t->dtype->kind != 0, NULL);
  g_autoptr (SpxMask) mask = spx_mask_new (entry->rows, entry->cols, 1,
                                           error);
  if (mask == NULL)
    {
      g_autofree char *q = quoted (t->name, -1);
      g_prefix_error (error, "%s: tensor %s: ", s->name, q);
      return NULL;
    }
  g_return_val_if_fail ((t->end - t->begin) / t->array.size ==
                        entry->rows * entry->cols, NULL);
  return scan_tensor (s, t, mask, error) ? g_steal_pointer (&mask) : NULL;
}

static const SpxNetworkClass safetensors_network = {
  .open = safetensors_open,
  .load = safetensors_load,
  .close = safetensors_close,
};

const SpxFormat spx_format_safetensors = {
  .name = "safetensors",
  .title = "safetensors",
  .extensions = (const char *const[]) { "safetensors", NULL },
  .detect = detect_safetensors,
  .network = &safetensors_network,
};
