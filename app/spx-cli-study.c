/* spx-cli-study.c: the options describing what a command studies: a
 * generated mask, a mask file or a scenario, the problem and the machine */
#include "spx-cli.h"
#include "spx-cli-study.h"
#include "spx-mask-io.h"
#include "spx-util.h"

void
spx_cli_gen_args_add (SpxCliGenArgs *args, SpxCliOptions *options,
                      const SpxGenOptions *d)
{
  g_autofree char *patterns = spx_pattern_list (0);
  g_autofree char *density = spx_cli_density_text (d->density);
  SPX_CLI_ADD (options, SPX_CLI_GEN_OPTIONS, "pattern");
}

static gboolean
parse_nm (const char *command, const char *text, SpxGenOptions *gen)
{
  guint64 n, m;
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  if (g_strv_length (parts) == 2 &&
      g_ascii_string_to_unsigned (parts[0], 10, 0, 1024, &n, NULL) &&
      g_ascii_string_to_unsigned (parts[1], 10, 1, 1024, &m, NULL) && n <= m)
    {
      gen->nm_n = (guint) n;
      gen->nm_m = (guint) m;
      return TRUE;
    }
  spx_cli_usage_error (command, "--nm: expected N:M with 0 ≤ N ≤ M ≤ 1024 "
                       "(like 2:4), got '%s'", text);
  return FALSE;
}

gboolean
spx_cli_gen_args_parse (const SpxCliGenArgs *a, const char *command,
                        SpxGenOptions *gen)
{
  guint64 v;
  if (a->pattern && !spx_pattern_from_string (a->pattern, &gen->pattern))
    {
      g_autofree char *patterns = spx_pattern_list (0);
      spx_cli_usage_error (command, "--pattern: expected %s, got '%s'",
                           patterns, a->pattern);
      return FALSE;
    }
  if ((a->seed && !spx_cli_uint (command, "--seed", a->seed, 0, G_MAXUINT64,
                                 &gen->seed)) ||
      (a->density && !spx_cli_double (command, "--density", a->density, 0, 1,
                                      &gen->density)) ||
      (a->nm && !parse_nm (command, a->nm, gen)) ||
      (a->band && !spx_cli_uint (command, "--band", a->band, 1,
                                 SPX_MASK_MAX_DIM, &gen->band)) ||
      (a->exponent && !spx_cli_double (command, "--exponent", a->exponent, 0,
                                       100, &gen->exponent)))
    return FALSE;
  if (a->tile_width)
    {
      if (!spx_cli_uint (command, "--tile-width", a->tile_width, 1,
                         SPX_MASK_MAX_DIM, &v))
        return FALSE;
      gen->tile_width = (guint) v;
    }
  return TRUE;
}

/* "WHAT (default V)", or, for a command without a default scenario,
 * what it needs instead. */
static const char *
study_help (const SpxCliStudyArgs *a, const char *what, gboolean from_mask,
            guint64 value)
{
  if (a->which & SPX_CLI_STUDY_REQUIRED)
    return spx_cli_keep (g_strdup_printf ("%s (required without --scenario%s)",
                                          what, from_mask ? " or --mask"
                                                          : ""));
  return spx_cli_keep (g_strdup_printf ("%s (default %" G_GUINT64_FORMAT ")",
                                        what, value));
}

const char *
spx_cli_machine_help (const char *preset)
{
  g_autofree char *presets = g_strjoinv (", ",
                                         (char **) spx_ipu_machine_presets ());
  return spx_cli_keep (g_strdup_printf ("%s or a machine key file (default "
                                        "%s)", presets, preset));
}

#define PROBLEM (SPX_CLI_STUDY_SCENARIO | SPX_CLI_STUDY_SHAPE | \
                 SPX_CLI_STUDY_PROBLEM)

void
spx_cli_study_args_add (SpxCliStudyArgs *args, SpxCliOptions *options,
                        SpxCliStudyOptions which)
{
  g_autoptr (SpxScenario) d = spx_scenario_new (); /* the defaults */
  g_autofree char *formats = spx_format_list (SPX_FORMAT_READS_MASK, FALSE);
  /* the man page's Problem options: those of a command taking them all */
  const char *problem = (which & PROBLEM) == PROBLEM ? "problem" : NULL;
  args->which = which;
  if (which & SPX_CLI_STUDY_SCENARIO)
    SPX_CLI_ADD (options, SPX_CLI_SCENARIO_OPTIONS, problem);
  SPX_CLI_ADD (options, SPX_CLI_MASK_OPTIONS, problem);
  if (which & SPX_CLI_STUDY_SHAPE)
    {
      SPX_CLI_ADD (options, SPX_CLI_SHAPE_OPTIONS, problem);
      spx_cli_gen_args_add (&args->gen, options, &d->gen);
    }
  if (which & SPX_CLI_STUDY_PROBLEM)
    SPX_CLI_ADD (options, SPX_CLI_PROBLEM_OPTIONS, problem);
  if (which & SPX_CLI_STUDY_IPU)
    SPX_CLI_ADD (options, SPX_CLI_IPU_OPTIONS, NULL);
}

static gboolean
generator_given (const SpxCliStudyArgs *a)
{
  const SpxCliGenArgs *g = &a->gen;
  return a->m || a->k || g->pattern || g->density || g->seed ||
         g->tile_width || g->nm || g->band || g->exponent;
}

gboolean
spx_cli_study_args_subject_given (const SpxCliStudyArgs *a)
{
  return a->scenario || a->mask || generator_given (a);
}

gboolean
spx_cli_study_check_threads (const SpxCliStudyArgs *a, const SpxStudy *study,
                             const char *command)
{
  g_autoptr (GError) error = NULL;
  if (a->scenario == NULL ||
      spx_scenario_check_threads (study->scenario, a->scenario, &error))
    return TRUE;
  spx_cli_input_error (command, error);
  return FALSE;
}

gboolean
spx_cli_check_block (const char *command, const char *what, guint block,
                     guint64 rows, guint64 cols)
{
  if (block <= rows && block <= cols)
    return TRUE;
  spx_cli_usage_error (command, "%s: larger than the %" G_GUINT64_FORMAT
                       " × %" G_GUINT64_FORMAT " matrix (expected at most %"
                       G_GUINT64_FORMAT ")", what, rows, cols,
                       MIN (rows, cols));
  return FALSE;
}

gboolean
spx_cli_check_keeps (const char *command, const char *option,
                     const SpxGenOptions *gen, guint64 rows, guint64 cols,
                     guint block)
{
  guint64 brows = (rows + block - 1) / block, bcols = (cols + block - 1) / block;
  if (spx_gen_keeps_any (brows, bcols, gen))
    return TRUE;
  g_autofree char *density = spx_cli_density_text (gen->density);
  g_autofree char *what = gen->pattern == SPX_PATTERN_NM
    ? g_strdup_printf ("--nm %u:%u", gen->nm_n, gen->nm_m)
    : g_strdup_printf ("%s %s", option, density);
  spx_cli_usage_error (command, "%s keeps none of the %" G_GUINT64_FORMAT
                       " × %" G_GUINT64_FORMAT " blocks of %u × %u (%s): "
                       "expected more non-zeros, or a smaller block", what,
                       brows, bcols, block, block,
                       spx_pattern_to_string (gen->pattern));
  return FALSE;
}

int
spx_cli_machine_error (const char *command, const GError *error)
{
  if (g_error_matches (error, SPX_IPU_ERROR, SPX_IPU_ERROR_UNKNOWN))
    return spx_cli_usage_error (command, "--machine: %s", error->message);
  return spx_cli_input_error (command, error);
}

/* --m, --k and the generator over the scenario's: a new generated mask. */
static gboolean
apply_generator (const SpxCliStudyArgs *a, const char *command,
                 SpxScenario *sc)
{
  if (!spx_cli_gen_args_parse (&a->gen, command, &sc->gen) ||
      (a->m && !spx_cli_uint (command, "--m", a->m, 1, SPX_MASK_MAX_DIM,
                              &sc->m)) ||
      (a->k && !spx_cli_uint (command, "--k", a->k, 1, SPX_MASK_MAX_DIM,
                              &sc->k)))
    return FALSE;
  sc->source = SPX_MASK_SOURCE_GENERATED;
  g_clear_pointer (&sc->mask, spx_mask_free);
  return TRUE;
}

/* --block, --n, --dtype over the scenario's. */
static gboolean
apply_problem (const SpxCliStudyArgs *a, const char *command,
               SpxScenario *sc, gboolean *n_best)
{
  guint64 v;
  if (a->block)
    {
      if (!spx_cli_uint (command, "--block", a->block, 1, SPX_MASK_MAX_BLOCK,
                         &v))
        return FALSE;
      sc->block = (guint) v;
    }
  if (a->n && n_best != NULL && g_str_equal (a->n, "best"))
    *n_best = TRUE;
  else if (a->n && !spx_cli_uint (command, "--n", a->n, 1, SPX_MASK_MAX_DIM,
                                  &sc->n))
    return FALSE;
  if (a->dtype && !spx_dtype_from_string (a->dtype, &sc->dtype))
    return spx_cli_usage_error (command, "--dtype: expected %s, got '%s'",
                                spx_dtype_names (), a->dtype), FALSE;
  return TRUE;
}

/* How the study's block size and density were given, for messages:
 * the option, the scenario's key, or the default. */
static char *
given_as (const SpxCliStudyArgs *a, const char *option, gboolean given,
          const char *key, const char *name)
{
  if (given)
    return g_strdup (option);
  if (a->scenario)
    return g_strdup_printf ("%s: %s", a->scenario, key);
  return g_strdup_printf ("the default %s", name);
}

/* The study's own block fits its shape, and its generator keeps a block.
 * A command without --block (sweep) sweeps block sizes of its own: the
 * default one does not refuse there. */
static gboolean
check_study (const SpxCliStudyArgs *a, const char *command,
             const SpxScenario *sc, gboolean generate)
{
  g_autofree char *block = given_as (a, "--block", a->block != NULL, "block",
                                     "block size");
  g_autofree char *block_what = g_strdup_printf ("%s %u", block, sc->block);
  g_autofree char *density = given_as (a, "--density",
                                       a->gen.density != NULL, "density",
                                       "density");
  gboolean uses_block = a->scenario || (a->which & SPX_CLI_STUDY_PROBLEM);
  return (!uses_block ||
          spx_cli_check_block (command, block_what, sc->block, sc->m,
                               sc->k)) &&
         (!generate || spx_cli_check_keeps (command, density, &sc->gen,
                                            sc->m, sc->k, sc->block));
}

/* The options a command without a scenario cannot do without. */
static gboolean
check_required (const SpxCliStudyArgs *a, const char *command)
{
  if (!(a->which & SPX_CLI_STUDY_REQUIRED) || a->scenario)
    return TRUE;
  const char *missing = !a->block ? "--block"
                        : a->mask ? NULL : !a->m ? "--m" : !a->k ? "--k"
                        : NULL;
  if (missing == NULL)
    return TRUE;
  spx_cli_usage_error (command, "%s is required (or --scenario FILE%s)",
                       missing, missing[2] == 'm' || missing[2] == 'k'
                                  ? ", or --mask FILE" : "");
  return FALSE;
}

static SpxStudy *
start (const SpxCliStudyArgs *a, const char *command, int *status)
{
  g_autoptr (GError) error = NULL;
  if (!check_required (a, command))
    return NULL;
  if (a->scenario && (a->mask || generator_given (a)))
    return spx_cli_usage_error (command, "--scenario: give a scenario file "
                                "or mask options, not both"), NULL;
  if (a->mask && generator_given (a))
    return spx_cli_usage_error (command, "--mask: give a mask file or --m, "
                                "--k and a pattern, not both"), NULL;
  SpxStudy *s = a->scenario ? spx_study_load_scenario (a->scenario, &error)
                            : spx_study_new ();
  if (s == NULL)
    *status = spx_cli_input_error (command, error);
  return s;
}

SpxStudy *
spx_cli_study_args_build (const SpxCliStudyArgs *a, const char *command,
                          gboolean *n_best, int *status)
{
  g_autoptr (GError) error = NULL;
  *status = SPX_EXIT_USAGE;
  if (n_best != NULL)
    *n_best = FALSE;
  g_autoptr (SpxStudy) s = start (a, command, status);
  if (s == NULL)
    return NULL;
  SpxScenario *sc = s->scenario;
  guint block = sc->block;
  if (!apply_problem (a, command, sc, n_best) ||
      (generator_given (a) && !apply_generator (a, command, sc)))
    return NULL;
  if (a->machine && !spx_study_set_machine (s, a->machine, &error))
    return (*status = spx_cli_machine_error (command, error)), NULL;
  if (a->mask && !spx_study_open_mask (s, a->mask, &error))
    return (*status = spx_cli_input_error (command, error)), NULL;
  /* a file gives the shape; a generator's is m × k */
  gboolean build = sc->mask == NULL || sc->block != block;
  if (!check_study (a, command, sc,
                    build && sc->source == SPX_MASK_SOURCE_GENERATED))
    return NULL;
  if (build && !spx_study_build_mask (s, &error))
    {
      /* a generator's options that only clash once combined are usage;
       * a file that cannot be read is input */
      *status = sc->source == SPX_MASK_SOURCE_GENERATED
                  ? spx_cli_usage_error (command, "%s", error->message)
                  : spx_cli_input_error (command, error);
      return NULL;
    }
  spx_cli_warning (command, s->warning);
  *status = SPX_EXIT_OK;
  return g_steal_pointer (&s);
}
