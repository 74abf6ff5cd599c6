/* spx-render-mask-owners.c: colour by tile: which tile holds each
 * block of the spy plot, and each tile's colour. */
#include "spx-render-mask-private.h"
#include "spx-util.h"

#include <stdlib.h>

static int
owner_cmp (gconstpointer a, gconstpointer b)
{
  const Owner *x = a, *y = b;
  if (x->flat != y->flat)
    return x->flat < y->flat ? -1 : 1;
  return x->tile < y->tile ? -1 : x->tile > y->tile;
}

/* Every listed block once, with the lowest tile that lists it; FALSE when
 * the budget refuses the list. */
static gboolean
list_owners (TileColours *tc, const SpxIpuProgram *p, guint64 n_blocks)
{
  guint64 n = 0;
  for (guint t = 0; t < p->n_tiles; t++)
    n += p->tiles[t].blocks != NULL ? p->tiles[t].blocks->len : 0;
  tc->owners = spx_budget_alloc0 (n, sizeof (Owner), "the tile colours",
                                  NULL);
  if (tc->owners == NULL)
    return FALSE;
  for (guint t = 0; t < p->n_tiles; t++)
    for (guint i = 0; p->tiles[t].blocks != NULL &&
                      i < p->tiles[t].blocks->len; i++)
      {
        guint64 flat = g_array_index (p->tiles[t].blocks, guint64, i);
        if (flat < n_blocks)
          tc->owners[tc->n_owners++] = (Owner) { flat, t };
      }
  qsort (tc->owners, tc->n_owners, sizeof (Owner), owner_cmp);
  gsize kept = 0;
  for (gsize i = 0; i < tc->n_owners; i++)
    if (kept == 0 || tc->owners[kept - 1].flat != tc->owners[i].flat)
      tc->owners[kept++] = tc->owners[i];
  tc->n_owners = kept;
  return TRUE;
}

gboolean
_spx_mask_tile_colours_init (TileColours *tc, const SpxIpuProgram *p,
                             guint64 n_blocks, const SpxRenderStyle *style)
{
  if (!list_owners (tc, p, n_blocks))
    return FALSE;
  tc->colour = g_new (SpxRgb, p->n_tiles);
  tc->used = g_new (guint, p->n_tiles);
  tc->n_used = 0;
  g_autofree guint8 *holds = g_new0 (guint8, p->n_tiles);
  for (gsize i = 0; i < tc->n_owners; i++)
    holds[tc->owners[i].tile] = 1;
  for (guint t = 0; t < p->n_tiles; t++)
    if (holds[t])
      tc->used[tc->n_used++] = t;
  for (guint t = 0; t < p->n_tiles; t++)
    tc->colour[t] = style->ink;
  if (tc->n_used <= SPX_N_TILE_COLOURS)
    for (guint i = 0; i < tc->n_used; i++)
      tc->colour[tc->used[i]] = style->tiles[i];
  else
    {
      double first = tc->used[0], span = tc->used[tc->n_used - 1] - first;
      for (guint t = 0; t < p->n_tiles; t++)
        tc->colour[t] = spx_render_tile_ramp (style, (t - first) / span);
    }
  return TRUE;
}

void
_spx_mask_tile_colours_clear (TileColours *tc)
{
  g_free (tc->owners);
  g_free (tc->colour);
  g_free (tc->used);
}

guint32
_spx_mask_owner_of (const TileColours *tc, guint64 flat)
{
  Owner key = { flat, 0 };
  gsize lo = 0, hi = tc->n_owners;
  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (owner_cmp (&tc->owners[mid], &key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < tc->n_owners && tc->owners[lo].flat == flat
           ? tc->owners[lo].tile : G_MAXUINT32;
}
