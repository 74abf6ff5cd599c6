/* spx-kernels.c: kernel dispatch and the single-thread executor. Compiled
 * with the baseline flags: nothing here may run an ISA-specific
 * instruction, it only calls the kernels of the ISA it is given. */
#include "spx-kernels-private.h"

#include <unistd.h>

/* Half of L2 for the panel of B a chunk touches; the rest is for C, A
 * and whatever else shares the cache. */
#define L2_FALLBACK (1024 * 1024)
#define CHUNK_ALIGN 64 /* floats: a multiple of every kernel's tile width */

/* fp32's kernel sets, one per instruction set. Adding an ISA: its value,
 * name and processor check (spx-isa.[ch]), its file and flags
 * (meson.build) and a row here. */
static const SpxKernelSet *const fp32_sets[SPX_ISA_COUNT] = {
  [SPX_ISA_GENERIC] = &spx_kernels_generic_fp32,
  [SPX_ISA_AVX2] = &spx_kernels_avx2_fp32,
  [SPX_ISA_AVX512] = &spx_kernels_avx512_fp32,
  /* fp32 has nothing faster on AVX-512's bf16 extensions */
  [SPX_ISA_AVX512_BF16] = &spx_kernels_avx512_fp32,
  [SPX_ISA_AMX_BF16] = &spx_kernels_avx512_fp32,
};

/* bf16's, the same way. */
static const SpxKernelSetBf16 *const bf16_sets[SPX_ISA_COUNT] = {
  [SPX_ISA_GENERIC] = &spx_kernels_generic_bf16,
  [SPX_ISA_AVX2] = &spx_kernels_avx2_bf16,
  [SPX_ISA_AVX512] = &spx_kernels_avx512_bf16,
  [SPX_ISA_AVX512_BF16] = &spx_kernels_avx512bf16_bf16,
  [SPX_ISA_AMX_BF16] = &spx_kernels_amx_bf16,
};

static inline const SpxKernelSet *
fp32_set (SpxIsa isa)
{
  return fp32_sets[(guint) isa < SPX_ISA_COUNT ? isa : SPX_ISA_GENERIC];
}

const SpxKernelSet *
spx_kernel_set (SpxIsa isa)
{
  return fp32_set (isa);
}

const SpxKernelSetBf16 *
spx_kernel_set_bf16 (SpxIsa isa)
{
  return bf16_sets[(guint) isa < SPX_ISA_COUNT ? isa : SPX_ISA_GENERIC];
}

const char *
spx_kernel_name (SpxIsa isa)
{
  return spx_isa_to_string (MIN (isa, SPX_ISA_AVX512));
}

/* bf16 SDDMM's kernel sets: AVX-512's alone so far. Every one of them
 * runs AVX512_BF16's instructions, so none is handed out without it. */
static const SpxSddmmSetBf16 *const sddmm_bf16_sets[SPX_ISA_COUNT] = {
  [SPX_ISA_AVX512] = &spx_sddmm_avx512bf16_set,
  [SPX_ISA_AVX512_BF16] = &spx_sddmm_avx512bf16_set,
  [SPX_ISA_AMX_BF16] = &spx_sddmm_avx512bf16_set,
};

const SpxSddmmSetBf16 *
spx_sddmm_set_bf16 (SpxIsa isa)
{
  if ((guint) isa >= SPX_ISA_COUNT || !spx_isa_supported (isa) ||
      !spx_isa_supported (SPX_ISA_AVX512_BF16))
    return NULL;
  return sddmm_bf16_sets[isa];
}

SpxSpmmKernel
spx_kernel_spmm (SpxIsa isa, guint b)
{
  return fp32_set (isa)->spmm (b);
}

void
spx_kernel_edge (guint b, guint rows, guint kw, const float *values,
                 const float *B, guint64 ldb, float *C, guint64 ldc,
                 guint64 n)
{
  for (guint r = 0; r < rows; r++)
    {
      float *c = C + r * ldc;
      for (guint kk = 0; kk < kw; kk++)
        {
          const float *brow = B + kk * ldb;
          float s = values[r * b + kk];
          for (guint64 x = 0; x < n; x++)
            c[x] += s * brow[x];
        }
    }
}

/* Asking the processor (cpuid, slow under a hypervisor) once is enough. */
gsize
spx_kernel_l2_bytes (void)
{
  static gsize cached = 0;

  if (g_once_init_enter (&cached))
    {
      long size = sysconf (_SC_LEVEL2_CACHE_SIZE);
      g_once_init_leave (&cached, size > 0 ? (gsize) size : L2_FALLBACK);
    }
  return cached;
}

/* Rows of B the work reaches: offsets rise along a block-row, so each
 * row's last block (or its edge block) is its furthest. */
static guint64
b_rows_touched (const SpxRowWork *work, gsize n_work, guint64 ldb)
{
  guint64 rows = 0;

  for (gsize i = 0; i < n_work; i++)
    {
      const SpxRowTask *t = &work[i].task;
      if (t->n_blocks > 0)
        rows = MAX (rows, t->b_offsets[t->n_blocks - 1] * spx_task_scale (t) /
                            ldb + t->b);
      if (work[i].edge_values != NULL)
        rows = MAX (rows, work[i].edge_b_offset / ldb + work[i].edge_kw);
    }
  return rows;
}

/* As wide as keeps the panel of B (rows touched × nc) in half of L2,
 * then evened out over the chunks and rounded to whole tiles. */
guint64
spx_kernel_chunk_width (const SpxRowWork *work, gsize n_work, guint64 ldb,
                        guint64 n)
{
  guint64 rows = MAX (b_rows_touched (work, n_work, ldb), 1);
  guint64 widest = spx_kernel_l2_bytes () / 2 / (rows * sizeof (float));
  widest = MAX (widest / CHUNK_ALIGN * CHUNK_ALIGN, CHUNK_ALIGN);
  if (widest >= n)
    return n;

  guint64 chunks = (n + widest - 1) / widest;
  guint64 nc = (n + chunks - 1) / chunks;
  return (nc + CHUNK_ALIGN - 1) / CHUNK_ALIGN * CHUNK_ALIGN;
}

/* Where each block-row's blocks cross into the next panel of kp rows of
 * B: bounds[p] is the first block at or past row p·kp (offsets rise). */
static void
panel_bounds (const SpxRowTask *t, guint64 ldb, guint64 kp, guint n_panels,
              guint *bounds)
{
  guint j = 0;

  bounds[0] = 0;
  for (guint p = 1; p < n_panels; p++)
    {
      guint64 limit = p * kp * ldb;
      while (j < t->n_blocks && t->b_offsets[j] * spx_task_scale (t) < limit)
        j++;
      bounds[p] = j;
    }
  bounds[n_panels] = t->n_blocks;
}

/* One panel of every block-row on one chunk; blocks after the first
 * panel add to what the earlier ones left in C. */
static void
run_panel (SpxSpmmKernel kernel, const SpxRowWork *work, gsize n_work,
           const guint *bounds, guint stride, guint p, const float *B,
           guint64 ldb, float *C, guint64 ldc, guint64 w, gboolean accumulate)
{
  for (gsize i = 0; i < n_work; i++)
    {
      const SpxRowTask *t = &work[i].task;
      SpxRowTask part = *t;
      if (bounds != NULL)
        {
          const guint *bd = bounds + i * stride;
          gsize bb = (gsize) t->b * t->b;
          part.values = t->values + bd[p] * bb;
          part.b_offsets = t->b_offsets + bd[p];
          part.n_blocks = bd[p + 1] - bd[p];
        }
      kernel (&part, B, ldb, C + work[i].c_row * ldc, ldc, w,
              accumulate || p > 0);
    }
}

static void
run_edges (const SpxRowWork *work, gsize n_work, const float *B,
           guint64 ldb, float *C, guint64 ldc, guint64 w)
{
  for (gsize i = 0; i < n_work; i++)
    if (work[i].edge_values != NULL)
      spx_kernel_edge (work[i].task.b, work[i].task.rows, work[i].edge_kw,
                       work[i].edge_values, B + work[i].edge_b_offset, ldb,
                       C + work[i].c_row * ldc, ldc, w);
}

/* Chunk by chunk of nc columns, and inside a chunk panel by panel of kp
 * rows of B, every block-row's kernel on that part, then the edge
 * blocks: while a panel lasts its part of B stays in L2. */
void
spx_kernel_run_blocked (SpxIsa isa, const SpxRowWork *work, gsize n_work,
                        const float *B, guint64 ldb, float *C, guint64 ldc,
                        guint64 n, gboolean accumulate, guint64 nc,
                        guint64 kp)
{
  guint b = work[0].task.b;
  SpxSpmmKernel kernel = spx_kernel_spmm (isa, b);
  guint64 rows = b_rows_touched (work, n_work, ldb);
  guint n_panels = 1;
  g_autofree guint *bounds = NULL;

  kp = MAX (kp / b, 1) * b; /* whole blocks in a panel */
  if (rows > kp)
    {
      n_panels = (guint) ((rows + kp - 1) / kp);
      bounds = g_new (guint, n_work * (n_panels + 1));
      for (gsize i = 0; i < n_work; i++)
        panel_bounds (&work[i].task, ldb, kp, n_panels,
                      bounds + i * (n_panels + 1));
    }
  for (guint64 j0 = 0; j0 < n; j0 += nc)
    {
      guint64 w = MIN (nc, n - j0);
      for (guint p = 0; p < n_panels; p++)
        run_panel (kernel, work, n_work, bounds, n_panels + 1, p, B + j0,
                   ldb, C + j0, ldc, w, accumulate);
      run_edges (work, n_work, B + j0, ldb, C + j0, ldc, w);
    }
}

void
spx_kernel_run (SpxIsa isa, const SpxRowWork *work, gsize n_work,
                const float *B, guint64 ldb, float *C, guint64 ldc,
                guint64 n, gboolean accumulate)
{
  if (n_work == 0 || n == 0)
    return;
  /* Panels of B's rows (kp) measured slower once the plans pack B into
   * an L2-sized panel: b = 1 then loses more to reloading C than it gains
   * in L1 (kp = 64: 0.14 efficiency, 256: 0.24, none: 0.32). */
  spx_kernel_run_blocked (isa, work, n_work, B, ldb, C, ldc, n, accumulate,
                          spx_kernel_chunk_width (work, n_work, ldb, n),
                          G_MAXUINT64);
}

/* The ragged last block-column as a full block: its values with zeros
 * past kw (the panel's rows past B's last are zeros too). */
static void
run_edge_bf16 (SpxSpmmBf16Kernel kernel, const SpxRowWork *w,
               const void *panel, guint64 ldp, float *C, guint64 ldc,
               guint64 n)
{
  guint b = w->task.b;
  guint16 stack[32 * 32];
  guint16 *padded = b > 32 ? g_new (guint16, (gsize) b * b) : stack;
  SpxRowTask t = w->task;

  for (guint r = 0; r < b; r++)
    for (guint c = 0; c < b; c++)
      padded[r * b + c] = c < w->edge_kw ? w->edge_values_bf16[r * b + c] : 0;
  t.n_blocks = 1;
  t.values_bf16 = padded;
  t.b_offsets = &w->edge_b_offset;
  t.b_scale = 1;
  kernel (&t, panel, ldp, C + w->c_row * ldc, ldc, n, TRUE);
  if (padded != stack)
    g_free (padded);
}

void
spx_kernel_run_bf16 (SpxIsa isa, const SpxRowWork *work, gsize n_work,
                     const void *panel, guint64 ldp, float *C, guint64 ldc,
                     guint64 n, gboolean accumulate)
{
  if (n_work == 0 || n == 0)
    return;
  /* The plans pack B into an L2-sized panel: no chunking here. */
  SpxSpmmBf16Kernel kernel = spx_kernel_set_bf16 (isa)->spmm (work[0].task.b);
  for (gsize i = 0; i < n_work; i++)
    {
      kernel (&work[i].task, panel, ldp, C + work[i].c_row * ldc, ldc, n,
              accumulate);
      if (work[i].edge_values != NULL)
        run_edge_bf16 (kernel, &work[i], panel, ldp, C, ldc, n);
    }
}
