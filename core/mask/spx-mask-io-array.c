/* spx-mask-io-array.c: arrays of numbers (.npy, .npz members, safetensors
 * tensors) into element masks: their size, and the scan of their items */
#include "spx-mask-io-private.h"

#include <string.h>

gboolean
spx_io_array_bytes (const SpxIoArray *array, guint64 *bytes)
{
  guint64 b = array->size;
  if (array->n_dims > SPX_NETWORK_MAX_DIMS)
    return FALSE;
  for (guint d = 0; d < array->n_dims; d++)
    if (!g_uint64_checked_mul (&b, b, array->shape[d]))
      return FALSE;
  *bytes = b;
  return TRUE;
}

char *
spx_io_array_shape (const SpxIoArray *array, const char *brackets)
{
  GString *s = g_string_new (NULL);
  g_string_append_c (s, brackets[0]);
  for (guint d = 0; d < array->n_dims && d < SPX_NETWORK_MAX_DIMS; d++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, d ? ", " : "",
                            array->shape[d]);
  if (array->n_dims > SPX_NETWORK_MAX_DIMS)
    g_string_append (s, ", …");
  g_string_append_c (s, brackets[1]);
  return g_string_free (s, FALSE);
}

void
spx_io_scan_init (SpxIoScan *scan, const SpxIoArray *array, SpxMask *mask)
{
  memset (scan, 0, sizeof *scan);
  scan->array = *array;
  scan->mask = mask;
  scan->run = array->fortran ? mask->rows : mask->cols;
  scan->since = SPX_IO_POLL_EVERY; /* a poll before the first item */
  guint64 stride = 1;
  for (guint d = array->n_dims; d-- > 1;)
    {
      scan->stride[d] = stride;
      stride *= array->shape[d];
    }
}

/* Fortran order: the next run's column, the second index varying
 * fastest. */
static void
next_column (SpxIoScan *s)
{
  const SpxIoArray *a = &s->array;
  for (guint d = 1; d < a->n_dims; d++)
    {
      if (++s->idx[d] < a->shape[d])
        {
          s->col += s->stride[d];
          return;
        }
      s->idx[d] = 0;
      s->col -= (a->shape[d] - 1) * s->stride[d];
    }
}

/* Items of type T, swapped from the array's byte order by SWAP, each
 * non-zero under keep setting flat bit at + i·step. */
#define SCAN_ITEMS(T, SWAP)                                                \
  for (guint64 i = 0; i < n; i++, items += sizeof (T))                     \
    {                                                                      \
      T v;                                                                 \
      memcpy (&v, items, sizeof v);                                        \
      if ((SWAP (v) & (T) keep) != 0)                                      \
        spx_mask_set_flat (mask, at + i * step);                           \
    }
#define SCAN_SIZED(T, BITS)                                                \
  do                                                                       \
    {                                                                      \
      if (a->big)                                                          \
        SCAN_ITEMS (T, GUINT##BITS##_FROM_BE)                              \
      else                                                                 \
        SCAN_ITEMS (T, GUINT##BITS##_FROM_LE)                              \
    }                                                                      \
  while (0)
#define SAME(v) (v)

/* n items of the current run, from its item inner on. */
static void
scan_run (SpxIoScan *s, const guint8 *items, guint64 n)
{
  const SpxIoArray *a = &s->array;
  SpxMask *mask = s->mask;
  /* every bit counts but a float's sign */
  guint64 keep = a->kind == 'f' ? ~(G_GUINT64_CONSTANT (1) << (a->size * 8 - 1))
                                : G_MAXUINT64;
  guint64 at = a->fortran ? s->inner * mask->cols + s->col
                          : s->outer * mask->cols + s->inner;
  guint64 step = a->fortran ? mask->cols : 1;
  switch (a->size)
    {
    case 1:
      SCAN_ITEMS (guint8, SAME);
      break;
    case 2:
      SCAN_SIZED (guint16, 16);
      break;
    case 4:
      SCAN_SIZED (guint32, 32);
      break;
    default:
      SCAN_SIZED (guint64, 64);
      break;
    }
}

gboolean
spx_io_scan (SpxIoScan *scan, const guint8 *items, guint64 n, GError **error)
{
  while (n > 0)
    {
      if (scan->since >= SPX_IO_POLL_EVERY)
        {
          if (spx_cancelled (error))
            return FALSE;
          scan->since = 0;
        }
      guint64 take = MIN (n, scan->run - scan->inner);
      scan_run (scan, items, take);
      items += take * scan->array.size;
      n -= take;
      scan->since += take;
      scan->inner += take;
      if (scan->inner == scan->run)
        {
          scan->inner = 0;
          scan->outer++;
          if (scan->array.fortran)
            next_column (scan);
        }
    }
  return TRUE;
}
