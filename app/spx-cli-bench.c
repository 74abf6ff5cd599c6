/* spx-cli-bench.c: `sparse-explorer bench`: the CPU engine against dense
 * OpenBLAS, measured in one process */
#include "spx-cli.h"
#include "spx-engine-probe.h"
#include "spx-engine-tune.h"
#include "spx-cli-signal.h"
#include "spx-cli-study.h"
#include "spx-bench.h"
#include "spx-json.h"
#include "spx-util.h"

#include <stdio.h>
#include <unistd.h>

#define CMD "bench"
/* --peer-timeout: up to a day */
#define PEER_TIMEOUT_MAX (24 * 3600)
/* Below this per thread, dense sgemm is not at full speed on a modern
 * core and the comparison says more about the harness than the kernels. */
#define DENSE_GFLOPS_PER_THREAD_FLOOR 50.0

/* bench's options: see spx-cli-options.h */
#define BENCH_OPTIONS(O) \
  O (op, 0, TEXT, "OP", \
     "spmm (A·B) or sddmm (P·Qᵀ sampled by the mask, kd = n) (default " \
     "spmm)", NULL) \
  O (mode, 0, TEXT, "MODE", spx_cli_keep_printf ( \
     "The plans measured against dense: %s; several separated by commas; " \
     "tilewise is a dense sgemm per column tile of --tile-width (default " \
     "%s; dense always runs)", modes, default_modes), \
     "both is read as static,dynamic.") \
  O (dtype, 0, TEXT, "T", \
     "The numbers: fp32, or bf16 (fp16 is run as bf16: this CPU has no " \
     "fp16 arithmetic) against the fastest dense of those values " \
     "(default: the --scenario's, else fp32)", \
     "In bf16 every operand is rounded to bf16 and the sums are fp32; " \
     "tile-wise and --peers run fp32 only.") \
  O (threads, 't', TEXT, "T", \
     spx_cli_threads_help ("Threads for every contestant"), NULL) \
  O (no_tune, 0, FLAG, NULL, SPX_CLI_NO_TUNE_HELP, NULL) \
  O (reps, 'r', TEXT, "R", \
     spx_cli_keep_printf ("Timed runs each (default %u)", d.reps), NULL) \
  O (warmup, 'w', TEXT, "W", \
     spx_cli_keep_printf ("Untimed runs first (default %u)", d.warmup), \
     NULL) \
  O (peers, 0, FLAG, NULL, \
     "Also run librsb, LIBXSMM, SuiteSparse:GraphBLAS, Eigen, PyTorch " \
     "(CSR, dense) and SciPy (CSR, BSR)", \
     "One not installed (or not built in) is reported with a note, not as " \
     "an error.") \
  O (peer_timeout, 0, TEXT, "S", spx_cli_keep_printf ( \
     "With --peers: stop a Python peer still running after S seconds and " \
     "report it failed (default %u); one printing more than " \
     SPX_PEERS_OUTPUT_MAX_ENV " bytes (default %s) is stopped too", \
     d.peer_timeout_s, output_max), \
     "One answering NaN or infinity fails. Ctrl-C (or SIGTERM) stops the " \
     "peer under way and removes its files; the command then exits 130 " \
     "(143).") \
  O (probe, 0, FLAG, NULL, "Then measure what bounds each kernel here " \
     "(its instructions' peak, L2's bandwidth) and how near it runs", \
     NULL) \
  O (json, 0, FLAG, NULL, "Print one JSON object", NULL)

typedef struct {
  SpxCliStudyArgs study;
  SPX_CLI_FIELDS (BENCH_OPTIONS)
} BenchArgs;

/* The modes run when --mode is not given. */
#define DEFAULT_MODES (SPX_CLI_MODE (SPX_SWEEP_STATIC) | \
                       SPX_CLI_MODE (SPX_SWEEP_DYNAMIC))

/* Dense always runs, the reference. SDDMM has one sparse plan, static:
 * "all" (and the default) leave the others out; naming them is
 * refused. */
static gboolean
parse_mode (const char *text, SpxBenchOptions *options)
{
  guint modes = DEFAULT_MODES, named = 0;
  guint other = SPX_CLI_MODE (SPX_SWEEP_DYNAMIC) |
                SPX_CLI_MODE (SPX_SWEEP_TILEWISE);
  if (text != NULL && !spx_cli_modes_parse (CMD, "--mode", text,
                                            SPX_CLI_MODES_CPU, TRUE, &modes,
                                            &named))
    return FALSE;
  if (options->op == SPX_BENCH_OP_SDDMM)
    {
      if (named & other)
        return spx_cli_usage_error (CMD, "--mode %s: SDDMM has only a "
                                    "static plan (use static or all)", text),
               FALSE;
      modes &= ~other;
    }
  /* bf16: tile-wise (fp32 sgemms only) is left out of "all", refused by
   * name */
  guint tilewise = SPX_CLI_MODE (SPX_SWEEP_TILEWISE);
  if (options->engine.type == SPX_CPU_BF16 && (named & tilewise))
    return spx_cli_usage_error (CMD, "--mode %s: tile-wise runs fp32 only "
                                "(use --dtype fp32)", text), FALSE;
  if (options->engine.type == SPX_CPU_BF16)
    modes &= ~tilewise;
  options->run_static = (modes & SPX_CLI_MODE (SPX_SWEEP_STATIC)) != 0;
  options->run_dynamic = (modes & SPX_CLI_MODE (SPX_SWEEP_DYNAMIC)) != 0;
  options->run_tilewise = (modes & SPX_CLI_MODE (SPX_SWEEP_TILEWISE)) != 0;
  return TRUE;
}

static gboolean
parse_op (const char *text, SpxBenchOptions *options)
{
  if (text == NULL || spx_bench_op_parse (text, &options->op))
    return TRUE;
  spx_cli_usage_error (CMD, "--op: expected spmm or sddmm, got '%s'", text);
  return FALSE;
}

/* --dtype, else the scenario's when one was given, else fp32. */
static gboolean
parse_dtype (const BenchArgs *a, const SpxScenario *sc, SpxBenchOptions *o)
{
  SpxDtype dtype = a->study.scenario != NULL ? sc->dtype : SPX_DTYPE_FP32;
  if (a->dtype != NULL && !spx_dtype_from_string (a->dtype, &dtype))
    return spx_cli_usage_error (CMD, "--dtype: expected %s, got '%s'",
                                spx_dtype_names (), a->dtype), FALSE;
  o->engine.type = spx_bench_cpu_type (dtype);
  if (o->engine.type == SPX_CPU_BF16 && o->run_peers)
    return spx_cli_usage_error (CMD, "--dtype %s: --peers runs fp32 only "
                                "(use --dtype fp32)",
                                spx_dtype_to_string (dtype)), FALSE;
  return TRUE;
}

static gboolean
parse_options (const BenchArgs *a, const SpxScenario *sc,
               SpxBenchOptions *o)
{
  guint64 v;
  guint threads = sc->threads;
  g_autoptr (GError) error = NULL;
  spx_bench_options_init (o);
  if (!parse_op (a->op, o))
    return FALSE;
  o->engine.threads = threads; /* the scenario's, unless --threads */
  if (!spx_isa_from_env (&o->engine.isa, &o->engine.pick, &error))
    {
      spx_cli_usage_error (CMD, "%s", error->message);
      return FALSE;
    }
  o->run_peers = a->peers;
  if (a->peers && o->op == SPX_BENCH_OP_SDDMM)
    {
      spx_cli_usage_error (CMD, "--peers: the peers multiply sparse by "
                           "dense; none runs SDDMM (use --op spmm)");
      return FALSE;
    }
  if (a->peer_timeout && !a->peers)
    return spx_cli_usage_error (CMD, "--peer-timeout: only with --peers"),
           FALSE;
  if (a->peer_timeout)
    {
      if (!spx_cli_uint (CMD, "--peer-timeout", a->peer_timeout, 1,
                         PEER_TIMEOUT_MAX, &v))
        return FALSE;
      o->peer_timeout_s = (guint) v;
    }
  /* more than the processors can run are refused before OpenBLAS would
   * try to start them */
  if (a->threads && !spx_cli_threads (CMD, a->threads, &o->engine.threads))
    return FALSE;
  spx_tune_set_measuring (!a->no_tune);
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
  return parse_dtype (a, sc, o) && parse_mode (a->mode, o);
}

/* The spread and the verdict every contestant carries. */
static void
json_spread (SpxJson *json, const SpxBenchTiming *t)
{
  spx_json_double (json, "ms_q1", t->ms_q1);
  spx_json_double (json, "ms_q3", t->ms_q3);
  if (t->speedup_q1 > 0)
    {
      spx_json_double (json, "speedup_q1", t->speedup_q1);
      spx_json_double (json, "speedup_q3", t->speedup_q3);
    }
  spx_json_bool (json, "noisy", t->noise != SPX_NOISE_NONE);
  g_autofree char *why = spx_noise_to_string (t->noise);
  spx_json_string (json, "noise", why);
}

static void
json_timing (SpxJson *json, const char *key, const SpxBenchTiming *t,
             const char *kernel, SpxKernelChoice choice,
             const SpxKernelBound *bound, gboolean is_static)
{
  spx_json_begin_object (json, key);
  spx_json_double (json, "ms", t->ms);
  if (kernel != NULL)
    {
      spx_json_string (json, "kernel", kernel);
      spx_json_string (json, "kernel_choice",
                       spx_kernel_choice_to_string (choice));
    }
  if (is_static)
    spx_json_double (json, "plan_ms", t->plan_ms);
  spx_json_double (json, "nz_gflops", t->gflops);
  spx_json_double (json, "speedup", t->speedup);
  spx_json_double (json, "efficiency", t->efficiency);
  spx_json_double (json, "max_rel_err", t->max_rel_err);
  if (is_static)
    spx_json_uint (json, "plan_bytes", t->plan_bytes);
  json_spread (json, t);
  if (bound != NULL)
    {
      spx_json_begin_object (json, "bound");
      spx_json_string (json, "name", spx_bound_name (bound->by));
      spx_json_double (json, "gflops", bound->gflops);
      spx_json_double (json, "fraction", t->gflops / bound->gflops);
      spx_json_end_object (json);
    }
  spx_json_end_object (json);
}

/* Each dense library: its timing and what it ran, or why it did not;
 * keyed by its name in lower case, "oneDNN bf16" as "onednn-bf16". */
static void
json_dense_library (SpxJson *json, SpxDenseId id, const SpxBenchDense *d)
{
  g_autofree char *key = g_ascii_strdown (spx_dense_name (id), -1);
  g_strdelimit (key, " ", '-');
  spx_json_begin_object (json, key);
  spx_json_bool (json, "ran", d->t.ran);
  if (d->t.ran)
    {
      spx_json_double (json, "ms", d->t.ms);
      spx_json_double (json, "gflops", d->t.gflops);
      spx_json_double (json, "speedup", d->t.speedup);
      spx_json_double (json, "max_rel_err", d->t.max_rel_err);
      json_spread (json, &d->t);
      spx_json_string (json, "version", id == SPX_DENSE_OPENBLAS
                                        ? spx_dense_config (NULL)
                                        : spx_dense_onednn_version ());
      spx_json_string (json, "kernel", d->kernel);
    }
  if (d->note[0] != '\0')
    spx_json_string (json, "note", d->note);
  spx_json_end_object (json);
}

static void
json_dense (SpxJson *json, const SpxBenchResult *r)
{
  spx_json_begin_object (json, "dense");
  spx_json_string (json, "library", r->dense_library);
  if (r->dense_note[0] != '\0')
    spx_json_string (json, "note", r->dense_note);
  spx_json_double (json, "ms", r->dense.ms);
  spx_json_double (json, "gflops", r->dense.gflops);
  json_spread (json, &r->dense);
  spx_json_string (json, "core", r->dense_core);
  if (spx_dense_core_requested () != NULL)
    spx_json_string (json, "core_requested", spx_dense_core_requested ());
  spx_json_bool (json, "full_speed", spx_dense_better_coretype () == NULL);
  spx_json_begin_object (json, "libraries");
  for (SpxDenseId id = 0; id < SPX_N_DENSE; id++)
    json_dense_library (json, id, &r->denses[id]);
  spx_json_end_object (json);
  spx_json_end_object (json);
}

/* --peers was given: every peer ran or has a note. */
static gboolean
peers_asked (const SpxBenchResult *r)
{
  for (guint i = 0; i < SPX_N_PEERS; i++)
    if (r->peers[i].t.ran || r->peers[i].note[0] != '\0')
      return TRUE;
  return FALSE;
}

/* "peers": one object per peer, keyed by its name ("peers.librsb" as
 * before). */
static void
json_peers (SpxJson *json, const SpxBenchResult *r)
{
  spx_json_begin_object (json, "peers");
  for (guint i = 0; i < SPX_N_PEERS; i++)
    {
      const SpxBenchPeer *p = &r->peers[i];
      spx_json_begin_object (json, spx_peer_name (i));
      spx_json_string (json, "name", spx_peer_name (i));
      spx_json_bool (json, "ran", p->t.ran);
      spx_json_bool (json, "failed", p->failed);
      spx_json_string (json, "note", p->note);
      if (p->t.ran)
        {
          spx_json_double (json, "ms", p->t.ms);
          spx_json_double (json, "gflops", p->t.gflops);
          spx_json_double (json, "speedup", p->t.speedup);
          spx_json_uint (json, "threads", p->threads);
          spx_json_double (json, "max_rel_err", p->t.max_rel_err);
          spx_json_string (json, "version", p->version);
          if (p->once_ms >= 0)
            spx_json_double (json, "plain_ms", p->once_ms);
          if (i >= SPX_PEER_FIRST_RUNNER && p->busy_cores >= 0)
            spx_json_double (json, "busy_cores", p->busy_cores);
          json_spread (json, &p->t);
        }
      spx_json_end_object (json);
    }
  spx_json_end_object (json);
}

/* r's blocks, edge blocks counted. */
static guint64
total_blocks (const SpxBenchResult *r)
{
  return ((r->m + r->block - 1) / r->block) *
         ((r->k + r->block - 1) / r->block);
}

/* The fraction of r's blocks that hold a non-zero. */
static double
block_density (const SpxBenchResult *r)
{
  return (double) r->nonzero_blocks / (double) total_blocks (r);
}

/* density: of W's elements (a file's before blocking), beside the
 * block density its blocks give. */
/* What bounds the static and dynamic kernels, when --probe measured it. */
typedef struct {
  gboolean       probed;
  SpxProbe       probe;
  gboolean       has[2];
  SpxKernelBound bound[2]; /* static, dynamic */
} Bounds;

static void
find_bounds (const SpxBenchResult *r, gboolean probe, Bounds *b)
{
  memset (b, 0, sizeof *b);
  b->probed = probe;
  if (!probe)
    return;
  spx_probe_run (&b->probe, r->threads, r->k, r->n, r->type);
  const char *kernels[2] = { r->stat_kernel, r->dyn_kernel };
  const gboolean ran[2] = { r->stat.ran, r->dyn.ran };
  for (guint i = 0; i < 2; i++)
    b->has[i] = ran[i] && spx_probe_kernel_bound (&b->probe, kernels[i],
                                                  r->type, r->block,
                                                  &b->bound[i]);
}

static void
print_json (const SpxBenchResult *r, double density, const Bounds *b)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_string (&json, "op", spx_bench_op_name (r->op));
  spx_json_string (&json, "dtype", spx_cpu_type_name (r->type));
  spx_json_uint (&json, "m", r->m);
  spx_json_uint (&json, "k", r->k);
  spx_json_uint (&json, "n", r->n);
  spx_json_uint (&json, "block", r->block);
  spx_json_double (&json, "density", density);
  spx_json_double (&json, "block_density", block_density (r));
  spx_json_uint (&json, "nonzero_blocks", r->nonzero_blocks);
  spx_json_uint (&json, "threads", r->threads);
  spx_json_string (&json, "isa", spx_isa_to_string (r->isa));
  spx_json_uint (&json, "reps", r->reps);
  spx_json_uint (&json, "warmup", r->warmup);
  g_autofree char *noise = spx_noise_to_string (spx_bench_noise (r));
  spx_json_string (&json, "noise", noise);
  if (r->busy_cores >= 0)
    spx_json_double (&json, "busy_cores", r->busy_cores);
  json_dense (&json, r);
  if (r->stat.ran)
    json_timing (&json, "static", &r->stat, r->stat_kernel, r->choice,
                 b->has[0] ? &b->bound[0] : NULL, TRUE);
  if (r->dyn.ran)
    json_timing (&json, "dynamic", &r->dyn, r->dyn_kernel, r->choice,
                 b->has[1] ? &b->bound[1] : NULL, FALSE);
  if (r->tilewise.ran)
    {
      json_timing (&json, "tilewise", &r->tilewise, NULL, 0, NULL, TRUE);
      spx_json_double (&json, "tilewise_fill", r->tilewise_fill);
    }
  if (peers_asked (r))
    json_peers (&json, r);
  spx_json_end_object (&json);
  g_autofree char *text = spx_json_finish (&json);
  spx_cli_line (stdout, "%s", text);
}

/* Both rates of every row, from its time: the whole 2·m·k·n as if A
 * were dense, and the non-zeros' share of it. tail: after the table's
 * columns ("" for none). */
static void
print_row (const SpxBenchResult *r, const char *name, const SpxBenchTiming *t,
           const char *extra, const char *tail)
{
  if (!t->ran)
    return;
  g_autofree char *spread = g_strdup_printf ("%.3f–%.3f", t->ms_q1, t->ms_q3);
  /* the per-round ratios' middle half; dense rows have none */
  g_autofree char *ratios = t->speedup_q1 > 0 && t->speedup != 1.0
    ? g_strdup_printf ("%.2f–%.2f", t->speedup_q1, t->speedup_q3)
    : g_strdup ("");
  double dense_eq = 2.0 * r->m * r->k * r->n / (t->ms * 1e6);
  spx_cli_line (stdout, "%-11s %10.3f %17s %10.1f %10.1f %9.2f× %13s "
                "%10.2f %12s%s%s", name,
          t->ms, spread, dense_eq, dense_eq * r->density, t->speedup,
          ratios, t->efficiency, extra, tail, t->noise ? "  noisy" : "");
}

/* A row per dense library, the reference marked; the error of each
 * other is against OpenBLAS's C (bf16's is its inputs' rounding). */
static void
print_dense_rows (const SpxBenchResult *r)
{
  for (SpxDenseId id = 0; id < SPX_N_DENSE; id++)
    {
      const SpxBenchDense *d = &r->denses[id];
      const char *name = spx_dense_name (id);
      gboolean chosen = g_strcmp0 (r->dense_library, name) == 0;
      /* OpenBLAS's C is what every error is measured against */
      g_autofree char *err = id == SPX_DENSE_OPENBLAS
        ? g_strdup (chosen ? "(reference)" : "—")
        : g_strdup_printf ("%.2e%s", d->t.max_rel_err,
                           chosen ? " (ref.)" : "");
      SpxBenchTiming t = d->t;
      t.noise = chosen ? r->dense.noise : SPX_NOISE_NONE;
      print_row (r, name, &t, err, "");
      if (!d->t.ran && d->note[0] != '\0')
        spx_cli_line (stdout, "%-11s not run: %s", name, d->note);
    }
}

/* A row per peer: its timing, threads and version, or why it did not
 * run. */
static void
print_peers (const SpxBenchResult *r)
{
  for (guint i = 0; i < SPX_N_PEERS; i++)
    {
      const SpxBenchPeer *p = &r->peers[i];
      g_autofree char *err = g_strdup_printf ("%.2e", p->t.max_rel_err);
      g_autofree char *threads = spx_count_text (p->threads, "thread",
                                                 "threads");
      g_autofree char *how = g_strdup_printf ("  %s, %s", threads,
                                              p->version);
      if (p->t.ran)
        print_row (r, spx_peer_name (i), &p->t, err, how);
      else if (p->note[0] != '\0')
        spx_cli_line (stdout, "%-11s %s: %s", spx_peer_name (i),
                      p->failed ? "failed" : "not run", p->note);
    }
}

/* How the peers ran, and what each that ran did (its note). */
static void
print_peer_notes (const SpxBenchResult *r)
{
  spx_cli_line (stdout, "peers: librsb, libxsmm, graphblas and eigen "
                "alternate with ours; the others run after, each in a "
                "Python process timing its own runs");
  for (guint i = 0; i < SPX_N_PEERS; i++)
    if (r->peers[i].t.ran && r->peers[i].note[0] != '\0')
      {
        const SpxBenchPeer *p = &r->peers[i];
        g_autofree char *once = p->once_ms >= 0
          ? g_strdup_printf ("; the plain call (no accumulator, a new C) "
                             "took %.3f ms once", p->once_ms)
          : g_strdup ("");
        spx_cli_line (stdout, "  %s: %s%s", spx_peer_name (i), p->note,
                      once);
      }
}

/* Which dense every ratio is over, and what each library ran. */
static void
print_dense_note (const SpxBenchResult *r)
{
  const SpxBenchDense *f32 = &r->denses[SPX_DENSE_ONEDNN];
  const SpxBenchDense *bf16 = &r->denses[SPX_DENSE_ONEDNN_BF16];
  g_autofree char *onednn = f32->t.ran || bf16->t.ran
    ? g_strdup_printf ("; %s ran %s (f32), %s (bf16)",
                       spx_dense_onednn_version (),
                       f32->t.ran ? f32->kernel : "nothing",
                       bf16->t.ran ? bf16->kernel : "nothing")
    : g_strdup ("");
  if (r->type == SPX_CPU_BF16 && r->dense_note[0] == '\0')
    spx_cli_line (stdout, "dense: oneDNN's bf16 matmul is the reference; "
                  "OpenBLAS ran its %s kernel%s. Every operand was rounded "
                  "to bf16; errors are against OpenBLAS on those values",
                  r->dense_core, onednn);
  else if (r->type == SPX_CPU_BF16)
    spx_cli_line (stdout, "dense: %s; OpenBLAS ran its %s kernel%s",
                  r->dense_note, r->dense_core, onednn);
  else
    spx_cli_line (stdout, "dense: the faster fp32 library is the reference "
                  "(%s); OpenBLAS ran its %s kernel%s. bf16 dense is shown "
                  "for a bf16 deployment (bench --dtype bf16 runs the "
                  "sparse plans in bf16 against it)", r->dense_library,
                  r->dense_core, onednn);
}

/* The probe's rates, and each kernel's share of what bounds it. */
static void
print_bounds (const SpxBenchResult *r, const Bounds *b)
{
  if (!b->probed)
    return;
  g_autoptr (GString) rates = g_string_new (NULL);
  for (SpxBoundId id = 0; id < SPX_N_BOUNDS; id++)
    if (b->probe.rate[id] > 0)
      g_string_append_printf (rates, "%s%s %.0f %s", rates->len ? ", " : "",
                              spx_bound_name (id), b->probe.rate[id],
                              id >= SPX_BOUND_L2 ? "GB/s" : "GFLOP/s");
  g_autofree char *threads = spx_count_text (b->probe.threads, "thread",
                                             "threads");
  fputc ('\n', stdout);
  spx_cli_line (stdout, "probe (%s): %s", threads, rates->str);
  const char *names[2] = { "static", "dynamic" };
  const char *kernels[2] = { r->stat_kernel, r->dyn_kernel };
  const SpxBenchTiming *t[2] = { &r->stat, &r->dyn };
  for (guint i = 0; i < 2; i++)
    if (b->has[i])
      spx_cli_line (stdout, "%s (%s, %s): %.0f%% of its bound, %s at %.0f "
                    "GFLOP/s; efficiency %.2f of dense", names[i],
                    kernels[i], spx_kernel_choice_to_string (r->choice),
                    100 * t[i]->gflops / b->bound[i].gflops,
                    spx_bound_name (b->bound[i].by), b->bound[i].gflops,
                    t[i]->efficiency);
}

static void
print_table (const SpxBenchResult *r, double density, const Bounds *b)
{
  gboolean sddmm = r->op == SPX_BENCH_OP_SDDMM;
  g_autofree char *threads = spx_count_text (r->threads, "thread",
                                             "threads");
  if (sddmm)
    spx_cli_line (stdout, "SDDMM: the entries of P·Qᵀ the mask keeps (P %"
                  G_GUINT64_FORMAT " × kd, Q %" G_GUINT64_FORMAT " × kd, kd "
                  "= n); dense is sgemm of P·Qᵀ, then the kept blocks picked "
                  "out", r->m, r->k);
  spx_cli_line (stdout, "%" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT " · n "
                "= %" G_GUINT64_FORMAT " · %u × %u blocks · density %.4g (%"
                G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " blocks) · %s · "
                "%s · %s · median of %u", r->m, r->k, r->n, r->block, r->block,
                density, r->nonzero_blocks, total_blocks (r), threads,
                spx_cpu_type_name (r->type),
                r->stat_kernel[0] ? r->stat_kernel
                                  : spx_isa_to_string (r->isa), r->reps);
  fputc ('\n', stdout);
  spx_cli_line (stdout, "%-11s %10s %17s %10s %10s %10s %13s", "", "", "",
                "GFLOP/s", "GFLOP/s", "", "ratios'");
  spx_cli_line (stdout, "%-11s %10s %17s %10s %10s %10s %13s %10s %12s", "",
                "ms", "middle half", "dense-eq.", "non-zero", "speedup",
                "middle half", "efficiency", "max rel err");
  print_dense_rows (r);
  const SpxBenchTiming *rows[] = { &r->stat, &r->dyn, &r->tilewise };
  const char *names[] = { "static", "dynamic", "tile-wise" };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *err = g_strdup_printf ("%.2e", rows[i]->max_rel_err);
      print_row (r, names[i], rows[i], err, "");
    }
  print_peers (r);
  if (sddmm || r->stat.ran)
    fputc ('\n', stdout);
  if (sddmm)
    spx_cli_line (stdout, "static: spx_sddmm, packing Q inside each timed "
                  "run; dynamic: not applicable to SDDMM");
  else if (r->stat.ran)
    spx_cli_line (stdout, "static plan built in %.2f ms, %.1f KiB",
                  r->stat.plan_ms, r->stat.plan_bytes / 1024.0);
  if (r->tilewise.ran)
    spx_cli_line (stdout, "tile-wise plan: a dense sgemm per tile of %u "
                  "columns on its kept rows, built in %.2f ms, %.1f KiB; "
                  "%.0f%% of what it computes is non-zero", r->tile_width,
                  r->tilewise.plan_ms, r->tilewise.plan_bytes / 1024.0,
                  100 * r->tilewise_fill);
  print_dense_note (r);
  spx_cli_line (stdout, "dense-eq. GFLOP/s: 2·m·k·n per second, as if A "
                "were dense; non-zero GFLOP/s: the non-zeros' 2·nnz·n; "
                "speedup: the median over rounds of dense's time ÷ this "
                "one's in the same round (their middle half beside it); "
                "efficiency: speedup × density.");
  if (peers_asked (r))
    print_peer_notes (r);
  print_bounds (r, b);
}

/* Say when the baseline cannot be trusted (the README's "Measuring
 * fairly"). */
static void
warn_unfair (const SpxBenchResult *r)
{
  if (!r->dense_openmp)
    spx_cli_line (stderr, "sparse-explorer bench: warning: OpenBLAS is not "
                  "its OpenMP build; its spinning threads slow the sparse "
                  "kernels");
  const char *better = spx_dense_better_coretype ();
  if (better != NULL)
    spx_cli_line (stderr, "sparse-explorer bench: warning: OpenBLAS runs its "
                  "%s kernel, weaker than this processor's %s "
                  "(OPENBLAS_CORETYPE); dense is slowed and every speedup "
                  "inflated", r->dense_core, better);
  else if (spx_dense_core_requested () != NULL)
    spx_cli_line (stderr, "sparse-explorer bench: note: OPENBLAS_CORETYPE=%s "
                  "asks for a weaker kernel than this processor runs; dense "
                  "was measured with %s (set %s=1 to keep yours)",
                  spx_dense_core_requested (), r->dense_core,
                  SPX_KEEP_CORETYPE_ENV);
  /* Small products never reach full speed: judge only real work. */
  double flop = 2.0 * r->m * r->k * r->n;
  if (flop >= 1e9 && r->dense.gflops / r->threads < DENSE_GFLOPS_PER_THREAD_FLOOR)
    spx_cli_line (stderr, "sparse-explorer bench: warning: dense sgemm ran "
                  "at only %.0f GFLOP/s per thread: the machine is busy or "
                  "the harness is unfair; ratios are unreliable",
                  r->dense.gflops / r->threads);
  SpxNoise noise = spx_bench_noise (r);
  if (noise != SPX_NOISE_NONE)
    {
      g_autofree char *advice = spx_noise_advice (noise, r->threads);
      g_autofree char *busy = r->busy_cores >= 0
        ? g_strdup_printf (" (others used %.2f of %u cores)", r->busy_cores,
                           r->cpus)
        : g_strdup ("");
      spx_cli_line (stderr, "sparse-explorer bench: warning: noisy%s: %s",
                    busy, advice);
    }
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
  SpxBenchOptions options;
  int status;
  g_autoptr (SpxStudy) study = spx_cli_study_args_build (&a->study, CMD,
                                                        NULL, &status);
  if (study == NULL)
    return status;
  const SpxScenario *sc = study->scenario;
  if (a->threads == NULL && !spx_cli_study_check_threads (&a->study, study,
                                                         CMD))
    return SPX_EXIT_INPUT;
  if (!parse_options (a, sc, &options))
    return SPX_EXIT_USAGE;
  options.tile_width = sc->gen.tile_width; /* --tile-width, both uses */
  if (isatty (STDERR_FILENO))
    options.progress = show_progress;

  SpxBenchResult result;
  g_autoptr (GError) error = NULL;
  /* Ctrl-C stops it cleanly: no runner or operands of --peers left */
  SpxCliSignals *signals = spx_cli_signals_catch ();
  gboolean ok = spx_bench_run (sc->mask, sc->n, &options, &result, &error);
  int signum = spx_cli_signals_release (signals);
  if (signum != 0 && options.progress != NULL)
    fprintf (stderr, "\r\033[K"); /* the progress line */
  if (signum != 0)
    return spx_cli_interrupted (CMD, signum);
  /* bad sizes or threads are usage; memory over the budget is the
   * input's (the budget error's codes overlap the engine's) */
  if (!ok)
    return g_error_matches (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID)
             ? spx_cli_usage_error (CMD, "%s", error->message)
             : spx_cli_input_error (CMD, error);
  warn_unfair (&result);
  double density = spx_study_element_density (study);
  Bounds bounds;
  find_bounds (&result, a->probe, &bounds);
  if (a->json)
    print_json (&result, density, &bounds);
  else
    print_table (&result, density, &bounds);
  return SPX_EXIT_OK;
}

SpxCliOptions *
spx_cli_bench_options (void)
{
  SpxCliOptions *o = spx_cli_options_new (NULL, sizeof (BenchArgs));
  BenchArgs *args = spx_cli_options_args (o);
  GOptionContext *context = spx_cli_options_context (o);
  SpxBenchOptions d;
  spx_bench_options_init (&d);
  g_autofree char *modes = spx_cli_modes_words (SPX_CLI_MODES_CPU, TRUE);
  g_autofree char *default_modes = spx_cli_modes_text (DEFAULT_MODES);
  g_autofree char *output_max = spx_format_bytes (
    SPX_PEERS_OUTPUT_MAX_DEFAULT);
  g_option_context_set_summary (context, "Multiply a block-sparse A by a "
                                "random dense B with static and dynamic plans "
                                "and with dense OpenBLAS sgemm and oneDNN matmul, "
                                "alternately in one process (the faster dense "
                                "is the reference); report medians, speedups and "
                                "errors. --op sddmm measures SDDMM instead. SPX_ISA=avx512|avx2|generic forces "
                                "the kernels' instruction set.");
  SPX_CLI_ADD (o, BENCH_OPTIONS, NULL);
  spx_cli_study_args_add (&args->study, o, SPX_CLI_STUDY_SCENARIO |
                          SPX_CLI_STUDY_SHAPE | SPX_CLI_STUDY_PROBLEM |
                          SPX_CLI_STUDY_REQUIRED);
  return o;
}

int
spx_cli_bench (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_bench_options ();
  return spx_cli_parse_and_run (CMD, options, argc, argv, run);
}
