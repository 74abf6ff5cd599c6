/* spx-cli-bench.c: `sparse-explorer bench`: the CPU engine against dense
 * OpenBLAS, measured in one process */
#include "spx-cli.h"
#include "spx-cli-mask.h"
#include "spx-bench.h"
#include "spx-json.h"

#include <stdio.h>
#include <unistd.h>

#define CMD "bench"
/* Below this per thread, dense sgemm is not at full speed on a modern
 * core and the comparison says more about the harness than the kernels. */
#define DENSE_GFLOPS_PER_THREAD_FLOOR 50.0

typedef struct {
  SpxCliMaskArgs source;
  char *n, *block, *mode, *threads, *reps, *warmup;
  gboolean peers, json;
} BenchArgs;

static void
bench_args_clear (BenchArgs *a)
{
  spx_cli_mask_args_clear (&a->source);
  char **fields[] = { &a->n, &a->block, &a->mode, &a->threads, &a->reps,
                      &a->warmup };
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    g_clear_pointer (fields[i], g_free);
}

static gboolean
parse_mode (const char *text, SpxBenchOptions *options)
{
  if (text == NULL || g_str_equal (text, "both"))
    return TRUE;
  options->run_static = g_str_equal (text, "static");
  options->run_dynamic = g_str_equal (text, "dynamic");
  if (options->run_static || options->run_dynamic)
    return TRUE;
  spx_cli_usage_error (CMD, "--mode: expected static, dynamic or both, got "
                       "'%s'", text);
  return FALSE;
}

static gboolean
parse_options (const BenchArgs *a, SpxBenchOptions *o)
{
  guint64 v;
  g_autoptr (GError) error = NULL;
  spx_bench_options_init (o);
  if (!spx_isa_from_env (&o->engine.isa, &error))
    {
      spx_cli_usage_error (CMD, "%s", error->message);
      return FALSE;
    }
  o->run_peers = a->peers;
  if (a->peers && !spx_bench_have_librsb ())
    {
      spx_cli_usage_error (CMD, "--peers: built without librsb (install "
                           "librsb-dev and rebuild)");
      return FALSE;
    }
  if (a->threads)
    {
      if (!spx_cli_uint (CMD, "--threads", a->threads, 1, 1024, &v))
        return FALSE;
      o->engine.threads = (guint) v;
    }
  if (a->reps)
    {
      if (!spx_cli_uint (CMD, "--reps", a->reps, 1, 100000, &v))
        return FALSE;
      o->reps = (guint) v;
    }
  if (a->warmup)
    {
      if (!spx_cli_uint (CMD, "--warmup", a->warmup, 0, 100000, &v))
        return FALSE;
      o->warmup = (guint) v;
    }
  return parse_mode (a->mode, o);
}

static void
json_timing (SpxJson *json, const char *key, const SpxBenchTiming *t,
             gboolean is_static)
{
  spx_json_begin_object (json, key);
  spx_json_double (json, "ms", t->ms);
  if (is_static)
    spx_json_double (json, "plan_ms", t->plan_ms);
  spx_json_double (json, "nz_gflops", t->gflops);
  spx_json_double (json, "speedup", t->speedup);
  spx_json_double (json, "efficiency", t->efficiency);
  spx_json_double (json, "max_rel_err", t->max_rel_err);
  if (is_static)
    spx_json_uint (json, "plan_bytes", t->plan_bytes);
  spx_json_end_object (json);
}

static void
print_json (const SpxBenchResult *r)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_uint (&json, "m", r->m);
  spx_json_uint (&json, "k", r->k);
  spx_json_uint (&json, "n", r->n);
  spx_json_uint (&json, "block", r->block);
  spx_json_double (&json, "density", r->density);
  spx_json_uint (&json, "nonzero_blocks", r->nonzero_blocks);
  spx_json_uint (&json, "threads", r->threads);
  spx_json_string (&json, "isa", spx_isa_to_string (r->isa));
  spx_json_uint (&json, "reps", r->reps);
  spx_json_begin_object (&json, "dense");
  spx_json_double (&json, "ms", r->dense.ms);
  spx_json_double (&json, "gflops", r->dense.gflops);
  spx_json_end_object (&json);
  if (r->stat.ran)
    json_timing (&json, "static", &r->stat, TRUE);
  if (r->dyn.ran)
    json_timing (&json, "dynamic", &r->dyn, FALSE);
  if (r->librsb.ran)
    {
      spx_json_begin_object (&json, "peers");
      spx_json_begin_object (&json, "librsb");
      spx_json_double (&json, "ms", r->librsb.ms);
      spx_json_double (&json, "speedup", r->librsb.speedup);
      spx_json_double (&json, "max_rel_err", r->librsb.max_rel_err);
      spx_json_end_object (&json);
      spx_json_end_object (&json);
    }
  spx_json_end_object (&json);
  g_autofree char *text = spx_json_finish (&json);
  printf ("%s\n", text);
}

static void
print_row (const char *name, const SpxBenchTiming *t)
{
  if (!t->ran)
    return;
  printf ("%-8s %10.3f %10.1f %9.2f× %10.2f %12.2e\n", name, t->ms, t->gflops,
          t->speedup, t->efficiency, t->max_rel_err);
}

static void
print_table (const SpxBenchResult *r)
{
  printf ("%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT " · n = %" G_GUINT64_FORMAT
          " · %u × %u blocks · density %.4g (%" G_GUINT64_FORMAT " blocks) · "
          "%u threads · %s · median of %u\n\n", r->m, r->k, r->n, r->block,
          r->block, r->density, r->nonzero_blocks, r->threads,
          spx_isa_to_string (r->isa), r->reps);
  printf ("%-8s %10s %10s %10s %10s %12s\n", "", "ms", "GFLOP/s", "speedup",
          "efficiency", "max rel err");
  printf ("%-8s %10.3f %10.1f %9.2f× %10.2f %12s\n", "dense", r->dense.ms,
          r->dense.gflops, 1.0, 1.0, "(reference)");
  print_row ("static", &r->stat);
  print_row ("dynamic", &r->dyn);
  print_row ("librsb", &r->librsb);
  if (r->stat.ran)
    printf ("\nstatic plan built in %.2f ms, %.1f KiB\n", r->stat.plan_ms,
            r->stat.plan_bytes / 1024.0);
  printf ("sparse GFLOP/s count non-zeros only; efficiency = sparse GFLOP/s ÷ "
          "dense GFLOP/s\n");
}

/* Say when the baseline cannot be trusted (kernels.md, measuring fairly). */
static void
warn_unfair (const SpxBenchResult *r)
{
  if (!r->dense_openmp)
    fprintf (stderr, "sparse-explorer bench: warning: OpenBLAS is not its "
             "OpenMP build; its spinning threads slow the sparse kernels\n");
  /* Small products never reach full speed: judge only real work. */
  double flop = 2.0 * r->m * r->k * r->n;
  if (flop >= 1e9 && r->dense.gflops / r->threads < DENSE_GFLOPS_PER_THREAD_FLOOR)
    fprintf (stderr, "sparse-explorer bench: warning: dense sgemm ran at only "
             "%.0f GFLOP/s per thread: the machine is busy or the harness is "
             "unfair; ratios are unreliable\n", r->dense.gflops / r->threads);
}

static gboolean
show_progress (guint done, guint total, gpointer user_data)
{
  fprintf (stderr, "\r%u/%u runs", done, total);
  if (done == total)
    fprintf (stderr, "\r\033[K");
  return TRUE;
}

static int
run (gconstpointer data)
{
  const BenchArgs *a = data;
  guint64 n, block;
  SpxBenchOptions options;
  if (!a->n || !a->block)
    return spx_cli_usage_error (CMD, "%s is required", a->n ? "--block" : "--n");
  if (!spx_cli_uint (CMD, "--n", a->n, 1, SPX_MASK_MAX_DIM, &n) ||
      !spx_cli_uint (CMD, "--block", a->block, 1, SPX_MASK_MAX_BLOCK, &block) ||
      !parse_options (a, &options))
    return SPX_EXIT_USAGE;
  int status;
  g_autoptr (SpxMask) mask = spx_cli_mask_args_build (&a->source, CMD,
                                                      (guint) block, &status);
  if (mask == NULL)
    return status;
  if (isatty (STDERR_FILENO))
    options.progress = show_progress;

  SpxBenchResult result;
  g_autoptr (GError) error = NULL;
  if (!spx_bench_run (mask, n, &options, &result, &error))
    return error->code == SPX_ENGINE_ERROR_INVALID
             ? spx_cli_usage_error (CMD, "%s", error->message)
             : spx_cli_input_error (CMD, error);
  warn_unfair (&result);
  if (a->json)
    print_json (&result);
  else
    print_table (&result);
  return SPX_EXIT_OK;
}

int
spx_cli_bench (int argc, char **argv)
{
  BenchArgs a = { 0 };
  GOptionEntry entries[] = {
    { "n", 'n', 0, G_OPTION_ARG_STRING, &a.n, "Columns of B and C (required)", "N" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &a.block, "Block size (required)", "B" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &a.mode,
      "static, dynamic or both (default both)", "MODE" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &a.threads,
      "Threads for every contestant (default: all cores)", "T" },
    { "reps", 'r', 0, G_OPTION_ARG_STRING, &a.reps, "Timed runs each (default 7)", "R" },
    { "warmup", 'w', 0, G_OPTION_ARG_STRING, &a.warmup, "Untimed runs first (default 2)", "W" },
    { "peers", 0, 0, G_OPTION_ARG_NONE, &a.peers, "Also run librsb", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &a.json, "Print one JSON object", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_option_context_set_summary (context, "Multiply a block-sparse A by a "
                                "random dense B with static and dynamic plans "
                                "and with dense OpenBLAS sgemm, alternately in "
                                "one process; report medians, speedups and "
                                "errors. SPX_ISA=avx512|avx2|generic forces "
                                "the kernels' instruction set.");
  g_option_context_add_main_entries (context, entries, NULL);
  spx_cli_mask_args_add (&a.source, context);
  int status = spx_cli_parse_and_run (CMD, context, argc, argv, run, &a);
  bench_args_clear (&a);
  return status;
}
