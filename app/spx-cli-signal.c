/* spx-cli-signal.c: Ctrl-C and SIGTERM while a command works */
#include "spx-cli-signal.h"
#include "spx-cli.h"

#include <gio/gio.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>

static const int caught[] = { SIGINT, SIGTERM };

typedef struct {
  SpxCliSignals *owner;
  int            signum;
} Catch;

/* GLib turns a signal into a source dispatched by a main context: ours
 * runs in a thread of its own while the command's thread works. */
struct _SpxCliSignals {
  GMainContext *context;
  GThread      *thread;
  GCancellable *cancellable;
  GSource      *sources[G_N_ELEMENTS (caught)];
  Catch         catches[G_N_ELEMENTS (caught)];
  gint          signum, stop;
};

static gboolean
on_signal (gpointer data)
{
  Catch *c = data;
  g_atomic_int_compare_and_exchange (&c->owner->signum, 0, c->signum);
  g_cancellable_cancel (c->owner->cancellable);
  return G_SOURCE_REMOVE; /* GLib restores the default action */
}

static gpointer
serve (gpointer data)
{
  SpxCliSignals *s = data;
  while (!g_atomic_int_get (&s->stop))
    g_main_context_iteration (s->context, TRUE);
  return NULL;
}

SpxCliSignals *
spx_cli_signals_catch (void)
{
  SpxCliSignals *s = g_new0 (SpxCliSignals, 1);
  s->context = g_main_context_new ();
  s->cancellable = g_cancellable_new ();
  for (guint i = 0; i < G_N_ELEMENTS (caught); i++)
    {
      s->catches[i] = (Catch) { s, caught[i] };
      s->sources[i] = g_unix_signal_source_new (caught[i]);
      g_source_set_callback (s->sources[i], on_signal, &s->catches[i], NULL);
      g_source_attach (s->sources[i], s->context);
    }
  s->thread = g_thread_new ("spx-signals", serve, s);
  g_cancellable_push_current (s->cancellable);
  return s;
}

int
spx_cli_signals_release (SpxCliSignals *s)
{
  g_cancellable_pop_current (s->cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (caught); i++)
    {
      g_source_destroy (s->sources[i]);
      g_source_unref (s->sources[i]);
    }
  g_atomic_int_set (&s->stop, 1);
  g_main_context_wakeup (s->context);
  g_thread_join (s->thread);
  int signum = g_atomic_int_get (&s->signum);
  g_object_unref (s->cancellable);
  g_main_context_unref (s->context);
  g_free (s);
  return signum;
}

int
spx_cli_interrupted (const char *command, int signum)
{
  spx_cli_line (stderr, "sparse-explorer %s: interrupted by %s", command,
                signum == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM");
  return 128 + signum;
}
