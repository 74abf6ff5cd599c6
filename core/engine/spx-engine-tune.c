/* spx-engine-tune.c: choosing a plan's kernels: the candidates, the table
 * of defaults, what this process and the cache remember */
#include "spx-engine-tune.h"
#include "spx-engine-tune-private.h"

#include <cpuid.h>
#include <string.h>

static const char *const choice_names[SPX_KERNEL_N_CHOICES] = {
  [SPX_KERNEL_DEFAULT] = "default",
  [SPX_KERNEL_MEASURED] = "measured",
  [SPX_KERNEL_REMEMBERED] = "remembered",
  [SPX_KERNEL_FORCED] = "forced",
};

const char *
spx_kernel_choice_to_string (SpxKernelChoice choice)
{
  return (guint) choice < SPX_KERNEL_N_CHOICES ? choice_names[choice] : "";
}

static const char *const op_names[SPX_TUNE_N_OPS] = { "spmm", "sddmm" };

/* ---- the table of defaults ------------------------------------------- */

/* Which hosts a row is for: the defaults were measured on three kinds. */
typedef enum { HOST_ANY, HOST_AMX, HOST_INTEL } Host;

/* A row: for op on type at blocks b_lo … b_hi on host, isa, if this
 * processor runs it. The first row that applies is the default; every
 * row that matches op, type and b names a candidate. Measured with bench
 * (2 threads, m = k = 2048, n = 256, density 0.1). On an Intel Xeon with
 * AMX-BF16: AMX tiles fastest at b = 8, 16, 32; widened fp32 FMAs at
 * b = 4 (vdpbf16ps runs at half their rate there); vdpbf16ps below. On
 * an Intel Xeon without AMX (vdpbf16ps 197 against the FMAs' 396
 * GFLOP/s): widened FMAs from b = 4 (b16 0.82 of dense against 0.55),
 * vdpbf16ps at b = 1, 2 (0.36 against 0.33, 0.56 against 0.50). On an
 * AMD EPYC (Zen 4): vdpbf16ps fastest at every b, about twice the
 * widened FMAs from b = 4. */
typedef struct {
  SpxTuneOp  op;
  SpxCpuType type;
  guint      b_lo, b_hi;
  Host       host;
  SpxIsa     isa;
} DefaultRow;

static const DefaultRow defaults[] = {
  { SPX_TUNE_SPMM, SPX_CPU_BF16, 8, 32, HOST_AMX, SPX_ISA_AMX_BF16 },
  { SPX_TUNE_SPMM, SPX_CPU_BF16, 4, G_MAXUINT, HOST_INTEL, SPX_ISA_AVX512 },
  { SPX_TUNE_SPMM, SPX_CPU_BF16, 1, G_MAXUINT, HOST_ANY,
    SPX_ISA_AVX512_BF16 },
  { SPX_TUNE_SPMM, SPX_CPU_BF16, 1, G_MAXUINT, HOST_ANY, SPX_ISA_AVX512 },
  { SPX_TUNE_SPMM, SPX_CPU_BF16, 1, G_MAXUINT, HOST_ANY, SPX_ISA_AVX2 },
  { SPX_TUNE_SPMM, SPX_CPU_FP32, 1, G_MAXUINT, HOST_ANY, SPX_ISA_AVX512 },
  { SPX_TUNE_SPMM, SPX_CPU_FP32, 1, G_MAXUINT, HOST_ANY, SPX_ISA_AVX2 },
  /* bf16 SDDMM has one set, on AVX512_BF16 */
  { SPX_TUNE_SDDMM, SPX_CPU_BF16, 1, G_MAXUINT, HOST_ANY,
    SPX_ISA_AVX512_BF16 },
  { SPX_TUNE_SDDMM, SPX_CPU_FP32, 1, G_MAXUINT, HOST_ANY, SPX_ISA_AVX512 },
  { SPX_TUNE_SDDMM, SPX_CPU_FP32, 1, G_MAXUINT, HOST_ANY, SPX_ISA_AVX2 },
};

static gboolean
row_matches (const DefaultRow *r, SpxTuneOp op, SpxCpuType type, guint b)
{
  return r->op == op && r->type == type && b >= r->b_lo && b <= r->b_hi &&
         spx_isa_supported (r->isa);
}

static gboolean
host_is (Host host)
{
  __builtin_cpu_init ();
  return host == HOST_ANY ||
         (host == HOST_AMX && spx_isa_supported (SPX_ISA_AMX_BF16)) ||
         (host == HOST_INTEL && __builtin_cpu_is ("intel"));
}

guint
spx_tune_candidates (SpxTuneOp op, SpxCpuType type, guint b, SpxIsa *isas)
{
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    {
      if (!row_matches (&defaults[i], op, type, b))
        continue;
      gboolean seen = FALSE;
      for (guint j = 0; j < n; j++)
        seen |= isas[j] == defaults[i].isa;
      if (!seen)
        isas[n++] = defaults[i].isa;
    }
  if (n == 0) /* the generic kernels run everywhere */
    isas[n++] = SPX_ISA_GENERIC;
  return n;
}

SpxIsa
spx_tune_default (SpxTuneOp op, SpxCpuType type, guint b)
{
  for (guint i = 0; i < G_N_ELEMENTS (defaults); i++)
    if (row_matches (&defaults[i], op, type, b) && host_is (defaults[i].host))
      return defaults[i].isa;
  return SPX_ISA_GENERIC;
}

/* ---- keys ------------------------------------------------------------ */

/* Size classes of n, by their representative n: the kernels' inner loop
 * runs over n, so its length, not m or k, changes which is fastest. */
static const guint64 class_n[] = { 16, 64, 256, 1024 };

guint64
spx_tune_class_n (guint64 n)
{
  for (guint i = 0; i + 1 < G_N_ELEMENTS (class_n); i++)
    if (n * n <= class_n[i] * class_n[i + 1]) /* below their middle */
      return class_n[i];
  return class_n[G_N_ELEMENTS (class_n) - 1];
}

char *
spx_tune_key (SpxTuneOp op, SpxCpuType type, guint b, guint64 n,
              guint threads)
{
  return g_strdup_printf ("%s-%s-b%u-n%" G_GUINT64_FORMAT "-t%u",
                          op_names[op], type == SPX_CPU_BF16 ? "bf16" : "fp32",
                          b, spx_tune_class_n (n), threads);
}

char *
spx_tune_cpu_name (void)
{
  guint32 brand[12] = { 0 };
  for (guint i = 0; i < 3; i++)
    if (!__get_cpuid (0x80000002 + i, &brand[4 * i], &brand[4 * i + 1],
                      &brand[4 * i + 2], &brand[4 * i + 3]))
      break;
  g_autofree char *model = g_strndup ((const char *) brand, sizeof brand);
  g_strstrip (model);
  g_autoptr (GString) name = g_string_new (model[0] ? model : "unknown");
  g_string_append (name, ";");
  for (SpxIsa isa = SPX_ISA_AVX2; isa < SPX_ISA_COUNT; isa++)
    if (spx_isa_supported (isa))
      g_string_append_printf (name, " %s", spx_isa_to_string (isa));
  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* ---- the choice ------------------------------------------------------ */

/* What this process chose, by key (the ISA + 1). */
static GMutex lock;
static GHashTable *chosen;

void
spx_tune_forget (void)
{
  g_mutex_lock (&lock);
  g_clear_pointer (&chosen, g_hash_table_unref);
  g_mutex_unlock (&lock);
  _spx_tune_cache_forget ();
}

static gint measuring_off; /* atomic: set from any thread */

void
spx_tune_set_measuring (gboolean on)
{
  g_atomic_int_set (&measuring_off, !on);
}

gboolean
spx_tune_measuring (void)
{
  return !g_atomic_int_get (&measuring_off) &&
         g_strcmp0 (g_getenv ("SPX_TUNE"), "0") != 0;
}

/* Chosen once per key and process: the lock is held while timing, so
 * two plans made at once never time the same thing twice (nor each
 * other). */
static SpxIsa
tuned (SpxTuneOp op, SpxCpuType type, guint b, guint64 n, guint threads,
       const SpxIsa *isas, guint n_isas, SpxKernelChoice *how)
{
  g_autofree char *key = spx_tune_key (op, type, b, n, threads);
  g_mutex_lock (&lock);
  if (chosen == NULL)
    chosen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gpointer found = g_hash_table_lookup (chosen, key);
  SpxIsa isa;
  *how = SPX_KERNEL_REMEMBERED;
  if (found != NULL)
    isa = (SpxIsa) (GPOINTER_TO_UINT (found) - 1);
  else if (!_spx_tune_cache_read (key, isas, n_isas, &isa))
    {
      gboolean steady;
      isa = _spx_tune_time (op, type, b, spx_tune_class_n (n), threads,
                            isas, n_isas, spx_tune_default (op, type, b),
                            &steady);
      *how = SPX_KERNEL_MEASURED;
      if (steady)
        _spx_tune_cache_write (key, isa);
    }
  if (found == NULL)
    g_hash_table_insert (chosen, g_steal_pointer (&key),
                         GUINT_TO_POINTER ((guint) isa + 1));
  g_mutex_unlock (&lock);
  return isa;
}

SpxIsa
spx_tune_choose (SpxTuneOp op, SpxCpuType type, guint b, guint64 n,
                 const SpxEngineOptions *options, SpxKernelChoice *how)
{
  SpxKernelChoice dummy;
  how = how != NULL ? how : &dummy;
  if (options->pick == SPX_PICK_GIVEN)
    {
      *how = SPX_KERNEL_FORCED;
      return options->isa;
    }
  SpxIsa isas[SPX_ISA_COUNT];
  guint n_isas = spx_tune_candidates (op, type, b, isas);
  *how = SPX_KERNEL_DEFAULT;
  if (n_isas == 1 || !spx_tune_measuring ())
    return spx_tune_default (op, type, b);
  return tuned (op, type, b, n, spx_engine_threads (options), isas, n_isas,
                how);
}
