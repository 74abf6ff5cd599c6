/* spx-render-png.h: masks as PNG images, through libpng */
#pragma once

#include "spx-mask-io.h"

G_BEGIN_DECLS

/* Refused before decoding (decompression bombs). */
#define SPX_PNG_MAX_SIDE   32767u
#define SPX_PNG_MAX_PIXELS (G_GUINT64_CONSTANT (1) << 28)

/* The PNG row of core's format table (spx-mask-io.h).
 *
 * Reading: one pixel is one element. A pixel is a set bit when it is
 * opaque enough and dark: alpha ≥ 128 and luminance (0.299 R + 0.587 G +
 * 0.114 B) < 128, on 8-bit samples (16-bit ones by their high byte), not
 * premultiplied. Any PNG colour type, bit depth or interlacing is
 * accepted. The chunks are walked to IEND first (a truncated file is
 * called that), and the decoding's memory, from the header (the mask's
 * bits and one row: the image is decoded a row at a time), is checked
 * against the budget before libpng runs: SPX_BUDGET_ERROR_TOO_LARGE
 * "NAME: an image of W×H pixels: would need …". Data the decoder refuses
 * is "NAME: byte N: not a readable PNG image (…)". A cancelled load
 * (spx_cancelled) stops between rows.
 *
 * Writing: a 1-bit greyscale image, one pixel per element, set elements
 * black (0) on white (1), encoded a row at a time and written with
 * spx_save_file; the encoding is checked against the memory budget
 * first. */
extern const SpxFormat spx_format_png;

/* Registers the row (spx_format_register): call once at start, before
 * any thread, in every program that reads PNG. */
void      spx_mask_png_register (void);

G_END_DECLS
