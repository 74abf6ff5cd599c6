/* spx-engine.c: the instruction set SPX_ISA asks for, engine options and
 * the dense reference */
#include "spx-engine.h"

#include <cblas.h>
#include <limits.h>
#include <omp.h>
#include <unistd.h>

G_DEFINE_QUARK (spx-engine-error-quark, spx_engine_error)

/* OpenBLAS extensions, declared here so any cblas.h will do. */
extern void  openblas_set_num_threads (int num_threads);
extern char *openblas_get_config (void);
extern int   openblas_get_parallel (void);
extern char *openblas_get_corename (void);

gboolean
spx_isa_from_env (SpxIsa *isa, SpxKernelPick *pick, GError **error)
{
  const char *forced = g_getenv ("SPX_ISA");
  gboolean given = forced != NULL && forced[0] != '\0';
  if (pick != NULL)
    *pick = given ? SPX_PICK_GIVEN : SPX_PICK_TUNED;
  if (!given)
    {
      *isa = spx_isa_best ();
      return TRUE;
    }
  if (!spx_isa_from_string (forced, isa))
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
                   "SPX_ISA=%s: expected amx-bf16, avx512-bf16, avx512, avx2 "
                   "or generic", forced);
      return FALSE;
    }
  if (!spx_isa_supported (*isa))
    {
      g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
                   "SPX_ISA=%s: this processor does not support it (best: %s)",
                   forced, spx_isa_to_string (spx_isa_best ()));
      return FALSE;
    }
  return TRUE;
}

gboolean
spx_engine_options_init (SpxEngineOptions *options, GError **error)
{
  options->threads = 0;
  options->type = SPX_CPU_FP32;
  return spx_isa_from_env (&options->isa, &options->pick, error);
}

void
spx_dense_sgemm (guint64 m, guint64 k, guint64 n, const float *A,
                 const float *B, float *C, gboolean accumulate, guint threads)
{
  g_return_if_fail (m <= INT_MAX && k <= INT_MAX && n <= INT_MAX);
  /* The OpenMP build follows openblas_set_num_threads; set it every call
   * since the sparse side may have changed OpenMP's default. */
  openblas_set_num_threads (threads ? (int) threads : omp_get_num_procs ());
  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) m, (int) n,
               (int) k, 1.0f, A, (int) k, B, (int) n, accumulate ? 1.0f : 0.0f,
               C, (int) n);
}

const char *
spx_dense_config (gboolean *uses_openmp)
{
  if (uses_openmp != NULL)
    *uses_openmp = openblas_get_parallel () == 2;
  return openblas_get_config ();
}

/* The OpenBLAS kernels that use all of this processor's vector width. */
static gboolean
core_fits (const char *core)
{
  static const char *const avx512_cores[] = {
    "skylakex", "cooperlake", "sapphirerapids", NULL
  };
  static const char *const avx2_cores[] = {
    "haswell", "zen", "skylakex", "cooperlake", "sapphirerapids", NULL
  };
  g_autofree char *lower = g_ascii_strdown (core, -1);
  if (spx_isa_supported (SPX_ISA_AVX512))
    return g_strv_contains (avx512_cores, lower);
  if (spx_isa_supported (SPX_ISA_AVX2))
    return g_strv_contains (avx2_cores, lower);
  return TRUE;
}

const char *
spx_dense_core (void)
{
  return openblas_get_corename ();
}

const char *
spx_dense_better_coretype (void)
{
  if (core_fits (openblas_get_corename ()))
    return NULL;
  return spx_isa_supported (SPX_ISA_AVX512) ? "SkylakeX" : "Haswell";
}

const char *
spx_dense_core_requested (void)
{
  const char *was = g_getenv (SPX_CORETYPE_WAS_ENV);
  return was != NULL && was[0] != '\0' ? was : NULL;
}

void
spx_dense_restart_at_full_speed (char **argv)
{
  const char *core = spx_dense_better_coretype ();
  if (core == NULL || g_getenv ("SPX_BLAS_RESTARTED") != NULL ||
      g_getenv (SPX_KEEP_CORETYPE_ENV) != NULL)
    return;
  /* a kernel chosen in the environment is overridden, and said so */
  const char *asked = g_getenv ("OPENBLAS_CORETYPE");
  if (asked != NULL)
    g_setenv (SPX_CORETYPE_WAS_ENV, asked, TRUE);
  g_setenv ("OPENBLAS_CORETYPE", core, TRUE);
  g_setenv ("SPX_BLAS_RESTARTED", "1", TRUE);
  execv ("/proc/self/exe", argv);
}
