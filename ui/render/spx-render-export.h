/* spx-render-export.h: one renderer, three file formats */
#pragma once

#include "spx-render-style.h"
#include "spx-save.h"

G_BEGIN_DECLS

/* Every view has this shape (its data typed in its own header); the
 * picture fills 0..width × 0..height logical pixels of cr. */
typedef void (*SpxRenderFunc) (cairo_t *cr, double width, double height,
                               gconstpointer data,
                               const SpxRenderStyle *style);

/* The theme of a picture for a file: the one the view is shown in, or
 * one named (the settings' and the options' words: shown, light,
 * dark). */
typedef enum {
  SPX_EXPORT_THEME_SHOWN,
  SPX_EXPORT_THEME_LIGHT,
  SPX_EXPORT_THEME_DARK,
} SpxExportTheme;

/* theme made a SpxTheme: shown, the one the view is drawn in. */
SpxTheme spx_export_theme_resolve (SpxExportTheme theme, SpxTheme shown);

/* A size written "WxH" (or "W×H"): whole numbers from min to max each,
 * else FALSE with an error quoting text and saying what was expected. */
gboolean spx_export_size_from_string (const char *text, guint min,
                                      guint max, guint *width,
                                      guint *height, GError **error);

typedef enum {
  SPX_EXPORT_PNG,
  SPX_EXPORT_SVG,
  SPX_EXPORT_PDF,
} SpxExportFormat;

/* From the file name's extension (.png, .svg, .pdf, any case). */
gboolean spx_export_format_from_path (const char *path,
                                      SpxExportFormat *format,
                                      GError **error);

/* Draw with func at width × height logical pixels (PNG: × scale device
 * pixels; SVG and PDF: points) and write path with spx_save_file: on any
 * error the error names path (the disk's are SPX_SAVE_ERROR, cairo's
 * SPX_RENDER_ERROR) and no partial file is left behind. */
gboolean spx_render_export (const char *path, SpxExportFormat format,
                            double width, double height, double scale,
                            SpxRenderFunc func, gconstpointer data,
                            const SpxRenderStyle *style, SpxSaveFlags flags,
                            GError **error);

/* The same into memory (tests, the clipboard). */
GBytes  *spx_render_export_bytes (SpxExportFormat format, double width,
                                  double height, double scale,
                                  SpxRenderFunc func, gconstpointer data,
                                  const SpxRenderStyle *style,
                                  GError **error);

G_END_DECLS
