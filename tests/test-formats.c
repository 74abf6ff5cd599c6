/* test-formats.c: mask file formats: every kind of malformed file each
 * loader must refuse, the accepted variants, round trips, detection, and
 * the real DLMC matrices. */
#include "spx-mask-io.h"
#include "spx-util.h"
#include "test-dlmc.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef SpxMask *(*Loader) (const char *name, const guint8 *data, gsize len,
                            GError **error);

/* Loaders get an exact-size heap copy, so that the sanitizers catch any
 * read past the end (real files are mapped, not NUL-terminated). */
static SpxMask *
load_bytes (Loader loader, const char *name, const void *data, gsize len,
            GError **error)
{
  guint8 *copy = g_malloc (MAX (len, 1));
  memcpy (copy, data, len);
  SpxMask *mask = loader (name, copy, len, error);
  g_free (copy);
  return mask;
}

static SpxMask *
load_text (Loader loader, const char *text)
{
  g_autoptr (GError) error = NULL;
  SpxMask *mask = load_bytes (loader, "good", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_nonnull (mask);
  return mask;
}

static void
assert_message_has (const GError *error, const char *part)
{
  if (strstr (error->message, part) == NULL)
    g_error ("error message \"%s\" lacks \"%s\"", error->message, part);
}

static void
assert_message_starts (const GError *error, const char *prefix)
{
  if (!g_str_has_prefix (error->message, prefix))
    g_error ("error message \"%s\" does not start with \"%s\"",
             error->message, prefix);
}

/* The mask has exactly the listed (row, col) bits, ending with -1. */
static void
assert_bits (const SpxMask *mask, guint64 rows, guint64 cols, ...)
{
  g_autoptr (SpxMask) expected = spx_mask_new (rows, cols, 1, NULL);
  va_list args;
  va_start (args, cols);
  for (int r = va_arg (args, int); r >= 0; r = va_arg (args, int))
    spx_mask_set (expected, (guint64) r, (guint64) va_arg (args, int));
  va_end (args);
  g_assert_cmpuint (mask->rows, ==, rows);
  g_assert_cmpuint (mask->cols, ==, cols);
  g_assert_cmpuint (mask->block, ==, 1);
  for (guint64 r = 0; r < rows; r++)
    for (guint64 c = 0; c < cols; c++)
      if (spx_mask_get (mask, r, c) != spx_mask_get (expected, r, c))
        g_error ("bit (%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                 ") is %d", r, c, spx_mask_get (mask, r, c));
  g_assert_true (spx_mask_equal (mask, expected));
}

/* Refusals of the text formats */

typedef struct {
  const char  *path;
  const char  *text;
  gssize       len;     /* -1: strlen (text) */
  SpxMaskError code;
  guint        line;    /* 0: the message names the file only */
  const char  *keyword;
} TextRefusal;

#define BANNER "%%MatrixMarket matrix coordinate pattern general\n"
#define REAL "%%MatrixMarket matrix coordinate real general\n"
#define INTEGER "%%MatrixMarket matrix coordinate integer general\n"
#define SYM "%%MatrixMarket matrix coordinate pattern symmetric\n"
#define ARRAY "%%MatrixMarket matrix array real general\n"
#define INVALID SPX_MASK_ERROR_INVALID
#define FORMAT SPX_MASK_ERROR_FORMAT
#define TOO_LARGE SPX_MASK_ERROR_TOO_LARGE

static const TextRefusal mtx_refusals[] = {
  { "empty", "", -1, INVALID, 1, "empty file" },
  { "banner/missing", "3 3 1\n1 1\n", -1, INVALID, 1, "%%MatrixMarket" },
  { "banner/case", "%%matrixmarket matrix coordinate pattern general\n"
    "1 1 0\n", -1, INVALID, 1, "'%%matrixmarket'" },
  { "banner/misspelt", "%%MatrixMarkt matrix coordinate pattern general\n",
    -1, INVALID, 1, "banner" },
  { "banner/blank-first-line", "\n" BANNER "1 1 0\n", -1, INVALID, 1,
    "got end of line" },
  { "banner/short", "%%MatrixMarket matrix coordinate pattern\n1 1 0\n",
    -1, INVALID, 1, "5 banner words" },
  { "banner/long", "%%MatrixMarket matrix coordinate pattern general x\n",
    -1, INVALID, 1, "5 banner words" },
  { "banner/vector", "%%MatrixMarket vector coordinate real general\n",
    -1, FORMAT, 1, "'vector'" },
  { "banner/object", "%%MatrixMarket graph coordinate real general\n",
    -1, INVALID, 1, "'matrix'" },
  { "banner/format", "%%MatrixMarket matrix sparse real general\n",
    -1, INVALID, 1, "'coordinate' or 'array'" },
  { "banner/complex", "%%MatrixMarket matrix coordinate complex general\n",
    -1, FORMAT, 1, "complex" },
  { "banner/field", "%%MatrixMarket matrix coordinate bool general\n",
    -1, INVALID, 1, "pattern, real or integer" },
  { "banner/pattern-hermitian",
    "%%MatrixMarket matrix coordinate pattern hermitian\n2 2 0\n",
    -1, FORMAT, 1, "hermitian" },
  { "banner/skew-symmetric",
    "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 0\n",
    -1, FORMAT, 1, "skew-symmetric" },
  { "banner/symmetry", "%%MatrixMarket matrix coordinate real lower\n",
    -1, INVALID, 1, "general or symmetric" },
  { "banner/array-pattern", "%%MatrixMarket matrix array pattern general\n",
    -1, INVALID, 1, "array format" },
  { "size/missing", BANNER, -1, INVALID, 2, "size line" },
  { "size/missing-after-comments", BANNER "% one\n%two\n\n", -1, INVALID, 5,
    "size line" },
  { "size/short", BANNER "3 3\n", -1, INVALID, 2, "number of entries" },
  { "size/one-number", BANNER "3\n1 1\n", -1, INVALID, 2,
    "number of columns" },
  { "size/rows-zero", BANNER "0 3 0\n", -1, INVALID, 2, "number of rows" },
  { "size/cols-zero", BANNER "3 0 0\n", -1, INVALID, 2,
    "number of columns" },
  { "size/negative", BANNER "-3 3 1\n1 1\n", -1, INVALID, 2, "'-3'" },
  { "size/non-numeric", BANNER "3 x 1\n1 1\n", -1, INVALID, 2, "'x'" },
  { "size/fraction", BANNER "3.5 3 1\n1 1\n", -1, INVALID, 2, "'3.5'" },
  { "size/extra", BANNER "3 3 1 7\n1 1\n", -1, INVALID, 2,
    "end of the size line" },
  { "size/entries-over", BANNER "2 2 5\n", -1, INVALID, 2,
    "at most 2×2 = 4 entries" },
  { "size/huge-entries", BANNER "2 2 99999999999999999999\n", -1, INVALID,
    2, "number of entries" },
  { "size/rows-limit", BANNER "3000000000 1 0\n", -1, TOO_LARGE, 2,
    "at most" },
  { "size/blocks-limit", BANNER "2000000000 2000000000 0\n", -1, TOO_LARGE,
    2, "blocks" },
  { "size/symmetric-not-square", SYM "3 4 1\n", -1, INVALID, 2, "square" },
  { "entries/fewer", BANNER "3 3 3\n1 1\n2 2\n", -1, INVALID, 5,
    "entry 3 of 3" },
  { "entries/fewer-none", BANNER "3 3 1\n% only a comment\n", -1, INVALID, 4,
    "entry 1 of 1" },
  { "entries/more", BANNER "3 3 1\n1 1\n2 2\n", -1, INVALID, 4,
    "no more than the 1 entry of the size line" },
  { "index/row-zero", BANNER "3 3 1\n0 1\n", -1, INVALID, 3,
    "row index from 1 to 3" },
  { "index/col-zero", BANNER "3 3 1\n1 0\n", -1, INVALID, 3,
    "column index from 1 to 3" },
  { "index/row-beyond", BANNER "3 4 1\n4 1\n", -1, INVALID, 3, "'4'" },
  { "index/col-beyond", BANNER "3 4 1\n1 5\n", -1, INVALID, 3, "'5'" },
  { "index/negative", BANNER "3 3 1\n-1 1\n", -1, INVALID, 3, "'-1'" },
  { "index/non-numeric", BANNER "3 3 1\n1 b\n", -1, INVALID, 3, "'b'" },
  { "index/glued", BANNER "3 3 1\n1x 1\n", -1, INVALID, 3, "'1x'" },
  { "index/huge", BANNER "3 3 1\n123456789012345678901234 1\n", -1,
    INVALID, 3, "row index" },
  { "index/missing-col", BANNER "3 3 1\n1\n", -1, INVALID, 3,
    "column index" },
  { "index/comma", BANNER "3 3 1\n1,1\n", -1, INVALID, 3, "column index" },
  { "index/nul-byte", BANNER "3 3 1\n1 1\0\n", sizeof BANNER + 10, INVALID,
    3, "\\x00" },
  { "comment/nul-byte", BANNER "% c\0\0\0\0", sizeof BANNER + 6, INVALID, 2,
    "\\x00" },
  { "pattern/value", BANNER "3 3 1\n1 1 1.5\n", -1, INVALID, 3,
    "pattern entry has no value" },
  { "real/missing-value", REAL "3 3 1\n1 1\n", -1, INVALID, 3,
    "real value" },
  { "real/nan", REAL "3 3 1\n1 1 nan\n", -1, INVALID, 3, "'nan'" },
  { "real/inf", REAL "3 3 1\n1 1 -inf\n", -1, INVALID, 3, "'-inf'" },
  { "real/garbage", REAL "3 3 1\n1 1 1.2.3\n", -1, INVALID, 3, "'1.2.3'" },
  { "real/exponent", REAL "3 3 1\n1 1 1e\n", -1, INVALID, 3, "'1e'" },
  { "real/sign-only", REAL "3 3 1\n1 1 -\n", -1, INVALID, 3, "real value" },
  { "real/hex", REAL "3 3 1\n1 1 0x10\n", -1, INVALID, 3, "'0x10'" },
  { "real/two-values", REAL "3 3 1\n1 1 1 2\n", -1, INVALID, 3,
    "end of the line after the value" },
  { "integer/fraction", INTEGER "3 3 1\n1 1 2.5\n", -1, INVALID, 3,
    "integer value" },
  { "symmetric/upper", SYM "3 3 2\n1 1\n1 2\n", -1, INVALID, 4,
    "lower triangle" },
  { "array/too-short", ARRAY "100000 100000\n1\n", -1, INVALID, 2,
    "too short" },
  { "array/fewer", ARRAY "2 2\n1\n2\n3\n\n\n\n\n", -1, INVALID, 10,
    "array value 4" },
  { "array/more", ARRAY "1 1\n1\n2\n", -1, INVALID, 4, "no more than" },
  { "array/garbage", ARRAY "1 2\n1\nx\n", -1, INVALID, 4, "real value" },
  { "gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", 8, FORMAT, 0,
    "gzip-compressed" },
};

static const TextRefusal smtx_refusals[] = {
  { "empty", "", -1, INVALID, 1, "header" },
  { "header/two-numbers", "3, 3\n0 1 1 1\n0\n", -1, INVALID, 1,
    "number of non-zeros" },
  { "header/words", "a, b, c\n", -1, INVALID, 1, "number of rows" },
  { "header/four-numbers", "3, 3, 1, 4\n0 1 1 1\n0\n", -1, INVALID, 1,
    "end of the line" },
  { "header/negative", "3, -3, 1\n0 1 1 1\n0\n", -1, INVALID, 1,
    "number of columns" },
  { "header/double-comma", "3,, 3, 1\n", -1, INVALID, 1,
    "number of columns" },
  { "header/rows-zero", "0, 3, 0\n0\n\n", -1, INVALID, 1,
    "positive number of rows" },
  { "header/cols-zero", "3, 0, 0\n0 0 0 0\n\n", -1, INVALID, 1,
    "positive number of columns" },
  { "header/cols-limit", "1, 3000000000, 0\n0 0\n", -1, TOO_LARGE, 1,
    "at most" },
  { "lines/missing-2", "3, 3, 1\n", -1, INVALID, 2, "line 2" },
  { "lines/missing-2-no-newline", "3, 3, 1", -1, INVALID, 1, "line 2" },
  { "lines/missing-3", "3, 3, 1\n0 1 1 1\n", -1, INVALID, 3, "line 3" },
  { "lines/missing-3-no-newline", "3, 3, 1\n0 1 1 1", -1, INVALID, 2,
    "line 3" },
  { "offsets/fewer", "3, 3, 1\n0 1 1\n0\n", -1, INVALID, 2,
    "NROWS+1 = 4 row offsets, got 3" },
  { "offsets/more", "3, 3, 1\n0 1 1 1 1\n0\n", -1, INVALID, 2,
    "only NROWS+1 = 4" },
  { "offsets/huge-rows", "2000000000, 5, 0\n0 0\n", -1, INVALID, 2,
    "row offsets, got 2" },
  { "offsets/first-not-zero", "3, 3, 1\n1 1 1 1\n0\n", -1, INVALID, 2,
    "first row offset to be 0" },
  { "offsets/decreasing", "3, 3, 2\n0 2 1 2\n0 1\n", -1, INVALID, 2,
    "never decrease" },
  { "offsets/last-not-nnz", "3, 3, 2\n0 1 1 1\n0 1\n", -1, INVALID, 2,
    "last row offset to be NNZ = 2" },
  { "offsets/beyond-nnz", "3, 3, 1\n0 2 2 2\n0\n", -1, INVALID, 2,
    "at most NNZ = 1" },
  { "offsets/non-numeric", "3, 3, 1\n0 x 1 1\n0\n", -1, INVALID, 2, "'x'" },
  { "offsets/negative", "3, 3, 1\n0 -1 1 1\n0\n", -1, INVALID, 2, "'-1'" },
  { "offsets/commas", "3, 3, 1\n0, 1, 1, 1\n0\n", -1, INVALID, 2,
    "row offset" },
  { "columns/fewer", "3, 3, 2\n0 1 2 2\n0\n", -1, INVALID, 3,
    "NNZ = 2 column indices, got 1" },
  { "columns/more", "3, 3, 1\n0 1 1 1\n0 1\n", -1, INVALID, 3,
    "only NNZ = 1" },
  { "columns/nnz-zero-but-some", "2, 2, 0\n0 0 0\n1\n", -1, INVALID, 3,
    "only NNZ = 0" },
  { "columns/beyond", "3, 3, 1\n0 1 1 1\n3\n", -1, INVALID, 3,
    "column index from 0 to 2" },
  { "columns/negative", "3, 3, 1\n0 1 1 1\n-1\n", -1, INVALID, 3, "'-1'" },
  { "columns/non-numeric", "3, 3, 1\n0 1 1 1\n1.0\n", -1, INVALID, 3,
    "'1.0'" },
  { "trailing/line-4", "3, 3, 1\n0 1 1 1\n0\n5\n", -1, INVALID, 4,
    "nothing after line 3" },
  { "trailing/after-blank-lines", "3, 3, 1\n0 1 1 1\n0\n\n\nx", -1, INVALID,
    6, "nothing after line 3" },
  { "trailing/nnz-zero", "3, 3, 0\n0 0 0 0\n\nx\n", -1, INVALID, 4,
    "nothing after line 3" },
  { "gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", 8, FORMAT, 0,
    "gzip-compressed" },
};

static void
check_text_refusal (Loader loader, const char *name, gconstpointer data)
{
  const TextRefusal *r = data;
  g_autoptr (GError) error = NULL;
  gsize len = r->len < 0 ? strlen (r->text) : (gsize) r->len;
  g_autoptr (SpxMask) mask = load_bytes (loader, name, r->text, len, &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_MASK_ERROR, (gint) r->code);
  g_autofree char *where = r->line > 0 ? g_strdup_printf ("%s:%u: ", name,
                                                          r->line)
                                       : g_strdup_printf ("%s: ", name);
  g_test_message ("%s", error->message);
  assert_message_starts (error, where);
  assert_message_has (error, r->keyword);
}

static void
test_mtx_refusal (gconstpointer data)
{
  check_text_refusal (spx_format_mtx.load, "bad.mtx", data);
}

static void
test_smtx_refusal (gconstpointer data)
{
  check_text_refusal (spx_format_smtx.load, "bad.smtx", data);
}

/* NumPy: files built in memory */

/* magic, version major.0, header length, header (dict + pad + "\n"), and
 * data_len bytes of data, each 1. */
static GByteArray *
build_npy (guint major, const char *dict, gsize pad, gsize data_len)
{
  GByteArray *b = g_byte_array_new ();
  gsize hlen = strlen (dict) + pad + 1;
  guint8 pre[12] = { 0x93, 'N', 'U', 'M', 'P', 'Y', (guint8) major, 0,
                     (guint8) hlen, (guint8) (hlen >> 8),
                     (guint8) (hlen >> 16), (guint8) (hlen >> 24) };
  g_byte_array_append (b, pre, major == 1 ? 10 : 12);
  g_byte_array_append (b, (const guint8 *) dict, (guint) strlen (dict));
  for (gsize i = 0; i < pad; i++)
    g_byte_array_append (b, (const guint8 *) " ", 1);
  g_byte_array_append (b, (const guint8 *) "\n", 1);
  for (gsize i = 0; i < data_len; i++)
    g_byte_array_append (b, (const guint8 *) "\1", 1);
  return b;
}

typedef struct {
  const char  *path;
  const char  *dict;
  gsize        data_len;
  SpxMaskError code;
  const char  *at;      /* the error's byte: where this is in dict */
  gint         byte;    /* or, when at is NULL: -1 the end of the file,
                         * -2 the end of the header, -3 the last byte */
  const char  *keyword;
} NpyRefusal;

#define DICT(descr, fortran, shape) \
  "{'descr': '" descr "', 'fortran_order': " fortran ", 'shape': " shape \
  ", }"

static const NpyRefusal npy_refusals[] = {
  { "descr/object", DICT ("|O", "False", "(2, 2)"), 32, FORMAT, "'|O'", 0,
    "object" },
  { "descr/bytes", DICT ("|S4", "False", "(2, 2)"), 16, FORMAT, "'|S4'", 0,
    "string" },
  { "descr/unicode", DICT ("<U3", "False", "(2, 2)"), 48, FORMAT, "'<U3'",
    0, "string" },
  { "descr/complex", DICT ("<c8", "False", "(2, 2)"), 32, FORMAT, "'<c8'",
    0, "complex" },
  { "descr/structured", "{'descr': [('a', '<f4')], 'fortran_order': False, "
    "'shape': (2, 2), }", 16, FORMAT, "[(", 0, "structured" },
  { "descr/float128", DICT ("<f16", "False", "(2, 2)"), 64, INVALID,
    "'<f16'", 0, "descr" },
  { "descr/native-order", DICT ("=f4", "False", "(2, 2)"), 16, INVALID,
    "'=f4'", 0, "descr" },
  { "descr/pipe-multibyte", DICT ("|u2", "False", "(2, 2)"), 8, INVALID,
    "'|u2'", 0, "descr" },
  { "descr/not-a-string", "{'descr': 4, 'fortran_order': False, "
    "'shape': (2, 2), }", 4, INVALID, "4,", 0, "descr string" },
  { "keys/missing-descr", "{'fortran_order': False, 'shape': (2, 2), }", 4,
    INVALID, "}", 0, "'descr' key" },
  { "keys/missing-fortran", "{'descr': '|u1', 'shape': (2, 2), }", 4,
    INVALID, "}", 0, "'fortran_order' key" },
  { "keys/missing-shape", "{'descr': '|u1', 'fortran_order': False, }", 4,
    INVALID, "}", 0, "'shape' key" },
  { "keys/unknown", "{'descr': '|u1', 'fortran_order': False, "
    "'shape': (2, 2), 'order': 'C'}", 4, INVALID, "'order'", 0, "key" },
  { "keys/duplicate", "{'descr': '|u1', 'descr': '|u1', "
    "'fortran_order': False, 'shape': (2, 2)}", 4, INVALID, "'descr': '|u1', "
    "'f", 0, "each key once" },
  { "dict/no-brace", "'descr': '|u1'", 4, INVALID, "'descr'", 0, "'{'" },
  { "dict/no-colon", "{'descr' '|u1', 'fortran_order': False, "
    "'shape': (2, 2), }", 4, INVALID, "'|u1'", 0, "':'" },
  { "dict/no-comma", "{'descr': '|u1' 'fortran_order': False, "
    "'shape': (2, 2), }", 4, INVALID, "'fortran_order'", 0, "','" },
  { "dict/unclosed", "{'descr': '|u1', 'fortran_order': False, "
    "'shape': (2, 2),", 4, INVALID, NULL, -2, "'}'" },
  { "dict/unterminated-string", "{'descr': '|u1}", 4, INVALID, "'|u1", 0,
    "descr string" },
  { "dict/unquoted-key", "{descr: '|u1', 'fortran_order': False, "
    "'shape': (2, 2), }", 4, INVALID, "descr:", 0, "quoted key" },
  { "dict/trailing", DICT ("|u1", "False", "(2, 2)") " x", 4, INVALID, "x",
    0, "only spaces" },
  { "dict/fortran-word", DICT ("|u1", "Maybe", "(2, 2)"), 4, INVALID,
    "Maybe", 0, "True or False" },
  { "dict/fortran-prefix", DICT ("|u1", "Truely", "(2, 2)"), 4, INVALID,
    "Truely", 0, "True or False" },
  { "dict/shape-list", DICT ("|u1", "False", "[2, 2]"), 4, INVALID, "[2",
    0, "shape tuple" },
  { "dict/shape-word", DICT ("|u1", "False", "(2, x)"), 4, INVALID, "x)", 0,
    "dimension" },
  { "dict/shape-unclosed", "{'descr': '|u1', 'fortran_order': False, "
    "'shape': (2, 2}", 4, INVALID, "}", 0, "',' or ')'" },
  { "shape/1-d", DICT ("|u1", "False", "(4,)"), 4, INVALID, "(4,)", 0,
    "2-D shape, got 1 dimension" },
  { "shape/3-d", DICT ("|u1", "False", "(1, 2, 2)"), 4, INVALID, "(1, 2",
    0, "2-D shape, got 3" },
  { "shape/0-d", DICT ("|u1", "False", "()"), 1, INVALID, "()", 0,
    "2-D shape, got 0" },
  { "shape/zero", DICT ("|u1", "False", "(0, 4)"), 0, INVALID, "(0, 4)", 0,
    "without zeros" },
  { "shape/overflow", DICT ("<f8", "False", "(4294967296, 4294967296)"), 8,
    TOO_LARGE, "(4294967296", 0, "64 bits" },
  { "shape/overflow-itemsize", DICT ("<f8", "False",
    "(2147483648, 2147483648)"), 8, TOO_LARGE, "(2147483648", 0, "64 bits" },
  { "shape/too-many-digits", DICT ("|u1", "False",
    "(123456789012345678901234, 1)"), 8, TOO_LARGE, "1234567890", 0,
    "19 digits" },
  { "data/short", DICT ("|u1", "False", "(2, 3)"), 5, INVALID, NULL, -1,
    "6 bytes of data, got 5" },
  { "data/empty", DICT ("<i4", "False", "(2, 3)"), 0, INVALID, NULL, -1,
    "24 bytes of data, got 0" },
  { "data/long", DICT ("|u1", "False", "(2, 3)"), 7, INVALID, NULL, -3,
    "end of the file after 6 bytes of data, got 1 more" },
};

static void
test_npy_refusal (gconstpointer data)
{
  const NpyRefusal *r = data;
  g_autoptr (GByteArray) b = build_npy (1, r->dict, 0, r->data_len);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = load_bytes (spx_format_npy.load, "bad.npy",
                                         b->data, b->len, &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_MASK_ERROR, (gint) r->code);
  gsize header_end = 10 + strlen (r->dict) + 1;
  gsize byte = r->at != NULL ? 10 + (gsize) (strstr (r->dict, r->at) -
                                             r->dict)
             : r->byte == -1 ? b->len
             : r->byte == -2 ? header_end
             : b->len - 1; /* the last data byte */
  g_autofree char *where = g_strdup_printf ("bad.npy: byte %" G_GSIZE_FORMAT
                                            ": expected ", byte);
  g_test_message ("%s", error->message);
  assert_message_has (error, where);
  assert_message_starts (error, "bad.npy: ");
  assert_message_has (error, r->keyword);
}

typedef struct {
  const char  *path;
  const char  *bytes;
  gsize        len;
  SpxMaskError code;
  gsize        byte;    /* G_MAXSIZE: the name only */
  const char  *keyword;
} NpyRawRefusal;

static const NpyRawRefusal npy_raw_refusals[] = {
  { "empty", "", 0, INVALID, 0, "at least 10 bytes" },
  { "short", "\x93NUMPY\x01\x00\x10", 9, INVALID, 9, "at least 10 bytes" },
  { "magic", "\x93NUMPZ\x01\x00\x10\x00{}\n", 13, INVALID, 0,
    "NumPy magic" },
  { "magic-text", "hello world, this is text\n", 26, INVALID, 0,
    "'hello'" },
  { "version/4.0", "\x93NUMPY\x04\x00\x10\x00\x00\x00", 12, FORMAT, 6,
    "version 1.0, 2.0 or 3.0, got 4.0" },
  { "version/1.1", "\x93NUMPY\x01\x01\x10\x00\x00\x00", 12, FORMAT, 6,
    "got 1.1" },
  { "version/0.0", "\x93NUMPY\x00\x00\x10\x00\x00\x00", 12, FORMAT, 6,
    "got 0.0" },
  { "version-2-short", "\x93NUMPY\x02\x00\x10\x00", 10, INVALID, 10,
    "4-byte header length" },
  { "header-length-past-end", "\x93NUMPY\x01\x00\x00\x10{}\n", 13, INVALID,
    8, "header length of at most 3" },
  { "header-length-past-end-v3", "\x93NUMPY\x03\x00\xff\xff\xff\xff{}\n", 15,
    INVALID, 8, "got 4294967295" },
  { "header-without-newline", "\x93NUMPY\x01\x00\x04\x00{}  \1\1", 16,
    INVALID, 13, "newline" },
  { "header-empty", "\x93NUMPY\x01\x00\x00\x00", 10, INVALID, 10,
    "newline" },
  { "npz", "PK\x03\x04\x14\x00\x00\x00\x08\x00", 10, FORMAT, G_MAXSIZE,
    "a zip archive, not a mask file (an .npz archive of .npy files opens "
    "as a network" },
  { "gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10, FORMAT,
    G_MAXSIZE, "gzip-compressed" },
};

static void
test_npy_raw_refusal (gconstpointer data)
{
  const NpyRawRefusal *r = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) mask = load_bytes (spx_format_npy.load, "bad.npy",
                                         r->bytes, r->len, &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_MASK_ERROR, (gint) r->code);
  g_autofree char *where =
    r->byte == G_MAXSIZE ? g_strdup ("bad.npy: ")
                         : g_strdup_printf ("bad.npy: byte %" G_GSIZE_FORMAT
                                            ": expected ", r->byte);
  g_test_message ("%s", error->message);
  assert_message_starts (error, where);
  assert_message_has (error, r->keyword);
}

/* Matrix Market acceptances */

static void
test_mtx_pattern (void)
{
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
    BANNER "% a comment\n3 4 3\n1 1\n3 4\n2 2\n");
  assert_bits (m, 3, 4, 0, 0, 2, 3, 1, 1, -1);
}

static void
test_mtx_real_values (void)
{
  /* Every stored coordinate entry is a set bit, an explicit 0 included. */
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
    REAL "3 3 6\n1 1 0.5\n1 2 -1.25e-3\n2 1 0\n2 2 +7.\n3 1 .5E+10\n"
    "3 3 -0.0\n");
  assert_bits (m, 3, 3, 0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 2, 2, -1);
}

static void
test_mtx_integer (void)
{
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
    INTEGER "2 2 2\n1 2 -17\n2 1 0\n");
  assert_bits (m, 2, 2, 0, 1, 1, 0, -1);
}

static void
test_mtx_symmetric (void)
{
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
    SYM "3 3 3\n1 1\n2 1\n3 2\n");
  assert_bits (m, 3, 3, 0, 0, 1, 0, 0, 1, 2, 1, 1, 2, -1);
  g_autoptr (SpxMask) r = load_text (spx_format_mtx.load,
    "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 3.5\n");
  assert_bits (r, 2, 2, 1, 0, 0, 1, -1);
}

static void
test_mtx_array (void)
{
  /* Column-major; the non-zero values are the set bits. */
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
    ARRAY "2 3\n1.5\n0\n0.0\n-2e3\n0e10\n7\n");
  assert_bits (m, 2, 3, 0, 0, 1, 1, 1, 2, -1);
  g_autoptr (SpxMask) s = load_text (spx_format_mtx.load,
    "%%MatrixMarket matrix array integer symmetric\n3 3\n1\n0\n2\n0\n0\n3\n");
  assert_bits (s, 3, 3, 0, 0, 2, 0, 0, 2, 2, 2, -1);
}

static void
test_mtx_layout (void)
{
  /* CRLF, blank lines, comments between entries, tabs, trailing blanks,
   * duplicates, banner words in any case, no final newline. */
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
    "%%MatrixMarket MATRIX Coordinate Pattern GENERAL\r\n"
    "%comment\r\n\r\n  \r\n3 3 4 \r\n"
    "1\t2\r\n\r\n% between\r\n  3 3  \t\r\n1 2\r\n2 1");
  assert_bits (m, 3, 3, 0, 1, 2, 2, 1, 0, -1);
}

/* (NULL, 0) is an empty buffer, refused like an empty file. */
static void
test_null_buffer (void)
{
  Loader loaders[] = {
    spx_format_mtx.load, spx_format_smtx.load, spx_format_npy.load,
  };
  for (guint i = 0; i < G_N_ELEMENTS (loaders); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_null (loaders[i] ("null", NULL, 0, &error));
      g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
      g_assert_true (g_str_has_prefix (error->message, "null"));
    }
  g_assert_cmpstr (spx_format_to_string (spx_format_detect (NULL, 0, NULL)), ==, "unknown");
}

static void
test_mtx_empty_mask (void)
{
  g_autoptr (SpxMask) m = load_text (spx_format_mtx.load,
                                     BANNER "5 7 0\n");
  assert_bits (m, 5, 7, -1);
}

/* DLMC .smtx acceptances */

static void
test_smtx_basic (void)
{
  /* rows 0: {3, 0} (unsorted), 1: {}, 2: {3, 1, 2, 1} (a repeat) */
  g_autoptr (SpxMask) m = load_text (spx_format_smtx.load,
    "3, 4, 6\n0 2 2 6\n3 0 3 1 2 1\n");
  assert_bits (m, 3, 4, 0, 3, 0, 0, 2, 3, 2, 1, 2, 2, -1);
}

static void
test_smtx_layout (void)
{
  const char *variants[] = {
    "2 3 3\n0 2 3\n2 0 1\n",                 /* plain spaces */
    "2,3,3\n0 2 3\n2 0 1",                   /* no spaces, no final newline */
    "2, 3, 3\r\n0 2 3\r\n2 0 1\r\n",         /* CRLF */
    "2, 3, 3 \n0 2 3 \n2 0 1 \n",            /* trailing spaces (DLMC) */
    "2 , 3 ,3\n0  2\t3\n 2 0 1\n\n\n",       /* blanks, trailing lines */
  };
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr (SpxMask) m = load_text (spx_format_smtx.load,
                                         variants[i]);
      assert_bits (m, 2, 3, 0, 2, 0, 0, 1, 1, -1);
    }
}

static void
test_smtx_nnz_zero (void)
{
  const char *variants[] = {
    "2, 3, 0\n0 0 0\n\n", "2, 3, 0\n0 0 0\n", "2, 3, 0\n0 0 0",
    "2, 3, 0\r\n0 0 0\r\n\r\n", "2, 3, 0\n0 0 0\n   \n",
  };
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr (SpxMask) m = load_text (spx_format_smtx.load,
                                         variants[i]);
      assert_bits (m, 2, 3, -1);
    }
}

/* NumPy acceptances */

/* Writes value v (an integer or a float) as one item of descr into out. */
static void
put_item (guint8 *out, char kind, guint size, gboolean big, double v)
{
  guint8 le[8] = { 0 };
  if (kind == 'f' && size == 8)
    memcpy (le, &v, 8);
  else if (kind == 'f' && size == 4)
    {
      float f = (float) v;
      memcpy (le, &f, 4);
    }
  else if (kind == 'f') /* half: the values used here are exact */
    {
      guint16 h = isnan (v) ? 0x7e00
                : v == 0 ? (signbit (v) ? 0x8000 : 0)
                : v == 1.0 ? 0x3c00 : v == 0.5 ? 0x3800 : 0xc100;
      le[0] = (guint8) h;
      le[1] = (guint8) (h >> 8);
    }
  else
    {
      gint64 i = (gint64) v;
      memcpy (le, &i, 8);
    }
  for (guint i = 0; i < size; i++)
    out[i] = big ? le[size - 1 - i] : le[i];
}

static void
test_npy_descr (void)
{
  static const char *const descrs[] = {
    "b1", "u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f2", "f4", "f8",
  };
  /* 2×3, C order; set: (0,1) (1,0) (1,1). Integers use 256 where they
   * are wide enough (only the high byte set) and -1; floats -0.0 (zero,
   * only the sign bit) and NaN. */
  for (guint d = 0; d < G_N_ELEMENTS (descrs); d++)
    for (guint order = 0; order < 3; order++)
      {
        char kind = descrs[d][0];
        guint size = (guint) (descrs[d][1] - '0');
        if (order == 2 && size > 1)
          continue;
        gboolean big = order == 1;
        double wide = size > 1 ? 256 : 1;
        double v[6] = { 0, kind == 'f' ? NAN : wide, 0,
                        kind == 'i' ? -1 : 1, kind == 'f' ? 0.5 : 1,
                        kind == 'f' ? -0.0 : 0 };
        g_autofree char *dict = g_strdup_printf (
          "{'descr': '%c%s', 'fortran_order': False, 'shape': (2, 3), }",
          order == 2 ? '|' : big ? '>' : '<', descrs[d]);
        g_autoptr (GByteArray) b = build_npy (1, dict, 0, 6 * size);
        guint8 *items = b->data + b->len - 6 * size;
        for (guint k = 0; k < 6; k++)
          put_item (items + k * size, kind, size, big, kind == 'b' ?
                    (v[k] != 0) : v[k]);
        g_autoptr (GError) error = NULL;
        g_autoptr (SpxMask) m = load_bytes (spx_format_npy.load, dict,
                                            b->data, b->len, &error);
        g_assert_no_error (error);
        assert_bits (m, 2, 3, 0, 1, 1, 0, 1, 1, -1);
      }
}

static void
test_npy_versions (void)
{
  static const char dict[] = DICT ("|u1", "False", "(2, 2)");
  for (guint major = 1; major <= 3; major++)
    {
      /* padded as numpy pads: the data starts at a multiple of 64 */
      gsize pre = major == 1 ? 10 : 12;
      g_autoptr (GByteArray) b = build_npy (major, dict,
                                            128 - pre - strlen (dict) - 1, 4);
      g_assert_cmpuint (b->len - 4, ==, 128);
      b->data[b->len - 4] = 0; /* (0,0) clear, the others set */
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) m = load_bytes (spx_format_npy.load, "v.npy",
                                          b->data, b->len, &error);
      g_assert_no_error (error);
      assert_bits (m, 2, 2, 0, 1, 1, 0, 1, 1, -1);
    }
}

static void
test_npy_fortran (void)
{
  /* 2×3 stored column by column: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2) */
  g_autoptr (GByteArray) b = build_npy (1, DICT ("|u1", "True", "(2, 3)"),
                                        0, 6);
  const guint8 data[6] = { 0, 1, 0, 0, 5, 0 };
  memcpy (b->data + b->len - 6, data, 6);
  g_autoptr (SpxMask) m = load_bytes (spx_format_npy.load, "f.npy",
                                      b->data, b->len, NULL);
  assert_bits (m, 2, 3, 1, 0, 0, 2, -1);
}

static void
test_npy_dict_forms (void)
{
  const char *dicts[] = {
    "{'shape': (2, 2), 'fortran_order': False, 'descr': '|u1'}",
    "{\"descr\": \"|b1\", \"shape\": (2, 2), \"fortran_order\": False,}",
    "{ 'fortran_order' : False , 'descr' : '<u1' , 'shape' : ( 2 , 2 , ) }",
    "{'descr': '|i1', 'fortran_order': False, 'shape': (2L, 2L), }",
  };
  for (guint i = 0; i < G_N_ELEMENTS (dicts); i++)
    {
      g_autoptr (GByteArray) b = build_npy (1, dicts[i], 7, 4);
      b->data[b->len - 1] = 0;
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxMask) m = load_bytes (spx_format_npy.load, "d.npy",
                                          b->data, b->len, &error);
      g_assert_no_error (error);
      assert_bits (m, 2, 2, 0, 0, 0, 1, 1, 0, -1);
    }
}

/* Writers and round trips */

static char *
tmp_path (const char *dir, const char *file)
{
  return g_build_filename (dir, file, NULL);
}

static SpxMask *
random_mask (guint64 rows, guint64 cols, guint block, double density,
             guint32 seed)
{
  SpxMask *m = spx_mask_new (rows, cols, block, NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  for (guint64 i = 0; i < spx_mask_n_blocks (m); i++)
    if (g_rand_double (rand) < density)
      spx_mask_set_flat (m, i);
  return m;
}

/* The element mask a block mask stands for, computed bit by bit. */
static SpxMask *
expand (const SpxMask *blocks)
{
  SpxMask *m = spx_mask_new (blocks->rows, blocks->cols, 1, NULL);
  for (guint64 r = 0; r < m->rows; r++)
    for (guint64 c = 0; c < m->cols; c++)
      if (spx_mask_get (blocks, r / blocks->block, c / blocks->block))
        spx_mask_set (m, r, c);
  return m;
}

static void
round_trip (const SpxMask *mask, const char *dir, const char *ext)
{
  g_autofree char *file = g_strdup_printf ("mask-%" G_GUINT64_FORMAT "x%"
                                           G_GUINT64_FORMAT "-b%u.%s",
                                           mask->rows, mask->cols,
                                           mask->block, ext);
  g_autofree char *path = tmp_path (dir, file);
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_mask_save (mask, path, SPX_SAVE_DEFAULT, &error));
  g_assert_no_error (error);
  const SpxFormat *format = NULL;
  g_autoptr (SpxMask) back = spx_mask_load (path, &format, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (spx_format_to_string (format), ==, ext);
  g_autoptr (SpxMask) expected = expand (mask);
  g_assert_true (spx_mask_equal (back, expected));
  g_assert_cmpuint (spx_mask_count (back), ==,
                    spx_mask_count_elements (mask));
  g_unlink (path);
}

static void
test_round_trips (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  static const struct { guint64 rows, cols; guint block; double d; } cases[] = {
    { 37, 53, 1, 0.2 }, { 1, 1, 1, 1.0 }, { 64, 64, 1, 0.5 },
    { 10, 13, 4, 0.5 },   /* ragged: the last block is 2 by 1 */
    { 33, 70, 8, 0.3 }, { 5, 5, 7, 1.0 }, /* one block bigger than the mask */
    { 300, 200, 16, 0.1 }, { 9, 9, 3, 0.0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (SpxMask) m = random_mask (cases[i].rows, cases[i].cols,
                                           cases[i].block, cases[i].d, i + 1);
      round_trip (m, dir, "mtx");
      round_trip (m, dir, "smtx");
      round_trip (m, dir, "npy");
    }
  g_rmdir (dir);
}

static char *
save_and_read (const SpxMask *mask, const char *file, gsize *len)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  g_autofree char *path = tmp_path (dir, file);
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  g_assert_true (spx_mask_save (mask, path, SPX_SAVE_DEFAULT, &error));
  g_assert_true (g_file_get_contents (path, &text, len, &error));
  g_unlink (path);
  g_rmdir (dir);
  return text;
}

static void
test_writer_output (void)
{
  /* 3×5 with block 2: blocks (0,1) and (1,2), the latter 1×1 (ragged). */
  g_autoptr (SpxMask) m = spx_mask_new (3, 5, 2, NULL);
  spx_mask_set (m, 0, 1);
  spx_mask_set (m, 1, 2);
  gsize len;
  g_autofree char *mtx = save_and_read (m, "w.mtx", &len);
  g_assert_cmpstr (mtx, ==, "%%MatrixMarket matrix coordinate pattern "
                   "general\n3 5 5\n1 3\n1 4\n2 3\n2 4\n3 5\n");
  g_autofree char *smtx = save_and_read (m, "w.SMTX", &len);
  g_assert_cmpstr (smtx, ==, "3, 5, 5\n0 2 4 5\n2 3 2 3 4\n");
  g_autofree char *npy = save_and_read (m, "w.npy", &len);
  g_assert_cmpuint (len, ==, 128 + 15); /* data at a multiple of 64 */
  g_assert_cmpmem (npy, 8, "\x93NUMPY\x01\x00", 8);
  g_assert_cmpuint ((guint8) npy[8] | (guint8) npy[9] << 8, ==, 118);
  g_assert_true (g_str_has_prefix (npy + 10, "{'descr': '|u1', "
                 "'fortran_order': False, 'shape': (3, 5), }   "));
  g_assert_cmpint (npy[127], ==, '\n');
  g_assert_cmpmem (npy + 128, 15, "\0\0\1\1\0" "\0\0\1\1\0" "\0\0\0\0\1", 15);

  g_autoptr (SpxMask) empty = spx_mask_new (2, 2, 1, NULL);
  g_autofree char *smtx0 = save_and_read (empty, "e.smtx", &len);
  g_assert_cmpstr (smtx0, ==, "2, 2, 0\n0 0 0\n\n");
  g_autofree char *mtx0 = save_and_read (empty, "e.mtx", &len);
  g_assert_true (g_str_has_suffix (mtx0, "general\n2 2 0\n"));
}

static void
test_save_errors (void)
{
  g_autoptr (SpxMask) m = spx_mask_new (4, 4, 1, NULL);
  spx_mask_set (m, 1, 2);
  const char *paths[] = {
    "/nonexistent-dir/x.mtx", "/nonexistent-dir/x.smtx",
    "/nonexistent-dir/x.npy",
  };
  SpxMaskSaveFunc savers[] = {
    spx_format_mtx.save, spx_format_smtx.save, spx_format_npy.save,
  };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    for (guint through_save = 0; through_save < 2; through_save++)
      {
        g_autoptr (GError) error = NULL;
        SpxMaskSaveFunc save = through_save ? spx_mask_save : savers[i];
        g_assert_false (save (m, paths[i], SPX_SAVE_DEFAULT, &error));
        g_assert_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_FAILED);
        assert_message_has (error, paths[i]);
      }

  /* 2^31 - 1 rows of 4096 set elements: terabytes of text, refused by the
   * memory budget before allocating */
  g_autoptr (SpxMask) huge = spx_mask_new (SPX_MASK_MAX_DIM, 4096, 4096, NULL);
  spx_mask_fill (huge);
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  const char *huge_files[] = { "huge.mtx", "huge.smtx", "huge.npy" };
  for (guint i = 0; i < G_N_ELEMENTS (huge_files); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = tmp_path (dir, huge_files[i]);
      g_assert_false (spx_mask_save (huge, path, SPX_SAVE_DEFAULT, &error));
      g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
      assert_message_has (error, "TiB");
      assert_message_has (error, path);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  g_rmdir (dir);

  g_autoptr (GError) unknown = NULL;
  g_assert_false (spx_mask_save (m, "/tmp/x.txt", SPX_SAVE_DEFAULT, &unknown));
  g_assert_error (unknown, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT);
  assert_message_has (unknown, "/tmp/x.txt");
  /* PNG's row lives in ui/render: core alone does not know it */
  g_autoptr (GError) png = NULL;
  g_assert_false (spx_mask_save (m, "/tmp/x.png", SPX_SAVE_DEFAULT, &png));
  g_assert_error (png, SPX_MASK_ERROR, SPX_MASK_ERROR_FORMAT);
  assert_message_has (png, "unknown extension: expected .mtx, .smtx or .npy");
}

/* Detection and spx_mask_load */

static const char *
from_path (const char *path)
{
  return spx_format_to_string (spx_format_from_path (path));
}

static void
test_format_from_path (void)
{
  g_assert_cmpstr (from_path ("a/b.mtx"), ==, "mtx");
  g_assert_cmpstr (from_path ("B.MTX"), ==, "mtx");
  g_assert_cmpstr (from_path ("x.SMtx"), ==, "smtx");
  g_assert_cmpstr (from_path ("x.npy"), ==, "npy");
  g_assert_cmpstr (from_path ("x.png"), ==, "unknown"); /* not registered */
  g_assert_cmpstr (from_path ("x.mtx.gz"), ==, "unknown");
  g_assert_cmpstr (from_path ("dir.mtx/x"), ==, "unknown");
  g_assert_cmpstr (from_path ("mtx"), ==, "unknown");
  g_assert_cmpstr (from_path (""), ==, "unknown");
  g_assert_cmpstr (from_path (NULL), ==, "unknown");
  g_assert_cmpstr (spx_format_to_string (&spx_format_smtx), ==, "smtx");
  g_assert_cmpstr (spx_format_to_string (NULL), ==, "unknown");
}

/* The format's name, "unknown" for none */
static const char *
detect (const char *data, gsize len, const char *name)
{
  guint8 *copy = g_malloc (MAX (len, 1));
  memcpy (copy, data, len);
  const SpxFormat *f = spx_format_detect (copy, len, name);
  g_free (copy);
  return spx_format_to_string (f);
}

static void
test_format_detect (void)
{
  /* content wins over the name */
  g_assert_cmpstr (detect ("\x93NUMPY\x01\x00", 8, "x.mtx"), ==, "npy");
  g_assert_cmpstr (detect (BANNER, strlen (BANNER), "x.smtx"), ==, "mtx");
  g_assert_cmpstr (detect ("64, 147, 940\n0 3", 16, "x.npy"), ==, "smtx");
  g_assert_cmpstr (detect ("64 147 940\r\n", 12, NULL), ==, "smtx");
  g_assert_cmpstr (detect ("64,147,940", 10, NULL), ==, "smtx");
  /* not three integers: not .smtx */
  g_assert_cmpstr (detect ("64, 147\n", 8, NULL), ==, "unknown");
  g_assert_cmpstr (detect ("1 2 3 4\n", 8, NULL), ==, "unknown");
  g_assert_cmpstr (detect ("1 2 x\n", 6, NULL), ==, "unknown");
  /* compressed: the loader for the inner format explains */
  g_assert_cmpstr (detect ("\x1f\x8b\x08", 3, "a.mtx.gz"), ==, "mtx");
  g_assert_cmpstr (detect ("\x1f\x8b\x08", 3, "a.smtx.GZ"), ==, "smtx");
  g_assert_cmpstr (detect ("\x1f\x8b\x08", 3, "a.gz"), ==, "unknown");
  /* a zip: .npz by its first member's name, else by the file's */
  g_assert_cmpstr (detect ("PK\x03\x04", 4, "a.npz"), ==, "npz");
  g_assert_cmpstr (detect ("PK\x03\x04", 4, "a.npy"), ==, "npy");
  g_assert_cmpstr (detect ("PK\x03\x04", 4, NULL), ==, "unknown");
  /* a zip whose first member is an .npy is an .npz, whatever its name */
  const char zip_npy[] = "PK\x03\x04\x14\0\0\0\0\0\0\0\0\0\0\0\0\0"
    "\0\0\0\0\0\0\0\0\x05\0\0\0a.npy";
  g_assert_cmpstr (detect (zip_npy, 35, "x.zip"), ==, "npz");
  g_assert_cmpstr (detect (zip_npy, 34, "x.zip"), ==, "unknown"); /* cut */
  /* safetensors: a header length safetensors allows, then '{' (data
   * may be the file's first bytes only: a header running past the file
   * is the loader's to refuse, naming it) */
  g_assert_cmpstr (detect ("\x02\0\0\0\0\0\0\0{}", 10, "x.npy"), ==,
                   "safetensors");
  g_assert_cmpstr (detect ("\x03\0\0\0\0\0\0\0{}", 10, NULL), ==,
                   "safetensors");
  g_assert_cmpstr (detect ("\x01\xe1\xf5\x05\0\0\0\0{}", 10, NULL), ==,
                   "unknown"); /* 100,000,001 bytes */
  g_assert_cmpstr (detect ("\x02\0\0\0\0\0\0\0[]", 10, NULL), ==,
                   "unknown");
  /* unrecognised content: the name breaks the tie */
  g_assert_cmpstr (detect ("garbage", 7, "x.smtx"), ==, "smtx");
  g_assert_cmpstr (detect ("", 0, "x.mtx"), ==, "mtx");
  g_assert_cmpstr (detect ("garbage", 7, "x.txt"), ==, "unknown");
  g_assert_cmpstr (detect ("\x93NUMP", 5, NULL), ==, "unknown");
}

static char *
write_tmp (const char *dir, const char *file, const char *data, gsize len)
{
  char *path = tmp_path (dir, file);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
  return path;
}

static void
assert_load_fails (const char *path, SpxMaskError code, const char *keyword)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) m = spx_mask_load (path, NULL, &error);
  g_assert_null (m);
  g_assert_error (error, SPX_MASK_ERROR, (gint) code);
  g_test_message ("%s", error->message);
  assert_message_has (error, path);
  assert_message_has (error, keyword);
}

static void
test_load (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  g_autofree char *mtx = write_tmp (dir, "mtx.txt", BANNER "2 2 1\n2 2\n",
                                    strlen (BANNER) + 10);
  const SpxFormat *format = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) m = spx_mask_load (mtx, &format, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (spx_format_to_string (format), ==, "mtx");
  assert_bits (m, 2, 2, 1, 1, -1);

  g_autofree char *png = write_tmp (dir, "p.png", "\x89PNG\r\n\x1a\n\0\0", 10);
  assert_load_fails (png, SPX_MASK_ERROR_FORMAT, "unknown format: expected "
                     "a Matrix Market (.mtx), DLMC (.smtx) or NumPy (.npy) "
                     "file");
  g_autofree char *gz = write_tmp (dir, "g.mtx.gz", "\x1f\x8b\x08\0", 4);
  assert_load_fails (gz, SPX_MASK_ERROR_FORMAT, "decompress it first");
  g_autofree char *npz = write_tmp (dir, "z.npz", "PK\x03\x04\0\0", 6);
  assert_load_fails (npz, SPX_MASK_ERROR_INVALID, "expected a zip archive "
                     "of .npy files; libzip: ");
  g_autofree char *empty = write_tmp (dir, "e.mtx", "", 0);
  assert_load_fails (empty, SPX_MASK_ERROR_INVALID, "empty file");
  g_autofree char *empty_npy = write_tmp (dir, "e.npy", "", 0);
  assert_load_fails (empty_npy, SPX_MASK_ERROR_INVALID, "at least 10 bytes");
  g_autofree char *text = write_tmp (dir, "t.txt", "hello\n", 6);
  assert_load_fails (text, SPX_MASK_ERROR_FORMAT, "unknown format");
  g_autofree char *missing = tmp_path (dir, "missing.mtx");
  assert_load_fails (missing, SPX_MASK_ERROR_IO, "missing.mtx");
  assert_load_fails (dir, SPX_MASK_ERROR_IO, dir);

  g_unlink (mtx);
  g_unlink (png);
  g_unlink (gz);
  g_unlink (npz);
  g_unlink (empty);
  g_unlink (empty_npy);
  g_unlink (text);
  g_rmdir (dir);
}

/* Hostile input: a few bytes that declare gigabytes, and names that are
 * not regular files */

/* Header-only files whose masks would take 2 GiB: refused under a budget
 * of 256 MiB, at once, naming the file and line, the shape and the
 * size. */
static void
test_budget_headers (void)
{
  static const struct { const char *file, *text, *where, *shape; } bombs[] = {
    { "wide.smtx", "8, 2147483647, 0\n0 0 0 0 0 0 0 0 0\n", ":1: ",
      "8×2147483647" },
    { "square.mtx", BANNER "131072 131072 0\n", ":2: ", "131072×131072" },
    { "tall.mtx", BANNER "2147483647 8 0\n", ":2: ", "2147483647×8" },
  };
  g_setenv (SPX_MEMORY_BUDGET_ENV, "256M", TRUE);
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (bombs); i++)
    {
      g_autofree char *path = write_tmp (dir, bombs[i].file, bombs[i].text,
                                         strlen (bombs[i].text));
      g_autofree char *where = g_strconcat (path, bombs[i].where, NULL);
      g_autoptr (GError) error = NULL;
      g_assert_null (spx_mask_load (path, NULL, &error));
      g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE);
      g_test_message ("%s", error->message);
      assert_message_starts (error, where);
      assert_message_has (error, bombs[i].shape);
      assert_message_has (error, "2.0");
      assert_message_has (error, "256");
      g_unlink (path);
    }
  g_rmdir (dir);
  g_unsetenv (SPX_MEMORY_BUDGET_ENV);
}

/* A FIFO would block open() until a writer came: refused at once. Run in
 * a subprocess with a time limit, so that a hang fails the test. */
static void
test_fifo (void)
{
  if (g_test_subprocess ())
    {
      assert_load_fails (g_getenv ("SPX_TEST_FIFO"), SPX_MASK_ERROR_IO,
                         "is not a regular file (a FIFO)");
      return;
    }
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  g_autofree char *fifo = tmp_path (dir, "fifo.mtx");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_setenv ("SPX_TEST_FIFO", fifo, TRUE);
  g_test_trap_subprocess (NULL, 5 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_unsetenv ("SPX_TEST_FIFO");
  g_unlink (fifo);
  g_rmdir (dir);
}

/* Directories and devices are refused by what they are; a link to a
 * regular file is read. */
static void
test_not_regular (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  g_autofree char *sub = tmp_path (dir, "dir.mtx");
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  assert_load_fails (sub, SPX_MASK_ERROR_IO, "is a directory");
  if (g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    assert_load_fails ("/dev/zero", SPX_MASK_ERROR_IO,
                       "is not a regular file (a device)");

  g_autofree char *mtx = write_tmp (dir, "m.mtx", BANNER "2 2 1\n2 1\n",
                                    strlen (BANNER) + 10);
  g_autofree char *link = tmp_path (dir, "link.mtx");
  g_assert_cmpint (symlink (mtx, link), ==, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxMask) m = spx_mask_load (link, NULL, &error);
  g_assert_no_error (error);
  assert_bits (m, 2, 2, 1, 0, -1);

  g_unlink (link);
  g_unlink (mtx);
  g_rmdir (sub);
  g_rmdir (dir);
}

/* Gigabytes of zeros (a sparse file costs nothing to make) are refused
 * from their first bytes, not read through: the banner's end is looked
 * for within the format's 1024 characters a line. */
static void
test_sparse_zeros (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  g_autofree char *path = write_tmp (dir, "zeros.mtx", "", 0);
  g_assert_cmpint (truncate (path, (off_t) 4 << 30), ==, 0);
  assert_load_fails (path, SPX_MASK_ERROR_INVALID, "banner");
  g_unlink (path);
  g_rmdir (dir);

  GString *text = g_string_new ("%%MatrixMarket matrix coordinate pattern "
                                "general");
  for (guint i = 0; i < 1100; i++)
    g_string_append_c (text, ' ');
  g_string_append (text, "\n1 1 0\n");
  g_autoptr (GError) error = NULL;
  g_assert_null (load_bytes (spx_format_mtx.load, "long.mtx", text->str,
                             text->len, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  assert_message_starts (error, "long.mtx:1: ");
  assert_message_has (error, "at most 1024 characters");
  g_string_free (text, TRUE);
}

/* A name that is not UTF-8 reaches messages (and so the window) as valid
 * UTF-8, its stray byte replaced. */
static void
test_name_not_utf8 (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-formats-XXXXXX", NULL);
  g_autofree char *path = write_tmp (dir, "bad-\xe9.mtx", "garbage\n", 8);
  g_autoptr (GError) error = NULL;
  g_assert_null (spx_mask_load (path, NULL, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  assert_message_has (error, "bad-\xef\xbf\xbd.mtx:1: ");
  g_unlink (path);
  g_rmdir (dir);
}

/* Loaders poll for cancellation: a pre-cancelled load stops at its first
 * entry. */
static void
test_load_cancelled (void)
{
  const struct { Loader loader; const char *text; } files[] = {
    { spx_format_mtx.load, BANNER "2 2 1\n1 1\n" },
    { spx_format_mtx.load, ARRAY "1 2\n1\n0\n" },
    { spx_format_smtx.load, "2, 2, 1\n0 1 1\n0\n" },
  };
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  g_cancellable_push_current (cancel);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_null (load_bytes (files[i].loader, "c", files[i].text,
                                 strlen (files[i].text), &error));
      g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
    }
  GByteArray *npy = build_npy (1, "{'descr': '|u1', 'fortran_order': False, "
                               "'shape': (2, 3), }", 0, 6);
  g_autoptr (GError) error = NULL;
  g_assert_null (load_bytes (spx_format_npy.load, "c.npy", npy->data,
                             npy->len, &error));
  g_assert_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED);
  g_byte_array_unref (npy);
  g_cancellable_pop_current (cancel);
}

/* Fixtures in tests/data */

static SpxMask *
load_fixture (const char *file, const SpxFormat *expected)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", file,
                                                 NULL);
  g_autoptr (GError) error = NULL;
  const SpxFormat *format = NULL;
  SpxMask *m = spx_mask_load (path, &format, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (spx_format_to_string (format), ==,
                   spx_format_to_string (expected));
  return m;
}

static void
test_fixtures (void)
{
  g_autoptr (SpxMask) mtx = load_fixture ("small.mtx", &spx_format_mtx);
  assert_bits (mtx, 4, 5, 0, 0, 3, 4, 1, 2, 2, 1, 0, 4, -1);
  g_autoptr (SpxMask) sym = load_fixture ("small-symmetric.mtx",
                                          &spx_format_mtx);
  assert_bits (sym, 3, 3, 0, 0, 1, 0, 0, 1, 2, 1, 1, 2, -1);
  g_autoptr (SpxMask) arr = load_fixture ("small-array.mtx", &spx_format_mtx);
  assert_bits (arr, 2, 3, 0, 0, 1, 1, 1, 2, -1);
  g_autoptr (SpxMask) smtx = load_fixture ("small.smtx", &spx_format_smtx);
  assert_bits (smtx, 3, 4, 0, 3, 0, 0, 2, 3, 2, 1, 2, 2, -1);
  g_autoptr (SpxMask) b1 = load_fixture ("small-bool.npy", &spx_format_npy);
  assert_bits (b1, 3, 4, 0, 0, 0, 3, 2, 1, 2, 2, -1);
  g_autoptr (SpxMask) f4 = load_fixture ("small-f4-fortran.npy",
                                         &spx_format_npy);
  g_assert_true (spx_mask_equal (b1, f4));

  /* DLMC copies; sizes from dlmc.csv */
  static const struct { const char *file; guint64 rows, cols, nnz; } dlmc[] = {
    { "rn50-magnitude_pruning-0.9-initial_conv.smtx", 64, 147, 940 },
    { "transformer-magnitude_pruning-0.98-attention_q.smtx", 512, 512, 5242 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (dlmc); i++)
    {
      g_autoptr (SpxMask) m = load_fixture (dlmc[i].file, &spx_format_smtx);
      g_assert_cmpuint (m->rows, ==, dlmc[i].rows);
      g_assert_cmpuint (m->cols, ==, dlmc[i].cols);
      g_assert_cmpuint (spx_mask_count (m), ==, dlmc[i].nnz);
    }
}

/* Old Mac files, every line ending in CR alone, read as lines: the
 * fixtures through spx_mask_load, and line numbers in messages as in
 * the LF file. */
static void
test_cr_lines (void)
{
  g_autoptr (SpxMask) mtx = load_fixture ("hostile/msg-cr-lines.mtx",
                                          &spx_format_mtx);
  assert_bits (mtx, 4, 4, 0, 0, 2, 1, -1);
  g_autoptr (SpxMask) smtx = load_fixture ("hostile/msg-cr-lines.smtx",
                                           &spx_format_smtx);
  assert_bits (smtx, 4, 4, 0, 0, 2, 1, -1);
  /* no line end after the last entry */
  g_autoptr (SpxMask) last = load_text (spx_format_mtx.load,
    "%%MatrixMarket matrix coordinate pattern general\r2 2 1\r2 1");
  assert_bits (last, 2, 2, 1, 0, -1);
  g_autoptr (GError) error = NULL;
  const char *bad = "%%MatrixMarket matrix coordinate pattern general\r"
                    "% comment\r4 4 2\r1 1\r9 2\r";
  g_assert_null (load_bytes (spx_format_mtx.load, "cr.mtx", bad,
                             strlen (bad), &error));
  assert_message_starts (error, "cr.mtx:5: expected a row index from 1 to 4, "
                         "got '9'");
  g_clear_error (&error);
  g_assert_null (load_bytes (spx_format_smtx.load, "cr.smtx",
                             "2, 2, 1\r0 1\r0\r", 13, &error));
  assert_message_starts (error, "cr.smtx:2: expected");
}

/* Every DLMC matrix beside the repository, checked against dlmc.csv */

typedef struct {
  guint64 rows, cols, nnz;
} CsvRow;

static GHashTable *
read_dlmc_csv (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "dlmc.csv", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  GHashTable *rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_auto (GStrv) head = g_strsplit (lines[0], ",", -1);
  g_assert_cmpstr (head[2], ==, "path");
  g_assert_cmpstr (head[4], ==, "nrows");
  g_assert_cmpstr (head[5], ==, "ncols");
  g_assert_cmpstr (head[6], ==, "nnz");
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (g_strchomp (lines[i]), ",", -1);
      if (g_strv_length (f) < 7)
        continue;
      CsvRow *row = g_new (CsvRow, 1);
      row->rows = g_ascii_strtoull (f[4], NULL, 10);
      row->cols = g_ascii_strtoull (f[5], NULL, 10);
      row->nnz = (guint64) g_ascii_strtod (f[6], NULL); /* "96583.0" */
      g_hash_table_replace (rows, g_strdup (f[2]), row);
    }
  return rows;
}

static void
find_smtx (const char *dir, const char *rel, GPtrArray *found)
{
  g_autofree char *full = g_build_filename (dir, rel, NULL);
  g_autoptr (GDir) d = g_dir_open (full, 0, NULL);
  const char *entry;
  while (d != NULL && (entry = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *sub = *rel ? g_strconcat (rel, "/", entry, NULL)
                                  : g_strdup (entry);
      g_autofree char *path = g_build_filename (dir, sub, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        find_smtx (dir, sub, found);
      else if (g_str_has_suffix (entry, ".smtx"))
        g_ptr_array_add (found, g_steal_pointer (&sub));
    }
}

static void
test_dlmc (void)
{
  const char *dir = test_dlmc_dir ();
  if (dir == NULL)
    {
      g_test_skip ("no DLMC directory (SPX_DLMC_DIR)");
      return;
    }
  g_autoptr (GHashTable) csv = read_dlmc_csv (dir);
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  find_smtx (dir, "", found);
  for (guint i = 0; i < found->len; i++)
    {
      const char *rel = found->pdata[i];
      g_autofree char *key = g_strconcat ("dlmc/", rel, NULL);
      g_autofree char *path = g_build_filename (dir, rel, NULL);
      const CsvRow *row = g_hash_table_lookup (csv, key);
      if (row == NULL)
        g_error ("%s has no row in dlmc.csv", key);
      g_autoptr (GError) error = NULL;
      const SpxFormat *format = NULL;
      g_autoptr (SpxMask) m = spx_mask_load (path, &format, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (spx_format_to_string (format), ==, "smtx");
      g_assert_cmpuint (m->rows, ==, row->rows);
      g_assert_cmpuint (m->cols, ==, row->cols);
      g_assert_cmpuint (spx_mask_count (m), ==, row->nnz);
    }
  g_assert_cmpuint (found->len, ==, 26);
}

static void
add_refusals (const char *prefix, const void *table, gsize n, gsize size,
              GTestDataFunc func)
{
  for (gsize i = 0; i < n; i++)
    {
      const void *item = (const char *) table + i * size;
      /* every table starts with its test path */
      g_autofree char *path = g_strconcat (prefix, *(const char *const *) item,
                                           NULL);
      g_test_add_data_func (path, item, func);
    }
}

#define ADD_REFUSALS(prefix, table, func) \
  add_refusals (prefix, table, G_N_ELEMENTS (table), sizeof table[0], func)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  ADD_REFUSALS ("/formats/mtx/refuse/", mtx_refusals, test_mtx_refusal);
  ADD_REFUSALS ("/formats/smtx/refuse/", smtx_refusals, test_smtx_refusal);
  ADD_REFUSALS ("/formats/npy/refuse/", npy_refusals, test_npy_refusal);
  ADD_REFUSALS ("/formats/npy/refuse/", npy_raw_refusals,
                test_npy_raw_refusal);

  g_test_add_func ("/formats/mtx/pattern", test_mtx_pattern);
  g_test_add_func ("/formats/mtx/real-values", test_mtx_real_values);
  g_test_add_func ("/formats/mtx/integer", test_mtx_integer);
  g_test_add_func ("/formats/mtx/symmetric", test_mtx_symmetric);
  g_test_add_func ("/formats/mtx/array", test_mtx_array);
  g_test_add_func ("/formats/mtx/layout", test_mtx_layout);
  g_test_add_func ("/formats/mtx/empty-mask", test_mtx_empty_mask);
  g_test_add_func ("/formats/null-buffer", test_null_buffer);
  g_test_add_func ("/formats/smtx/basic", test_smtx_basic);
  g_test_add_func ("/formats/smtx/layout", test_smtx_layout);
  g_test_add_func ("/formats/smtx/nnz-zero", test_smtx_nnz_zero);
  g_test_add_func ("/formats/npy/descr", test_npy_descr);
  g_test_add_func ("/formats/npy/versions", test_npy_versions);
  g_test_add_func ("/formats/npy/fortran", test_npy_fortran);
  g_test_add_func ("/formats/npy/dict-forms", test_npy_dict_forms);
  g_test_add_func ("/formats/save/round-trips", test_round_trips);
  g_test_add_func ("/formats/save/output", test_writer_output);
  g_test_add_func ("/formats/save/errors", test_save_errors);
  g_test_add_func ("/formats/detect/from-path", test_format_from_path);
  g_test_add_func ("/formats/detect/content", test_format_detect);
  g_test_add_func ("/formats/load", test_load);
  g_test_add_func ("/formats/hostile/budget", test_budget_headers);
  g_test_add_func ("/formats/hostile/fifo", test_fifo);
  g_test_add_func ("/formats/hostile/not-regular", test_not_regular);
  g_test_add_func ("/formats/hostile/name-not-utf8", test_name_not_utf8);
  g_test_add_func ("/formats/hostile/sparse-zeros", test_sparse_zeros);
  g_test_add_func ("/formats/hostile/cancelled", test_load_cancelled);
  g_test_add_func ("/formats/fixtures", test_fixtures);
  g_test_add_func ("/formats/cr-lines", test_cr_lines);
  g_test_add_func ("/formats/dlmc", test_dlmc);

  return g_test_run ();
}
