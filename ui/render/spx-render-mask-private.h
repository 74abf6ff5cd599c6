/* spx-render-mask-private.h: what the spy plot's files share: which
 * tile holds each block, and its colour (spx-render-mask-owners.c). */
#pragma once

#include "spx-render-mask.h"

G_BEGIN_DECLS

/* Colour by tile: each tile that holds a block (is the first to list it)
 * gets one of the style's distinct colours when they suffice, else its
 * place on a ramp from the first such tile to the last. */
typedef struct {
  guint64 flat;  /* a listed block */
  guint32 tile;  /* the first tile listing it */
} Owner;

/* The owners are kept as a sorted list of the blocks the plan lists, not
 * as a value per block: a mask of 92681² blocks with three set would
 * need 32 GiB for the latter. */
typedef struct {
  Owner   *owners;   /* by flat index, each block once */
  gsize    n_owners;
  SpxRgb  *colour;   /* per tile */
  guint   *used;     /* the tiles holding blocks, ascending */
  guint    n_used;
} TileColours;

/* The owners of p's blocks (of n_blocks) and the tiles' colours; FALSE
 * when the budget refuses the list. Free with
 * _spx_mask_tile_colours_clear. */
gboolean _spx_mask_tile_colours_init  (TileColours *tc,
                                       const SpxIpuProgram *p,
                                       guint64 n_blocks,
                                       const SpxRenderStyle *style);
void     _spx_mask_tile_colours_clear (TileColours *tc);
/* The tile of block flat, or G_MAXUINT32 for none. */
guint32  _spx_mask_owner_of           (const TileColours *tc, guint64 flat);

/* The same for blocks asked for in increasing order: *next moves on. */
static inline guint32
_spx_mask_owner_from (const TileColours *tc, gsize *next, guint64 flat)
{
  while (*next < tc->n_owners && tc->owners[*next].flat < flat)
    (*next)++;
  return *next < tc->n_owners && tc->owners[*next].flat == flat
           ? tc->owners[*next].tile : G_MAXUINT32;
}

/* Tile t's colour; the ink for none. */
static inline SpxRgb
_spx_mask_tile_colour (const TileColours *tc, guint32 t,
                       const SpxRenderStyle *style)
{
  return t == G_MAXUINT32 ? style->ink : tc->colour[t];
}

G_END_DECLS
