/* spx-view.c: any renderer in a GtkDrawingArea. The picture is rendered
 * once into an image surface and painted from there until the size, the
 * device scale, the theme or the data change, so exposes and hover
 * redraws cost a paint. */
#include "spx-view.h"
#include "spx-widget-private.h"

#define MIN_WIDTH      320
#define MIN_HEIGHT     200
#define NATURAL_WIDTH  640
#define NATURAL_HEIGHT 400

struct _SpxView
{
  GtkDrawingArea   parent_instance;
  SpxRenderFunc    func;
  gconstpointer    data;
  SpxRenderStyle   style;
  cairo_surface_t *picture; /* the last drawing, or NULL */
};

G_DEFINE_FINAL_TYPE (SpxView, spx_view, GTK_TYPE_DRAWING_AREA)

static void
invalidate (SpxView *self)
{
  g_clear_pointer (&self->picture, cairo_surface_destroy);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
spx_view_draw (GtkWidget *widget, cairo_t *cr)
{
  SpxView *self = SPX_VIEW (widget);
  int width = gtk_widget_get_allocated_width (widget);
  int height = gtk_widget_get_allocated_height (widget);
  if (width <= 0 || height <= 0)
    return FALSE;

  if (!spx_widget_picture_fits (widget, self->picture, width, height))
    {
      g_clear_pointer (&self->picture, cairo_surface_destroy);
      self->picture = spx_widget_render_picture (widget, width, height,
                                                 self->func, self->data,
                                                 &self->style);
    }
  if (self->picture != NULL)
    {
      cairo_set_source_surface (cr, self->picture, 0, 0);
      cairo_paint (cr);
    }
  else if (self->func != NULL)
    self->func (cr, width, height, self->data, &self->style);
  else
    spx_render_clear (cr, &self->style, width, height);
  return FALSE;
}

static void
spx_view_get_preferred_width (GtkWidget *widget, int *minimum, int *natural)
{
  *minimum = MIN_WIDTH;
  *natural = NATURAL_WIDTH;
}

static void
spx_view_get_preferred_height (GtkWidget *widget, int *minimum, int *natural)
{
  *minimum = MIN_HEIGHT;
  *natural = NATURAL_HEIGHT;
}

static void
spx_view_unrealize (GtkWidget *widget)
{
  SpxView *self = SPX_VIEW (widget);
  g_clear_pointer (&self->picture, cairo_surface_destroy);
  GTK_WIDGET_CLASS (spx_view_parent_class)->unrealize (widget);
}

static void
spx_view_dispose (GObject *object)
{
  SpxView *self = SPX_VIEW (object);
  g_clear_pointer (&self->picture, cairo_surface_destroy);
  self->func = NULL;
  self->data = NULL;
  G_OBJECT_CLASS (spx_view_parent_class)->dispose (object);
}

static void
spx_view_class_init (SpxViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = spx_view_dispose;
  widget_class->draw = spx_view_draw;
  widget_class->get_preferred_width = spx_view_get_preferred_width;
  widget_class->get_preferred_height = spx_view_get_preferred_height;
  widget_class->unrealize = spx_view_unrealize;
}

static void
spx_view_init (SpxView *self)
{
  spx_render_style_init (&self->style, SPX_THEME_LIGHT);
}

GtkWidget *
spx_view_new (void)
{
  return g_object_new (SPX_TYPE_VIEW, NULL);
}

void
spx_view_set_renderer (SpxView *view, SpxRenderFunc func, gconstpointer data)
{
  g_return_if_fail (SPX_IS_VIEW (view));
  view->func = func;
  view->data = data;
  invalidate (view);
}

void
spx_view_changed (SpxView *view)
{
  g_return_if_fail (SPX_IS_VIEW (view));
  invalidate (view);
}

void
spx_view_set_theme (SpxView *view, SpxTheme theme)
{
  g_return_if_fail (SPX_IS_VIEW (view));
  if (theme == view->style.theme)
    return;
  spx_render_style_init (&view->style, theme);
  invalidate (view);
}

SpxTheme
spx_view_get_theme (SpxView *view)
{
  g_return_val_if_fail (SPX_IS_VIEW (view), SPX_THEME_LIGHT);
  return view->style.theme;
}

const SpxRenderStyle *
spx_view_get_style (SpxView *view)
{
  g_return_val_if_fail (SPX_IS_VIEW (view), NULL);
  return &view->style;
}
