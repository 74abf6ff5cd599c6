/* spx-bf16.h: bfloat16, the top half of an fp32 (8 exponent bits, 7
 * mantissa bits), as the CPU's bf16 instructions and oneDNN take it. */
#pragma once

#include <glib.h>
#include <string.h>

/* fp32 to bf16, rounding to nearest, ties to even; a NaN stays a (quiet)
 * NaN, ±inf and values too large for bf16 round to ±inf. */
static inline guint16
spx_bf16_from_float (float x)
{
  guint32 u;
  memcpy (&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (guint16) ((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (guint16) (u >> 16);
}

static inline float
spx_bf16_to_float (guint16 h)
{
  guint32 u = (guint32) h << 16;
  float x;
  memcpy (&x, &u, sizeof x);
  return x;
}

/* n values of x into out. */
static inline void
spx_bf16_from_floats (const float *x, guint16 *out, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = spx_bf16_from_float (x[i]);
}
