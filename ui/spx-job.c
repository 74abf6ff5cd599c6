/* spx-job.c: a worker's job and its messages to the main loop */
#include "spx-job.h"

struct _SpxJob {
  gint              refs;    /* atomic: the owner's, the task's, posts' */
  const SpxJobKind *kind;
  GObject          *owner;   /* a reference */
  gpointer          data;
  GCancellable     *cancel;
  GError           *error;   /* the run's */
  /* the main loop's alone */
  gboolean          dropped;
  guint             done, total;
};

typedef struct {
  SpxJob  *job;
  guint    done, total;
  gpointer message;
} Post;

SpxJob *
spx_job_ref (SpxJob *job)
{
  g_atomic_int_inc (&job->refs);
  return job;
}

/* The last reference goes on the main loop (the owner's, the task's
 * callback, or a post delivered): data is freed there. */
void
spx_job_unref (SpxJob *job)
{
  if (job == NULL || !g_atomic_int_dec_and_test (&job->refs))
    return;
  if (job->kind->free_data != NULL)
    job->kind->free_data (job->data);
  g_object_unref (job->owner);
  g_object_unref (job->cancel);
  g_clear_error (&job->error);
  g_free (job);
}

static gboolean
deliver (gpointer data)
{
  Post *post = data;
  SpxJob *job = post->job;
  if (!job->dropped)
    {
      job->done = post->done;
      job->total = post->total;
      if (job->kind->message != NULL)
        job->kind->message (job->owner, job->data, post->message);
    }
  if (post->message != NULL && job->kind->free_message != NULL)
    job->kind->free_message (post->message);
  spx_job_unref (job);
  g_free (post);
  return G_SOURCE_REMOVE;
}

void
spx_job_post (SpxJob *job, guint done, guint total, gpointer message)
{
  Post *post = g_new (Post, 1);
  *post = (Post) { spx_job_ref (job), done, total, message };
  g_idle_add (deliver, post);
}

static void
thread (GTask *task, gpointer source, gpointer data, GCancellable *c)
{
  SpxJob *job = data;
  g_cancellable_push_current (job->cancel);
  job->kind->run (job, job->data, &job->error);
  g_cancellable_pop_current (job->cancel);
  g_task_return_boolean (task, TRUE); /* the outcome is in the job */
}

/* The task's end comes before messages still queued (idle): the job is
 * dropped first, so they are not delivered after done. */
static void
finished (GObject *source, GAsyncResult *result, gpointer data)
{
  SpxJob *job = data;
  g_task_propagate_boolean (G_TASK (result), NULL);
  if (!job->dropped)
    {
      job->dropped = TRUE;
      if (job->kind->done != NULL)
        job->kind->done (job->owner, job->data, job->error);
    }
  spx_job_unref (job);
}

SpxJob *
spx_job_start (const SpxJobKind *kind, gpointer owner, gpointer data)
{
  SpxJob *job = g_new0 (SpxJob, 1);
  job->refs = 2; /* the owner's and the task's */
  job->kind = kind;
  job->owner = g_object_ref (owner);
  job->data = data;
  job->cancel = g_cancellable_new ();
  GTask *task = g_task_new (owner, NULL, finished, job);
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, thread);
  g_object_unref (task);
  return job;
}

void
spx_job_cancel (SpxJob *job)
{
  g_cancellable_cancel (job->cancel);
}

gboolean
spx_job_cancelled (SpxJob *job)
{
  return g_cancellable_is_cancelled (job->cancel);
}

void
spx_job_drop (SpxJob *job)
{
  if (job == NULL)
    return;
  job->dropped = TRUE;
  spx_job_cancel (job);
  spx_job_unref (job);
}

void
spx_job_progress (SpxJob *job, guint *done, guint *total)
{
  *done = job->done;
  *total = job->total;
}

void
spx_job_set_progress (SpxJob *job, guint done, guint total)
{
  job->done = done;
  job->total = total;
}
