/* spx-isa.c: instruction set names and what this processor runs.
 * Compiled with the baseline flags, like the dispatcher. */
#include "spx-isa.h"

static const char *const isa_names[SPX_ISA_COUNT] = {
  [SPX_ISA_GENERIC] = "generic",
  [SPX_ISA_AVX2] = "avx2",
  [SPX_ISA_AVX512] = "avx512",
};

const char *
spx_isa_to_string (SpxIsa isa)
{
  return isa_names[isa];
}

gboolean
spx_isa_from_string (const char *name, SpxIsa *isa)
{
  for (guint i = 0; i < G_N_ELEMENTS (isa_names); i++)
    if (g_strcmp0 (name, isa_names[i]) == 0)
      {
        *isa = (SpxIsa) i;
        return TRUE;
      }
  return FALSE;
}

/* A switch, not a table: __builtin_cpu_supports takes only literals. */
gboolean
spx_isa_supported (SpxIsa isa)
{
  __builtin_cpu_init ();
  switch (isa)
    {
    case SPX_ISA_AVX512:
      return __builtin_cpu_supports ("avx512f") &&
             __builtin_cpu_supports ("avx512vl") &&
             __builtin_cpu_supports ("avx512bw") &&
             __builtin_cpu_supports ("avx512dq");
    case SPX_ISA_AVX2:
      return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
    case SPX_ISA_GENERIC:
    default:
      return TRUE;
    }
}

gboolean
spx_isa_has_avx512_bf16 (void)
{
  __builtin_cpu_init ();
  return spx_isa_supported (SPX_ISA_AVX512) &&
         __builtin_cpu_supports ("avx512bf16");
}

SpxIsa
spx_isa_best (void)
{
  if (spx_isa_supported (SPX_ISA_AVX512))
    return SPX_ISA_AVX512;
  return spx_isa_supported (SPX_ISA_AVX2) ? SPX_ISA_AVX2 : SPX_ISA_GENERIC;
}
