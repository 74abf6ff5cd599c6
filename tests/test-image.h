/* test-image.h: comparing pictures drawn into image surfaces */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <string.h>

/* How many of rows 0 … rows - 1 differ between two ARGB32 or RGB24
 * pictures of one size. */
static inline guint
test_rows_differing (cairo_surface_t *a, cairo_surface_t *b, int rows)
{
  int stride = cairo_image_surface_get_stride (a);
  const guchar *pa = cairo_image_surface_get_data (a);
  const guchar *pb = cairo_image_surface_get_data (b);
  guint n = 0;
  for (int y = 0; y < rows; y++)
    n += memcmp (pa + y * stride, pb + y * stride,
                 (gsize) cairo_image_surface_get_width (a) * 4) != 0;
  return n;
}
