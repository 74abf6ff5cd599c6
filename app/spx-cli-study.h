/* spx-cli-study.h: the options that describe what a command studies: a
 * scenario, a mask file or a generated mask, the problem and the machine */
#pragma once

#include <glib.h>
#include "spx-mask-gen.h"
#include "spx-study.h"

G_BEGIN_DECLS

typedef struct {
  char *pattern, *density, *seed, *tile_width, *nm, *band, *exponent;
} SpxCliGenArgs;

/* Adds --pattern, --density, --seed, --tile-width, --nm, --band,
 * --exponent to context's main entries, their help stating defaults. */
void     spx_cli_gen_args_add   (SpxCliGenArgs *args, GOptionContext *context,
                                 const SpxGenOptions *defaults);
void     spx_cli_gen_args_clear (SpxCliGenArgs *args);
/* Checks them (one line naming the option on failure) over the defaults
 * already in gen. */
gboolean spx_cli_gen_args_parse (const SpxCliGenArgs *args,
                                 const char *command, SpxGenOptions *gen);

/* What a command studies: a .spx scenario (--scenario) or the default
 * one, with a mask file (--mask, blocked to B) or a generator at --m ×
 * --k over it, then --block, --n, --dtype and --machine. Every command
 * that needs a mask and a machine builds its study here. */
typedef struct {
  SpxCliGenArgs gen;
  char *scenario, *mask, *m, *k, *n, *block, *dtype, *machine;
  guint which;  /* SpxCliStudyOptions, from spx_cli_study_args_add */
} SpxCliStudyArgs;

typedef enum {
  SPX_CLI_STUDY_SCENARIO = 1 << 0, /* --scenario */
  SPX_CLI_STUDY_SHAPE    = 1 << 1, /* --m, --k and the generator */
  SPX_CLI_STUDY_PROBLEM  = 1 << 2, /* --n, --block */
  SPX_CLI_STUDY_IPU      = 1 << 3, /* --dtype, --machine */
  /* Without --scenario, --n, --block and --mask (or --m and --k) must be
   * given: no default scenario stands in. */
  SPX_CLI_STUDY_REQUIRED = 1 << 4,
  SPX_CLI_STUDY_ALL      = 0xf,
} SpxCliStudyOptions;

/* --mask is always added; the others as asked. */
void      spx_cli_study_args_add   (SpxCliStudyArgs *args,
                                    GOptionContext *context,
                                    SpxCliStudyOptions which);
void      spx_cli_study_args_clear (SpxCliStudyArgs *args);
/* Whether any option names the subject (--scenario, --mask, --m, --k or
 * a generator option). */
gboolean  spx_cli_study_args_subject_given (const SpxCliStudyArgs *args);
/* The study, its mask built, nothing planned; NULL with *status set (2:
 * usage, one line printed; 1: a bad file). --n best sets *n_best (and
 * is refused when n_best is NULL). */
SpxStudy *spx_cli_study_args_build (const SpxCliStudyArgs *args,
                                    const char *command, gboolean *n_best,
                                    int *status);

/* The threads a --scenario asks for, when the CPU measures with them:
 * more than this machine runs is the file's fault (one line; status 1).
 * Other commands open such a file as it is. */
gboolean  spx_cli_study_check_threads (const SpxCliStudyArgs *args,
                                       const SpxStudy *study,
                                       const char *command);

/* --machine's help: the presets, or a key file, and the default. */
const char *spx_cli_machine_help (const char *preset);
/* --machine's error: a name that is neither a preset nor a file is bad
 * usage (2); a file that cannot be read or parsed a bad input (1).
 * Prints one line; returns the status. */
int       spx_cli_machine_error (const char *command, const GError *error);

/* Impossible shapes, refused with one line (status 2): a block larger
 * than the rows × cols matrix it cuts, named by what ("--block 16",
 * "s.spx: block 16", "block size 16 of the default …"), and generator
 * options that keep no block at all (option: how the density was given,
 * "--density" or "the default density"). */
gboolean  spx_cli_check_block (const char *command, const char *what,
                               guint block, guint64 rows, guint64 cols);
gboolean  spx_cli_check_keeps (const char *command, const char *option,
                               const SpxGenOptions *gen, guint64 rows,
                               guint64 cols, guint block);

G_END_DECLS
