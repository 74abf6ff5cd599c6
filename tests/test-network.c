/* test-network.c: networks read through the format table. The files are
 * written here (a safetensors writer, and .npz archives through libzip),
 * each tensor's non-zero elements chosen by the writer and checked
 * against the layer loaded; hostile headers are refused with a message
 * naming the file and the tensor. */
#include "spx-network.h"
#include "spx-mask-io.h"
#include "spx-util.h"
#include "test-files.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

/* ---- tensors the writers write --------------------------------------- */

typedef enum { FLOAT, HALF, BFLOAT, SIGNED, UNSIGNED, BOOL } Kind;

typedef struct {
  const char *st;  /* safetensors dtype, or NULL */
  const char *npy; /* numpy descr (little-endian), or NULL */
  guint       size;
  Kind        kind;
} Type;

static const Type types[] = {
  { "F64", "<f8", 8, FLOAT }, { "F32", "<f4", 4, FLOAT },
  { "F16", "<f2", 2, HALF }, { "BF16", NULL, 2, BFLOAT },
  { "I64", "<i8", 8, SIGNED }, { "I32", "<i4", 4, SIGNED },
  { "I16", "<i2", 2, SIGNED }, { "I8", "|i1", 1, SIGNED },
  { "U8", "|u1", 1, UNSIGNED }, { "BOOL", "|b1", 1, BOOL },
};

static const Type *
type_named (const char *st)
{
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_strcmp0 (types[i].st, st) == 0)
      return &types[i];
  g_assert_not_reached ();
}

typedef struct {
  char        *name;
  const Type  *type;
  guint        n_dims;
  guint64      shape[4];
  gboolean     fortran, big; /* .npz only */
  GByteArray  *bytes;        /* as stored */
  gboolean    *nonzero;      /* per element, in C order */
  guint64      items, count;
} Tensor;

static void
tensor_free (gpointer p)
{
  Tensor *t = p;
  g_free (t->name);
  g_byte_array_unref (t->bytes);
  g_free (t->nonzero);
  g_free (t);
}

/* An item's bits: non-zero ones include a NaN, the smallest subnormal
 * and (integers) the lone top bit; zeros include -0.0. */
static guint64
item_bits (const Type *type, gboolean nonzero, GRand *rand)
{
  guint bits = type->size * 8;
  guint64 top = G_GUINT64_CONSTANT (1) << (bits - 1);
  guint32 pick = g_rand_int_range (rand, 0, 8);
  if (!nonzero)
    return type->kind == BOOL || type->kind == SIGNED ||
           type->kind == UNSIGNED || pick < 4 ? 0 : top; /* -0.0 */
  guint64 any = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
  if (bits < 64)
    any &= (G_GUINT64_CONSTANT (1) << bits) - 1;
  switch (type->kind)
    {
    case BOOL:
      return 1;
    case SIGNED:
    case UNSIGNED:
      return pick == 0 ? top : any != 0 ? any : 1;
    case HALF:
      return pick == 0 ? 0x7e00 : pick == 1 ? 0x0001 : (any & 0x83ff) | 0x3c00;
    case BFLOAT:
      return pick == 0 ? 0x7fc0 : pick == 1 ? 0x0001 : (any & 0x807f) | 0x3f80;
    case FLOAT:
      if (pick == 0)
        return type->size == 8 ? G_GUINT64_CONSTANT (0x7ff8000000000000)
                               : 0x7fc00000;
      if (pick == 1)
        return 1;
      {
        double v = (pick & 1 ? -1 : 1) * (0.25 + g_rand_double (rand));
        float f = (float) v;
        guint64 b = 0;
        guint32 b32;
        memcpy (&b32, &f, 4);
        if (type->size == 8)
          memcpy (&b, &v, 8);
        return type->size == 8 ? b : b32;
      }
    }
  g_assert_not_reached ();
}

/* Element e (C order) of t stored at: Fortran order reverses the index. */
static guint64
stored_at (const Tensor *t, guint64 e)
{
  if (!t->fortran)
    return e;
  guint64 at = 0, scale = 1;
  guint64 idx[4];
  for (guint d = t->n_dims; d-- > 0;)
    {
      idx[d] = e % t->shape[d];
      e /= t->shape[d];
    }
  for (guint d = 0; d < t->n_dims; d++)
    {
      at += idx[d] * scale;
      scale *= t->shape[d];
    }
  return at;
}

static void
tensor_fill (Tensor *t, GRand *rand)
{
  guint size = t->type->size;
  t->nonzero = g_new0 (gboolean, t->items);
  t->bytes = g_byte_array_sized_new ((guint) (t->items * size));
  g_byte_array_set_size (t->bytes, (guint) (t->items * size));
  for (guint64 e = 0; e < t->items; e++)
    {
      t->nonzero[e] = g_rand_int_range (rand, 0, 3) == 0;
      t->count += t->nonzero[e];
      guint64 bits = item_bits (t->type, t->nonzero[e], rand);
      guint8 *out = t->bytes->data + stored_at (t, e) * size;
      for (guint i = 0; i < size; i++)
        out[t->big ? size - 1 - i : i] = (guint8) (bits >> (8 * i));
    }
}

/* A tensor of n_dims dimensions (guint64s after it), written by type;
 * about a third of its elements non-zero. */
static Tensor *
tensor (GPtrArray *all, const char *name, const char *st, GRand *rand,
        gboolean fortran, gboolean big, guint n_dims, ...)
{
  Tensor *t = g_new0 (Tensor, 1);
  va_list args;
  t->name = g_strdup (name);
  t->type = type_named (st);
  t->n_dims = n_dims;
  t->fortran = fortran;
  t->big = big;
  t->items = 1;
  va_start (args, n_dims);
  for (guint d = 0; d < n_dims; d++)
    t->items *= t->shape[d] = va_arg (args, guint64);
  va_end (args);
  tensor_fill (t, rand);
  g_ptr_array_add (all, t);
  return t;
}

/* ---- writers ---------------------------------------------------------- */

/* A safetensors file: the header's length, the header, the bytes. */
static void
write_raw_safetensors (const char *path, const char *header, guint64 length,
                       const guint8 *data, gsize len)
{
  g_autoptr (GByteArray) b = g_byte_array_new ();
  guint64 le = GUINT64_TO_LE (length);
  g_byte_array_append (b, (const guint8 *) &le, 8);
  g_byte_array_append (b, (const guint8 *) header, (guint) strlen (header));
  if (len > 0)
    g_byte_array_append (b, data, (guint) len);
  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len,
                                      NULL));
}

static char *
shape_json (const Tensor *t, const char *open, const char *close)
{
  GString *s = g_string_new (open);
  for (guint d = 0; d < t->n_dims; d++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, d ? ", " : "",
                            t->shape[d]);
  if (t->n_dims == 1 && strcmp (open, "(") == 0)
    g_string_append_c (s, ',');
  g_string_append (s, close);
  return g_string_free (s, FALSE);
}

static void
write_safetensors (const char *path, GPtrArray *tensors)
{
  g_autoptr (GString) h = g_string_new ("{\"__metadata__\": "
                                        "{\"format\": \"pt\"}");
  g_autoptr (GByteArray) data = g_byte_array_new ();
  for (guint i = 0; i < tensors->len; i++)
    {
      const Tensor *t = tensors->pdata[i];
      g_autofree char *shape = shape_json (t, "[", "]");
      g_string_append_printf (h, ", \"%s\": {\"dtype\": \"%s\", \"shape\": "
                              "%s, \"data_offsets\": [%u, %u]}", t->name,
                              t->type->st, shape, data->len,
                              data->len + t->bytes->len);
      g_byte_array_append (data, t->bytes->data, t->bytes->len);
    }
  g_string_append_c (h, '}');
  while (h->len % 8 != 0) /* padded, as writers align the data */
    g_string_append_c (h, ' ');
  write_raw_safetensors (path, h->str, h->len, data->data, data->len);
}

/* An .npy file's bytes: a version 1.0 header, then t's bytes. */
static GByteArray *
npy_bytes (const Tensor *t, const char *descr)
{
  g_autofree char *shape = shape_json (t, "(", ")");
  g_autofree char *dict = g_strdup_printf (
    "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr,
    t->fortran ? "True" : "False", shape);
  gsize hlen = (10 + strlen (dict) + 1 + 63) / 64 * 64 - 10;
  GByteArray *b = g_byte_array_new ();
  guint8 pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                     (guint8) (hlen & 0xff), (guint8) (hlen >> 8) };
  g_byte_array_append (b, pre, 10);
  g_byte_array_append (b, (const guint8 *) dict, (guint) strlen (dict));
  for (gsize i = strlen (dict); i + 1 < hlen; i++)
    g_byte_array_append (b, (const guint8 *) " ", 1);
  g_byte_array_append (b, (const guint8 *) "\n", 1);
  g_byte_array_append (b, t->bytes->data, t->bytes->len);
  return b;
}

/* t's numpy descr, in its byte order. */
static void
npy_descr (const Tensor *t, char descr[8])
{
  g_strlcpy (descr, t->type->npy, 8);
  if (t->big && descr[0] == '<')
    descr[0] = '>';
}

static void
add_member (zip_t *zip, const char *name, GByteArray *bytes, gint32 method)
{
  gsize len = bytes->len;
  guint8 *copy = g_byte_array_free (bytes, FALSE);
  zip_source_t *src = zip_source_buffer (zip, copy, len, 1);
  g_assert_nonnull (src);
  zip_int64_t i = zip_file_add (zip, name, src, ZIP_FL_ENC_UTF_8);
  g_assert_cmpint (i, >=, 0);
  g_assert_cmpint (zip_set_file_compression (zip, (zip_uint64_t) i, method,
                                             0), ==, 0);
}

/* An .npz of tensors (those with an npy dtype), member i stored when
 * method is ZIP_CM_STORE, deflated when ZIP_CM_DEFLATE, and alternately
 * when -1. */
static void
write_npz (const char *path, GPtrArray *tensors, gint32 method)
{
  int err = 0;
  zip_t *zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &err);
  g_assert_nonnull (zip);
  for (guint i = 0; i < tensors->len; i++)
    {
      const Tensor *t = tensors->pdata[i];
      char descr[8];
      npy_descr (t, descr);
      g_autofree char *name = g_strconcat (t->name, ".npy", NULL);
      add_member (zip, name, npy_bytes (t, descr), method >= 0 ? method
               : i % 2 ? ZIP_CM_DEFLATE : ZIP_CM_STORE);
    }
  g_assert_cmpint (zip_close (zip), ==, 0);
}

/* ---- checks ----------------------------------------------------------- */

/* t listed as the writer made it, and (when a layer) loaded as it was
 * written, element by element. */
static void
assert_tensor (SpxNetwork *n, const char *name, const Tensor *t,
               const char *dtype, const char *skipped)
{
  gint i = spx_network_find (n, name);
  g_assert_cmpint (i, >=, 0);
  const SpxNetworkEntry *e = spx_network_entry (n, (guint) i);
  g_assert_cmpstr (e->dtype, ==, dtype);
  g_assert_cmpuint (e->n_dims, ==, t->n_dims);
  for (guint d = 0; d < t->n_dims; d++)
    g_assert_cmpuint (e->shape[d], ==, t->shape[d]);
  if (skipped != NULL)
    {
      g_assert_nonnull (e->skipped);
      g_assert_nonnull (strstr (e->skipped, skipped));
      g_assert_cmpuint (e->rows, ==, 0);
      return;
    }
  g_assert_null (e->skipped);
  guint64 rows = t->shape[0], cols = t->items / t->shape[0];
  g_assert_cmpuint (e->rows, ==, rows);
  g_assert_cmpuint (e->cols, ==, cols);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) m = spx_network_load (n, (guint) i, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->rows, ==, rows);
  g_assert_cmpuint (m->cols, ==, cols);
  g_assert_cmpuint (spx_mask_count (m), ==, t->count);
  for (guint64 r = 0; r < rows; r++)
    for (guint64 c = 0; c < cols; c++)
      if (spx_mask_get (m, r, c) != t->nonzero[r * cols + c])
        g_error ("%s: element (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                 ") read %d, written %d", name, r, c, spx_mask_get (m, r, c),
                 t->nonzero[r * cols + c]);
}

static SpxNetwork *
open_ok (const char *path)
{
  g_autoptr (GError) error = NULL;
  SpxNetwork *n = spx_network_open (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (n);
  return n;
}

/* ---- safetensors ------------------------------------------------------ */

static void
test_safetensors (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (25);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  g_autoptr (GPtrArray) layers = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *name = g_strdup_printf ("layers.%u.%s.weight", i,
                                               types[i].st);
      g_ptr_array_add (layers, tensor (all, name, types[i].st, rand, FALSE,
                                       FALSE, 2, (guint64) 7 + i,
                                       (guint64) 19 + 3 * i));
    }
  Tensor *conv = tensor (all, "conv.weight", "F16", rand, FALSE, FALSE, 4,
                         (guint64) 8, (guint64) 3, (guint64) 3, (guint64) 5);
  Tensor *bias = tensor (all, "conv.bias", "F32", rand, FALSE, FALSE, 1,
                         (guint64) 8);
  Tensor *scalar = tensor (all, "scale", "F64", rand, FALSE, FALSE, 0);
  Tensor *three = tensor (all, "embed.pos", "BF16", rand, FALSE, FALSE, 3,
                          (guint64) 2, (guint64) 3, (guint64) 4);
  write_safetensors (path, all);

  g_autoptr (SpxNetwork) n = open_ok (path);
  g_assert_cmpstr (spx_network_format (n), ==, "safetensors");
  g_assert_cmpuint (spx_network_n_entries (n), ==, all->len);
  g_assert_cmpuint (spx_network_n_layers (n), ==, layers->len + 1);
  for (guint i = 0; i < layers->len; i++)
    {
      const Tensor *t = layers->pdata[i];
      assert_tensor (n, t->name, t, t->type->st, NULL);
    }
  assert_tensor (n, "conv.weight", conv, "F16", NULL); /* 8 × 45 */
  assert_tensor (n, "conv.bias", bias, "F32", "1-D: a bias or a norm");
  assert_tensor (n, "scale", scalar, "F64", "a scalar");
  assert_tensor (n, "embed.pos", three, "BF16", "3-D");
  g_assert_cmpint (spx_network_find (n, "__metadata__"), ==, -1);
  g_unlink (path);
  g_rmdir (dir);
}

/* dtypes listed but not read: their byte ranges are still checked. */
static void
test_safetensors_skipped_dtypes (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "q.safetensors", NULL);
  const char *header = "{\"q\": {\"dtype\": \"F8_E4M3\", \"shape\": [2, 5], "
    "\"data_offsets\": [0, 10]}, \"c\": {\"dtype\": \"C64\", \"shape\": "
    "[2, 2], \"data_offsets\": [10, 42]}, \"x\": {\"dtype\": \"Q7\", "
    "\"shape\": [3, 3], \"data_offsets\": [42, 43]}}";
  guint8 data[43] = { 1 };
  write_raw_safetensors (path, header, strlen (header), data, sizeof data);
  g_autoptr (SpxNetwork) n = open_ok (path);
  g_assert_cmpuint (spx_network_n_entries (n), ==, 3);
  g_assert_cmpuint (spx_network_n_layers (n), ==, 0);
  const char *want[] = { "dtype F8_E4M3 has no zero test here",
                         "dtype C64 has no zero test here",
                         "dtype 'Q7' is not one safetensors defines" };
  const char *dtypes[] = { "F8_E4M3", "C64", "?" };
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpstr (spx_network_entry (n, i)->skipped, ==, want[i]);
      g_assert_cmpstr (spx_network_entry (n, i)->dtype, ==, dtypes[i]);
      g_autoptr (GError) error = NULL;
      g_assert_null (spx_network_load (n, i, &error));
      g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
    }
  /* the F8 tensor's byte range, 10, is checked against its shape */
  header = "{\"q\": {\"dtype\": \"F8_E4M3\", \"shape\": [2, 6], "
    "\"data_offsets\": [0, 10]}}";
  write_raw_safetensors (path, header, strlen (header), data, 10);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) bad = spx_network_open (path, &error);
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "hold 10 bytes, but shape "
                            "[2, 6] of F8_E4M3 needs 12"));
  g_unlink (path);
  g_rmdir (dir);
}

typedef struct {
  const char  *name;
  const char  *header;
  gsize        data;     /* bytes after the header */
  guint64      length;   /* 0: the header's own */
  SpxMaskError code;
  const char  *tensor;   /* named in the message, or NULL */
  const char  *keyword;
} Hostile;

#define T1(body) "{\"enc.0.w\": {" body "}}"
#define OK_DTYPE "\"dtype\": \"F32\""
#define OK_SHAPE "\"shape\": [1]"
#define OK_OFFSETS "\"data_offsets\": [0, 4]"

static const Hostile hostile[] = {
  { "length-past-end", T1 (OK_DTYPE ", " OK_SHAPE ", " OK_OFFSETS), 4,
    1000000, SPX_MASK_ERROR_INVALID, NULL, "a header of 1000000 bytes runs "
    "past the end of the file" },
  { "not-an-object", "[1, 2]", 0, 0, SPX_MASK_ERROR_INVALID, NULL,
    "the header is JSON, but not an object of tensors" },
  { "empty", "", 0, 0, SPX_MASK_ERROR_INVALID, NULL, "the header is empty" },
  { "not-json", "{\"w\": nope}", 0, 0, SPX_MASK_ERROR_INVALID, NULL,
    "the header is not JSON" },
  { "not-utf8", "{\"w\xff\": 1}", 0, 0, SPX_MASK_ERROR_INVALID, NULL,
    "the header is not JSON" },
  { "no-dtype", T1 (OK_SHAPE ", " OK_OFFSETS), 4, 0, SPX_MASK_ERROR_INVALID,
    "enc.0.w", "no dtype" },
  { "dtype-number", T1 ("\"dtype\": 5, " OK_SHAPE ", " OK_OFFSETS), 4, 0,
    SPX_MASK_ERROR_INVALID, "enc.0.w", "dtype: expected a string" },
  { "no-shape", T1 (OK_DTYPE ", " OK_OFFSETS), 4, 0, SPX_MASK_ERROR_INVALID,
    "enc.0.w", "no shape" },
  { "shape-negative", T1 (OK_DTYPE ", \"shape\": [-1], " OK_OFFSETS), 4, 0,
    SPX_MASK_ERROR_INVALID, "enc.0.w", "shape[0]: expected a whole number "
    "≥ 0, got '-1'" },
  { "shape-float", T1 (OK_DTYPE ", \"shape\": [1.0], " OK_OFFSETS), 4, 0,
    SPX_MASK_ERROR_INVALID, "enc.0.w", "shape[0]: expected a whole number "
    "≥ 0, got '1.0'" },
  { "shape-not-list", T1 (OK_DTYPE ", \"shape\": 2, " OK_OFFSETS), 4, 0,
    SPX_MASK_ERROR_INVALID, "enc.0.w", "shape: expected a list of whole "
    "numbers ≥ 0, got '2'" },
  { "no-offsets", T1 (OK_DTYPE ", " OK_SHAPE), 4, 0, SPX_MASK_ERROR_INVALID,
    "enc.0.w", "no data_offsets" },
  { "three-offsets", T1 (OK_DTYPE ", " OK_SHAPE ", \"data_offsets\": "
    "[0, 4, 8]"), 8, 0, SPX_MASK_ERROR_INVALID, "enc.0.w", "got 3" },
  { "not-an-entry", "{\"enc.0.w\": \"F32\"}", 0, 0, SPX_MASK_ERROR_INVALID,
    "enc.0.w", "expected an object of dtype, shape and data_offsets" },
  { "offsets-past-end", T1 (OK_DTYPE ", " OK_SHAPE ", \"data_offsets\": "
    "[0, 400]"), 4, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "data_offsets [0, 400] run past the end of the file (its tensors' bytes "
    "are 4)" },
  { "offsets-reversed", T1 (OK_DTYPE ", \"shape\": [0], \"data_offsets\": "
    "[4, 0]"), 4, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "data_offsets [4, 0] end before they begin" },
  { "overlap", "{\"a\": {" OK_DTYPE ", \"shape\": [25], \"data_offsets\": "
    "[0, 100]}, \"b\": {" OK_DTYPE ", \"shape\": [25], \"data_offsets\": "
    "[50, 150]}}", 150, 0, SPX_MASK_ERROR_INVALID, "b",
    "data_offsets [50, 150] overlap tensor 'a''s [0, 100]" },
  { "overlap-inside", "{\"a\": {" OK_DTYPE ", \"shape\": [25], "
    "\"data_offsets\": [0, 100]}, \"b\": {" OK_DTYPE ", \"shape\": [1], "
    "\"data_offsets\": [96, 100]}, \"c\": {" OK_DTYPE ", \"shape\": [1], "
    "\"data_offsets\": [40, 44]}}", 100, 0, SPX_MASK_ERROR_INVALID, "c",
    "overlap tensor 'a''s [0, 100]" },
  { "dtype-size", T1 (OK_DTYPE ", \"shape\": [5, 6], \"data_offsets\": "
    "[0, 100]"), 100, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "data_offsets [0, 100] hold 100 bytes, but shape [5, 6] of F32 needs "
    "120" },
  { "shape-overflows", T1 (OK_DTYPE ", \"shape\": [4294967296, 4294967296],"
    " " OK_OFFSETS), 4, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "shape [4294967296, 4294967296] of F32 has more bytes than 64 bits can "
    "count" },
  { "dimension-2^63", T1 (OK_DTYPE ", \"shape\": [9223372036854775808], "
    OK_OFFSETS), 4, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "a whole number past 2^63 - 1" },
  { "leading-zero", T1 (OK_DTYPE ", \"shape\": [01], " OK_OFFSETS), 4, 0,
    SPX_MASK_ERROR_INVALID, "enc.0.w", "a number with a leading zero" },
  { "hexadecimal", T1 (OK_DTYPE ", \"shape\": [0x1], " OK_OFFSETS), 4, 0,
    SPX_MASK_ERROR_INVALID, "enc.0.w", "a hexadecimal number" },
  { "named-twice", "{\"enc.0.w\": {" OK_DTYPE ", " OK_SHAPE ", " OK_OFFSETS
    "}, \"enc.0.w\": {" OK_DTYPE ", " OK_SHAPE ", \"data_offsets\": "
    "[4, 8]}}", 8, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "named twice in the header" },
  { "key-twice", T1 (OK_DTYPE ", \"dtype\": \"F16\", " OK_SHAPE ", "
    OK_OFFSETS), 4, 0, SPX_MASK_ERROR_INVALID, "enc.0.w",
    "'dtype' given twice" },
};

/* A header nested n deep inside tensor "enc.0.w" (or at the top). */
static char *
nested (guint n, gboolean in_tensor)
{
  GString *s = g_string_new (in_tensor ? "{\"enc.0.w\": " : "");
  for (guint i = 0; i < n; i++)
    g_string_append_c (s, '[');
  for (guint i = 0; i < n; i++)
    g_string_append_c (s, ']');
  if (in_tensor)
    g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

static void
assert_refused (const char *path, SpxMaskError code, const char *tensor,
                const char *keyword)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
  g_assert_null (n);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_error (error, SPX_MASK_ERROR, (gint) code);
  g_autofree char *start = g_strconcat (path, ": ", NULL);
  g_assert_true (g_str_has_prefix (error->message, start));
  if (tensor != NULL)
    {
      g_autofree char *named = g_strdup_printf ("%s: tensor '%s': ", path,
                                                tensor);
      g_assert_true (g_str_has_prefix (error->message, named));
    }
  g_assert_nonnull (strstr (error->message, keyword));
  g_assert_null (strchr (error->message, '\n'));
}

static void
test_safetensors_hostile (gconstpointer data)
{
  const Hostile *h = data;
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree guint8 *bytes = g_malloc0 (MAX (h->data, 1));
  write_raw_safetensors (path, h->header, h->length != 0 ? h->length
                         : strlen (h->header), bytes, h->data);
  assert_refused (path, h->code, h->tensor, h->keyword);
  g_unlink (path);
  g_rmdir (dir);
}

/* Nesting that would overflow json-glib's stack, files too short for a
 * header, and a header over the memory budget. */
static void
test_safetensors_hostile_more (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *deep = nested (1000000, TRUE);
  write_raw_safetensors (path, deep, strlen (deep), NULL, 0);
  assert_refused (path, SPX_MASK_ERROR_INVALID, "enc.0.w",
                  "byte 35: JSON nested deeper than 16 levels");
  g_autofree char *top = nested (1000000, FALSE);
  write_raw_safetensors (path, top, strlen (top), NULL, 0);
  assert_refused (path, SPX_MASK_ERROR_INVALID, NULL,
                  "the header: byte 24: JSON nested deeper");
  g_autofree char *fine = nested (16, TRUE); /* 17 deep with the top */
  write_raw_safetensors (path, fine, strlen (fine), NULL, 0);
  assert_refused (path, SPX_MASK_ERROR_INVALID, NULL, "nested deeper");
  g_autofree char *ok = nested (15, TRUE);
  write_raw_safetensors (path, ok, strlen (ok), NULL, 0);
  assert_refused (path, SPX_MASK_ERROR_INVALID, "enc.0.w",
                  "expected an object of dtype"); /* parsed, then read */

  g_assert_true (g_file_set_contents (path, "\x10\0\0", 3, NULL));
  assert_refused (path, SPX_MASK_ERROR_INVALID, NULL,
                  "expected at least 8 bytes (the header's length), got 3");

  const char *header = T1 (OK_DTYPE ", " OK_SHAPE ", " OK_OFFSETS);
  guint8 four[4] = { 0 };
  write_raw_safetensors (path, header, strlen (header), four, 4);
  g_setenv (SPX_MEMORY_BUDGET_ENV, "256", TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "JSON header"));
  g_clear_pointer (&n, spx_network_free);
  g_clear_error (&error);
  n = spx_network_open (path, &error); /* the budget back: it opens */
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
}

/* ---- .npz ------------------------------------------------------------- */

/* Every numpy dtype, a 4-D weight in C and in Fortran order, big-endian
 * and Fortran 2-D members, a bias and a scalar; members stored,
 * deflated, or one of each in turn. */
static void
test_npz (gconstpointer data)
{
  gint32 method = GPOINTER_TO_INT (data);
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.npz", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (types[i].npy != NULL)
      {
        g_autofree char *name = g_strdup_printf ("w_%s", types[i].st);
        tensor (all, name, types[i].st, rand, FALSE, FALSE, 2,
                (guint64) 5 + i, (guint64) 70 - 2 * i);
      }
  tensor (all, "conv", "F32", rand, FALSE, FALSE, 4, (guint64) 6,
          (guint64) 4, (guint64) 3, (guint64) 2);
  tensor (all, "conv_fortran", "F16", rand, TRUE, FALSE, 4, (guint64) 5,
          (guint64) 4, (guint64) 3, (guint64) 2);
  tensor (all, "big", "F64", rand, FALSE, TRUE, 2, (guint64) 9, (guint64) 8);
  tensor (all, "fortran", "I32", rand, TRUE, TRUE, 2, (guint64) 7,
          (guint64) 11);
  Tensor *bias = tensor (all, "bias", "F32", rand, FALSE, FALSE, 1,
                         (guint64) 6);
  Tensor *scalar = tensor (all, "step", "I64", rand, FALSE, FALSE, 0);
  write_npz (path, all, method);

  g_autoptr (SpxNetwork) n = open_ok (path);
  g_assert_cmpstr (spx_network_format (n), ==, "npz");
  g_assert_cmpuint (spx_network_n_entries (n), ==, all->len);
  g_assert_cmpuint (spx_network_n_layers (n), ==, all->len - 2);
  for (guint i = 0; i + 2 < all->len; i++)
    {
      const Tensor *t = all->pdata[i];
      char descr[8];
      npy_descr (t, descr);
      assert_tensor (n, t->name, t, descr, NULL);
    }
  assert_tensor (n, "bias", bias, "<f4", "1-D");
  assert_tensor (n, "step", scalar, "<i8", "a scalar");
  g_unlink (path);
  g_rmdir (dir);
}

/* Members that are not numbers or not .npy are listed, skipped; folders
 * in the archive are passed over. */
static void
test_npz_skipped (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "x.npz", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  Tensor *w = tensor (all, "w", "U8", rand, FALSE, FALSE, 2, (guint64) 4,
                      (guint64) 4);
  int err = 0;
  zip_t *zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &err);
  add_member (zip, "w.npy", npy_bytes (w, "|u1"), ZIP_CM_DEFLATE);
  add_member (zip, "c.npy", npy_bytes (w, "<c8"), ZIP_CM_STORE);
  GByteArray *text = g_byte_array_new ();
  g_byte_array_append (text, (const guint8 *) "hello", 5);
  add_member (zip, "notes.txt", text, ZIP_CM_STORE);
  g_assert_cmpint (zip_dir_add (zip, "sub/", ZIP_FL_ENC_UTF_8), >=, 0);
  g_assert_cmpint (zip_close (zip), ==, 0);

  g_autoptr (SpxNetwork) n = open_ok (path);
  g_assert_cmpuint (spx_network_n_entries (n), ==, 3);
  g_assert_cmpuint (spx_network_n_layers (n), ==, 1);
  assert_tensor (n, "w", w, "|u1", NULL);
  g_assert_cmpstr (spx_network_entry (n, 1)->name, ==, "c");
  g_assert_cmpstr (spx_network_entry (n, 1)->skipped, ==,
                   "complex items have no zero test here");
  g_assert_cmpstr (spx_network_entry (n, 2)->name, ==, "notes.txt");
  g_assert_cmpstr (spx_network_entry (n, 2)->skipped, ==,
                   "not an .npy member");
  g_unlink (path);
  g_rmdir (dir);
}

/* The archive's bytes with the first member's declared size (in its
 * local header and the central directory) set to size. */
static void
patch_size (const char *path, guint32 size)
{
  g_autofree char *b = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &b, &len, NULL));
  g_assert_true (memcmp (b, "PK\x03\x04", 4) == 0);
  guint32 le = GUINT32_TO_LE (size);
  memcpy (b + 22, &le, 4);
  char *central = memmem (b, len, "PK\x01\x02", 4);
  g_assert_nonnull (central);
  memcpy (central + 24, &le, 4);
  g_assert_true (g_file_set_contents (path, b, (gssize) len, NULL));
}

/* Flips a bit of the first member's stored item bytes, at offset. */
static void
flip_data_byte (const char *path, gsize offset)
{
  g_autofree guint8 *b = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, (char **) &b, &len, NULL));
  gsize at = 30 + (b[26] | (gsize) b[27] << 8) + (b[28] | (gsize) b[29] << 8)
             + 128 + offset; /* past the local header and the .npy's */
  g_assert_cmpuint (at, <, len);
  b[at] ^= 0x40;
  g_assert_true (g_file_set_contents (path, (char *) b, (gssize) len, NULL));
}

/* Replaces every from in the file by to (as long). */
static void
patch_bytes (const char *path, const char *from, const char *to)
{
  g_autofree char *b = NULL;
  gsize len, n = strlen (from);
  g_assert_true (g_file_get_contents (path, &b, &len, NULL));
  guint hits = 0;
  for (gsize i = 0; i + n <= len; i++)
    if (memcmp (b + i, from, n) == 0)
      {
        memcpy (b + i, to, n);
        hits++;
      }
  g_assert_cmpuint (hits, >, 0);
  g_assert_true (g_file_set_contents (path, b, (gssize) len, NULL));
}

/* An archive of one member: a 100 × 100 float .npy (a 128-byte header),
 * extra zero bytes after it. */
static void
write_one (const char *path, const char *member, gint32 method, gsize extra)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (1);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  Tensor *w = tensor (all, "w", "F32", rand, FALSE, FALSE, 2, (guint64) 100,
                      (guint64) 100);
  GByteArray *b = npy_bytes (w, "<f4");
  for (gsize i = 0; i < extra; i++)
    g_byte_array_append (b, (const guint8 *) "", 1);
  int err = 0;
  zip_t *zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &err);
  add_member (zip, member, b, method);
  g_assert_cmpint (zip_close (zip), ==, 0);
}

static void
assert_load_refused (const char *path, const char *member,
                     const char *keyword)
{
  g_autoptr (SpxNetwork) n = open_ok (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) m = spx_network_load (n, 0, &error);
  g_assert_null (m);
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_autofree char *start = g_strdup_printf ("%s: member '%s': ", path,
                                            member);
  g_assert_true (g_str_has_prefix (error->message, start));
  g_assert_nonnull (strstr (error->message, keyword));
}

static void
assert_npz_refused (const char *path, const char *member,
                    const char *keyword)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
  g_assert_null (n);
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_autofree char *start = member == NULL ? g_strconcat (path, ": ", NULL)
    : g_strdup_printf ("%s: member '%s': ", path, member);
  g_assert_true (g_str_has_prefix (error->message, start));
  g_assert_nonnull (strstr (error->message, keyword));
}

/* Archives that lie: sizes, bombs, CRCs, names given twice, headers. */
static void
test_npz_hostile (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.npz", NULL);
  gsize npy_len = 128 + 100 * 100 * 4;

  write_one (path, "enc.0.w.npy", ZIP_CM_DEFLATE, 0);
  patch_size (path, 0xfffffff0); /* declares 4 GiB from a few bytes */
  assert_npz_refused (path, "enc.0.w.npy", "declares 4294967280 bytes from");

  write_one (path, "enc.0.w.npy", ZIP_CM_DEFLATE, 400);
  patch_size (path, (guint32) npy_len); /* inflates to more than declared */
  assert_load_refused (path, "enc.0.w.npy", "inflates to more than the "
                       "40128 bytes the archive declares");

  write_one (path, "enc.0.w.npy", ZIP_CM_STORE, 400);
  patch_size (path, (guint32) npy_len);
  assert_npz_refused (path, "enc.0.w.npy", "stored, yet declares 40128 "
                      "bytes in 40528");

  write_one (path, "enc.0.w.npy", ZIP_CM_DEFLATE, 400);
  assert_npz_refused (path, "enc.0.w.npy", "shape (100, 100) of <f4 needs "
                      "40000 bytes, but 40400 follow its header");

  write_one (path, "enc.0.w.npy", ZIP_CM_STORE, 0);
  flip_data_byte (path, 1000); /* the CRC no longer matches */
  assert_load_refused (path, "enc.0.w.npy", "CRC error");

  write_one (path, "enc.0.w.npy", ZIP_CM_STORE, 0);
  patch_bytes (path, "'descr'", "'DESCR'");
  assert_npz_refused (path, "enc.0.w.npy", "a key 'descr', 'fortran_order' "
                      "or 'shape'");

  g_autoptr (GRand) rand = g_rand_new_with_seed (1);
  g_autoptr (GPtrArray) two = g_ptr_array_new_with_free_func (tensor_free);
  tensor (two, "a", "U8", rand, FALSE, FALSE, 2, (guint64) 2, (guint64) 2);
  tensor (two, "b", "U8", rand, FALSE, FALSE, 2, (guint64) 2, (guint64) 2);
  write_npz (path, two, ZIP_CM_STORE);
  patch_bytes (path, "b.npy", "a.npy");
  assert_npz_refused (path, NULL, "two members of one name");

  write_npz (path, two, ZIP_CM_STORE);
  g_autofree char *whole = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &whole, &len, NULL));
  g_assert_true (g_file_set_contents (path, whole, (gssize) len - 30, NULL));
  assert_npz_refused (path, NULL, "expected a zip archive of .npy files; "
                      "libzip: ");
  g_unlink (path);
  g_rmdir (dir);
}

/* ---- folders ---------------------------------------------------------- */

static void
copy_file (const char *from, const char *to)
{
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (from, &text, &len, NULL));
  g_assert_true (g_file_set_contents (to, text, (gssize) len, NULL));
}

static char *
data_file (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

/* Sub-folders walked in name order; mask files and networks' tensors
 * named by their path from the folder; files no row reads passed over. */
static void
test_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *deeper = g_build_filename (sub, "deeper", NULL);
  g_assert_cmpint (g_mkdir_with_parents (deeper, 0700), ==, 0);
  g_autofree char *smtx = data_file ("small.smtx");
  g_autofree char *mtx = data_file ("small.mtx");
  g_autofree char *a = g_build_filename (dir, "a.smtx", NULL);
  g_autofree char *x = g_build_filename (deeper, "x.mtx", NULL);
  copy_file (smtx, a);
  copy_file (mtx, x);
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  Tensor *w = tensor (all, "enc.w", "F16", rand, FALSE, FALSE, 2,
                      (guint64) 12, (guint64) 10);
  tensor (all, "enc.b", "F16", rand, FALSE, FALSE, 1, (guint64) 12);
  g_autofree char *st = g_build_filename (sub, "model.safetensors", NULL);
  write_safetensors (st, all);
  const char *ignored[] = { "README.txt", "notes.md", ".hidden.mtx" };
  for (guint i = 0; i < G_N_ELEMENTS (ignored); i++)
    {
      g_autofree char *p = g_build_filename (sub, ignored[i], NULL);
      g_assert_true (g_file_set_contents (p, "not a mask\n", -1, NULL));
    }

  g_autoptr (SpxNetwork) n = open_ok (dir);
  g_assert_cmpstr (spx_network_format (n), ==, "folder");
  g_assert_cmpuint (spx_network_n_entries (n), ==, 4);
  const char *names[] = { "a.smtx", "sub/deeper/x.mtx",
                          "sub/model.safetensors/enc.w",
                          "sub/model.safetensors/enc.b" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_assert_cmpstr (spx_network_entry (n, i)->name, ==, names[i]);
  g_assert_cmpuint (spx_network_n_layers (n), ==, 3);
  assert_tensor (n, "sub/model.safetensors/enc.w", w, "F16", NULL);
  const char *files[] = { a, x };
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) want = spx_mask_load (files[i], NULL, &error);
      g_autoptr (SpxMask) got = spx_network_load (n, i, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (spx_network_entry (n, i)->rows, ==, want->rows);
      g_assert_cmpuint (spx_network_entry (n, i)->cols, ==, want->cols);
      g_assert_cmpuint (got->n_words, ==, want->n_words);
      g_assert_true (memcmp (got->bits, want->bits,
                             want->n_words * sizeof (guint64)) == 0);
    }
  test_remove_folder (dir);
}

/* Layers listed as they are numbered: digits compared as numbers. */
static void
test_folder_order (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *mtx = data_file ("small.mtx");
  const char *files[] = { "layer_10.mtx", "layer_2.mtx", "layer_1.mtx",
                          "layer_02b.mtx", "Layer_3.mtx" };
  const char *sorted[] = { "Layer_3.mtx", "layer_1.mtx", "layer_2.mtx",
                           "layer_02b.mtx", "layer_10.mtx" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *p = g_build_filename (dir, files[i], NULL);
      copy_file (mtx, p);
    }
  g_autoptr (SpxNetwork) n = open_ok (dir);
  g_assert_cmpuint (spx_network_n_entries (n), ==, G_N_ELEMENTS (sorted));
  for (guint i = 0; i < G_N_ELEMENTS (sorted); i++)
    g_assert_cmpstr (spx_network_entry (n, i)->name, ==, sorted[i]);
  test_remove_folder (dir);
}

/* DLMC's layout: a folder of .smtx layers, each the mask its file holds. */
static void
test_dlmc_folder (void)
{
  const char *layers[] = {
    "rn50-magnitude_pruning-0.9-initial_conv.smtx",
    "transformer-magnitude_pruning-0.98-attention_q.smtx",
  };
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *pruned = g_build_filename (dir, "magnitude_pruning",
                                              "0.9", NULL);
  g_assert_cmpint (g_mkdir_with_parents (pruned, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (layers); i++)
    {
      g_autofree char *from = data_file (layers[i]);
      g_autofree char *to = g_build_filename (pruned, layers[i], NULL);
      copy_file (from, to);
    }
  g_autoptr (SpxNetwork) n = open_ok (dir);
  g_assert_cmpuint (spx_network_n_layers (n), ==, 2);
  /* the .smtx headers: rows, columns, non-zeros */
  const guint64 want[2][3] = { { 64, 147, 940 }, { 512, 512, 5242 } };
  for (guint i = 0; i < 2; i++)
    {
      const SpxNetworkEntry *e = spx_network_entry (n, i);
      g_autofree char *name = g_strconcat ("magnitude_pruning/0.9/",
                                           layers[i], NULL);
      g_assert_cmpstr (e->name, ==, name);
      g_assert_cmpstr (e->dtype, ==, "smtx");
      g_assert_cmpuint (e->rows, ==, want[i][0]);
      g_assert_cmpuint (e->cols, ==, want[i][1]);
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) m = spx_network_load (n, i, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (spx_mask_count (m), ==, want[i][2]);
    }
  test_remove_folder (dir);
}

/* ---- a mask file's loader given a network ----------------------------- */

static void
test_mask_load_refuses (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (5);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  tensor (all, "a", "F32", rand, FALSE, FALSE, 2, (guint64) 3, (guint64) 3);
  tensor (all, "b", "F32", rand, FALSE, FALSE, 2, (guint64) 3, (guint64) 3);
  tensor (all, "c", "F32", rand, FALSE, FALSE, 1, (guint64) 3);
  const char *files[] = { "m.safetensors", "m.npz", "my model.npz" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      if (i == 0)
        write_safetensors (path, all);
      else
        write_npz (path, all, ZIP_CM_DEFLATE);
      const SpxFormat *format = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) m = spx_mask_load (path, &format, &error);
      g_assert_null (m);
      g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT);
      g_test_message ("%s", error->message);
      g_assert_cmpstr (spx_format_to_string (format), ==,
                       i == 0 ? "safetensors" : "npz");
      g_autofree char *quoted = i == 2 ? g_shell_quote (path)
                                       : g_strdup (path);
      g_autofree char *want = g_strdup_printf (
        "%s: a network of 2 layers (%s), not one mask: open it with "
        "`sparse-explorer layers %s` or in the window", path,
        i == 0 ? "safetensors" : "NumPy archive", quoted);
      g_assert_cmpstr (error->message, ==, want);
    }
  test_remove_folder (dir);
}

/* A layer's mask over the memory budget is refused naming the file and
 * the tensor; the budget back, it loads. */
static void
test_load_budget (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (8);
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func (tensor_free);
  tensor (all, "enc.w", "U8", rand, FALSE, FALSE, 2, (guint64) 300,
          (guint64) 400);
  const char *files[] = { "m.safetensors", "m.npz" };
  const char *named[] = { "tensor 'enc.w'", "member 'enc.w.npy'" };
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      if (i == 0)
        write_safetensors (path, all);
      else
        write_npz (path, all, ZIP_CM_DEFLATE);
      g_autoptr (SpxNetwork) n = open_ok (path);
      g_autoptr (GError) error = NULL;
      g_setenv (SPX_MEMORY_BUDGET_ENV, "8K", TRUE); /* the mask: 15 KB */
      g_autoptr (SpxMask) m = spx_network_load (n, 0, &error);
      g_unsetenv (SPX_MEMORY_BUDGET_ENV);
      g_assert_null (m);
      g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
      g_autofree char *start = g_strdup_printf ("%s: %s: ", path, named[i]);
      g_assert_true (g_str_has_prefix (error->message, start));
      g_clear_error (&error);
      m = spx_network_load (n, 0, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (spx_mask_count (m), ==,
                        ((Tensor *) all->pdata[0])->count);
    }
  test_remove_folder (dir);
}

/* ---- detection -------------------------------------------------------- */

/* The rows that read networks know their files by content, and say FALSE
 * to every other row's files: the test data and the fuzz seeds. */
static void
test_detect (void)
{
  const char *folders[] = { "data", "fuzz/seeds/mtx", "fuzz/seeds/smtx",
                            "fuzz/seeds/npy", "fuzz/seeds/png",
                            "fuzz/seeds/safetensors", "fuzz/seeds/npz" };
  guint seen = 0;
  for (guint i = 0; i < G_N_ELEMENTS (folders); i++)
    {
      g_autofree char *dir = g_test_build_filename (G_TEST_DIST, folders[i],
                                                    NULL);
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      g_assert_nonnull (d);
      const char *row = g_str_has_suffix (folders[i], "safetensors")
        ? "safetensors" : g_str_has_suffix (folders[i], "npz") ? "npz" : NULL;
      for (const char *name; (name = g_dir_read_name (d)) != NULL;)
        {
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_autofree char *text = NULL;
          gsize len;
          if (!g_file_get_contents (path, &text, &len, NULL))
            continue; /* a folder */
          const SpxFormat *f = spx_format_detect ((const guint8 *) text, len,
                                                  NULL);
          if (row != NULL)
            g_assert_cmpstr (spx_format_to_string (f), ==, row);
          else if (spx_format_can (f, SPX_FORMAT_READS_NETWORK))
            g_error ("%s detected as %s", path, f->name);
          seen++;
        }
    }
  g_assert_cmpuint (seen, >, 20);
}

/* ---- a large file ----------------------------------------------------- */

/* Resident memory, in bytes, from /proc/self/statm. */
static guint64
resident (void)
{
  g_autofree char *text = NULL;
  if (!g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    return 0;
  guint64 size = 0, pages = 0;
  if (sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &size,
              &pages) != 2)
    return 0;
  return pages * (guint64) sysconf (_SC_PAGESIZE);
}

/* A 2 GiB safetensors (64 F16 tensors of 4096 × 4096, sparse on disk):
 * listing it reads its header only, and loading a tensor reads that
 * tensor only, and does not keep it. */
static void
test_large (void)
{
  enum { N = 64, SIDE = 4096 };
  g_autofree char *dir = g_dir_make_tmp ("spx-network-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "big.safetensors", NULL);
  g_autoptr (GString) h = g_string_new ("{");
  guint64 each = (guint64) SIDE * SIDE * 2;
  for (guint i = 0; i < N; i++)
    g_string_append_printf (h, "%s\"model.layers.%u.mlp.weight\": {\"dtype\":"
                            " \"F16\", \"shape\": [%d, %d], \"data_offsets\":"
                            " [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                            "]}", i ? ", " : "", i, SIDE, SIDE, i * each,
                            (i + 1) * each);
  g_string_append_c (h, '}');
  write_raw_safetensors (path, h->str, h->len, NULL, 0);
  int fd = open (path, O_WRONLY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) (8 + h->len + N * each)), ==, 0);
  /* one non-zero, last in the last tensor */
  guint8 one[2] = { 0x00, 0x3c };
  g_assert_cmpint (pwrite (fd, one, 2, (off_t) (8 + h->len + N * each - 2)),
                   ==, 2);
  close (fd);

  guint64 before = resident ();
  double start = spx_now_ms ();
  g_autoptr (SpxNetwork) n = open_ok (path);
  g_assert_cmpuint (spx_network_n_layers (n), ==, N);
  for (guint i = 0; i < N; i++)
    g_assert_cmpuint (spx_network_entry (n, i)->rows, ==, SIDE);
  double ms = spx_now_ms () - start;
  guint64 grew = resident () - before;
  g_test_message ("open and list 2 GiB: %.1f ms, resident grew %"
                  G_GUINT64_FORMAT " KiB", ms, grew / 1024);
  if (before == 0)
    g_test_incomplete ("no /proc/self/statm");
  g_assert_cmpuint (grew, <, 200 * 1000 * 1000);

  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) m = spx_network_load (n, N - 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_mask_count (m), ==, 1);
  g_assert_true (spx_mask_get (m, SIDE - 1, SIDE - 1));
  grew = resident () - before;
  g_test_message ("after loading one 32 MiB tensor: resident grew %"
                  G_GUINT64_FORMAT " KiB", grew / 1024);
  /* its mask's 2 MiB: the tensor's pages were read, then given back */
  g_assert_cmpuint (grew, <, each / 2);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/network/safetensors", test_safetensors);
  g_test_add_func ("/network/safetensors/skipped-dtypes",
                   test_safetensors_skipped_dtypes);
  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autofree char *name = g_strconcat ("/network/safetensors/hostile/",
                                           hostile[i].name, NULL);
      g_test_add_data_func (name, &hostile[i], test_safetensors_hostile);
    }
  g_test_add_func ("/network/safetensors/hostile/nesting-length-budget",
                   test_safetensors_hostile_more);
  g_test_add_data_func ("/network/npz/stored",
                        GINT_TO_POINTER (ZIP_CM_STORE), test_npz);
  g_test_add_data_func ("/network/npz/deflated",
                        GINT_TO_POINTER (ZIP_CM_DEFLATE), test_npz);
  g_test_add_data_func ("/network/npz/stored-and-deflated",
                        GINT_TO_POINTER (-1), test_npz);
  g_test_add_func ("/network/npz/skipped", test_npz_skipped);
  g_test_add_func ("/network/npz/hostile", test_npz_hostile);
  g_test_add_func ("/network/folder", test_folder);
  g_test_add_func ("/network/folder/dlmc", test_dlmc_folder);
  g_test_add_func ("/network/folder/order", test_folder_order);
  g_test_add_func ("/network/mask-load-refuses", test_mask_load_refuses);
  g_test_add_func ("/network/detect", test_detect);
  g_test_add_func ("/network/load-budget", test_load_budget);
  g_test_add_func ("/network/large", test_large);
  return g_test_run ();
}
