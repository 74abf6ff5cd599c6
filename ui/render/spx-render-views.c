/* spx-render-views.c: the table of views, made from the list in
 * spx-render-views.h; each view's row lives in its renderer's file. */
#include "spx-render-views.h"
#include "spx-util.h"

#include <string.h>

const SpxIpuProgram *
spx_render_view_shown_program (const SpxRenderViewState *st)
{
  return st->programs[st->mode];
}

const SpxRenderView *const spx_render_views[SPX_RENDER_N_VIEWS] = {
#define ROW(ID, name) [SPX_RENDER_VIEW_##ID] = &spx_render_view_##name,
  SPX_RENDER_VIEW_LIST (ROW)
#undef ROW
};

gint
spx_render_view_index (const char *name)
{
  for (guint i = 0; name != NULL && i < SPX_RENDER_N_VIEWS; i++)
    if (g_str_equal (name, spx_render_views[i]->name))
      return (gint) i;
  return -1;
}

const SpxRenderView *
spx_render_view_find (const char *name)
{
  gint i = spx_render_view_index (name);
  return i < 0 ? NULL : spx_render_views[i];
}

const char *const *
spx_render_view_names (void)
{
  static const char *names[SPX_RENDER_N_VIEWS + 1];
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
        names[i] = spx_render_views[i]->name;
      g_once_init_leave (&once, 1);
    }
  return names;
}

char *
spx_render_view_words (void)
{
  return spx_join_choices (spx_render_view_names (), -1);
}

/* Made afresh in a zeroed copy and compared byte for byte (the fills
 * set field by field, so padding stays zero; at worst a difference
 * there draws the same picture again). */
gboolean
spx_render_view_fill (const SpxRenderView *view,
                      const SpxRenderViewState *state, gpointer data)
{
  g_autofree gpointer made = g_malloc0 (view->data_size);
  view->fill (state, made);
  if (memcmp (made, data, view->data_size) == 0)
    return FALSE;
  memcpy (data, made, view->data_size);
  return TRUE;
}

gboolean
spx_render_view_hit (const SpxRenderView *view, double width, double height,
                     gconstpointer data, const SpxRenderStyle *style,
                     double x, double y, SpxRenderViewHit *hit)
{
  static const SpxRenderViewHit none = { .tile = -1, .lane = -1,
                                        .step = -1, .point = -1,
                                        .block_row = -1, .block_col = -1 };
  *hit = none;
  if (view->hit != NULL && view->hit (width, height, data, style, x, y, hit))
    return TRUE;
  *hit = none; /* a miss leaves nothing half set */
  return FALSE;
}

char *
spx_render_view_describe (const SpxRenderView *view, double width,
                          double height, gconstpointer data,
                          const SpxRenderStyle *style, double x, double y)
{
  return view->describe == NULL ? NULL
    : view->describe (width, height, data, style, x, y);
}
