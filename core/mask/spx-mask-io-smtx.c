/* spx-mask-io-smtx.c: DLMC (.smtx) masks, a CSR pattern without values
 *
 *   line 1: NROWS, NCOLS, NNZ      (commas optional)
 *   line 2: NROWS+1 row offsets    (0, non-decreasing, ending at NNZ)
 *   line 3: NNZ column indices     (0-based, any order within a row)
 *
 * A column repeated within a row sets its bit once. Nothing but white
 * space may follow line 3. */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"

#include <string.h>

/* The first line "NROWS, NCOLS, NNZ" (commas optional). Reads the
 * numbers into v and counts them in *n_read; FALSE with t->p at the
 * offending token. */
static gboolean
parse_header (SpxText *t, guint64 v[3], guint *n_read)
{
  *n_read = 0;
  spx_text_skip_blanks (t);
  for (guint k = 0; k < 3; k++)
    {
      const char *before = t->p;
      spx_text_skip_blanks (t);
      if (k > 0 && t->p < t->end && *t->p == ',')
        {
          t->p++;
          spx_text_skip_blanks (t);
        }
      if (k > 0 && t->p == before) /* no separator */
        return FALSE;
      if (!spx_text_uint (t, &v[k]))
        return FALSE;
      (*n_read)++;
    }
  return spx_text_end_line (t);
}

static gboolean
read_header (SpxText *t, guint64 v[3], GError **error)
{
  static const char *const what[] = {
    "the number of rows", "the number of columns",
    "the number of non-zeros", "the end of the line",
  };
  guint n;
  if (!parse_header (t, v, &n))
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                      "a header 'NROWS, NCOLS, NNZ': %s", what[n]);
      return FALSE;
    }
  if (v[0] == 0 || v[1] == 0)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:1: expected a positive number of %s, got 0",
                   t->name, v[0] == 0 ? "rows" : "columns");
      return FALSE;
    }
  return TRUE;
}

static gboolean
at_line_end (const SpxText *t)
{
  return t->p == t->end || *t->p == '\n' || *t->p == '\r';
}

/* Checks offset number n, value v, against the previous one and nnz; an
 * error quotes its text at tok. */
static gboolean
check_offset (SpxText *t, const char *tok, const guint64 *off, guint64 n,
              guint64 v, guint64 nnz, GError **error)
{
  if ((n == 0 || v >= off[n - 1]) && v <= nnz && (n > 0 || v == 0))
    return TRUE;
  t->p = tok;
  if (n == 0)
    spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                    "the first row offset to be 0");
  else if (v < off[n - 1])
    spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                    "a row offset of at least %" G_GUINT64_FORMAT
                    " (offsets never decrease)", off[n - 1]);
  else
    spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                    "a row offset of at most NNZ = %" G_GUINT64_FORMAT, nnz);
  return FALSE;
}

static gboolean
check_offsets_count (const SpxText *t, const guint64 *off, guint64 n,
                     guint64 rows, guint64 nnz, GError **error)
{
  if (n != rows + 1)
    g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                 "%s:2: expected NROWS+1 = %" G_GUINT64_FORMAT
                 " row offsets, got %" G_GUINT64_FORMAT, t->name, rows + 1, n);
  else if (off[rows] != nnz)
    g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                 "%s:2: expected the last row offset to be NNZ = %"
                 G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT,
                 t->name, nnz, off[rows]);
  else
    return TRUE;
  return FALSE;
}

/* Line 2. Storage is bounded by what the rest of the file can hold (a
 * number and a blank take two bytes), never by the header alone. */
static guint64 *
read_offsets (SpxText *t, guint64 rows, guint64 nnz, GError **error)
{
  if (t->p == t->end)
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                      "line 2 with NROWS+1 = %" G_GUINT64_FORMAT
                      " row offsets", rows + 1);
      return NULL;
    }
  guint64 cap = MIN (rows + 1, (guint64) (t->end - t->p) / 2 + 1);
  g_autofree char *what = g_strdup_printf ("%s:2: %" G_GUINT64_FORMAT
                                           " row offsets", t->name, cap);
  g_autofree guint64 *off = spx_budget_alloc0 (cap, sizeof (guint64), what,
                                               error);
  guint64 n = 0, v;
  if (off == NULL)
    return NULL;
  spx_text_skip_blanks (t);
  while (!at_line_end (t))
    {
      const char *tok = t->p;
      if (spx_io_gave_up (n, error))
        return NULL;
      if (!spx_text_uint (t, &v))
        {
          spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                          "a row offset (a non-negative integer)");
          return NULL;
        }
      if (n == cap)
        {
          t->p = tok;
          spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                          "only NROWS+1 = %" G_GUINT64_FORMAT " row offsets",
                          rows + 1);
          return NULL;
        }
      if (!check_offset (t, tok, off, n, v, nnz, error))
        return NULL;
      off[n++] = v;
      spx_text_skip_blanks (t);
    }
  if (!check_offsets_count (t, off, n, rows, nnz, error))
    return NULL;
  if (!spx_text_end_line (t))
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "the end of line 2");
      return NULL;
    }
  return g_steal_pointer (&off);
}

static gboolean
column_error (SpxText *t, const char *tok, guint64 cols, GError **error)
{
  t->p = tok;
  spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                  "a column index from 0 to %" G_GUINT64_FORMAT, cols - 1);
  return FALSE;
}

/* Line 3, the hot loop. off is valid: off[0] = 0 ≤ … ≤ off[rows] = nnz. */
static gboolean
read_columns (SpxText *t, const guint64 *off, guint64 nnz, SpxMask *mask,
              GError **error)
{
  guint64 k = 0, r = 0, c, cols = mask->cols;
  if (nnz > 0 && t->p == t->end)
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                      "line 3 with NNZ = %" G_GUINT64_FORMAT
                      " column indices", nnz);
      return FALSE;
    }
  spx_text_skip_blanks (t);
  while (!at_line_end (t))
    {
      const char *tok = t->p;
      if (spx_io_gave_up (k, error))
        return FALSE;
      if (!spx_text_uint (t, &c) || c >= cols)
        return column_error (t, tok, cols, error);
      if (k == nnz)
        {
          t->p = tok;
          spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                          "only NNZ = %" G_GUINT64_FORMAT " column indices",
                          nnz);
          return FALSE;
        }
      while (off[r + 1] <= k) /* stops before rows: off[rows] = nnz > k */
        r++;
      spx_mask_set (mask, r, c);
      k++;
      spx_text_skip_blanks (t);
    }
  if (k != nnz)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID,
                   "%s:%" G_GUINT64_FORMAT ": expected NNZ = %"
                   G_GUINT64_FORMAT " column indices, got %" G_GUINT64_FORMAT,
                   t->name, t->line, nnz, k);
      return FALSE;
    }
  if (!spx_text_end_line (t))
    {
      spx_text_error (t, error, SPX_MASK_ERROR_INVALID, "the end of line 3");
      return FALSE;
    }
  return TRUE;
}

/* Only white space may follow line 3. */
static gboolean
check_trailing (SpxText *t, GError **error)
{
  for (; t->p < t->end; t->p++)
    {
      if (*t->p == '\n')
        t->line++;
      else if (!g_ascii_isspace (*t->p))
        {
          spx_text_error (t, error, SPX_MASK_ERROR_INVALID,
                          "nothing after line 3");
          return FALSE;
        }
    }
  return TRUE;
}

static SpxMask *
load_smtx (const char *name, const guint8 *data, gsize len, GError **error)
{
  if (spx_io_refuse_compressed (name, data, len, error))
    return NULL;

  SpxText t;
  guint64 v[3];
  const char *text = (const char *) data;
  g_autofree char *lf = NULL;
  if (!spx_text_cr_lines (name, &text, len, &lf, error))
    return NULL;
  spx_text_init (&t, name, (const guint8 *) text, len);
  if (!read_header (&t, v, error))
    return NULL;
  g_autofree guint64 *off = read_offsets (&t, v[0], v[2], error);
  if (off == NULL)
    return NULL;
  g_autoptr (SpxMask) mask = spx_mask_new (v[0], v[1], 1, error);
  if (mask == NULL)
    {
      g_prefix_error (error, "%s:1: ", name);
      return NULL;
    }
  if (!read_columns (&t, off, v[2], mask, error) ||
      !check_trailing (&t, error))
    return NULL;
  return g_steal_pointer (&mask);
}

/* Writer */

/* Elements in each element row of block-row br. */
static guint64
row_elements (const SpxMask *mask, guint64 br)
{
  guint64 n = 0;
  for (guint64 bc = spx_io_next_in_row (mask, br, 0); bc < mask->bcols;
       bc = spx_io_next_in_row (mask, br, bc + 1))
    n += spx_mask_block_width (mask, bc);
  return n;
}

static char *
put_offsets (char *out, const SpxMask *mask)
{
  guint64 total = 0;
  *out++ = '0';
  for (guint64 br = 0; br < mask->brows; br++)
    {
      guint64 n = row_elements (mask, br);
      for (guint r = 0; r < spx_mask_block_height (mask, br); r++)
        {
          total += n;
          *out++ = ' ';
          out = spx_io_put_u64 (out, total);
        }
    }
  *out++ = '\n';
  return out;
}

/* Column indices of block-row br, repeated for each of its element rows,
 * each followed by a space. */
static char *
put_columns (char *out, const SpxMask *mask, guint64 br)
{
  char *row_start = out;
  guint64 b = mask->block;
  for (guint64 bc = spx_io_next_in_row (mask, br, 0); bc < mask->bcols;
       bc = spx_io_next_in_row (mask, br, bc + 1))
    for (guint64 c = bc * b; c < bc * b + spx_mask_block_width (mask, bc);
         c++)
      {
        out = spx_io_put_u64 (out, c);
        *out++ = ' ';
      }
  gsize n = (gsize) (out - row_start);
  for (guint r = 1; r < spx_mask_block_height (mask, br); r++)
    {
      memcpy (out, row_start, n);
      out += n;
    }
  return out;
}

static gboolean
save_smtx (const SpxMask *mask, const char *path, SpxSaveFlags flags,
           GError **error)
{
  guint64 nnz = spx_mask_count_elements (mask);
  guint64 size, cols_size;
  if (!g_uint64_checked_mul (&size, mask->rows + 1, spx_io_digits (nnz) + 1) ||
      !g_uint64_checked_mul (&cols_size, nnz, spx_io_digits (mask->cols) + 1) ||
      !g_uint64_checked_add (&size, size, cols_size) ||
      !g_uint64_checked_add (&size, size, 80))
    size = G_MAXUINT64;
  g_autofree char *buf = spx_io_alloc_output (path, size, error);
  if (buf == NULL)
    return FALSE;

  char *out = buf;
  out = spx_io_put_u64 (out, mask->rows);
  *out++ = ',';
  *out++ = ' ';
  out = spx_io_put_u64 (out, mask->cols);
  *out++ = ',';
  *out++ = ' ';
  out = spx_io_put_u64 (out, nnz);
  *out++ = '\n';
  out = put_offsets (out, mask);
  for (guint64 br = 0; br < mask->brows; br++)
    out = put_columns (out, mask, br);
  if (nnz > 0)
    out--; /* the last index's space becomes the line end */
  *out++ = '\n';
  return spx_save_file (path, buf, (gsize) (out - buf), flags, error);
}

/* A header line is all it takes: no other format starts with a digit or
 * a blank. */
static gboolean
detect_smtx (const guint8 *data, gsize len)
{
  SpxText t;
  guint64 v[3];
  guint n;
  spx_text_init (&t, "", data, len);
  return parse_header (&t, v, &n);
}

const SpxFormat spx_format_smtx = {
  .name = "smtx",
  .title = "DLMC",
  .extensions = (const char *const[]) { "smtx", NULL },
  .detect = detect_smtx,
  .load = load_smtx,
  .save = save_smtx,
};
