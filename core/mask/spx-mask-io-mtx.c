/* spx-mask-io-mtx.c: Matrix Market (.mtx) masks
 *
 * Accepted: "coordinate" with a pattern, real or integer field, and
 * "array" with a real or integer field; general or symmetric (symmetric
 * files hold the lower triangle, which is mirrored).
 *
 * Values: in a coordinate file every stored entry is a set bit whatever
 * its value, an explicit 0 included, because the file says the entry is
 * stored. In an array file every element is stored, so the non-zero values
 * are the set bits. Values are checked for syntax only (no strtod in the
 * hot loop): a value is zero when all its mantissa digits are 0, so
 * "0.0e5" is zero and "1e-400" is not. NaN and Inf are refused. */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"

#include <string.h>

typedef enum {
  FIELD_PATTERN,
  FIELD_REAL,
  FIELD_INTEGER,
} Field;

typedef struct {
  gboolean array;
  Field    field;
  gboolean symmetric;
  guint64  rows, cols, entries; /* entries: coordinate only */
  guint64  size_line;
} Header;

typedef struct {
  const char *p;
  gsize       len;
} Word;

static gboolean
word_is (const Word *w, const char *s)
{
  return w->len == strlen (s) && g_ascii_strncasecmp (w->p, s, w->len) == 0;
}

/* The format's lines are at most 1024 characters: the banner's end is
 * looked for there only, so that gigabytes without a line end (a sparse
 * file of zeros) are refused without being read. */
#define MAX_LINE 1024

/* Splits the first line into at most n_max words; returns how many there
 * were (counting past n_max) and leaves t at the next line. *too_long is
 * set when the line has no end within MAX_LINE characters. */
static guint
split_banner (SpxText *t, Word *words, guint n_max, gboolean *too_long)
{
  gsize room = MIN ((gsize) (t->end - t->p), MAX_LINE + 1);
  const char *nl = memchr (t->p, '\n', room);
  const char *stop = nl != NULL ? nl : t->p + room;
  *too_long = nl == NULL && stop < t->end;
  guint n = 0;
  for (const char *p = t->p; p < stop;)
    {
      while (p < stop && (spx_text_is_blank (*p) || *p == '\r'))
        p++;
      if (p == stop)
        break;
      const char *start = p;
      while (p < stop && !spx_text_is_blank (*p) && *p != '\r')
        p++;
      if (n < n_max)
        words[n] = (Word) { start, (gsize) (p - start) };
      n++;
    }
  t->p = nl != NULL ? nl + 1 : t->end;
  return n;
}

/* An error quoting word w of the banner (line 1). */
static gboolean
banner_error (const SpxText *t, const Word *w, GError **error,
              SpxMaskError code, const char *expected)
{
  SpxText at = *t;
  at.p = w->p;
  at.line = 1;
  spx_text_error (&at, error, code, "%s", expected);
  return FALSE;
}

static gboolean
parse_field (const SpxText *t, const Word *w, Header *h, GError **error)
{
  if (word_is (w, "pattern"))
    h->field = FIELD_PATTERN;
  else if (word_is (w, "real"))
    h->field = FIELD_REAL;
  else if (word_is (w, "integer"))
    h->field = FIELD_INTEGER;
  else if (word_is (w, "complex"))
    return banner_error (t, w, error, SPX_MASK_ERROR_FORMAT,
                         "a pattern, real or integer field "
                         "(complex matrices are not supported)");
  else
    return banner_error (t, w, error, SPX_MASK_ERROR_INVALID,
                         "a pattern, real or integer field");
  if (h->array && h->field == FIELD_PATTERN)
    return banner_error (t, w, error, SPX_MASK_ERROR_INVALID,
                         "a real or integer field for the array format");
  return TRUE;
}

static gboolean
parse_symmetry (const SpxText *t, const Word *w, Header *h, GError **error)
{
  h->symmetric = word_is (w, "symmetric");
  if (h->symmetric || word_is (w, "general"))
    return TRUE;
  if (word_is (w, "skew-symmetric") || word_is (w, "hermitian"))
    return banner_error (t, w, error, SPX_MASK_ERROR_FORMAT,
                         "general or symmetric (skew-symmetric and "
                         "hermitian matrices are not masks)");
  return banner_error (t, w, error, SPX_MASK_ERROR_INVALID,
                       "general or symmetric");
}

static gboolean
parse_banner (SpxText *t, Header *h, GError **error)
{
  Word w[5];
  const char *line = t->p;
  gboolean too_long;
  guint n = split_banner (t, w, G_N_ELEMENTS (w), &too_long);
  if (n == 0 || w[0].len != 14 || memcmp (w[0].p, "%%MatrixMarket", 14) != 0)
    {
      SpxText at = *t;
      at.p = n == 0 ? line : w[0].p;
      at.line = 1;
      spx_text_error (&at, error, SPX_MASK_ERROR_INVALID,
                      "a '%%%%MatrixMarket matrix coordinate FIELD "
                      "SYMMETRY' banner");
      return FALSE;
    }
  if (too_long)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:1: expected a banner line of at most %d characters, "
                   "got a longer one", t->name, MAX_LINE);
      return FALSE;
    }
  if (n != 5)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:1: expected 5 banner words ('%%%%MatrixMarket matrix "
                   "coordinate FIELD SYMMETRY'), got %u", t->name, n);
      return FALSE;
    }
  if (word_is (&w[1], "vector"))
    return banner_error (t, &w[1], error, SPX_MASK_ERROR_FORMAT,
                         "'matrix' (vectors are not masks)");
  if (!word_is (&w[1], "matrix"))
    return banner_error (t, &w[1], error, SPX_MASK_ERROR_INVALID, "'matrix'");
  h->array = word_is (&w[2], "array");
  if (!h->array && !word_is (&w[2], "coordinate"))
    return banner_error (t, &w[2], error, SPX_MASK_ERROR_INVALID,
                         "'coordinate' or 'array'");
  return parse_field (t, &w[3], h, error) &&
         parse_symmetry (t, &w[4], h, error);
}

/* Moves to the first non-blank byte of the next line holding data,
 * skipping blank lines and '%' comment lines; FALSE at the end. */
static inline gboolean
next_data_line (SpxText *t)
{
  for (;;)
    {
      while (t->p < t->end && (spx_text_is_blank (*t->p) || *t->p == '\r'))
        t->p++;
      if (t->p == t->end)
        return FALSE;
      /* a comment ends at its line end, or at a NUL, which no text
       * holds: gigabytes of zeros after a '%' are not read through */
      if (*t->p == '%')
        while (t->p < t->end && *t->p != '\n' && *t->p != '\0')
          t->p++;
      if (t->p < t->end && *t->p == '\n')
        {
          t->p++;
          t->line++;
          continue;
        }
      if (t->p < t->end)
        return TRUE;
    }
}

/* At least one blank between two tokens. */
static inline gboolean
need_blank (SpxText *t)
{
  if (t->p == t->end || !spx_text_is_blank (*t->p))
    return FALSE;
  spx_text_skip_blanks (t);
  return TRUE;
}

static gboolean
size_error (const SpxText *t, const char *what, guint64 min, GError **error)
{
  spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "%s (%s integer)", what,
                  min > 0 ? "a positive" : "a non-negative");
  return FALSE;
}

/* One of the size line's numbers, at least min. */
static gboolean
read_size (SpxText *t, gboolean first, const char *what, guint64 min,
           guint64 *value, GError **error)
{
  if (!first && !need_blank (t))
    return size_error (t, what, min, error);
  const char *tok = t->p;
  if (spx_text_uint (t, value) && *value >= min)
    return TRUE;
  t->p = tok;
  return size_error (t, what, min, error);
}

static gboolean
parse_size_line (SpxText *t, Header *h, GError **error)
{
  if (!next_data_line (t))
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "a size line '%s'",
                      h->array ? "ROWS COLS" : "ROWS COLS ENTRIES");
      return FALSE;
    }
  h->size_line = t->line;
  if (!read_size (t, TRUE, "the number of rows", 1, &h->rows, error) ||
      !read_size (t, FALSE, "the number of columns", 1, &h->cols, error))
    return FALSE;
  if (!h->array &&
      !read_size (t, FALSE, "the number of entries", 0, &h->entries, error))
    return FALSE;
  if (!spx_text_end_line (t))
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                      "the end of the size line");
      return FALSE;
    }
  return TRUE;
}

/* Checks the sizes against each other and the file before allocating. */
static gboolean
check_sizes (const SpxText *t, const Header *h, GError **error)
{
  guint64 line = h->size_line;
  guint64 cells = 0;
  gboolean small = g_uint64_checked_mul (&cells, h->rows, h->cols);
  if (h->symmetric && h->rows != h->cols)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:%" G_GUINT64_FORMAT ": expected a square matrix for "
                   "a symmetric file, got %" G_GUINT64_FORMAT "×%"
                   G_GUINT64_FORMAT, t->name, line, h->rows, h->cols);
      return FALSE;
    }
  if (!h->array && small && h->entries > cells)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:%" G_GUINT64_FORMAT ": expected at most %"
                   G_GUINT64_FORMAT "×%" G_GUINT64_FORMAT " = %"
                   G_GUINT64_FORMAT " entries, got %" G_GUINT64_FORMAT,
                   t->name, line, h->rows, h->cols, cells, h->entries);
      return FALSE;
    }
  /* An array file holds every value, each on its own line: a size that
   * the rest of the file cannot hold is refused before allocating. */
  guint64 values = h->symmetric ? (cells - h->rows) / 2 + h->rows : cells;
  guint64 room = (guint64) (t->end - t->p) / 2 + 1;
  if (h->array && (!small || values > room))
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:%" G_GUINT64_FORMAT ": expected %" G_GUINT64_FORMAT
                   "×%" G_GUINT64_FORMAT " array values, got a file too "
                   "short to hold them", t->name, line, h->rows, h->cols);
      return FALSE;
    }
  return TRUE;
}

/* A decimal number token: [+-]D+ for integers, [+-](D+[.D*]|.D+)[eE[+-]D+]
 * for reals. *nonzero is set when a mantissa digit is not 0. */
static inline gboolean
read_number (SpxText *t, gboolean integer, gboolean *nonzero)
{
  const char *p = t->p, *end = t->end;
  guint digits = 0;
  gboolean nz = FALSE;
  if (p < end && (*p == '+' || *p == '-'))
    p++;
  for (; p < end && (guint) (*p - '0') < 10; p++, digits++)
    nz |= *p != '0';
  if (!integer && p < end && *p == '.')
    for (p++; p < end && (guint) (*p - '0') < 10; p++, digits++)
      nz |= *p != '0';
  if (digits == 0)
    return FALSE;
  if (!integer && p < end && (*p == 'e' || *p == 'E'))
    {
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      const char *exp = p;
      while (p < end && (guint) (*p - '0') < 10)
        p++;
      if (p == exp)
        return FALSE;
    }
  if (!spx_text_at_delim (t, p) || (p < end && *p == ','))
    return FALSE;
  t->p = p;
  *nonzero = nz;
  return TRUE;
}

static gboolean
read_value (SpxText *t, const Header *h, gboolean *nonzero, GError **error)
{
  if (need_blank (t) && read_number (t, h->field == FIELD_INTEGER, nonzero))
    return TRUE;
  spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "%s",
                  h->field == FIELD_INTEGER ? "an integer value"
                                            : "a real value");
  return FALSE;
}

static inline gboolean
read_index (SpxText *t, const char *what, guint64 max, guint64 *value,
            GError **error)
{
  const char *tok = t->p;
  if (spx_text_uint (t, value) && *value >= 1 && *value <= max)
    return TRUE;
  t->p = tok;
  spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                  "a %s index from 1 to %" G_GUINT64_FORMAT, what, max);
  return FALSE;
}

static gboolean
end_entry (SpxText *t, const Header *h, GError **error)
{
  if (spx_text_end_line (t))
    return TRUE;
  spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "%s",
                  h->field == FIELD_PATTERN
                    ? "the end of the line (a pattern entry has no value)"
                    : "the end of the line after the value");
  return FALSE;
}

static gboolean
upper_triangle_error (const SpxText *t, guint64 i, guint64 j, GError **error)
{
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
               "%s:%" G_GUINT64_FORMAT ": expected an entry in the lower "
               "triangle (row ≥ column) of a symmetric matrix, got row %"
               G_GUINT64_FORMAT ", column %" G_GUINT64_FORMAT,
               t->name, t->line, i, j);
  return FALSE;
}

/* The hot loop: one "i j [value]" entry per line. */
static gboolean
read_coordinate (SpxText *t, const Header *h, SpxMask *mask, GError **error)
{
  for (guint64 k = 0; k < h->entries; k++)
    {
      guint64 i, j;
      gboolean nonzero;
      if (spx_io_gave_up (k, error))
        return FALSE;
      if (!next_data_line (t))
        {
          spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                          "entry %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                          k + 1, h->entries);
          return FALSE;
        }
      if (!read_index (t, "row", h->rows, &i, error))
        return FALSE;
      if (!need_blank (t))
        {
          spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "a column index");
          return FALSE;
        }
      if (!read_index (t, "column", h->cols, &j, error))
        return FALSE;
      if (h->symmetric && j > i)
        return upper_triangle_error (t, i, j, error);
      if (h->field != FIELD_PATTERN && !read_value (t, h, &nonzero, error))
        return FALSE;
      if (!end_entry (t, h, error))
        return FALSE;
      spx_mask_set (mask, i - 1, j - 1);
      if (h->symmetric)
        spx_mask_set (mask, j - 1, i - 1);
    }
  return TRUE;
}

/* Column-major values, one per line; symmetric: the lower triangle. */
static gboolean
read_array (SpxText *t, const Header *h, SpxMask *mask, GError **error)
{
  guint64 k = 0;
  for (guint64 c = 0; c < h->cols; c++)
    for (guint64 r = h->symmetric ? c : 0; r < h->rows; r++, k++)
      {
        gboolean nonzero;
        if (spx_io_gave_up (k, error))
          return FALSE;
        if (!next_data_line (t))
          {
            spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                            "array value %" G_GUINT64_FORMAT " (row %"
                            G_GUINT64_FORMAT ", column %" G_GUINT64_FORMAT
                            ")", k + 1, r + 1, c + 1);
            return FALSE;
          }
        if (!read_number (t, h->field == FIELD_INTEGER, &nonzero))
          {
            spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "%s",
                            h->field == FIELD_INTEGER ? "an integer value"
                                                      : "a real value");
            return FALSE;
          }
        if (!end_entry (t, h, error))
          return FALSE;
        if (!nonzero)
          continue;
        spx_mask_set (mask, r, c);
        if (h->symmetric)
          spx_mask_set (mask, c, r);
      }
  return TRUE;
}

static gboolean
check_no_more (SpxText *t, const Header *h, GError **error)
{
  if (!next_data_line (t))
    return TRUE;
  if (h->array)
    spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                    "no more than the %" G_GUINT64_FORMAT "×%"
                    G_GUINT64_FORMAT " array values", h->rows, h->cols);
  else
    {
      g_autofree char *entries = spx_count_text (h->entries, "entry",
                                                 "entries");
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                      "no more than the %s of the size line", entries);
    }
  return FALSE;
}

static SpxMask *
load_mtx (const char *name, const guint8 *data, gsize len, GError **error)
{
  if (spx_io_refuse_compressed (name, data, len, error))
    return NULL;
  if (len == 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:1: expected a '%%%%MatrixMarket' banner, got an "
                   "empty file", name);
      return NULL;
    }

  SpxText t;
  Header h = { 0 };
  const char *text = (const char *) data;
  g_autofree char *lf = NULL;
  if (!spx_text_cr_lines (name, &text, len, &lf, error))
    return NULL;
  spx_text_init (&t, name, (const guint8 *) text, len);
  if (!parse_banner (&t, &h, error))
    return NULL;
  t.line = 2;
  if (!parse_size_line (&t, &h, error))
    return NULL;
  if (!check_sizes (&t, &h, error))
    return NULL;

  g_autoptr (SpxMask) mask = spx_mask_new (h.rows, h.cols, 1, error);
  if (mask == NULL)
    {
      g_prefix_error (error, "%s:%" G_GUINT64_FORMAT ": ", name,
                      h.size_line);
      return NULL;
    }
  if (!(h.array ? read_array (&t, &h, mask, error)
                : read_coordinate (&t, &h, mask, error)))
    return NULL;
  if (!check_no_more (&t, &h, error))
    return NULL;
  return g_steal_pointer (&mask);
}

/* Writer: 1-based "row col" lines in row-major order, blocks expanded. */

static char *
put_row_entries (char *out, const SpxMask *mask, guint64 br, guint64 row)
{
  char prefix[24];
  gsize n = (gsize) (spx_io_put_u64 (prefix, row + 1) - prefix);
  prefix[n++] = ' ';
  guint64 b = mask->block;
  for (guint64 bc = spx_io_next_in_row (mask, br, 0); bc < mask->bcols;
       bc = spx_io_next_in_row (mask, br, bc + 1))
    {
      guint w = spx_mask_block_width (mask, bc);
      for (guint64 c = bc * b; c < bc * b + w; c++)
        {
          memcpy (out, prefix, n);
          out = spx_io_put_u64 (out + n, c + 1);
          *out++ = '\n';
        }
    }
  return out;
}

static gboolean
save_mtx (const SpxMask *mask, const char *path, SpxSaveFlags flags,
          GError **error)
{
  static const char banner[] =
    "%%MatrixMarket matrix coordinate pattern general\n";
  guint64 nnz = spx_mask_count_elements (mask);
  guint64 line = spx_io_digits (mask->rows) + spx_io_digits (mask->cols) + 2;
  guint64 size;
  if (!g_uint64_checked_mul (&size, nnz, line) ||
      !g_uint64_checked_add (&size, size, sizeof banner + 64))
    size = G_MAXUINT64;
  g_autofree char *buf = spx_io_alloc_output (path, size, error);
  if (buf == NULL)
    return FALSE;

  char *out = buf;
  memcpy (out, banner, sizeof banner - 1);
  out += sizeof banner - 1;
  out = spx_io_put_u64 (out, mask->rows);
  *out++ = ' ';
  out = spx_io_put_u64 (out, mask->cols);
  *out++ = ' ';
  out = spx_io_put_u64 (out, nnz);
  *out++ = '\n';
  for (guint64 br = 0; br < mask->brows; br++)
    for (guint r = 0; r < spx_mask_block_height (mask, br); r++)
      out = put_row_entries (out, mask, br, br * mask->block + r);
  return spx_save_file (path, buf, (gsize) (out - buf), flags, error);
}

static gboolean
detect_mtx (const guint8 *data, gsize len)
{
  static const char banner[] = "%%MatrixMarket";
  return spx_io_has_prefix (data, len, banner, strlen (banner));
}

const SpxFormat spx_format_mtx = {
  .name = "mtx",
  .title = "Matrix Market",
  .extensions = (const char *const[]) { "mtx", NULL },
  .detect = detect_mtx,
  .load = load_mtx,
  .save = save_mtx,
};
