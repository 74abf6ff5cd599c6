/* spx-engine-probe.c: timing the probe's loops on every thread */
#include "spx-engine-probe.h"
#include "spx-engine-private.h"
#include "spx-kernels.h"
#include "spx-probe.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#define PROBE_US 20000   /* each rate timed for about this long */
#define ROUND_ITERS 4096 /* a loop's rounds between looks at the clock */

static const char *const bound_names[SPX_N_BOUNDS] = {
  [SPX_BOUND_FMA_AVX2] = "fp32 FMA (avx2)",
  [SPX_BOUND_FMA_AVX512] = "fp32 FMA (avx512)",
  [SPX_BOUND_DPBF16] = "vdpbf16ps",
  [SPX_BOUND_AMX] = "AMX tiles",
  [SPX_BOUND_L2] = "L2 read",
  [SPX_BOUND_GATHER] = "L2 gather",
};

const char *
spx_bound_name (SpxBoundId id)
{
  return (guint) id < SPX_N_BOUNDS ? bound_names[id] : "";
}

/* The instructions of each bound: what must be supported, its loop. */
typedef double (*PeakLoop) (guint64 iters, float *keep);

static const struct {
  SpxIsa   needs;
  PeakLoop loop;
} peaks[SPX_BOUND_L2] = {
  [SPX_BOUND_FMA_AVX2] = { SPX_ISA_AVX2, spx_probe_fma_avx2 },
  [SPX_BOUND_FMA_AVX512] = { SPX_ISA_AVX512, spx_probe_fma_avx512 },
  [SPX_BOUND_DPBF16] = { SPX_ISA_AVX512_BF16, spx_probe_dpbf16 },
  [SPX_BOUND_AMX] = { SPX_ISA_AMX_BF16, spx_probe_amx },
};

/* Per thread: rounds of the loop until PROBE_US have passed; the sum
 * of the work over the longest thread's time. */
static double
peak_rate (PeakLoop loop, int threads)
{
  double work = 0, longest = 1;
  float keep = 0;
#pragma omp parallel num_threads (threads) reduction (+ : work, keep) \
  reduction (max : longest)
  {
    gint64 t0 = g_get_monotonic_time (), t = t0;
    while (t - t0 < PROBE_US)
      {
        work += loop (ROUND_ITERS, &keep);
        t = g_get_monotonic_time ();
      }
    longest = MAX (longest, (double) (t - t0));
  }
  return isfinite (keep) ? work / longest / 1e3 : 0; /* per µs: GFLOP/s */
}

/* L2: each thread reads a buffer of half of L2 over and over. */
static double
l2_rate (int threads)
{
  gsize n = spx_kernel_l2_bytes () / 2 / sizeof (float);
  double bytes = 0, longest = 1;
  float keep = 0;
#pragma omp parallel num_threads (threads) reduction (+ : bytes, keep) \
  reduction (max : longest)
  {
    float *buf = g_new0 (float, n);
    spx_probe_read_avx512 (buf, n, 1, &keep); /* into L2 first */
    gint64 t0 = g_get_monotonic_time (), t = t0;
    while (t - t0 < PROBE_US)
      {
        bytes += spx_probe_read_avx512 (buf, n, 4, &keep);
        t = g_get_monotonic_time ();
      }
    longest = MAX (longest, (double) (t - t0));
    g_free (buf);
  }
  return isfinite (keep) ? bytes / longest / 1e3 : 0; /* GB/s */
}

#define GATHER_ROWS 4096 /* random rows a round */

/* L2's rate for B's rows read at random, as a b = 1 kernel reads them:
 * each thread gathers rows of a panel shaped as a plan of k × n in type
 * packs (rows of its nc columns, ldp apart), kept in L2. */
static double
gather_rate (int threads, guint64 k, guint64 n, SpxCpuType type)
{
  guint esize = type == SPX_CPU_BF16 ? 2 : 4;
  guint64 nc, ldp;
  spx_schedule_panel_shape (k, n, esize, &nc, &ldp);
  guint vectors = (guint) MIN ((nc * esize + 63) / 64, 16);
  guint64 ld = ldp * esize / sizeof (float);
  double bytes = 0, longest = 1;
  float keep = 0;
#pragma omp parallel num_threads (threads) reduction (+ : bytes, keep) \
  reduction (max : longest)
  {
    float *panel = spx_engine_alloc (k * ld * sizeof (float));
    guint32 *rows = g_new (guint32, GATHER_ROWS);
    if (panel == NULL) /* no memory for it: this thread reads nothing */
      keep = NAN;
    GRand *rand = g_rand_new_with_seed ((guint32) omp_get_thread_num ());
    for (guint i = 0; i < GATHER_ROWS; i++)
      rows[i] = (guint32) g_rand_int_range (rand, 0, (gint32) k);
    if (panel != NULL)
      memset (panel, 0, k * ld * sizeof (float));
    gint64 t0 = g_get_monotonic_time (), t = t0;
    while (panel != NULL && t - t0 < PROBE_US)
      {
        bytes += spx_probe_gather_avx512 (panel, ld, vectors, rows,
                                          GATHER_ROWS, &keep);
        t = g_get_monotonic_time ();
      }
    longest = MAX (longest, (double) (t - t0));
    g_rand_free (rand);
    g_free (rows);
    free (panel);
  }
  return isfinite (keep) ? bytes / longest / 1e3 : 0; /* GB/s */
}

/* A bound is the best the hardware gives: each rate is the highest of
 * a few windows, so that a moment of another program's load does not
 * lower it. */
#define PROBE_TRIES 3

void
spx_probe_run (SpxProbe *probe, guint threads, guint64 k, guint64 n,
               SpxCpuType type)
{
  memset (probe, 0, sizeof *probe);
  SpxEngineOptions o = { .threads = threads };
  probe->threads = spx_engine_threads (&o);
  int t = (int) probe->threads;
  gboolean avx512 = spx_isa_supported (SPX_ISA_AVX512);
  for (guint i = 0; i < PROBE_TRIES; i++)
    {
      double *rate = probe->rate;
      for (SpxBoundId id = 0; id < SPX_BOUND_L2; id++)
        if (spx_isa_supported (peaks[id].needs))
          rate[id] = MAX (rate[id], peak_rate (peaks[id].loop, t));
      if (!avx512 || k == 0 || n == 0)
        continue;
      rate[SPX_BOUND_L2] = MAX (rate[SPX_BOUND_L2], l2_rate (t));
      rate[SPX_BOUND_GATHER] = MAX (rate[SPX_BOUND_GATHER],
                                    gather_rate (t, k, n, type));
    }
}

/* The compute bound each kernel's name runs on. */
static const struct {
  const char *kernel;
  SpxBoundId  by;
} kernel_peaks[] = {
  { "amx-bf16", SPX_BOUND_AMX },
  { "avx512-bf16", SPX_BOUND_DPBF16 },
  { "avx512", SPX_BOUND_FMA_AVX512 },
  { "avx2", SPX_BOUND_FMA_AVX2 },
};

gboolean
spx_probe_kernel_bound (const SpxProbe *probe, const char *kernel,
                        SpxCpuType type, guint b, SpxKernelBound *bound)
{
  for (guint i = 0; i < G_N_ELEMENTS (kernel_peaks); i++)
    {
      if (g_strcmp0 (kernel, kernel_peaks[i].kernel) != 0 ||
          probe->rate[kernel_peaks[i].by] <= 0)
        continue;
      *bound = (SpxKernelBound) { kernel_peaks[i].by,
                                  probe->rate[kernel_peaks[i].by] };
      /* each element of B's rows serves b multiply-adds (2b flops); a
       * block of one row reads its row alone, at the gather's rate */
      double esize = type == SPX_CPU_BF16 ? 2 : 4;
      SpxBoundId feed = b == 1 && probe->rate[SPX_BOUND_GATHER] > 0
        ? SPX_BOUND_GATHER : SPX_BOUND_L2;
      double from_l2 = probe->rate[feed] * 2.0 * b / esize;
      if (from_l2 > 0 && from_l2 < bound->gflops)
        *bound = (SpxKernelBound) { feed, from_l2 };
      return TRUE;
    }
  return FALSE;
}
