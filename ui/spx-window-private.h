/* spx-window-private.h: what the window's files share, named
 * _spx_window_… (what one file alone uses is static there). spx-window.c
 * builds it, holds the actions and shows the study in the views;
 * -panel.c applies the side panel's edits (spx-scenario-panel.h) to the
 * study; -work.c planning, loading and sweeps on worker threads (sweeps,
 * as surveys, are spx-job.h's jobs);
 * -lesson.c the guided lesson; -files.c open and save; -export.c the
 * export dialog and what it remembers; -layers.c the Layers page (a
 * network's layers and their survey). */
#pragma once

#include "spx-window.h"
#include "spx-ipu.h"
#include "spx-job.h"
#include "spx-lesson.h"
#include "spx-mask-editor.h"
#include "spx-render-export.h"
#include "spx-render-layers.h"
#include "spx-render-views.h"
#include "spx-scenario-panel.h"
#include "spx-study.h"
#include "spx-survey.h"
#include "spx-view.h"

G_BEGIN_DECLS

/* A network the window and its workers share: an atomic reference-
 * counted box (g_atomic_rc_box_acquire; _spx_shared_network_release). */
typedef struct {
  SpxNetwork *network;
} SpxSharedNetwork;

SpxSharedNetwork *_spx_shared_network_new     (SpxNetwork *network);
void              _spx_shared_network_release (SpxSharedNetwork *shared);

/* The Layers page: a network's layers and its survey. */
typedef struct {
  SpxSharedNetwork *network; /* listed; NULL: none, or a saved survey's
                                network that is not there */
  SpxSurvey     *survey;     /* shown: the run's (growing while it runs)
                                or a saved one; NULL: none */
  gboolean       unsaved;    /* measured, and not saved since */
  SpxJob        *open_job;    /* reading a network or a saved survey */
  SpxJob        *job;         /* the survey running */
  GtkListStore  *store;
  GtkWidget     *page, *tree, *summary, *run_button, *sources, *chart;
  GtkWidget     *chart_box;   /* scrolls the chart; shown with a survey */
  GtkWidget     *paned;       /* the table over the chart */
  gboolean       fit_pending; /* the table to fit once the page shows */
  gint           width;       /* the page's, last allocated */
  /* the page before a network is open, and with one */
  GtkWidget     *inner, *empty, *content;
  GtkWidget     *show_skipped; /* the table lists skipped entries */
  GtkTreeModel  *filter, *sorted; /* over store: what the table shows */
  GHashTable    *rows;        /* name → its GtkTreeIter in store */
  GtkTreeViewColumn *blocks_column;
  SpxRenderLayersData chart_data;
} SpxWindowLayers;

struct _SpxWindow {
  GtkApplicationWindow parent;

  /* The subject (its mask also in the editor, where it is drawn on),
   * machine, programs and sweep. */
  SpxStudy      *study;
  SpxSubject    *shown;        /* where the editor's mask came from */
  gboolean       dirty;
  char          *scenario_name; /* what the title calls a scenario that
                                  came from no file (the lesson's), or
                                  NULL */
  SpxIpuMode     mode;         /* the program the mask/tiles/exchange show */
  gint           selected_tile;
  char          *error;        /* the info bar's message */
  char          *saved_folder; /* the bar's "Open Folder" opens it */
  gint           bar_taken;    /* the height the info bar took from the
                                  views in their latest layout */

  /* planning (making the subject first): a newer request or Escape
   * drops the job under way */
  SpxJob        *plan_job;
  gboolean       sweep_pending; /* asked for while the subject was made */

  SpxJob        *sweep_job;    /* the sweep on the chart, running */
  guint          pulse_source; /* the bar's pulse while work runs */

  SpxWindowLayers layers;

  /* widgets */
  GtkWidget *header, *menu_button, *progress, *cancel, *info_bar;
  GtkWidget *info_label;
  GtkWidget *fit_button, *folder_button, *colour;
  /* the guided lesson (loaded when first asked for) */
  SpxLesson *lesson;
  guint      lesson_step;
  gboolean   lesson_pending; /* its selection waits for its plan */
  GtkWidget *lesson_panel, *lesson_count, *lesson_title, *lesson_text;
  GtkWidget *lesson_back, *lesson_next;
  GtkWidget *stack, *editor;
  GtkWidget *views[SPX_RENDER_N_VIEWS]; /* the pictures (the mask's: the
                                           editor), in the table's order */
  GtkWidget *metric, *superstep, *tile_label, *density_label, *sweep_button;
  GtkWidget *every_arrow;      /* Exchange: an arrow per tile pair */
  GtkWidget *throughput, *undo_button, *redo_button, *sweep_op;
  GtkWidget *verdict, *sweep_verdict, *sweep_note, *again_button;
  /* Compare with: an earlier sweep of the session drawn under this one */
  GtkWidget *compare;
  char      *overlay_label;
  gboolean   compare_filling;  /* its items being replaced: not a choice */
  SpxScenarioPanel *panel;

  /* What the views show: the Exchange view's step, the Timeline's
   * selection, the chart's sweep and marks (its mask, programs, mode,
   * tile and metric are the window's own, set at each refresh), and the
   * metric each view shows. Each SpxView draws its view_data, made from
   * them by its row of the table. */
  SpxRenderViewState view_state;
  guint              metrics[SPX_RENDER_N_VIEWS];
  gpointer           view_data[SPX_RENDER_N_VIEWS];
};

/* spx-window.c */
void       _spx_window_set_dirty   (SpxWindow *w, gboolean dirty);
void       _spx_window_show_error  (SpxWindow *w, const char *message);
/* A result worth saying that is not an error (a plan that does not fit,
 * a block size chosen for the picture): spx_window_get_error returns it
 * too. */
void       _spx_window_show_message (SpxWindow *w, GtkMessageType type,
                                     const char *message);
void       _spx_window_clear_error (SpxWindow *w);
/* The message shown says a file was saved in dir: offer to open it. */
void       _spx_window_offer_folder (SpxWindow *w, const char *dir);
void       _spx_window_update_busy (SpxWindow *w);
/* The progress bar pulses while work without a fraction runs. */
void       _spx_window_pulse       (SpxWindow *w);
void       _spx_window_update_title (SpxWindow *w);
void       _spx_window_select_tile (SpxWindow *w, gint tile);
/* Select superstep step of programs[lane] in the Timeline (lane -1: the
 * shown program's), and in the Exchange view when it is the shown
 * program's; step -1 (or one out of range) selects none. */
void       _spx_window_select_superstep (SpxWindow *w, gint lane, gint step);
SpxTheme   _spx_window_theme       (SpxWindow *w);
/* What the views show, as the table's rows take it. */
void       _spx_window_view_state  (SpxWindow *w, guint view,
                                    SpxRenderViewState *state);
/* Each view's data made again from what is shown; a view is drawn again
 * when its data changed, or when it needs what changed in place (new
 * programs, points added to the sweep). */
void       _spx_window_views_changed (SpxWindow *w,
                                      SpxRenderViewNeeds changed);
/* What the tooltip of the view called view says at (x, y) of its
 * widget, or NULL for nothing there (or a view without hover text). */
char      *_spx_window_hover_text  (SpxWindow *w, const char *view, double x,
                                    double y);
/* The densities, the verdict and the chart's marks (out of date,
 * partial, noisy) from the study. */
void       _spx_window_update_verdict (SpxWindow *w);
/* The study's programs (new ones, or another shown): the views, the
 * selection, the verdict and the lesson follow; a plan that does not
 * fit is said. */
void       _spx_window_programs_changed (SpxWindow *w);

/* spx-window-panel.c */
/* The side panel, its edits going to the study (w->panel). */
GtkWidget *_spx_window_panel_new   (SpxWindow *w);

/* spx-window-work.c */
/* Plan the three programs for the study's mask. */
void       _spx_window_replan      (SpxWindow *w);
/* Make the subject again from the scenario (generate, or re-block a
 * file or drawing) and plan it; the new mask is one undo step. */
void       _spx_window_rebuild     (SpxWindow *w);
/* Find the largest m = k at which every plan fits the machine (on a
 * worker), make the mask at it and plan it: one undo step. */
void       _spx_window_fit_size    (SpxWindow *w);
/* A mask file (any format) becomes the subject, read on a worker (at a
 * block size where it does not look solid); one undo step. Errors go to
 * the info bar and leave the window as it was. */
void       _spx_window_load_mask   (SpxWindow *w, const char *path);
/* Layer entry of network becomes the subject as a mask file does (one
 * undo step, at a readable block size); the Mask view shows it. */
void       _spx_window_load_layer  (SpxWindow *w, SpxSharedNetwork *network,
                                    guint entry);
/* A .spx, read on a worker: the study is replaced whole. */
void       _spx_window_load_scenario (SpxWindow *w, const char *path);
/* An undo or redo put a former subject's mask back in the editor. */
void       _spx_window_subject_restored (SpxWindow *w,
                                         const SpxSubject *subject);
/* Sweep the subject (once it is made, when work on it is under way). */
void       _spx_window_run_sweep   (SpxWindow *w);
/* The Speedup view's Compare with row, its label and list
 * (spx-window-compare.c). */
GtkWidget *_spx_window_compare_new    (SpxWindow *w);
/* Its items from the study's history, and the overlay into the views'
 * state. */
void       _spx_window_compare_update (SpxWindow *w);
/* The CPU points of the block sizes the verdict could not judge (noisy)
 * measured again on one thread, on a worker; the sweep keeps the rest. */
void       _spx_window_measure_again (SpxWindow *w);
void       _spx_window_cancel_work (SpxWindow *w);

/* spx-window-lesson.c */
GtkWidget *_spx_window_lesson_panel_new (SpxWindow *w);
/* Open the lesson beside the views at its first step. */
void       _spx_window_lesson_start (SpxWindow *w);
/* by steps on (1) or back (-1), when the lesson is open. */
void       _spx_window_lesson_move  (SpxWindow *w, gint by);
gboolean   _spx_window_lesson_active (SpxWindow *w);
/* The selection changed: the step's text quotes it again. */
void       _spx_window_lesson_refresh (SpxWindow *w);
/* The views show a new plan: a step waiting for it makes its selection,
 * and its text quotes the plan. */
void       _spx_window_lesson_plan_ready (SpxWindow *w);

/* spx-window-keys.c */
/* Keys in the views follow the page shown (its picture, when it takes
 * them); once the stack and the editor are built. */
void       _spx_window_keys_init   (SpxWindow *w);
void       _spx_window_toggle_menu (SpxWindow *w);

/* spx-window-timeline.c */
/* The Timeline's zoom: its scroll events and its keys' actions (acting
 * while it is shown); once the stack is built. */
void       _spx_window_timeline_init (SpxWindow *w, GtkWidget *view);
/* Zoom the axis about its middle by factor (above 1: closer; 0: all of
 * it again). */
void       _spx_window_timeline_zoom (SpxWindow *w, double factor);
/* A click at (x, y) on a program's name fits the axis to it: TRUE when
 * one was there. */
gboolean   _spx_window_timeline_fit_at (SpxWindow *w, double x, double y);
/* Fits the axis to programs[lane], or shows all of it for lane < 0 (on a
 * broken axis for SPX_LESSON_FIT_BROKEN). */
void       _spx_window_timeline_fit (SpxWindow *w, gint lane);

/* spx-window-layers.c */
GtkWidget *_spx_window_layers_page_new (SpxWindow *w);
/* The views' switcher's Layers button shows the page while it is hidden
 * (before a network is open: its empty state). */
void       _spx_window_layers_tab  (SpxWindow *w, GtkWidget *switcher);
/* A folder, a network file or a saved survey (.json): what the Layers
 * page opens rather than the subject. */
gboolean   _spx_window_is_network  (const char *path);
/* Read it on a worker; the Layers page then lists its layers (a saved
 * survey's with their points, and its network opened again when it is
 * still there). Errors go to the info bar and leave the page as it was. */
void       _spx_window_open_network (SpxWindow *w, const char *path);
/* Survey the network listed (on a worker, at the study's n, dtype,
 * machine and threads); the rows fill as points arrive. */
void       _spx_window_run_survey  (SpxWindow *w);
/* The CPU points of the survey's layers with a noisy one measured
 * again on one thread (on a worker; the rows change when it ends). */
void       _spx_window_survey_again (SpxWindow *w);
/* TRUE while a survey runs, with its points done of total. */
gboolean   _spx_window_surveying   (SpxWindow *w, guint *done, guint *total);
/* Run Survey and Save Survey usable when they can run. */
void       _spx_window_layers_actions (SpxWindow *w);
/* A survey runs or a network is being read. */
gboolean   _spx_window_layers_busy (SpxWindow *w);
/* Stop both (Escape); the survey keeps the layers done. */
void       _spx_window_layers_cancel (SpxWindow *w);
void       _spx_window_layers_free (SpxWindow *w);
/* Before losing a survey's unsaved points: TRUE to go on. */
gboolean   _spx_window_may_replace_survey (SpxWindow *w);
/* The survey as .json or .csv, confirmed in the info bar. */
gboolean   _spx_window_save_survey (SpxWindow *w, const char *path);
void       _spx_window_save_survey_dialog (SpxWindow *w);

/* spx-window-files.c */
/* path ends in suffix (".spx"), in any case. */
void       _spx_window_open_dialog (SpxWindow *w);
gboolean   _spx_window_save        (SpxWindow *w, gboolean choose);
gboolean   _spx_window_save_to     (SpxWindow *w, const char *path);
/* The mask alone, in the format of path's extension. */
gboolean   _spx_window_save_mask   (SpxWindow *w, const char *path);
void       _spx_window_save_mask_dialog (SpxWindow *w);
/* A save dialog's answer (NULL: cancelled): it offers name in folder
 * (NULL: the chooser's own start). */
char      *_spx_window_choose_save_path (SpxWindow *w, const char *title,
                                         const char *folder,
                                         const char *name);
/* The chooser in folder mode: open what is chosen. */
void       _spx_window_open_folder_dialog (SpxWindow *w);
/* Before losing edits: TRUE to go on (saved, discarded or clean). */
gboolean   _spx_window_confirm_discard (SpxWindow *w);
/* A generated mask is the scenario's; one from a file or drawn is the
 * user's own: before replacing it, ask (why says what replaces it).
 * TRUE to go on. */
gboolean   _spx_window_may_replace_mask (SpxWindow *w, const char *why);
/* Writes path (spx_save_file's flags passed on); data is the caller's. */
typedef gboolean (*SpxWindowWriteFunc) (SpxWindow *w, const char *path,
                                        SpxSaveFlags flags, gpointer data,
                                        GError **error);
/* Every save of the window: a read-only file is asked about as editors
 * do ("… is read-only. Replace it anyway?", Cancel / Replace) and written
 * on Replace; a failure is shown in the bar. TRUE once written. */
gboolean   _spx_window_write       (SpxWindow *w, const char *path,
                                    SpxWindowWriteFunc write, gpointer data);

/* spx-window-export.c */
/* The settings' enums' values: the presets are sizes whatever the
 * window's (1600 × 1000 pixels; a paper's column of 88 × 66 mm) */
typedef enum {
  SPX_PNG_1X, SPX_PNG_2X, SPX_PNG_CUSTOM, SPX_PNG_1200, SPX_PNG_1600,
  SPX_PNG_2400
} SpxPngSize;
typedef enum {
  SPX_PAGE_VIEW, SPX_PAGE_A4, SPX_PAGE_LETTER, SPX_PAGE_CUSTOM,
  SPX_PAGE_COLUMN, SPX_PAGE_TWO_COLUMNS
} SpxPage;

/* The export dialog's choices (remembered in the settings). */
typedef struct {
  SpxPngSize     png;
  guint          png_width, png_height;   /* custom: pixels */
  SpxPage        page;                    /* A4 and Letter: landscape */
  double         page_width, page_height; /* custom: millimetres */
  SpxExportTheme theme;
  gboolean       noise_note;
} SpxExportChoice;

void       spx_export_choice_load (SpxExportChoice *choice,
                                   GSettings *settings);
void       spx_export_choice_save (const SpxExportChoice *choice,
                                   GSettings *settings);
/* The style of a picture for choice, of a view drawn in shown. */
void       spx_export_choice_style (const SpxExportChoice *choice,
                                    SpxTheme shown, SpxRenderStyle *style);
/* What to draw for a view of view_width × view_height on screen:
 * width × height (PNG: logical pixels, each scale × scale device
 * pixels; SVG and PDF: points). */
void       spx_export_geometry    (const SpxExportChoice *choice,
                                   SpxExportFormat format,
                                   double view_width, double view_height,
                                   double *width, double *height,
                                   double *scale);
/* Where the dialog starts: remembered when it is still a folder, else
 * the user's Pictures folder, else home. */
char      *spx_export_start_folder (const char *remembered);
/* name with its extension made ext (".svg"): "mask.png" -> "mask.svg";
 * a name without one of ours gets ext added. */
char      *spx_export_rename      (const char *name, const char *ext);
/* Keeps w->bar_taken up to date from the views' layouts (once, when
 * the views are made): "the view's size" is then the same whether or
 * not a message shows above it. */
void       _spx_window_export_track_bar (SpxWindow *w, GtkWidget *views);
/* The export dialog (Ctrl+E). */
void       _spx_window_export_dialog (SpxWindow *w);
/* The view shown, with the remembered choices (.png, .svg, .pdf), or
 * the sweep (.csv, .json); a saved file is confirmed in the info bar,
 * an error shown there names path. */
gboolean   _spx_window_export_view (SpxWindow *w, const char *path);
gboolean   _spx_window_export_sweep (SpxWindow *w, const char *path);
/* "Saved PATH" in the info bar, with Open Folder. */
void       _spx_window_confirm_saved (SpxWindow *w, const char *path);

G_END_DECLS
