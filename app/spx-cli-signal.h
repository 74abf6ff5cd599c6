/* spx-cli-signal.h: Ctrl-C and SIGTERM while a command works */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SpxCliSignals SpxCliSignals;

/* From now on SIGINT and SIGTERM cancel a GCancellable made this thread's
 * current (spx_cancelled sees it) instead of ending the program, so the
 * work under way stops, cleans up and returns. A second signal of the
 * same kind ends the program at once. */
SpxCliSignals *spx_cli_signals_catch   (void);
/* Stop catching them: the signal that came, or 0. */
int            spx_cli_signals_release (SpxCliSignals *signals);
/* Say in one line that signum stopped the command; its exit status
 * (128 + signum, as a shell reports it: 130 for SIGINT). */
int            spx_cli_interrupted     (const char *command, int signum);

G_END_DECLS
