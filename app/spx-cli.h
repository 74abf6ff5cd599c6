/* spx-cli.h: the command-line subcommands and what they share */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "spx-cli-options.h"
#include "spx-render-export.h"
#include "spx-sweep.h"

G_BEGIN_DECLS

/* Exit statuses, the same for every command and the window: 0 success,
 * 1 a bad input file or a failed write (or no display for the window),
 * 2 bad usage; interrupted, 128 + the signal as a shell reports it (130
 * for SIGINT, 143 for SIGTERM: spx_cli_interrupted). */
enum {
  SPX_EXIT_OK = 0,
  SPX_EXIT_INPUT = 1,
  SPX_EXIT_USAGE = 2,
};

/* A command: what runs it, its options and its line in --help. */
typedef struct {
  const char     *name;
  int           (*run) (int argc, char **argv);
  const char     *summary; /* a format: %s is the views' names */
  SpxCliOptions *(*options) (void);
} SpxCliCommand;

/* The commands, in the order --help lists them. */
const SpxCliCommand *spx_cli_commands (guint *n);

int      spx_cli_main     (int argc, char **argv);
void     spx_cli_print_usage (FILE *stream);

/* The window's options, for GApplication (which keeps their values: no
 * arg_data) and for --help. */
enum {
  SPX_CLI_WINDOW_VIEW,
  SPX_CLI_WINDOW_SWEEP,
  SPX_CLI_WINDOW_LESSON,
  SPX_CLI_N_WINDOW_OPTIONS
};
const GOptionEntry *spx_cli_window_options (void);
gboolean spx_cli_is_command (const char *word);
/* ": did you mean --threads?" for the first long option of argv (up to
 * "--") that is not one of names but near one; else "". */
char    *spx_cli_did_you_mean (const char *const *names, int argc,
                               char **argv);
/* A word given without a command that names nothing: a path (with a
 * '/' or an extension) is a missing file, said as every command says it
 * (exit 1); another word, one line suggesting the nearest command (exit
 * 2). Returns the status. */
int      spx_cli_not_there (const char *word);
/* The commands in words: "info, generate, … or sweep". */
char    *spx_cli_command_list (void);

int      spx_cli_info     (int argc, char **argv);
/* A command's options (its args zeroed), as it parses them. */
SpxCliOptions *spx_cli_info_options (void);
int      spx_cli_generate (int argc, char **argv);
SpxCliOptions *spx_cli_generate_options (void);
int      spx_cli_bench    (int argc, char **argv);
SpxCliOptions *spx_cli_bench_options (void);
int      spx_cli_model    (int argc, char **argv);
SpxCliOptions *spx_cli_model_options (void);
int      spx_cli_render   (int argc, char **argv);
SpxCliOptions *spx_cli_render_options (void);
int      spx_cli_sweep    (int argc, char **argv);
SpxCliOptions *spx_cli_sweep_options (void);
int      spx_cli_layers   (int argc, char **argv);
SpxCliOptions *spx_cli_layers_options (void);

/* Every line the program prints to a terminal goes through these: the
 * text formatted, then escaped (spx_escape), then a newline, so that
 * nothing from a file or the command line (a name with ESC, CR or a
 * newline in it) drives the terminal or breaks a line in two. */
void     spx_cli_line  (FILE *stream, const char *fmt, ...)
  G_GNUC_PRINTF (2, 3);
/* Each of the NULL-terminated lines so. */
void     spx_cli_lines (FILE *stream, const char *const *lines);

/* A long run's progress on stderr (a terminal): "[####....] 12/40  what"
 * over the line before (what escaped), cleared once done reaches total. */
void     spx_cli_progress (guint done, guint total, const char *what);

/* Shared helpers. The usage error prints one line and returns 2. */
int      spx_cli_usage_error (const char *command, const char *fmt, ...)
  G_GNUC_PRINTF (2, 3);
/* "sparse-explorer COMMAND: warning: TEXT" on stderr; nothing for NULL. */
void     spx_cli_warning (const char *command, const char *text);
/* Prints the error's message (it names the file) and returns 1. */
int      spx_cli_input_error (const char *command, const GError *error);

/* Parse options; on failure prints one line and sets *status to 2. */
gboolean spx_cli_parse_options (const char *command, SpxCliOptions *options,
                                int *argc, char ***argv, int *status);

/* Parse options, refuse stray arguments, then run (their args): the
 * shape of every command that takes no positional argument. */
int      spx_cli_parse_and_run (const char *command, SpxCliOptions *options,
                                int argc, char **argv,
                                int (*run) (gconstpointer args));

/* Option values given as strings, checked with ranges; on failure they
 * print one line naming the option and return FALSE. */
gboolean spx_cli_uint   (const char *command, const char *option,
                         const char *text, guint64 min, guint64 max,
                         guint64 *value);
gboolean spx_cli_double (const char *command, const char *option,
                         const char *text, double min, double max,
                         double *value);
/* --threads' help: "WHAT (default: all cores)", the default from
 * spx_defaults (kept as spx_cli_keep does). */
const char *spx_cli_threads_help (const char *what);
/* --no-tune's help, the same for every command that measures. */
#define SPX_CLI_NO_TUNE_HELP \
  "CPU: run the kernels a table of defaults names for this kind of " \
  "processor, timing none (without it, the fastest kernels are timed " \
  "once per processor and remembered in the user's cache folder)"
/* --threads: 1 to spx_max_threads, the limit stated on failure. */
gboolean spx_cli_threads (const char *command, const char *text,
                          guint *threads);

/* A comma-separated list: 1 to SPX_SWEEP_MAX_VALUES non-empty items
 * (stripped); NULL, after one line naming option, for anything else. */
GStrv    spx_cli_list    (const char *command, const char *option,
                          const char *text);
/* --blocks: such a list of block sizes from 1 to SPX_MASK_MAX_BLOCK, into
 * blocks (room for SPX_SWEEP_MAX_VALUES) and *n. */
gboolean spx_cli_blocks  (const char *command, const char *text,
                          guint *blocks, guint *n);
/* --source: model, cpu or both. */
gboolean spx_cli_sources (const char *command, const char *text,
                          gboolean *model, gboolean *cpu);

/* A density as people write it, and as --density reads it: "1/16" when
 * it is one over a power of two, else "0.1". */
char       *spx_cli_density_text (double density);

/* Modes, one vocabulary for every command: a bit per SpxSweepMode
 * (dense, static, dynamic, tilewise). */
#define SPX_CLI_MODE(mode) (1u << (mode))
#define SPX_CLI_MODES_IPU  (SPX_CLI_MODE (SPX_SWEEP_DENSE) | \
                            SPX_CLI_MODE (SPX_SWEEP_STATIC) | \
                            SPX_CLI_MODE (SPX_SWEEP_DYNAMIC))
#define SPX_CLI_MODES_CPU  (SPX_CLI_MODES_IPU | \
                            SPX_CLI_MODE (SPX_SWEEP_TILEWISE))

/* The words an option takes among known: "dense, static, dynamic or
 * all" (list: several separated by commas, "all" for every one). */
char     *spx_cli_modes_words (guint known, gboolean list);
/* Modes as --mode reads them: "static,dynamic". */
char     *spx_cli_modes_text  (guint modes);
/* Reads text: one word, or with list words separated by commas; "all"
 * is every known mode; the old "both" is static,dynamic. *named gets the
 * modes named word by word (a command may refuse those it cannot run
 * here, while "all" just leaves them out). On failure prints one line
 * naming the option and returns FALSE. */
gboolean  spx_cli_modes_parse (const char *command, const char *option,
                               const char *text, guint known, gboolean list,
                               guint *modes, guint *named);

/* What --out of a sweep or a survey names: a table of its points (.csv,
 * .json) or a chart (.png, .svg, .pdf, in *format). NULL is
 * SPX_CLI_OUT_NONE; another extension, one line and FALSE. */
typedef enum {
  SPX_CLI_OUT_NONE,
  SPX_CLI_OUT_TABLE,
  SPX_CLI_OUT_CHART,
} SpxCliOut;
gboolean  spx_cli_out (const char *command, const char *path, SpxCliOut *kind,
                       SpxExportFormat *format);

/* --modes of a sweep or a survey (a list of the CPU's modes, dense
 * always running): the sparse modes asked for; tilewise named without
 * the CPU (run_cpu) is refused. *named as spx_cli_modes_parse. */
gboolean  spx_cli_sweep_modes (const char *command, const char *text,
                               gboolean run_cpu, gboolean *run_static,
                               gboolean *run_dynamic, gboolean *run_tilewise,
                               guint *named);
/* Tile-wise (asked for: tilewise) runs fp32 only: where the CPU computes
 * dtype in bf16 it is refused when named, else left out, with a note on
 * stderr when --modes was given (modes_given). */
gboolean  spx_cli_tilewise_dtype (const char *command, gboolean tilewise,
                                  SpxDtype dtype, guint named,
                                  gboolean modes_given);

G_END_DECLS
