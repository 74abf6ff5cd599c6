/* spx-job.h: long work on a worker thread that hands what it makes to
 * the main loop as it goes (the window's sweeps and surveys, and what
 * comes next). Its owner (a GObject, kept alive while the job runs)
 * holds the job it is showing; one it drops (a newer job took its place,
 * or the owner is going) delivers nothing more, neither messages nor
 * its end, so that no stale result reaches the owner. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _SpxJob SpxJob;

typedef struct {
  /* On the worker: the work. Its error, when it sets one, is done's. */
  void (*run) (SpxJob *job, gpointer data, GError **error);
  /* On the main loop, in order, while the job is not dropped: a message
   * the worker posted (spx_job_progress then gives its counts). */
  void (*message) (gpointer owner, gpointer data, gpointer message);
  /* On the main loop, once, when the work has returned and the job was
   * not dropped; no message comes after it. error: the run's, or NULL. */
  void (*done) (gpointer owner, gpointer data, const GError *error);
  GDestroyNotify free_data, free_message;
} SpxJobKind;

/* Run kind's work on data (the job's from now on: free_data frees it
 * when the job ends) on a worker. The owner's reference to the job is
 * returned: it gives it back with spx_job_drop, or with spx_job_unref in
 * done. */
SpxJob  *spx_job_start       (const SpxJobKind *kind, gpointer owner,
                              gpointer data);
SpxJob  *spx_job_ref         (SpxJob *job);
void     spx_job_unref       (SpxJob *job);
/* On the worker: message to the main loop, with how far the work is. */
void     spx_job_post        (SpxJob *job, guint done, guint total,
                              gpointer message);
/* Stop soon: the worker sees it (spx_job_cancelled, and GLib's current
 * cancellable while it runs); done still comes. */
void     spx_job_cancel      (SpxJob *job);
gboolean spx_job_cancelled   (SpxJob *job);
/* Cancel it, deliver nothing more of it, and give back the owner's
 * reference. */
void     spx_job_drop        (SpxJob *job);
/* The counts of the latest message delivered (0 of 0 before any). */
void     spx_job_progress    (SpxJob *job, guint *done, guint *total);
/* Set the counts before any message says (a total known at the start). */
void     spx_job_set_progress (SpxJob *job, guint done, guint total);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxJob, spx_job_unref)

G_END_DECLS
