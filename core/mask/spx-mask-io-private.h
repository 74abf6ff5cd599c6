/* spx-mask-io-private.h: helpers shared by the mask loaders and writers.
 * Not installed; only core/mask/spx-mask-io*.c include it. */
#pragma once

#include "spx-mask-io.h"
#include "spx-util.h"

G_BEGIN_DECLS

/* A cursor over a text buffer that is NOT NUL-terminated (mapped files):
 * every read checks p < end. line is the 1-based line of p. */
typedef struct {
  const char *name;
  const char *p, *end;
  guint64     line;
} SpxText;

/* Tokens are at most this many digits, so they fit in a guint64. */
#define SPX_TEXT_MAX_DIGITS 19

static inline void
spx_text_init (SpxText *t, const char *name, const guint8 *data, gsize len)
{
  t->name = name;
  t->p = data != NULL ? (const char *) data : ""; /* (NULL, 0) is empty */
  t->end = t->p + len;
  t->line = 1;
}

static inline gboolean
spx_text_is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* What may follow a number: a blank, a line end, a comma or the end. */
static inline gboolean
spx_text_at_delim (const SpxText *t, const char *p)
{
  return p == t->end || *p == ' ' || *p == '\t' || *p == '\r' ||
         *p == '\n' || *p == ',';
}

static inline void
spx_text_skip_blanks (SpxText *t)
{
  while (t->p < t->end && spx_text_is_blank (*t->p))
    t->p++;
}

/* An unsigned decimal of 1 to 19 digits ending at a delimiter. On failure
 * p stays at the token so that the error can quote it. */
static inline gboolean
spx_text_uint (SpxText *t, guint64 *value)
{
  const char *p = t->p, *end = t->end;
  guint64 v = 0;
  while (p < end && (guint) (*p - '0') < 10)
    v = v * 10 + (guint) (*p++ - '0');
  if (p == t->p || p - t->p > SPX_TEXT_MAX_DIGITS || !spx_text_at_delim (t, p))
    return FALSE;
  t->p = p;
  *value = v;
  return TRUE;
}

/* Skips trailing blanks and one line end ("\n", "\r\n" or the end of the
 * buffer); FALSE, with p at the offending byte, if anything else follows. */
static inline gboolean
spx_text_end_line (SpxText *t)
{
  while (t->p < t->end && (spx_text_is_blank (*t->p) || *t->p == '\r'))
    t->p++;
  if (t->p == t->end)
    return TRUE;
  if (*t->p != '\n')
    return FALSE;
  t->p++;
  t->line++;
  return TRUE;
}

/* "NAME:LINE: expected <fmt>, got 'TOKEN'" (or "got end of line/file"),
 * quoting the token at t->p. */
void     spx_text_error (const SpxText *t, GError **error, SpxMaskError code,
                         const char *fmt, ...) G_GNUC_PRINTF (4, 5);

/* Up to 32 characters of p, quoted and escaped (spx_escape_len); the
 * token stops at a blank or a line end. */
char    *spx_io_excerpt (const char *p, const char *end);

/* For the rows' detect functions: data starts with the n bytes of
 * prefix; data is a zip archive. */
gboolean spx_io_has_prefix (const guint8 *data, gsize len,
                            const void *prefix, gsize n);
gboolean spx_io_is_zip     (const guint8 *data, gsize len);

/* Refuses gzip and zip data with a clear message; TRUE if refused. */
gboolean spx_io_refuse_compressed (const char *name, const guint8 *data,
                                   gsize len, GError **error);

/* Loaders poll spx_cancelled every this many entries (a power of two):
 * a file of gigabytes can be given up on. */
#define SPX_IO_POLL_EVERY 65536

static inline gboolean
spx_io_gave_up (guint64 done, GError **error)
{
  return (done & (SPX_IO_POLL_EVERY - 1)) == 0 && spx_cancelled (error);
}

/* Bytes a network's row reads at a time when it loads a tensor. */
#define SPX_IO_CHUNK (1 << 20)

/* Arrays of numbers: .npy files, .npz members, safetensors tensors. */

/* An array's items as a header describes them. */
typedef struct {
  char     kind;    /* 'b' bool, 'u' or 'i' integers, 'f' floats */
  guint    size;    /* bytes per item: 1, 2, 4 or 8 */
  gboolean big;     /* big-endian */
  gboolean fortran; /* the first index varies fastest */
  guint    n_dims;  /* as declared: may be more than shape holds */
  guint64  shape[SPX_NETWORK_MAX_DIMS]; /* the first n_dims of them */
} SpxIoArray;

/* Its size in bytes; FALSE when that does not fit in 64 bits or it has
 * more dimensions than shape holds. */
gboolean spx_io_array_bytes (const SpxIoArray *array, guint64 *bytes);
/* Its shape for messages, in brackets "[]" ("[5, 6]") or "()". */
char    *spx_io_array_shape (const SpxIoArray *array, const char *brackets);

/* A scan of an array's items into an element mask of shape[0] rows and
 * the product of the other dimensions as columns (4-D [o, i, kh, kw] as
 * [o, i·kh·kw], whichever the order), fed in pieces of whole items: an
 * item is non-zero when any bit is set but a float's sign (so -0.0 is
 * zero and NaN is not, as numpy.nonzero has it). */
typedef struct {
  SpxIoArray array;
  SpxMask   *mask;
  guint64    run;    /* items stored one after another: a row (C order)
                        or a column (Fortran) */
  guint64    outer, inner; /* the run, and the item in it */
  guint64    col;    /* Fortran: the column of the run */
  guint64    idx[SPX_NETWORK_MAX_DIMS];    /* Fortran: the run's index */
  guint64    stride[SPX_NETWORK_MAX_DIMS]; /* columns a step in each
                                              dimension moves */
  guint64    since;  /* items since cancellation was last polled */
} SpxIoScan;

/* mask: rows × cols as above, block 1, cleared. */
void     spx_io_scan_init (SpxIoScan *scan, const SpxIoArray *array,
                           SpxMask *mask);
/* The next n items (n·size bytes at items); polls spx_cancelled. */
gboolean spx_io_scan      (SpxIoScan *scan, const guint8 *items, guint64 n,
                           GError **error);

/* .npy headers (spx-mask-io-npy.c), for .npy files and .npz members.
 * Messages start "NAME: byte N: expected ...". */

/* The preamble (magic, version, header length) of an .npy of size bytes,
 * whose first MIN (size, SPX_NPY_PREAMBLE) bytes are at data: where its
 * header ends and its items begin, or 0 with an error. */
#define SPX_NPY_PREAMBLE 12
gsize    spx_npy_header_end (const char *name, const guint8 *data,
                             gsize size, GError **error);
/* The header of data[0, len), len from spx_npy_header_end: the array it
 * describes; *shape_at is the byte offset of its shape, for messages.
 * A dtype that is no number (complex, string, object) fails with
 * SPX_MASK_ERROR_FORMAT and, when refused is not NULL, sets it to what
 * it is ("complex"). */
gboolean spx_npy_parse_header (const char *name, const guint8 *data,
                               gsize len, SpxIoArray *array,
                               gsize *shape_at, const char **refused,
                               GError **error);
/* Its descr as numpy writes it: "<f4", "|b1"; buf of 8 bytes. */
void     spx_npy_descr (const SpxIoArray *array, char buf[8]);

/* Writers. */
static inline guint
spx_io_digits (guint64 v)
{
  guint n = 1;
  while (v >= 10)
    {
      v /= 10;
      n++;
    }
  return n;
}

/* Writes v in decimal at out and returns the end. */
static inline char *
spx_io_put_u64 (char *out, guint64 v)
{
  char tmp[20];
  guint n = 0;
  do
    {
      tmp[n++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  while (n > 0)
    *out++ = tmp[--n];
  return out;
}

/* The first non-zero block at or after block-column from in block-row br,
 * or mask->bcols if there is none. */
guint64  spx_io_next_in_row (const SpxMask *mask, guint64 br, guint64 from);

/* Allocates size bytes for a file's content, or fails naming path. */
char    *spx_io_alloc_output (const char *path, guint64 size, GError **error);

G_END_DECLS
