/* spx-cli-study.h: the options that describe what a command studies: a
 * scenario, a mask file or a generated mask, the problem and the machine */
#pragma once

#include <glib.h>
#include "spx-cli-options.h"
#include "spx-mask-gen.h"
#include "spx-study.h"

G_BEGIN_DECLS

/* The generator's options (see spx-cli-options.h), their help stating
 * the defaults d that spx_cli_gen_args_add is given (patterns: their
 * names; density: d's, as --density reads it). */
#define SPX_CLI_GEN_OPTIONS(O) \
  O (pattern, 'p', TEXT, "P", spx_cli_keep_printf ( \
     "%s (default %s)", patterns, spx_pattern_to_string (d->pattern)), \
     "uniform: exactly round(d × blocks) blocks, uniformly at random; " \
     "tilewise: whole block-columns pruned, then whole block-rows in each " \
     "tile; nm: N of every M blocks along each block-row; banded: a " \
     "diagonal band; skewed: per-row counts following a power law; " \
     "magnitude: the blocks of largest norm of a random normal matrix.") \
  O (density, 'd', TEXT, "D", spx_cli_keep_printf ( \
     "Fraction of non-zero blocks, like 0.1 or 1/16 (default %s)", \
     density), NULL) \
  O (seed, 's', TEXT, "S", spx_cli_keep_printf ( \
     "Random seed (default %" G_GUINT64_FORMAT ")", d->seed), NULL) \
  O (tile_width, 0, TEXT, "G", spx_cli_keep_printf ( \
     "tilewise: tile width G in elements (default %u)", d->tile_width), \
     NULL) \
  O (nm, 0, TEXT, "N:M", spx_cli_keep_printf ( \
     "nm: keep N of every M (default %u:%u)", d->nm_n, d->nm_m), NULL) \
  O (band, 0, TEXT, "W", \
     "banded: band width in blocks (default: from the density)", NULL) \
  O (exponent, 0, TEXT, "E", spx_cli_keep_printf ( \
     "skewed: power-law exponent of per-row counts (default %g)", \
     d->exponent), NULL)

typedef struct {
  SPX_CLI_FIELDS (SPX_CLI_GEN_OPTIONS)
} SpxCliGenArgs;

void     spx_cli_gen_args_add   (SpxCliGenArgs *args, SpxCliOptions *options,
                                 const SpxGenOptions *defaults);
/* Checks them (one line naming the option on failure) over the defaults
 * already in gen. */
gboolean spx_cli_gen_args_parse (const SpxCliGenArgs *args,
                                 const char *command, SpxGenOptions *gen);

/* What a command studies: a .spx scenario (--scenario) or the default
 * one, with a mask file (--mask, blocked to B) or a generator at --m ×
 * --k over it, then --block, --n, --dtype and --machine. Every command
 * that needs a mask and a machine builds its study here.
 * The options, a list per SpxCliStudyOptions (see spx-cli-options.h),
 * their help made by spx_cli_study_args_add from d, the default
 * scenario (formats: the mask formats' names; study_help says "(default
 * V)" or what a command without a default needs instead). */
#define SPX_CLI_SCENARIO_OPTIONS(O) \
  O (scenario, 0, FILE, "FILE.spx", \
     "A .spx scenario: its values replace the defaults stated here (its " \
     "machine file is looked for beside it)", \
     "Not with --mask, nor with the options of a generated mask; the " \
     "others given beside it override its values.")
#define SPX_CLI_MASK_OPTIONS(O) \
  O (mask, 0, FILE, "FILE", \
     spx_cli_keep_printf ("A mask file (%s), blocked to B", formats), NULL)
#define SPX_CLI_SHAPE_OPTIONS(O) \
  O (m, 'm', TEXT, "M", \
     study_help (args, "Rows of W (generated mask)", TRUE, d->m), NULL) \
  O (k, 'k', TEXT, "K", \
     study_help (args, "Columns of W (generated mask)", TRUE, d->k), NULL)
#define SPX_CLI_PROBLEM_OPTIONS(O) \
  O (n, 'n', TEXT, "N", spx_cli_keep_printf ( \
     "Columns of X (and C) (default %" G_GUINT64_FORMAT ")", d->n), \
     "model also takes best.") \
  O (block, 'b', TEXT, "B", \
     study_help (args, "Block size", FALSE, d->block), NULL)
#define SPX_CLI_IPU_OPTIONS(O) \
  O (dtype, 0, TEXT, "T", spx_cli_keep_printf ( \
     "fp16, fp32 or bf16 (default %s; the IPU computes bf16 as fp16, the " \
     "CPU fp16 as bf16)", spx_dtype_to_string (d->dtype)), NULL) \
  O (machine, 0, TEXT, "NAME|FILE", spx_cli_machine_help (d->machine), \
     "A machine key file has a [machine] group.")

typedef struct {
  SpxCliGenArgs gen;
  SPX_CLI_FIELDS (SPX_CLI_SCENARIO_OPTIONS)
  SPX_CLI_FIELDS (SPX_CLI_MASK_OPTIONS)
  SPX_CLI_FIELDS (SPX_CLI_SHAPE_OPTIONS)
  SPX_CLI_FIELDS (SPX_CLI_PROBLEM_OPTIONS)
  SPX_CLI_FIELDS (SPX_CLI_IPU_OPTIONS)
  guint which;  /* SpxCliStudyOptions, from spx_cli_study_args_add */
} SpxCliStudyArgs;

typedef enum {
  SPX_CLI_STUDY_SCENARIO = 1 << 0, /* --scenario */
  SPX_CLI_STUDY_SHAPE    = 1 << 1, /* --m, --k and the generator */
  SPX_CLI_STUDY_PROBLEM  = 1 << 2, /* --n, --block */
  SPX_CLI_STUDY_IPU      = 1 << 3, /* --dtype, --machine */
  /* Without --scenario, --block and --mask (or --m and --k) must be
   * given: no default scenario stands in (--n has the shared default,
   * spx-defaults.h). */
  SPX_CLI_STUDY_REQUIRED = 1 << 4,
  SPX_CLI_STUDY_ALL      = 0xf,
} SpxCliStudyOptions;

/* --mask is always added; the others as asked. */
void      spx_cli_study_args_add   (SpxCliStudyArgs *args,
                                    SpxCliOptions *options,
                                    SpxCliStudyOptions which);
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
