/* spx-render-style.h: what every picture shares: theme colours, a
 * colour-blind-safe palette, a sequential colour map, pango text and
 * number formatting. Sizes are logical pixels; the cairo_t's matrix
 * carries any device scale. */
#pragma once

#include <cairo.h>
#include <glib.h>

G_BEGIN_DECLS

#define SPX_RENDER_ERROR (spx_render_error_quark ())
GQuark spx_render_error_quark (void);

typedef enum {
  SPX_RENDER_ERROR_INVALID,  /* bad view data or options */
  SPX_RENDER_ERROR_WRITE,    /* the file could not be written */
} SpxRenderError;

typedef enum {
  SPX_THEME_LIGHT,
  SPX_THEME_DARK,
} SpxTheme;

typedef struct {
  double r, g, b;
} SpxRgb;

#define SPX_N_SERIES 8
/* Colours for telling tiles apart: as many as a plot can show as
 * categories before a ramp reads better. */
#define SPX_N_TILE_COLOURS 16

/* A new style's font size, in logical pixels: the layouts that a hit
 * test (which has no style) must find again are made at it. */
#define SPX_RENDER_FONT_SIZE 12.0

typedef struct {
  SpxTheme theme;
  SpxRgb   background;
  SpxRgb   foreground;  /* text, axes */
  SpxRgb   muted;       /* grid lines, secondary text */
  SpxRgb   panel;       /* empty cells, plot area */
  SpxRgb   ink;         /* set blocks in a spy plot */
  SpxRgb   highlight;   /* the selected tile and its blocks */
  SpxRgb   alert;       /* over memory, overflow */
  SpxRgb   partition;   /* a plan's partition lines: not the highlight */
  SpxRgb   series[SPX_N_SERIES]; /* Okabe–Ito, distinguishable by all */
  /* colour by tile: pairwise distinct in hue or lightness, and at least
   * 3:1 against the panel in the dark theme */
  SpxRgb   tiles[SPX_N_TILE_COLOURS];
  const char *font_family;
  double   font_size;   /* logical pixels */
  /* a chart of measurements leaves out its line saying how many points
   * are noisy (their markers still say it); FALSE after init */
  gboolean no_noise_note;
  /* the user's title (--title, Export's Title field), drawn by every
   * picture instead of its own, wrapped; NULL or "": their own. The
   * window's pictures have none, so hit tests assume none. */
  const char *title;
} SpxRenderStyle;

void     spx_render_style_init (SpxRenderStyle *style, SpxTheme theme);
gboolean spx_theme_from_string (const char *text, SpxTheme *theme);

void     spx_render_set_rgb    (cairo_t *cr, SpxRgb c);
void     spx_render_set_rgba   (cairo_t *cr, SpxRgb c, double alpha);
SpxRgb   spx_rgb_mix           (SpxRgb a, SpxRgb b, double t);
/* A perceptually ordered map for heat (t in [0, 1], clamped): from the
 * panel colour's end of the scale to a saturated one, readable in both
 * themes. */
SpxRgb   spx_render_heat       (const SpxRenderStyle *style, double t);
/* Colour by tile when there are more tiles than style->tiles: a ramp
 * (t in [0, 1], clamped) turning through hue as it gets lighter, readable
 * on the panel in both themes. */
SpxRgb   spx_render_tile_ramp  (const SpxRenderStyle *style, double t);
/* The WCAG contrast ratio of two colours: 1 (the same lightness) to 21
 * (black on white). */
double   spx_rgb_contrast      (SpxRgb a, SpxRgb b);

/* Fill the whole picture with the background. */
void     spx_render_clear      (cairo_t *cr, const SpxRenderStyle *style,
                                double width, double height);

/* Text at (x, y): ax, ay in [0, 1] place that point at the text's left /
 * top (0), centre (0.5) or right / bottom (1). size is a multiple of the
 * style's font size. Returns the text's logical width; height in *h. */
typedef struct {
  double   size;      /* × style->font_size; 0 means 1 */
  gboolean bold;
  double   ax, ay;
  double   angle;     /* radians, about (x, y) */
  SpxRgb   colour;
  gboolean use_colour; /* else the style's foreground */
  double   max_width; /* > 0: longer text loses its middle to "…" */
  gboolean wrap;      /* with max_width: broken onto more lines instead
                         (between words; inside one only when it alone
                         is wider), each placed by ax */
} SpxTextOpts;

double   spx_render_text       (cairo_t *cr, const SpxRenderStyle *style,
                                double x, double y, const SpxTextOpts *opts,
                                const char *text);

/* What spx_render_text draws of text with opts: its size, its lines and
 * whether any lost its middle to "…". */
typedef struct {
  double   width, height;
  guint    lines;
  gboolean ellipsized;
} SpxTextExtent;

void     spx_render_text_extent (cairo_t *cr, const SpxRenderStyle *style,
                                 const SpxTextOpts *opts, const char *text,
                                 SpxTextExtent *extent);
/* A title (or subtitle) at most max_width wide, wrapped, never cut:
 * opts' size, weight, colour and ax, at (x, y); returns its height. */
double   spx_render_title      (cairo_t *cr, const SpxRenderStyle *style,
                                double x, double y, const SpxTextOpts *opts,
                                double max_width, const char *text);
/* The height spx_render_title would take. */
double   spx_render_title_height (cairo_t *cr, const SpxRenderStyle *style,
                                  const SpxTextOpts *opts, double max_width,
                                  const char *text);
/* The title a picture draws: the style's when the user set one, else
 * its own. */
const char *spx_render_title_text (const SpxRenderStyle *style,
                                   const char *own);
/* spx-render-style-title.c: the user's title, one way in every picture.
 * The height style->title takes beyond one line at opts' size when
 * wrapped to max_width, so that a picture whose own title is one line
 * moves what is under it down by that much: 0 when no title is set. */
double   spx_render_user_title_extra (cairo_t *cr,
                                      const SpxRenderStyle *style,
                                      const SpxTextOpts *opts,
                                      double max_width);
/* Draws style->title at (x, y) wrapped to max_width, never cut, in place
 * of the picture's own; FALSE, drawing nothing, when none is set. */
gboolean spx_render_user_title (cairo_t *cr, const SpxRenderStyle *style,
                                double x, double y, const SpxTextOpts *opts,
                                double max_width);

/* What spx_render_text drew on a cairo_t that records it: the text, its
 * lines and whether any lost its middle to "…". */
typedef struct {
  char    *text;
  guint    lines;
  gboolean ellipsized;
} SpxTextDrawn;

/* From now on every text drawn on cr is added to drawn (of SpxTextDrawn,
 * made with spx_text_drawn_free as its free function), by which a test
 * reads the words of a picture. */
void     spx_render_record_text (cairo_t *cr, GPtrArray *drawn);
void     spx_text_drawn_free    (gpointer drawn);

double   spx_render_text_width (cairo_t *cr, const SpxRenderStyle *style,
                                double size, const char *text, double *h);

/* Round numbers for an axis from lo to hi: at most max_ticks of them,
 * written to ticks (room for max_ticks + 2); returns how many. */
guint    spx_render_nice_ticks (double lo, double hi, guint max_ticks,
                                double *ticks);
/* Short numbers for labels: 1.5k, 2.3M, 640 KiB (bytes), 0.25. */
char    *spx_render_format_count (double value);
char    *spx_render_format_bytes (double value);

/* A horizontal colour bar with a title and min / max labels in the box
 * x, y, w, h; labels are formatted by the caller. */
void     spx_render_colour_bar (cairo_t *cr, const SpxRenderStyle *style,
                                double x, double y, double w, double h,
                                const char *title, const char *lo,
                                const char *hi);

/* The looks of a mark (a marker or a bar: cr's current path, which they
 * use up) in colour, each with one meaning on every chart and legend:
 * plain; noisy, a measurement not to be trusted: hollow (the panel
 * inside, a thick outline); over memory, a plan the machine cannot hold:
 * filled over a cross in the alert colour whose arms reach past it;
 * keep dense, a choice that stays dense: hatched. */
void     spx_render_look_plain       (cairo_t *cr, const SpxRenderStyle *style,
                                      SpxRgb colour);
void     spx_render_look_noisy       (cairo_t *cr, const SpxRenderStyle *style,
                                      SpxRgb colour);
void     spx_render_look_over_memory (cairo_t *cr, const SpxRenderStyle *style,
                                      SpxRgb colour);
void     spx_render_look_keep_dense  (cairo_t *cr, const SpxRenderStyle *style,
                                      SpxRgb colour);

/* A message in the middle of an empty picture ("No plan", …). */
void     spx_render_placeholder (cairo_t *cr, const SpxRenderStyle *style,
                                 double width, double height,
                                 const char *message);

G_END_DECLS
