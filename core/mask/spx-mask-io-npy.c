/* spx-mask-io-npy.c: NumPy (.npy) masks
 *
 * Versions 1.0, 2.0 and 3.0; 2-D arrays of bool, integers of 1 to 8 bytes
 * or floats of 2, 4 or 8 bytes in either byte order, C or Fortran order.
 * A non-zero element is a set bit (spx_io_scan). The header's parser
 * reads n-D shapes too, for the members of .npz archives. */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"

#include <string.h>

static const guint8 magic[] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4, KEY_ALL = 7 };

typedef struct {
  const char   *name;
  const guint8 *data;   /* the file, for byte offsets */
  const guint8 *p, *end; /* the header dict */
  guint         keys;   /* KEY_* seen */
  SpxIoArray    array;
  gsize         shape_at; /* byte offset of the shape, for errors */
  const char   *refused;  /* what a refused dtype is ("complex") */
} Npy;

static gboolean G_GNUC_PRINTF (5, 6)
byte_error (GError **error, SpxMaskError code, const char *name,
            gsize offset, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, SPX_MASK_ERROR, code, "%s: byte %" G_GSIZE_FORMAT
               ": expected %s", name, offset, what);
  return FALSE;
}

/* "expected <what>, got '…'" at p in the header. */
static gboolean
dict_error (const Npy *n, const guint8 *p, GError **error, SpxMaskError code,
            const char *what)
{
  g_autofree char *got = p < n->end
    ? spx_io_excerpt ((const char *) p, (const char *) n->end)
    : g_strdup ("the end of the header");
  return byte_error (error, code, n->name, (gsize) (p - n->data),
                     "%s, got %s", what, got);
}

/* Python's white space inside a dict literal. */
static void
skip_space (Npy *n)
{
  while (n->p < n->end && g_ascii_isspace (*n->p))
    n->p++;
}

static gboolean
expect_char (Npy *n, char c, const char *what, GError **error)
{
  skip_space (n);
  if (n->p < n->end && *n->p == c)
    {
      n->p++;
      return TRUE;
    }
  return dict_error (n, n->p, error, SPX_MASK_ERROR_INVALID, what);
}

/* A quoted string without escapes: 'text' or "text". */
static gboolean
read_string (Npy *n, const char **s, gsize *len, const char *what,
             GError **error)
{
  skip_space (n);
  const guint8 *start = n->p;
  if (n->p < n->end && (*n->p == '\'' || *n->p == '"'))
    {
      guint8 quote = *n->p++;
      const guint8 *text = n->p;
      while (n->p < n->end && *n->p != quote && *n->p != '\\' &&
             *n->p != '\n')
        n->p++;
      if (n->p < n->end && *n->p == quote)
        {
          *s = (const char *) text;
          *len = (gsize) (n->p++ - text);
          return TRUE;
        }
    }
  return dict_error (n, start, error, SPX_MASK_ERROR_INVALID, what);
}

static gboolean
text_is (const char *s, gsize len, const char *word)
{
  return len == strlen (word) && memcmp (s, word, len) == 0;
}

/* The dtypes that are not masks get a message naming what they are. */
static gboolean
descr_refused (Npy *n, const guint8 *at, const char *s, gsize len,
               GError **error)
{
  static const struct { char kind; const char *what; } refused[] = {
    { 'O', "object" }, { 'S', "string" }, { 'a', "string" },
    { 'U', "string" }, { 'c', "complex" }, { 'V', "structured" },
    { 'M', "datetime" }, { 'm', "timedelta" },
  };
  const char *what = NULL;
  for (guint i = 0; len >= 2 && i < G_N_ELEMENTS (refused); i++)
    if (s[1] == refused[i].kind)
      what = refused[i].what;
  n->refused = what;
  g_autofree char *expected = g_strdup_printf (
    "a descr of bool, integer or float (|b1 |u1 |i1 and <u2 <i2 <u4 <i4 "
    "<u8 <i8 <f2 <f4 <f8 or their > forms)%s%s%s", what ? "; " : "",
    what ? what : "", what ? " arrays are not supported" : "");
  SpxMaskError code = what ? SPX_MASK_ERROR_FORMAT : SPX_MASK_ERROR_INVALID;
  g_autofree char *got = spx_io_excerpt (s, s + len);
  return byte_error (error, code, n->name, (gsize) (at - n->data),
                     "%s, got %s", expected, got);
}

static gboolean
parse_descr (Npy *n, GError **error)
{
  static const char *const known[] = {
    "b1", "u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f2", "f4", "f8",
  };
  skip_space (n);
  const guint8 *at = n->p;
  const char *s;
  gsize len;
  if (n->p < n->end && (*n->p == '[' || *n->p == '{'))
    return dict_error (n, at, error, SPX_MASK_ERROR_FORMAT,
                       "a descr string (structured arrays are not "
                       "supported)");
  if (!read_string (n, &s, &len, "a descr string such as '|u1'", error))
    return FALSE;
  for (guint i = 0; len == 3 && i < G_N_ELEMENTS (known); i++)
    if (memcmp (s + 1, known[i], 2) == 0)
      {
        n->array.kind = known[i][0];
        n->array.size = (guint) (known[i][1] - '0');
        n->array.big = s[0] == '>';
        /* '|' (no byte order) only for single bytes, as numpy writes */
        if (s[0] == '<' || s[0] == '>' ||
            (s[0] == '|' && n->array.size == 1))
          return TRUE;
      }
  return descr_refused (n, at, s, len, error);
}

static gboolean
parse_fortran (Npy *n, GError **error)
{
  skip_space (n);
  const guint8 *at = n->p;
  gsize room = (gsize) (n->end - n->p);
  n->array.fortran = room >= 4 && memcmp (n->p, "True", 4) == 0;
  if (n->array.fortran)
    n->p += 4;
  else if (room >= 5 && memcmp (n->p, "False", 5) == 0)
    n->p += 5;
  else
    return dict_error (n, at, error, SPX_MASK_ERROR_INVALID,
                       "fortran_order True or False");
  if (n->p < n->end && (g_ascii_isalnum (*n->p) || *n->p == '_'))
    return dict_error (n, at, error, SPX_MASK_ERROR_INVALID,
                       "fortran_order True or False");
  return TRUE;
}

/* One dimension: a Python int (an 'L' suffix from Python 2 is allowed). */
static gboolean
parse_dim (Npy *n, GError **error)
{
  const guint8 *at = n->p;
  guint64 v = 0;
  guint digits = 0;
  for (; n->p < n->end && g_ascii_isdigit (*n->p); n->p++, digits++)
    if (digits < SPX_TEXT_MAX_DIGITS)
      v = v * 10 + (guint) (*n->p - '0');
  if (digits == 0)
    return dict_error (n, at, error, SPX_MASK_ERROR_INVALID,
                       "a dimension (a non-negative integer)");
  if (n->p < n->end && *n->p == 'L')
    n->p++;
  if (digits > SPX_TEXT_MAX_DIGITS)
    return dict_error (n, at, error, SPX_MASK_ERROR_TOO_LARGE,
                       "a dimension of at most 19 digits");
  if (n->array.n_dims < SPX_NETWORK_MAX_DIMS)
    n->array.shape[n->array.n_dims] = v;
  if (n->array.n_dims < G_MAXUINT)
    n->array.n_dims++;
  return TRUE;
}

/* A tuple of ints: "()", "(3,)", "(3, 4)", "(3, 4,)". */
static gboolean
parse_shape (Npy *n, GError **error)
{
  skip_space (n);
  n->shape_at = (gsize) (n->p - n->data);
  if (!expect_char (n, '(', "a shape tuple such as (3, 4)", error))
    return FALSE;
  n->array.n_dims = 0;
  for (;;)
    {
      skip_space (n);
      if (n->p < n->end && *n->p == ')')
        break;
      if (!parse_dim (n, error))
        return FALSE;
      skip_space (n);
      if (n->p < n->end && *n->p == ',')
        n->p++;
      else if (n->p >= n->end || *n->p != ')')
        return dict_error (n, n->p, error, SPX_MASK_ERROR_INVALID,
                           "',' or ')' in the shape tuple");
    }
  n->p++;
  return TRUE;
}

static gboolean
parse_value (Npy *n, const guint8 *key_at, const char *key, gsize len,
             GError **error)
{
  static const struct { const char *key; guint bit; } keys[] = {
    { "descr", KEY_DESCR }, { "fortran_order", KEY_FORTRAN },
    { "shape", KEY_SHAPE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (text_is (key, len, keys[i].key))
      {
        if (n->keys & keys[i].bit)
          return dict_error (n, key_at, error, SPX_MASK_ERROR_INVALID,
                             "each key once");
        n->keys |= keys[i].bit;
        if (!expect_char (n, ':', "':' after the key", error))
          return FALSE;
        return keys[i].bit == KEY_DESCR ? parse_descr (n, error)
             : keys[i].bit == KEY_FORTRAN ? parse_fortran (n, error)
             : parse_shape (n, error);
      }
  return dict_error (n, key_at, error, SPX_MASK_ERROR_INVALID,
                     "a key 'descr', 'fortran_order' or 'shape'");
}

static gboolean
parse_dict (Npy *n, GError **error)
{
  if (!expect_char (n, '{', "a header dict starting with '{'", error))
    return FALSE;
  for (;;)
    {
      skip_space (n);
      if (n->p < n->end && *n->p == '}')
        break;
      const guint8 *key_at = n->p;
      const char *key;
      gsize len;
      if (!read_string (n, &key, &len, "a quoted key or '}'", error) ||
          !parse_value (n, key_at, key, len, error))
        return FALSE;
      skip_space (n);
      if (n->p < n->end && *n->p == ',')
        n->p++;
      else if (n->p >= n->end || *n->p != '}')
        return dict_error (n, n->p, error, SPX_MASK_ERROR_INVALID,
                           "',' or '}' in the header dict");
    }
  const guint8 *close = n->p++;
  skip_space (n);
  if (n->p < n->end)
    return dict_error (n, n->p, error, SPX_MASK_ERROR_INVALID,
                       "only spaces after the header dict");
  if (n->keys != KEY_ALL)
    return dict_error (n, close, error, SPX_MASK_ERROR_INVALID,
                       !(n->keys & KEY_DESCR) ? "a 'descr' key"
                       : !(n->keys & KEY_FORTRAN) ? "a 'fortran_order' key"
                       : "a 'shape' key");
  return TRUE;
}

gsize
spx_npy_header_end (const char *name, const guint8 *d, gsize size,
                    GError **error)
{
  if (size < 10)
    return byte_error (error, SPX_MASK_ERROR_INVALID, name, size,
                       "at least 10 bytes (magic, version, header length), "
                       "got end of file");
  if (memcmp (d, magic, sizeof magic) != 0)
    {
      g_autofree char *got = spx_io_excerpt ((const char *) d,
                                             (const char *) d + 6);
      return byte_error (error, SPX_MASK_ERROR_INVALID, name, 0,
                         "the NumPy magic '\\x93NUMPY', got %s", got);
    }
  if (d[6] < 1 || d[6] > 3 || d[7] != 0)
    return byte_error (error, SPX_MASK_ERROR_FORMAT, name, 6,
                       "version 1.0, 2.0 or 3.0, got %u.%u", d[6], d[7]);
  gsize start = d[6] == 1 ? 10 : 12;
  if (size < start)
    return byte_error (error, SPX_MASK_ERROR_INVALID, name, size,
                       "a 4-byte header length, got end of file");
  guint64 hlen = d[6] == 1 ? (guint64) d[8] | (guint64) d[9] << 8
                           : (guint64) d[8] | (guint64) d[9] << 8 |
                             (guint64) d[10] << 16 | (guint64) d[11] << 24;
  if (hlen > size - start)
    return byte_error (error, SPX_MASK_ERROR_INVALID, name, 8,
                       "a header length of at most %" G_GSIZE_FORMAT
                       " (the rest of the file), got %" G_GUINT64_FORMAT,
                       size - start, hlen);
  if (hlen == 0)
    return byte_error (error, SPX_MASK_ERROR_INVALID, name, start,
                       "a header ending in a newline ('\\n')");
  return start + (gsize) hlen;
}

gboolean
spx_npy_parse_header (const char *name, const guint8 *data, gsize len,
                      SpxIoArray *array, gsize *shape_at,
                      const char **refused, GError **error)
{
  Npy n = { .name = name, .data = data };
  n.p = data + (data[6] == 1 ? 10 : 12);
  n.end = data + len;
  gboolean ok = n.end[-1] == '\n'
    ? parse_dict (&n, error)
    : byte_error (error, SPX_MASK_ERROR_INVALID, name, len - 1,
                  "a header ending in a newline ('\\n')");
  if (refused != NULL)
    *refused = n.refused;
  *array = n.array;
  *shape_at = n.shape_at;
  return ok;
}

void
spx_npy_descr (const SpxIoArray *array, char buf[8])
{
  g_snprintf (buf, 8, "%c%c%u", array->size == 1 ? '|'
              : array->big ? '>' : '<', array->kind, array->size);
}

/* 2-D, no zero side, and the byte count fits a guint64. */
static gboolean
check_shape (const char *name, const SpxIoArray *a, gsize offset,
             guint64 *bytes, GError **error)
{
  if (a->n_dims != 2)
    return byte_error (error, SPX_MASK_ERROR_INVALID, name, offset,
                       "a 2-D shape, got %u dimension%s", a->n_dims,
                       a->n_dims == 1 ? "" : "s");
  if (a->shape[0] == 0 || a->shape[1] == 0)
    return byte_error (error, SPX_MASK_ERROR_INVALID, name, offset,
                       "a shape without zeros, got (%" G_GUINT64_FORMAT ", %"
                       G_GUINT64_FORMAT ")", a->shape[0], a->shape[1]);
  if (!spx_io_array_bytes (a, bytes))
    return byte_error (error, SPX_MASK_ERROR_TOO_LARGE, name, offset,
                       "a shape whose size fits in 64 bits, got (%"
                       G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
                       a->shape[0], a->shape[1]);
  return TRUE;
}

static SpxMask *
load_npy (const char *name, const guint8 *data, gsize len, GError **error)
{
  if (spx_io_refuse_compressed (name, data, len, error))
    return NULL;

  SpxIoArray a;
  gsize shape_at;
  guint64 bytes = 0;
  gsize start = spx_npy_header_end (name, data, len, error);
  if (start == 0 ||
      !spx_npy_parse_header (name, data, start, &a, &shape_at, NULL,
                             error) ||
      !check_shape (name, &a, shape_at, &bytes, error))
    return NULL;
  if (bytes != len - start)
    {
      if (bytes > len - start)
        byte_error (error, SPX_MASK_ERROR_INVALID, name, len,
                    "%" G_GUINT64_FORMAT " bytes of data, got %"
                    G_GSIZE_FORMAT " (the file is truncated)",
                    bytes, len - start);
      else
        byte_error (error, SPX_MASK_ERROR_INVALID, name,
                    start + (gsize) bytes, "the end of the file after %"
                    G_GUINT64_FORMAT " bytes of data, got %" G_GSIZE_FORMAT
                    " more", bytes, len - start - (gsize) bytes);
      return NULL;
    }
  g_autoptr (SpxMask) mask = spx_mask_new (a.shape[0], a.shape[1], 1, error);
  if (mask == NULL)
    {
      g_prefix_error (error, "%s: byte %" G_GSIZE_FORMAT ": ", name,
                      shape_at);
      return NULL;
    }
  SpxIoScan scan;
  spx_io_scan_init (&scan, &a, mask);
  if (!spx_io_scan (&scan, data + start, a.shape[0] * a.shape[1], error))
    return NULL;
  return g_steal_pointer (&mask);
}

/* Writer: |u1 0/1, version 1.0, data aligned to 64 bytes. */

static gsize
put_header (char *out, const SpxMask *mask)
{
  g_autofree char *dict = g_strdup_printf (
    "{'descr': '|u1', 'fortran_order': False, 'shape': (%" G_GUINT64_FORMAT
    ", %" G_GUINT64_FORMAT "), }", mask->rows, mask->cols);
  gsize dlen = strlen (dict);
  gsize total = (10 + dlen + 1 + 63) / 64 * 64; /* +1: the '\n' */
  gsize hlen = total - 10;
  memcpy (out, magic, sizeof magic);
  out[6] = 1;
  out[7] = 0;
  out[8] = (char) (hlen & 0xff);
  out[9] = (char) (hlen >> 8);
  memcpy (out + 10, dict, dlen);
  memset (out + 10 + dlen, ' ', hlen - dlen - 1);
  out[total - 1] = '\n';
  return total;
}

static gboolean
save_npy (const SpxMask *mask, const char *path, SpxSaveFlags flags,
          GError **error)
{
  guint64 size;
  if (!g_uint64_checked_mul (&size, mask->rows, mask->cols) ||
      !g_uint64_checked_add (&size, size, 128))
    size = G_MAXUINT64;
  g_autofree char *buf = spx_io_alloc_output (path, size, error);
  if (buf == NULL)
    return FALSE;

  gsize head = put_header (buf, mask);
  char *row = buf + head;
  guint64 b = mask->block;
  for (guint64 br = 0; br < mask->brows; br++)
    {
      char *first = row;
      memset (row, 0, mask->cols);
      for (guint64 bc = spx_io_next_in_row (mask, br, 0); bc < mask->bcols;
           bc = spx_io_next_in_row (mask, br, bc + 1))
        memset (row + bc * b, 1, spx_mask_block_width (mask, bc));
      row += mask->cols;
      for (guint r = 1; r < spx_mask_block_height (mask, br); r++)
        {
          memcpy (row, first, mask->cols);
          row += mask->cols;
        }
    }
  return spx_save_file (path, buf, (gsize) (row - buf), flags, error);
}

static gboolean
detect_npy (const guint8 *data, gsize len)
{
  return spx_io_has_prefix (data, len, magic, sizeof magic);
}

const SpxFormat spx_format_npy = {
  .name = "npy",
  .title = "NumPy",
  .extensions = (const char *const[]) { "npy", NULL },
  .detect = detect_npy,
  .load = load_npy,
  .save = save_npy,
};
