/* spx-bench-noise.c: judging a measurement: whether other programs, a
 * slowed dense or a wide spread make its ratios no result, said in words */
#include "spx-bench-private.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

/* The efficiency the rounds still allow at their least: at the lower
 * quartile of the per-round ratios. A kernel that really runs at dense's
 * rate (1.0, as at b16) lands on either side of 1 by that spread alone. */
static double
efficiency_low (const SpxBenchTiming *t)
{
  if (t->speedup_q1 > 0 && t->speedup > 0)
    return t->efficiency * MIN (1.0, t->speedup_q1 / t->speedup);
  return t->efficiency;
}

/* The interquartile range of [q1, q3] around median m, relative to m. */
static double
relative_spread (double q1, double m, double q3)
{
  return m > 0 && q1 > 0 && q3 >= q1 ? (q3 - q1) / m : 0;
}

void
spx_bench_judge (SpxBenchResult *r, double best_dense_gflops)
{
  double dense_flop = 2.0 * r->m * r->k * r->n;
  if (best_dense_gflops <= 0 && r->dense.ms_best > 0)
    best_dense_gflops = dense_flop / (r->dense.ms_best * 1e6);
  /* the cores our threads needed that others took */
  double spare = r->cpus > r->threads ? r->cpus - r->threads : 0;
  SpxNoise shared = r->busy_cores - spare > SPX_NOISE_BUSY_CORES
                      ? SPX_NOISE_BUSY : SPX_NOISE_NONE;
  r->dense.noise = shared;
  if (r->dense.gflops < (1 - SPX_NOISE_DENSE_DROP) * best_dense_gflops)
    r->dense.noise |= SPX_NOISE_DENSE_SLOW;
  if (relative_spread (r->dense.ms_q1, r->dense.ms, r->dense.ms_q3) >
      SPX_NOISE_MAX_SPREAD)
    r->dense.noise |= SPX_NOISE_SPREAD;
  SpxBenchTiming *sparse[SPX_BENCH_SPARSE_TIMINGS];
  _spx_bench_sparse_timings (r, sparse);
  for (guint i = 0; i < G_N_ELEMENTS (sparse); i++)
    {
      SpxBenchTiming *t = sparse[i];
      /* a dense peer may well beat our dense's GFLOP/s */
      gboolean dense = t == &r->peers[SPX_PEER_TORCH_DENSE].t;
      t->noise = t->ran ? r->dense.noise : SPX_NOISE_NONE;
      if (t->ran && !dense && efficiency_low (t) >
                                SPX_NOISE_MAX_EFFICIENCY +
                                SPX_NOISE_EFFICIENCY_SLACK)
        t->noise |= SPX_NOISE_EFFICIENCY;
      if (t->ran && relative_spread (t->speedup_q1, t->speedup,
                                     t->speedup_q3) > SPX_NOISE_MAX_SPREAD)
        t->noise |= SPX_NOISE_SPREAD;
    }
  /* the runner's peers ran after ours: judged on their own window too */
  for (guint i = SPX_PEER_FIRST_RUNNER; i < SPX_N_PEERS; i++)
    {
      SpxBenchPeer *p = &r->peers[i];
      double free_cores = r->cpus > p->threads ? r->cpus - p->threads : 0;
      if (p->t.ran && p->busy_cores - free_cores > SPX_NOISE_BUSY_CORES)
        p->t.noise |= SPX_NOISE_BUSY;
    }
}

SpxNoise
spx_bench_noise (const SpxBenchResult *r)
{
  SpxNoise noise = r->dense.noise | r->stat.noise | r->dyn.noise |
                   r->tilewise.noise;
  for (guint i = 0; i < SPX_N_PEERS; i++)
    noise |= r->peers[i].t.noise;
  return noise;
}

static const char *const noise_names[] = { "efficiency", "dense-slow",
                                           "busy", "spread" };

char *
spx_noise_to_string (SpxNoise noise)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (noise_names); i++)
    if (noise & (1u << i))
      g_string_append_printf (out, "%s%s", out->len ? "," : "",
                              noise_names[i]);
  return g_string_free (out, FALSE);
}

gboolean
spx_noise_from_string (const char *text, SpxNoise *noise)
{
  g_auto (GStrv) words = g_strsplit (text, ",", -1);
  *noise = SPX_NOISE_NONE;
  for (guint w = 0; words[w] != NULL && *text != '\0'; w++)
    {
      guint i = 0;
      while (i < G_N_ELEMENTS (noise_names) &&
             !g_str_equal (words[w], noise_names[i]))
        i++;
      if (i == G_N_ELEMENTS (noise_names))
        return FALSE;
      *noise |= 1u << i;
    }
  return TRUE;
}

char *
spx_noise_advice (SpxNoise noise, guint threads)
{
  if (threads == 0) /* all cores */
    threads = (guint) MAX (1, sysconf (_SC_NPROCESSORS_ONLN));
  const char *what =
    noise & SPX_NOISE_BUSY
      ? "other programs were using the processor while it measured"
    : noise & SPX_NOISE_EFFICIENCY
      ? "a sparse kernel beat 1/density, which only a slowed dense can do"
    : noise & SPX_NOISE_SPREAD
      ? "some rounds ran much slower than others (other programs came and "
        "went)"
      : "dense ran well below its best speed";
  g_autofree char *fewer = threads > 1
    ? g_strdup_printf (", or measure on fewer threads (%u)", threads / 2)
    : g_strdup ("");
  return g_strdup_printf ("%s: the ratios are not results. For a clean "
                          "measurement, close other programs and run it "
                          "again%s.", what, fewer);
}
