/* spx-mask-editor.c: the editable spy plot.
 *
 * The plot is spx_render_mask's, rendered into a kept picture that is
 * painted again on every expose; it is rendered anew only when a block,
 * the zoom, the overlays, the theme or the size changed. The rubber band
 * of a rectangle is drawn over the kept picture.
 *
 * Pointer positions map to blocks the way spx_render_mask_hit does: the
 * plot rectangle is found once per size and zoom by bisecting the hit
 * test at its edges, and from it a linear map between pixels and
 * elements (the renderer keeps elements square). That map turns a drag
 * into a line of samples with no gaps, and blocks back into rectangles
 * for the rubber band and the tooltip.
 *
 * Each press … release is one undo step: the flat index and old bit of
 * every block it changed, in order. A mask replaced whole (a new subject)
 * is one step too: it keeps the other mask and swaps the two.
 *
 * The mask shown may be shared with the window's study: it is copied
 * (within the memory budget) when drawing first changes it. */
#include "spx-mask-editor.h"
#include "spx-util.h"
#include "spx-widget-private.h"

#include <math.h>

#define MIN_WIDTH      320
#define MIN_HEIGHT     200
#define NATURAL_WIDTH  640
#define NATURAL_HEIGHT 480
#define MAX_HISTORY    200
#define ZOOM_STEP      1.25   /* one scroll click */
#define KEY_ZOOM_STEP  1.5
#define PAN_STEP       0.1    /* of the visible span, per scroll click */
#define MAX_SAMPLES    1000000 /* per motion event */

typedef enum {
  DRAG_NONE,
  DRAG_PAINT,   /* draw or erase under the pointer */
  DRAG_RECT,    /* a rectangle, applied on release */
  DRAG_PAN,
} DragKind;

typedef struct {
  guint64 index; /* flat block index */
  guint8  old;   /* its bit before the change; after it is !old */
} Change;

/* One undo step: a stroke's changes, or a whole mask swapped. */
typedef struct {
  GArray        *changes;       /* Change; NULL for a swap */
  SpxMask       *other;         /* swap: the mask not shown */
  gpointer       before, after; /* swap: the caller's, for mask-replaced */
  GDestroyNotify destroy;
} Step;

static void
step_free (gpointer data)
{
  Step *step = data;
  if (step->changes != NULL)
    g_array_unref (step->changes);
  spx_mask_free (step->other);
  if (step->destroy != NULL)
    {
      step->destroy (step->before);
      step->destroy (step->after);
    }
  g_free (step);
}

/* The plot rectangle and its map to elements, for one size and zoom. */
typedef struct {
  gboolean valid;
  int      width, height;
  double   px, py, pw, ph;
  double   ex0, ey0;  /* elements at (px, py) */
  double   s;         /* pixels per element */
} Geometry;

struct _SpxMaskEditor
{
  GtkDrawingArea   parent_instance;

  SpxMask         *mask;
  const SpxIpuProgram *program;
  gint             selected_tile;
  gboolean         colour_by_tile;
  SpxEditTool      tool;
  SpxRenderStyle   style;
  double           vx0, vy0, vx1, vy1; /* visible blocks */

  cairo_surface_t *picture;  /* the rendered plot, or NULL: render */
  Geometry         geom;

  DragKind         drag;
  guint            drag_button;
  gboolean         drag_value;    /* paint / rectangle: set or clear */
  double           last_x, last_y; /* pointer at the last event */
  gboolean         have_last_block;
  guint64          last_br, last_bc;
  guint64          anchor_br, anchor_bc, cur_br, cur_bc; /* rectangle */
  GArray          *stroke;        /* Change, while a stroke runs */

  /* the block cursor, shown once a key moves it; Shift+arrows stretch
   * a rectangle from the corner where Shift began */
  gboolean         key_shown, key_rect;
  guint64          key_br, key_bc, key_corner_br, key_corner_bc;

  GPtrArray       *history;       /* Step */
  guint            history_pos;   /* steps applied */
};

enum {
  SIGNAL_MASK_EDITED,
  SIGNAL_HISTORY_CHANGED,
  SIGNAL_BLOCK_ACTIVATED,
  SIGNAL_MASK_REPLACED,
  SIGNAL_EDIT_REFUSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SpxMaskEditor, spx_mask_editor, GTK_TYPE_DRAWING_AREA)

/* ------------------------------------------------------------------ */
/* Picture and geometry                                                */

static void
fill_data (SpxMaskEditor *self, SpxRenderMaskData *d)
{
  *d = (SpxRenderMaskData) {
    .mask = self->mask,
    .x0 = self->vx0, .y0 = self->vy0, .x1 = self->vx1, .y1 = self->vy1,
    .grid = TRUE,
    .program = self->program,
    .selected_tile = self->selected_tile,
    .colour_by_tile = self->colour_by_tile,
  };
}

/* The picture must be rendered again (the map is unchanged). */
static void
repaint (SpxMaskEditor *self)
{
  g_clear_pointer (&self->picture, cairo_surface_destroy);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The layout may have changed too (zoom, overlays, mask). */
static void
relayout (SpxMaskEditor *self)
{
  self->geom.valid = FALSE;
  repaint (self);
}

static gboolean
hit (const SpxRenderMaskData *d, const Geometry *g, double x, double y)
{
  return spx_render_mask_hit (g->width, g->height, d, x, y, NULL, NULL);
}

/* Bisect between a point outside (out) and one inside (in) the plot,
 * along x (horizontal) or y; the boundary is returned. */
static double
bisect (const SpxRenderMaskData *d, const Geometry *g, gboolean horizontal,
        double fixed, double out, double in)
{
  for (int i = 0; i < 60 && fabs (in - out) > 1e-9; i++)
    {
      double mid = (in + out) / 2;
      gboolean inside = horizontal ? hit (d, g, mid, fixed)
                                   : hit (d, g, fixed, mid);
      if (inside)
        in = mid;
      else
        out = mid;
    }
  return (in + out) / 2;
}

static gboolean
ensure_geometry (SpxMaskEditor *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  Geometry *g = &self->geom;
  int width = gtk_widget_get_allocated_width (widget);
  int height = gtk_widget_get_allocated_height (widget);
  if (self->mask == NULL || spx_mask_n_blocks (self->mask) == 0 ||
      width <= 1 || height <= 1)
    return FALSE;
  if (g->valid && g->width == width && g->height == height)
    return TRUE;

  g->valid = FALSE;
  g->width = width;
  g->height = height;
  SpxRenderMaskData d;
  fill_data (self, &d);

  /* A point inside: the plot usually covers the middle. */
  double ix = width / 2.0, iy = height / 2.0;
  gboolean found = hit (&d, g, ix, iy);
  for (int j = 1; j < 32 && !found; j++)
    for (int i = 1; i < 32 && !found; i++)
      {
        ix = width * i / 32.0;
        iy = height * j / 32.0;
        found = hit (&d, g, ix, iy);
      }
  if (!found)
    return FALSE;

  double left = hit (&d, g, 0, iy) ? 0 : bisect (&d, g, TRUE, iy, 0, ix);
  double right = bisect (&d, g, TRUE, iy, width, ix);
  double top = hit (&d, g, ix, 0) ? 0 : bisect (&d, g, FALSE, ix, 0, iy);
  double bottom = bisect (&d, g, FALSE, ix, height, iy);

  const SpxMask *m = self->mask;
  double ex0 = self->vx0 * m->block;
  double ex1 = MIN (self->vx1 * m->block, (double) m->cols);
  double ey0 = self->vy0 * m->block;
  double ey1 = MIN (self->vy1 * m->block, (double) m->rows);
  if (!(ex1 > ex0 && ey1 > ey0 && right > left && bottom > top))
    return FALSE;
  g->px = left;
  g->py = top;
  g->pw = right - left;
  g->ph = bottom - top;
  g->ex0 = ex0;
  g->ey0 = ey0;
  /* Square elements: both ways give the same scale, up to rounding. */
  g->s = (g->pw / (ex1 - ex0) + g->ph / (ey1 - ey0)) / 2;
  g->valid = TRUE;
  return TRUE;
}

static gboolean
in_plot (const Geometry *g, double x, double y)
{
  return x >= g->px && x < g->px + g->pw && y >= g->py && y < g->py + g->ph;
}

/* The block under (x, y), which must be in the plot (clamp: is moved
 * onto its nearest edge first). */
static gboolean
block_at_full (SpxMaskEditor *self, double x, double y, gboolean clamp,
               guint64 *br, guint64 *bc)
{
  if (!ensure_geometry (self))
    return FALSE;
  const Geometry *g = &self->geom;
  if (clamp)
    {
      x = CLAMP (x, g->px, nextafter (g->px + g->pw, 0));
      y = CLAMP (y, g->py, nextafter (g->py + g->ph, 0));
    }
  else if (!in_plot (g, x, y))
    return FALSE;
  const SpxMask *m = self->mask;
  double ex = g->ex0 + (x - g->px) / g->s;
  double ey = g->ey0 + (y - g->py) / g->s;
  guint64 c = (guint64) MAX (0, ex / m->block);
  guint64 r = (guint64) MAX (0, ey / m->block);
  if (clamp)
    {
      c = MIN (c, m->bcols - 1);
      r = MIN (r, m->brows - 1);
    }
  else if (c >= m->bcols || r >= m->brows)
    return FALSE;
  *bc = c;
  *br = r;
  return TRUE;
}

static gboolean
block_at (SpxMaskEditor *self, double x, double y, guint64 *br, guint64 *bc)
{
  return block_at_full (self, x, y, FALSE, br, bc);
}

/* The pixels of blocks r0..r1 × c0..c1 (inclusive), clipped to the
 * plot; FALSE when none of it shows. Geometry must be valid. */
static gboolean
blocks_rect (SpxMaskEditor *self, guint64 r0, guint64 c0, guint64 r1,
             guint64 c1, double *x, double *y, double *w, double *h)
{
  const Geometry *g = &self->geom;
  const SpxMask *m = self->mask;
  double left = g->px + ((double) c0 * m->block - g->ex0) * g->s;
  double right = g->px + (MIN ((double) (c1 + 1) * m->block,
                               (double) m->cols) - g->ex0) * g->s;
  double top = g->py + ((double) r0 * m->block - g->ey0) * g->s;
  double bottom = g->py + (MIN ((double) (r1 + 1) * m->block,
                                (double) m->rows) - g->ey0) * g->s;
  left = MAX (left, g->px);
  top = MAX (top, g->py);
  right = MIN (right, g->px + g->pw);
  bottom = MIN (bottom, g->py + g->ph);
  if (!(right > left && bottom > top))
    return FALSE;
  *x = left;
  *y = top;
  *w = right - left;
  *h = bottom - top;
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Editing and history                                                 */

static void
write_bit (SpxMask *m, guint64 i, gboolean value)
{
  guint64 bit = G_GUINT64_CONSTANT (1) << (i & 63);
  if (value)
    m->bits[i >> 6] |= bit;
  else
    m->bits[i >> 6] &= ~bit;
}

/* Set block i to value within the running stroke; TRUE if it changed. */
static gboolean
change_block (SpxMaskEditor *self, guint64 i, gboolean value)
{
  gboolean old = spx_mask_get_flat (self->mask, i);
  if (old == value)
    return FALSE;
  write_bit (self->mask, i, value);
  Change c = { i, (guint8) old };
  g_array_append_val (self->stroke, c);
  return TRUE;
}

/* Says why an edit did not happen; FALSE. */
static gboolean
refuse (SpxMaskEditor *self, GError *error)
{
  g_signal_emit (self, signals[SIGNAL_EDIT_REFUSED], 0, error);
  g_error_free (error);
  return FALSE;
}

/* Before the mask changes: a copy of its own when it is shared. */
static gboolean
own_mask (SpxMaskEditor *self)
{
  GError *error = NULL;
  if (spx_mask_unshare (&self->mask, &error))
    return TRUE;
  g_prefix_error (&error, "Drawing on the mask needs a copy of it: ");
  return refuse (self, error);
}

static gboolean
begin_stroke (SpxMaskEditor *self)
{
  if (!own_mask (self))
    return FALSE;
  if (self->stroke == NULL)
    self->stroke = g_array_new (FALSE, FALSE, sizeof (Change));
  return TRUE;
}

static void
push_step (SpxMaskEditor *self, Step *step)
{
  g_ptr_array_set_size (self->history, self->history_pos); /* drop redo */
  g_ptr_array_add (self->history, step);
  if (self->history->len > MAX_HISTORY)
    g_ptr_array_remove_index (self->history, 0);
  self->history_pos = self->history->len;
}

/* The end of a press … release: one undo step if anything changed. */
static void
end_stroke (SpxMaskEditor *self)
{
  GArray *stroke = g_steal_pointer (&self->stroke);
  self->drag = DRAG_NONE;
  self->have_last_block = FALSE;
  if (stroke == NULL)
    return;
  if (stroke->len == 0)
    {
      g_array_unref (stroke);
      return;
    }
  Step *step = g_new0 (Step, 1);
  step->changes = stroke;
  push_step (self, step);
  g_signal_emit (self, signals[SIGNAL_MASK_EDITED], 0);
  g_signal_emit (self, signals[SIGNAL_HISTORY_CHANGED], 0);
}

/* Drop a drag without keeping it (Escape, a new mask). */
static void
cancel_drag (SpxMaskEditor *self)
{
  gboolean band = self->drag == DRAG_RECT;
  if (self->drag == DRAG_PAINT && self->stroke != NULL)
    end_stroke (self); /* blocks already changed: keep them undoable */
  g_clear_pointer (&self->stroke, g_array_unref);
  self->drag = DRAG_NONE;
  self->have_last_block = FALSE;
  if (band)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
paint_at (SpxMaskEditor *self, double x, double y)
{
  guint64 br, bc;
  if (!block_at (self, x, y, &br, &bc))
    return;
  if (self->have_last_block && br == self->last_br && bc == self->last_bc)
    return;
  self->have_last_block = TRUE;
  self->last_br = br;
  self->last_bc = bc;
  if (change_block (self, spx_mask_index (self->mask, br, bc),
                    self->drag_value))
    repaint (self);
}

/* Every block the segment crosses: samples at most half a pixel and a
 * quarter of a block apart. */
static void
paint_segment (SpxMaskEditor *self, double x0, double y0, double x1,
               double y1)
{
  if (!ensure_geometry (self))
    return;
  double len = hypot (x1 - x0, y1 - y0);
  double step = MIN (0.5, self->geom.s * self->mask->block / 4);
  guint n = (guint) MIN (ceil (len / MAX (step, 1e-6)), MAX_SAMPLES);
  for (guint i = 1; i <= n; i++)
    {
      double t = (double) i / n;
      paint_at (self, x0 + t * (x1 - x0), y0 + t * (y1 - y0));
    }
  if (n == 0)
    paint_at (self, x1, y1);
}

/* Its undo step may list every block of the rectangle. */
static gboolean
rectangle_fits (SpxMaskEditor *self)
{
  guint64 rows = MAX (self->anchor_br, self->cur_br) -
                 MIN (self->anchor_br, self->cur_br) + 1;
  guint64 cols = MAX (self->anchor_bc, self->cur_bc) -
                 MIN (self->anchor_bc, self->cur_bc) + 1;
  g_autofree char *what = g_strdup_printf (
    "Filling a rectangle of %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
    " blocks", rows, cols);
  GError *error = NULL;
  /* both sides are below 2^32: the product fits */
  if (spx_budget_check_held (rows * cols * sizeof (Change),
                             spx_mask_held_bytes (), what, &error))
    return TRUE;
  return refuse (self, error);
}

static void
apply_rectangle (SpxMaskEditor *self)
{
  SpxMask *m = self->mask;
  guint64 r0 = MIN (self->anchor_br, self->cur_br);
  guint64 r1 = MAX (self->anchor_br, self->cur_br);
  guint64 c0 = MIN (self->anchor_bc, self->cur_bc);
  guint64 c1 = MAX (self->anchor_bc, self->cur_bc);
  gboolean changed = FALSE;
  for (guint64 r = r0; r <= r1; r++)
    for (guint64 c = c0; c <= c1; c++)
      changed |= change_block (self, spx_mask_index (m, r, c),
                               self->drag_value);
  if (changed)
    repaint (self);
}

static void
clear_history (SpxMaskEditor *self)
{
  gboolean had = self->history->len > 0;
  g_ptr_array_set_size (self->history, 0);
  self->history_pos = 0;
  if (had)
    g_signal_emit (self, signals[SIGNAL_HISTORY_CHANGED], 0);
}

/* ------------------------------------------------------------------ */
/* Zoom and pan                                                        */

/* Keep the visible region inside the mask and at least a block wide. */
static void
clamp_axis (double *v0, double *v1, double full)
{
  double span = CLAMP (*v1 - *v0, MIN (1.0, full), full);
  double start = CLAMP (*v0, 0, full - span);
  *v0 = start;
  *v1 = start + span;
}

static void
set_region (SpxMaskEditor *self, double x0, double y0, double x1, double y1)
{
  clamp_axis (&x0, &x1, (double) self->mask->bcols);
  clamp_axis (&y0, &y1, (double) self->mask->brows);
  if (x0 == self->vx0 && x1 == self->vx1 && y0 == self->vy0 &&
      y1 == self->vy1)
    return;
  self->vx0 = x0;
  self->vx1 = x1;
  self->vy0 = y0;
  self->vy1 = y1;
  relayout (self);
}

static void
pan (SpxMaskEditor *self, double dx, double dy) /* in blocks */
{
  if (self->mask == NULL)
    return;
  set_region (self, self->vx0 + dx, self->vy0 + dy, self->vx1 + dx,
              self->vy1 + dy);
}

/* Pan by a fraction of the visible span. */
static void
pan_by_span (SpxMaskEditor *self, double fx, double fy)
{
  pan (self, fx * (self->vx1 - self->vx0), fy * (self->vy1 - self->vy0));
}

static void
zoom_about_centre (SpxMaskEditor *self, double factor)
{
  double cx = gtk_widget_get_allocated_width (GTK_WIDGET (self)) / 2.0;
  double cy = gtk_widget_get_allocated_height (GTK_WIDGET (self)) / 2.0;
  if (ensure_geometry (self))
    {
      cx = self->geom.px + self->geom.pw / 2;
      cy = self->geom.py + self->geom.ph / 2;
    }
  spx_mask_editor_zoom (self, factor, cx, cy);
}

/* ------------------------------------------------------------------ */
/* The block cursor: the keyboard's way to draw                        */

/* Inside the grid (a new or swapped mask may be smaller). */
static void
key_clamp (SpxMaskEditor *self)
{
  const SpxMask *m = self->mask;
  self->key_br = MIN (self->key_br, m->brows - 1);
  self->key_bc = MIN (self->key_bc, m->bcols - 1);
  self->key_corner_br = MIN (self->key_corner_br, m->brows - 1);
  self->key_corner_bc = MIN (self->key_corner_bc, m->bcols - 1);
}

/* The view pans the least that shows the cursor's block. */
static void
key_follow (SpxMaskEditor *self)
{
  double r = (double) self->key_br, c = (double) self->key_bc;
  double dx = c < self->vx0 ? c - self->vx0
              : c + 1 > self->vx1 ? c + 1 - self->vx1 : 0;
  double dy = r < self->vy0 ? r - self->vy0
              : r + 1 > self->vy1 ? r + 1 - self->vy1 : 0;
  if (dx != 0 || dy != 0)
    pan (self, dx, dy);
}

static guint64
step_within (guint64 v, int by, guint64 n)
{
  if (by < 0)
    return v > 0 ? v - 1 : 0;
  return by > 0 && v + 1 < n ? v + 1 : v;
}

/* An arrow: the first shows the cursor (at the view's centre when it was
 * out of sight), the next move it; with Shift the rectangle grows from
 * where Shift began. */
static void
key_move (SpxMaskEditor *self, int dr, int dc, gboolean stretch)
{
  const SpxMask *m = self->mask;
  key_clamp (self);
  gboolean seen = self->key_bc >= floor (self->vx0) &&
                  self->key_bc < ceil (self->vx1) &&
                  self->key_br >= floor (self->vy0) &&
                  self->key_br < ceil (self->vy1);
  if (!self->key_shown || !seen)
    {
      self->key_bc = MIN ((guint64) ((self->vx0 + self->vx1) / 2),
                          m->bcols - 1);
      self->key_br = MIN ((guint64) ((self->vy0 + self->vy1) / 2),
                          m->brows - 1);
      self->key_rect = FALSE;
      dr = dc = 0;
    }
  if (stretch && !self->key_rect)
    {
      self->key_corner_br = self->key_br;
      self->key_corner_bc = self->key_bc;
    }
  self->key_rect = stretch;
  self->key_shown = TRUE;
  self->key_br = step_within (self->key_br, dr, m->brows);
  self->key_bc = step_within (self->key_bc, dc, m->bcols);
  key_follow (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Space: the cursor's block toggled, or the rectangle filled (when the
 * cursor's block is clear) or cleared, as a mouse stroke would: one
 * undo step. */
static void
key_toggle (SpxMaskEditor *self)
{
  if (self->drag != DRAG_NONE)
    return;
  key_clamp (self);
  self->key_shown = TRUE;
  self->cur_br = self->key_br;
  self->cur_bc = self->key_bc;
  self->anchor_br = self->key_rect ? self->key_corner_br : self->key_br;
  self->anchor_bc = self->key_rect ? self->key_corner_bc : self->key_bc;
  self->drag_value = !spx_mask_get (self->mask, self->key_br, self->key_bc);
  if (rectangle_fits (self) && begin_stroke (self))
    apply_rectangle (self);
  end_stroke (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
draw_key_cursor (SpxMaskEditor *self, cairo_t *cr)
{
  double x, y, w, h;
  if (!self->key_shown || self->mask == NULL ||
      !gtk_widget_is_focus (GTK_WIDGET (self)) || !ensure_geometry (self))
    return;
  key_clamp (self);
  guint64 r0 = self->key_br, c0 = self->key_bc;
  guint64 r1 = r0, c1 = c0;
  if (self->key_rect)
    {
      r0 = MIN (r0, self->key_corner_br);
      r1 = MAX (r1, self->key_corner_br);
      c0 = MIN (c0, self->key_corner_bc);
      c1 = MAX (c1, self->key_corner_bc);
    }
  cairo_save (cr);
  if (self->key_rect && blocks_rect (self, r0, c0, r1, c1, &x, &y, &w, &h))
    {
      cairo_rectangle (cr, x, y, w, h);
      spx_render_set_rgba (cr, self->style.highlight, 0.2);
      cairo_fill (cr);
    }
  if (blocks_rect (self, self->key_br, self->key_bc, self->key_br,
                   self->key_bc, &x, &y, &w, &h))
    {
      /* at least a few pixels: a block may be smaller than one */
      double grow = MAX (0, 6 - MIN (w, h)) / 2;
      cairo_rectangle (cr, x - grow, y - grow, w + 2 * grow, h + 2 * grow);
      spx_render_set_rgb (cr, self->style.highlight);
      cairo_set_line_width (cr, 2);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

/* ------------------------------------------------------------------ */
/* Drawing                                                             */

static gboolean
spx_mask_editor_draw (GtkWidget *widget, cairo_t *cr)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  int width = gtk_widget_get_allocated_width (widget);
  int height = gtk_widget_get_allocated_height (widget);
  if (width <= 0 || height <= 0)
    return FALSE;

  SpxRenderMaskData d;
  fill_data (self, &d);
  if (!spx_widget_picture_fits (widget, self->picture, width, height))
    {
      g_clear_pointer (&self->picture, cairo_surface_destroy);
      self->picture = spx_widget_render_picture (widget, width, height,
                                                 spx_render_mask, &d,
                                                 &self->style);
    }
  if (self->picture != NULL)
    {
      cairo_set_source_surface (cr, self->picture, 0, 0);
      cairo_paint (cr);
    }
  else
    spx_render_mask (cr, width, height, &d, &self->style);

  double x, y, w, h;
  if (self->drag == DRAG_RECT && ensure_geometry (self) &&
      blocks_rect (self, MIN (self->anchor_br, self->cur_br),
                   MIN (self->anchor_bc, self->cur_bc),
                   MAX (self->anchor_br, self->cur_br),
                   MAX (self->anchor_bc, self->cur_bc), &x, &y, &w, &h))
    {
      SpxRgb c = self->drag_value ? self->style.highlight : self->style.alert;
      cairo_save (cr);
      cairo_rectangle (cr, x, y, w, h);
      spx_render_set_rgba (cr, c, 0.25);
      cairo_fill_preserve (cr);
      spx_render_set_rgb (cr, c);
      cairo_set_line_width (cr, 1.5);
      double dashes[] = { 4, 3 };
      cairo_set_dash (cr, dashes, G_N_ELEMENTS (dashes), 0);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  draw_key_cursor (self, cr);
  return FALSE;
}

/* ------------------------------------------------------------------ */
/* Events                                                              */

static gboolean
spx_mask_editor_button_press (GtkWidget *widget, GdkEventButton *event)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  if (event->type != GDK_BUTTON_PRESS)
    return FALSE; /* double and triple clicks: the presses did it */
  if (!gtk_widget_has_focus (widget))
    gtk_widget_grab_focus (widget);
  if (self->drag != DRAG_NONE)
    return TRUE; /* a second button during a drag */

  if (event->button == GDK_BUTTON_MIDDLE)
    {
      self->drag = DRAG_PAN;
      self->drag_button = event->button;
      self->last_x = event->x;
      self->last_y = event->y;
      return TRUE;
    }
  if (self->mask == NULL ||
      (event->button != GDK_BUTTON_PRIMARY &&
       event->button != GDK_BUTTON_SECONDARY))
    return FALSE;

  guint64 br = 0, bc = 0;
  gboolean inside = block_at (self, event->x, event->y, &br, &bc);
  gboolean ctrl = (event->state & GDK_CONTROL_MASK) != 0;
  if (ctrl || self->tool == SPX_EDIT_SELECT)
    {
      if (event->button == GDK_BUTTON_PRIMARY && inside)
        g_signal_emit (self, signals[SIGNAL_BLOCK_ACTIVATED], 0, br, bc);
      return TRUE;
    }

  gboolean secondary = event->button == GDK_BUTTON_SECONDARY;
  self->drag_button = event->button;
  self->last_x = event->x;
  self->last_y = event->y;
  switch (self->tool)
    {
    case SPX_EDIT_DRAW:
    case SPX_EDIT_ERASE:
      self->drag = DRAG_PAINT;
      self->drag_value = (self->tool == SPX_EDIT_DRAW) != secondary;
      self->have_last_block = FALSE;
      if (!begin_stroke (self))
        {
          self->drag = DRAG_NONE;
          break;
        }
      paint_at (self, event->x, event->y);
      break;
    case SPX_EDIT_RECTANGLE_DRAW:
    case SPX_EDIT_RECTANGLE_ERASE:
      if (!inside)
        return TRUE;
      self->drag = DRAG_RECT;
      self->drag_value = (self->tool == SPX_EDIT_RECTANGLE_DRAW) != secondary;
      self->anchor_br = self->cur_br = br;
      self->anchor_bc = self->cur_bc = bc;
      gtk_widget_queue_draw (widget);
      break;
    case SPX_EDIT_SELECT:
    default:
      break;
    }
  return TRUE;
}

static gboolean
spx_mask_editor_motion_notify (GtkWidget *widget, GdkEventMotion *event)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  double x = event->x, y = event->y;
  switch (self->drag)
    {
    case DRAG_PAN:
      if (ensure_geometry (self))
        {
          double k = self->geom.s * self->mask->block; /* px per block */
          pan (self, (self->last_x - x) / k, (self->last_y - y) / k);
        }
      break;
    case DRAG_PAINT:
      paint_segment (self, self->last_x, self->last_y, x, y);
      break;
    case DRAG_RECT:
      {
        guint64 br, bc;
        if (block_at_full (self, x, y, TRUE, &br, &bc) &&
            (br != self->cur_br || bc != self->cur_bc))
          {
            self->cur_br = br;
            self->cur_bc = bc;
            gtk_widget_queue_draw (widget);
          }
      }
      break;
    case DRAG_NONE:
    default:
      return FALSE;
    }
  self->last_x = x;
  self->last_y = y;
  return TRUE;
}

static gboolean
spx_mask_editor_button_release (GtkWidget *widget, GdkEventButton *event)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  if (self->drag == DRAG_NONE || event->button != self->drag_button)
    return FALSE;
  switch (self->drag)
    {
    case DRAG_PAINT:
      paint_segment (self, self->last_x, self->last_y, event->x, event->y);
      end_stroke (self);
      break;
    case DRAG_RECT:
      {
        guint64 br, bc;
        if (block_at_full (self, event->x, event->y, TRUE, &br, &bc))
          {
            self->cur_br = br;
            self->cur_bc = bc;
          }
        if (rectangle_fits (self) && begin_stroke (self))
          apply_rectangle (self);
        end_stroke (self);
        gtk_widget_queue_draw (widget); /* the band goes */
      }
      break;
    case DRAG_PAN:
    case DRAG_NONE:
    default:
      self->drag = DRAG_NONE;
      break;
    }
  return TRUE;
}

static gboolean
spx_mask_editor_grab_broken (GtkWidget *widget, GdkEventGrabBroken *event)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  if (self->drag == DRAG_PAINT)
    end_stroke (self);
  else
    cancel_drag (self);
  return FALSE;
}

static gboolean
spx_mask_editor_scroll (GtkWidget *widget, GdkEventScroll *event)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  if (self->mask == NULL)
    return FALSE;
  double dx, dy;
  if (!spx_widget_scroll_steps (event, &dx, &dy))
    return FALSE;
  GdkModifierType mods = event->state & gtk_accelerator_get_default_mod_mask ();
  if (mods & GDK_CONTROL_MASK)
    {
      double clicks = dy != 0 ? dy : dx;
      if (clicks != 0)
        spx_mask_editor_zoom (self, pow (ZOOM_STEP, -clicks), event->x,
                              event->y);
    }
  else if (mods & GDK_SHIFT_MASK)
    pan_by_span (self, (dx != 0 ? dx : dy) * PAN_STEP, 0);
  else
    pan_by_span (self, dx * PAN_STEP, dy * PAN_STEP);
  return TRUE;
}

static gboolean
spx_mask_editor_key_press (GtkWidget *widget, GdkEventKey *event)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  GdkModifierType mods = event->state & gtk_accelerator_get_default_mod_mask ();
  if (mods & (GDK_CONTROL_MASK | GDK_MOD1_MASK))
    return GTK_WIDGET_CLASS (spx_mask_editor_parent_class)->key_press_event
             (widget, event);
  switch (event->keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      if (self->mask == NULL)
        return FALSE;
      zoom_about_centre (self, KEY_ZOOM_STEP);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      if (self->mask == NULL)
        return FALSE;
      zoom_about_centre (self, 1 / KEY_ZOOM_STEP);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      if (self->mask == NULL)
        return FALSE;
      spx_mask_editor_zoom_reset (self);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_Right:
    case GDK_KEY_Up:
    case GDK_KEY_Down:
      if (self->mask == NULL)
        return FALSE;
      key_move (self, (event->keyval == GDK_KEY_Down) -
                        (event->keyval == GDK_KEY_Up),
                (event->keyval == GDK_KEY_Right) -
                  (event->keyval == GDK_KEY_Left),
                (mods & GDK_SHIFT_MASK) != 0);
      return TRUE;
    case GDK_KEY_space:
      if (self->mask == NULL)
        return FALSE;
      key_toggle (self);
      return TRUE;
    case GDK_KEY_Escape:
      if (self->drag == DRAG_RECT)
        {
          cancel_drag (self);
          return TRUE;
        }
      break;
    default:
      break;
    }
  return GTK_WIDGET_CLASS (spx_mask_editor_parent_class)->key_press_event
           (widget, event);
}

static gboolean
spx_mask_editor_query_tooltip (GtkWidget *widget, int x, int y,
                               gboolean keyboard_mode, GtkTooltip *tooltip)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  guint64 br, bc;
  if (keyboard_mode || !block_at (self, x, y, &br, &bc))
    return FALSE;
  const SpxMask *m = self->mask;
  guint64 r0 = br * m->block, c0 = bc * m->block;
  guint64 r1 = r0 + spx_mask_block_height (m, br) - 1;
  guint64 c1 = c0 + spx_mask_block_width (m, bc) - 1;
  g_autofree char *text = g_strdup_printf (
    "Block row %" G_GUINT64_FORMAT ", column %" G_GUINT64_FORMAT " (%s)\n"
    "Elements: rows %" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT
    ", columns %" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT "\n"
    "Block row %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " of %"
    G_GUINT64_FORMAT " blocks non-zero",
    br, bc, spx_mask_get (m, br, bc) ? "non-zero" : "zero",
    r0, r1, c0, c1, br, spx_mask_count_row (m, br), m->bcols);
  gtk_tooltip_set_text (tooltip, text);
  double rx, ry, rw, rh;
  if (blocks_rect (self, br, bc, br, bc, &rx, &ry, &rw, &rh))
    {
      GdkRectangle area = {
        (int) floor (rx), (int) floor (ry),
        (int) (ceil (rx + rw) - floor (rx)),
        (int) (ceil (ry + rh) - floor (ry)),
      };
      gtk_tooltip_set_tip_area (tooltip, &area);
    }
  return TRUE;
}

static void
spx_mask_editor_get_preferred_width (GtkWidget *widget, int *minimum,
                                     int *natural)
{
  *minimum = MIN_WIDTH;
  *natural = NATURAL_WIDTH;
}

static void
spx_mask_editor_get_preferred_height (GtkWidget *widget, int *minimum,
                                      int *natural)
{
  *minimum = MIN_HEIGHT;
  *natural = NATURAL_HEIGHT;
}

static void
spx_mask_editor_unrealize (GtkWidget *widget)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (widget);
  if (self->drag == DRAG_PAINT)
    end_stroke (self);
  else
    cancel_drag (self);
  g_clear_pointer (&self->picture, cairo_surface_destroy);
  GTK_WIDGET_CLASS (spx_mask_editor_parent_class)->unrealize (widget);
}

/* ------------------------------------------------------------------ */
/* Object                                                              */

static void
spx_mask_editor_dispose (GObject *object)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (object);
  g_clear_pointer (&self->picture, cairo_surface_destroy);
  g_clear_pointer (&self->stroke, g_array_unref);
  self->drag = DRAG_NONE;
  if (self->history != NULL)
    g_ptr_array_set_size (self->history, 0);
  self->history_pos = 0;
  self->program = NULL;
  G_OBJECT_CLASS (spx_mask_editor_parent_class)->dispose (object);
}

static void
spx_mask_editor_finalize (GObject *object)
{
  SpxMaskEditor *self = SPX_MASK_EDITOR (object);
  g_clear_pointer (&self->mask, spx_mask_free);
  g_clear_pointer (&self->history, g_ptr_array_unref);
  G_OBJECT_CLASS (spx_mask_editor_parent_class)->finalize (object);
}

static void
spx_mask_editor_class_init (SpxMaskEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = spx_mask_editor_dispose;
  object_class->finalize = spx_mask_editor_finalize;
  widget_class->draw = spx_mask_editor_draw;
  widget_class->button_press_event = spx_mask_editor_button_press;
  widget_class->button_release_event = spx_mask_editor_button_release;
  widget_class->motion_notify_event = spx_mask_editor_motion_notify;
  widget_class->grab_broken_event = spx_mask_editor_grab_broken;
  widget_class->scroll_event = spx_mask_editor_scroll;
  widget_class->key_press_event = spx_mask_editor_key_press;
  widget_class->query_tooltip = spx_mask_editor_query_tooltip;
  widget_class->get_preferred_width = spx_mask_editor_get_preferred_width;
  widget_class->get_preferred_height = spx_mask_editor_get_preferred_height;
  widget_class->unrealize = spx_mask_editor_unrealize;

  signals[SIGNAL_MASK_EDITED] =
    g_signal_new ("mask-edited", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_HISTORY_CHANGED] =
    g_signal_new ("history-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_MASK_REPLACED] =
    g_signal_new ("mask-replaced", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                  G_TYPE_POINTER);
  signals[SIGNAL_EDIT_REFUSED] =
    g_signal_new ("edit-refused", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                  G_TYPE_ERROR);
  signals[SIGNAL_BLOCK_ACTIVATED] =
    g_signal_new ("block-activated", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_UINT64, G_TYPE_UINT64);
}

static void
spx_mask_editor_init (SpxMaskEditor *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  self->selected_tile = -1;
  self->tool = SPX_EDIT_DRAW;
  self->history = g_ptr_array_new_with_free_func (step_free);
  spx_render_style_init (&self->style, SPX_THEME_LIGHT);
  gtk_widget_set_can_focus (widget, TRUE);
  gtk_widget_set_has_tooltip (widget, TRUE);
  gtk_widget_add_events (widget, GDK_BUTTON_PRESS_MASK |
                                 GDK_BUTTON_RELEASE_MASK |
                                 GDK_POINTER_MOTION_MASK |
                                 GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK |
                                 GDK_KEY_PRESS_MASK);
}

GtkWidget *
spx_mask_editor_new (void)
{
  return g_object_new (SPX_TYPE_MASK_EDITOR, NULL);
}

void
spx_mask_editor_set_mask (SpxMaskEditor *e, SpxMask *mask)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  cancel_drag (e);
  clear_history (e);
  SpxMask *old = e->mask;
  e->mask = mask;
  spx_mask_free (old); /* the same mask again came with a reference too */
  e->vx0 = e->vy0 = 0;
  e->vx1 = mask != NULL ? (double) mask->bcols : 0;
  e->vy1 = mask != NULL ? (double) mask->brows : 0;
  relayout (e);
}

SpxMask *
spx_mask_editor_get_mask (SpxMaskEditor *e)
{
  g_return_val_if_fail (SPX_IS_MASK_EDITOR (e), NULL);
  return e->mask;
}

void
spx_mask_editor_set_tool (SpxMaskEditor *e, SpxEditTool tool)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  g_return_if_fail (tool <= SPX_EDIT_SELECT);
  if (e->drag == DRAG_RECT)
    cancel_drag (e);
  e->tool = tool;
}

void
spx_mask_editor_set_program (SpxMaskEditor *e, const SpxIpuProgram *p)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  e->program = p;
  relayout (e);
}

void
spx_mask_editor_set_selected_tile (SpxMaskEditor *e, gint tile)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  tile = MAX (tile, -1);
  if (tile == e->selected_tile)
    return;
  e->selected_tile = tile;
  relayout (e);
}

void
spx_mask_editor_set_colour_by_tile (SpxMaskEditor *e, gboolean on)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  on = !!on;
  if (on == e->colour_by_tile)
    return;
  e->colour_by_tile = on;
  relayout (e);
}

void
spx_mask_editor_set_theme (SpxMaskEditor *e, SpxTheme theme)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  if (theme == e->style.theme)
    return;
  spx_render_style_init (&e->style, theme);
  repaint (e);
}

gboolean
spx_mask_editor_can_undo (SpxMaskEditor *e)
{
  g_return_val_if_fail (SPX_IS_MASK_EDITOR (e), FALSE);
  return e->history_pos > 0;
}

gboolean
spx_mask_editor_can_redo (SpxMaskEditor *e)
{
  g_return_val_if_fail (SPX_IS_MASK_EDITOR (e), FALSE);
  return e->history_pos < e->history->len;
}

/* A swap step puts its other mask in place; the view starts whole when
 * the grid changed. */
static void
swap_masks (SpxMaskEditor *e, Step *step)
{
  SpxMask *shown = e->mask;
  gboolean same_grid = step->other->brows == shown->brows &&
                       step->other->bcols == shown->bcols;
  e->mask = step->other;
  step->other = shown;
  if (!same_grid)
    {
      e->vx0 = e->vy0 = 0;
      e->vx1 = (double) e->mask->bcols;
      e->vy1 = (double) e->mask->brows;
    }
  relayout (e);
}

static gboolean
apply_changes (SpxMaskEditor *e, const GArray *changes, gboolean undo)
{
  if (!own_mask (e))
    return FALSE;
  for (guint n = 0; n < changes->len; n++)
    {
      guint i = undo ? changes->len - 1 - n : n;
      const Change *c = &g_array_index (changes, Change, i);
      write_bit (e->mask, c->index, undo ? c->old : !c->old);
    }
  repaint (e);
  g_signal_emit (e, signals[SIGNAL_MASK_EDITED], 0);
  return TRUE;
}

/* FALSE when the mask could not be changed (the step stays where it
 * is). */
static gboolean
apply_step (SpxMaskEditor *e, Step *step, gboolean undo)
{
  if (step->changes != NULL && !apply_changes (e, step->changes, undo))
    return FALSE;
  if (step->changes == NULL)
    {
      swap_masks (e, step);
      g_signal_emit (e, signals[SIGNAL_MASK_REPLACED], 0,
                     undo ? step->before : step->after);
    }
  g_signal_emit (e, signals[SIGNAL_HISTORY_CHANGED], 0);
  return TRUE;
}

void
spx_mask_editor_undo (SpxMaskEditor *e)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  cancel_drag (e); /* a running stroke becomes the step undone */
  if (e->history_pos == 0 || e->mask == NULL)
    return;
  e->history_pos--;
  if (!apply_step (e, g_ptr_array_index (e->history, e->history_pos), TRUE))
    e->history_pos++;
}

void
spx_mask_editor_redo (SpxMaskEditor *e)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  cancel_drag (e);
  if (e->history_pos >= e->history->len || e->mask == NULL)
    return;
  e->history_pos++;
  if (!apply_step (e, g_ptr_array_index (e->history, e->history_pos - 1),
                   FALSE))
    e->history_pos--;
}

void
spx_mask_editor_replace_mask (SpxMaskEditor *e, SpxMask *mask,
                              gpointer before, gpointer after,
                              GDestroyNotify destroy)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e) && mask != NULL);
  if (e->mask == NULL)
    {
      if (destroy != NULL)
        {
          destroy (before);
          destroy (after);
        }
      spx_mask_editor_set_mask (e, mask);
      return;
    }
  cancel_drag (e);
  Step *step = g_new0 (Step, 1);
  *step = (Step) { NULL, mask, before, after, destroy };
  push_step (e, step);
  swap_masks (e, step);
  g_signal_emit (e, signals[SIGNAL_HISTORY_CHANGED], 0);
}

void
spx_mask_editor_zoom (SpxMaskEditor *e, double factor, double cx, double cy)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  if (e->mask == NULL || !(factor > 0) || !isfinite (factor))
    return;
  /* The block coordinates under (cx, cy) stay under it. */
  double bx = (e->vx0 + e->vx1) / 2, by = (e->vy0 + e->vy1) / 2;
  if (ensure_geometry (e))
    {
      const Geometry *g = &e->geom;
      bx = CLAMP ((g->ex0 + (cx - g->px) / g->s) / e->mask->block,
                  e->vx0, e->vx1);
      by = CLAMP ((g->ey0 + (cy - g->py) / g->s) / e->mask->block,
                  e->vy0, e->vy1);
    }
  double fullx = (double) e->mask->bcols, fully = (double) e->mask->brows;
  double w = CLAMP ((e->vx1 - e->vx0) / factor, MIN (1.0, fullx), fullx);
  double h = CLAMP ((e->vy1 - e->vy0) / factor, MIN (1.0, fully), fully);
  double x0 = bx - (bx - e->vx0) * w / (e->vx1 - e->vx0);
  double y0 = by - (by - e->vy0) * h / (e->vy1 - e->vy0);
  set_region (e, x0, y0, x0 + w, y0 + h);
}

void
spx_mask_editor_zoom_reset (SpxMaskEditor *e)
{
  g_return_if_fail (SPX_IS_MASK_EDITOR (e));
  if (e->mask == NULL)
    return;
  set_region (e, 0, 0, (double) e->mask->bcols, (double) e->mask->brows);
}

gboolean
spx_mask_editor_block_at (SpxMaskEditor *e, double x, double y, guint64 *br,
                          guint64 *bc)
{
  g_return_val_if_fail (SPX_IS_MASK_EDITOR (e), FALSE);
  return e->mask != NULL && block_at (e, x, y, br, bc);
}
