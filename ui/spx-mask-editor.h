/* spx-mask-editor.h: the spy plot of a mask, editable with the mouse
 * and the keyboard: draw and erase blocks, fill or clear rectangles, undo
 * and redo, zoom and pan, and an IPU plan's partitions and tiles drawn
 * over it */
#pragma once

#include <gtk/gtk.h>

#include "spx-render-mask.h"

G_BEGIN_DECLS

#define SPX_TYPE_MASK_EDITOR (spx_mask_editor_get_type ())
G_DECLARE_FINAL_TYPE (SpxMaskEditor, spx_mask_editor, SPX, MASK_EDITOR,
                      GtkDrawingArea)

typedef enum {
  SPX_EDIT_DRAW,             /* left drag sets blocks, right drag clears */
  SPX_EDIT_ERASE,            /* left drag clears blocks, right drag sets */
  SPX_EDIT_RECTANGLE_DRAW,   /* sets the dragged rectangle on release */
  SPX_EDIT_RECTANGLE_ERASE,  /* clears it */
  SPX_EDIT_SELECT,           /* a click activates the block */
} SpxEditTool;

/* Signals:
 *   "mask-edited"     (void): once at the end of each stroke or rectangle
 *                     that changed something, and after undo and redo;
 *   "mask-replaced"   (gpointer state): undo or redo swapped in a whole
 *                     mask; state is the before or after given to
 *                     spx_mask_editor_replace_mask;
 *   "history-changed" (void): can_undo / can_redo may have changed;
 *   "edit-refused"    (GError *error): a stroke, rectangle, undo or redo
 *                     left the mask as it was, as the memory budget
 *                     refused what it needed (a copy of a shared mask);
 *   "block-activated" (guint64 br, guint64 bc): a click with the select
 *                     tool, or with any tool while Ctrl is held.
 * Mouse: left button edits with the tool, right button with its
 * opposite, middle drag pans; scroll pans (Shift: sideways), Ctrl+scroll
 * zooms about the pointer. Keys: + and - zoom, 0 resets; arrows move a
 * block cursor (the view follows it), Space toggles its block (one undo
 * step); Shift+arrows stretch a rectangle from it, which Space fills
 * when the cursor's block is clear, else clears; Escape cancels a
 * dragged rectangle. The tooltip names the block under the
 * pointer and counts its block-row. */

GtkWidget *spx_mask_editor_new (void);
/* Takes a reference to mask (may be NULL; it may be shared, see
 * spx_mask_ref: it is copied when first drawn on); clears the undo
 * history and resets the zoom. */
void       spx_mask_editor_set_mask (SpxMaskEditor *e, SpxMask *mask);
SpxMask   *spx_mask_editor_get_mask (SpxMaskEditor *e);   /* borrowed */
/* Show mask (taken) as one undo step, the history kept: undo brings the
 * old mask back and emits "mask-replaced" with before, redo with after
 * (the caller's descriptions of each, freed with destroy). The view is
 * kept when the block grid is the same. */
void       spx_mask_editor_replace_mask (SpxMaskEditor *e, SpxMask *mask,
                                         gpointer before, gpointer after,
                                         GDestroyNotify destroy);
void       spx_mask_editor_set_tool (SpxMaskEditor *e, SpxEditTool tool);
/* Borrowed, may be NULL: kept alive by the caller until replaced. */
void       spx_mask_editor_set_program (SpxMaskEditor *e,
                                        const SpxIpuProgram *p);
void       spx_mask_editor_set_selected_tile (SpxMaskEditor *e, gint tile);
void       spx_mask_editor_set_colour_by_tile (SpxMaskEditor *e,
                                               gboolean on);
void       spx_mask_editor_set_theme (SpxMaskEditor *e, SpxTheme theme);
gboolean   spx_mask_editor_can_undo (SpxMaskEditor *e);
gboolean   spx_mask_editor_can_redo (SpxMaskEditor *e);
void       spx_mask_editor_undo (SpxMaskEditor *e);
void       spx_mask_editor_redo (SpxMaskEditor *e);
/* About the widget point (cx, cy); factor > 1 zooms in. */
void       spx_mask_editor_zoom (SpxMaskEditor *e, double factor,
                                 double cx, double cy);
void       spx_mask_editor_zoom_reset (SpxMaskEditor *e);
/* The block under the widget point (x, y), as the pictures hit-test. */
gboolean   spx_mask_editor_block_at (SpxMaskEditor *e, double x, double y,
                                     guint64 *br, guint64 *bc);

G_END_DECLS
