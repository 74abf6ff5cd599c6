/* spx-isa.c: instruction set names and what this processor runs.
 * Compiled with the baseline flags, like the dispatcher. */
#include "spx-isa.h"

#include <sys/syscall.h>
#include <unistd.h>

static const char *const isa_names[SPX_ISA_COUNT] = {
  [SPX_ISA_GENERIC] = "generic",
  [SPX_ISA_AVX2] = "avx2",
  [SPX_ISA_AVX512] = "avx512",
  [SPX_ISA_AVX512_BF16] = "avx512-bf16",
  [SPX_ISA_AMX_BF16] = "amx-bf16",
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

/* cpuid leaf 7, subleaf 0: EDX bit 22 AMX-BF16, bit 24 AMX-TILE
 * (__builtin_cpu_supports knows neither in GCC 12). */
static gboolean
cpu_has_amx (void)
{
  guint32 a = 7, b, c = 0, d;
  __asm__ ("cpuid" : "+a" (a), "=b" (b), "+c" (c), "=d" (d));
  return (d >> 22 & 1) && (d >> 24 & 1);
}

/* Linux hands out the 8 KiB of tile state only to a process that asks
 * (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); asked once. */
static gboolean
amx_permitted (void)
{
  static gsize answer = 0;
  if (g_once_init_enter (&answer))
    {
      long ok = cpu_has_amx () &&
                syscall (SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                         18 /* XFEATURE_XTILEDATA */) == 0;
      g_once_init_leave (&answer, ok ? 2 : 1);
    }
  return answer == 2;
}

static gboolean
has_avx512 (void)
{
  return __builtin_cpu_supports ("avx512f") &&
         __builtin_cpu_supports ("avx512vl") &&
         __builtin_cpu_supports ("avx512bw") &&
         __builtin_cpu_supports ("avx512dq");
}

/* A switch, not a table: __builtin_cpu_supports takes only literals. */
gboolean
spx_isa_supported (SpxIsa isa)
{
  __builtin_cpu_init ();
  switch (isa)
    {
    case SPX_ISA_AMX_BF16: /* SPX_AMX=0: as if the processor had none */
      return g_strcmp0 (g_getenv ("SPX_AMX"), "0") != 0 &&
             spx_isa_supported (SPX_ISA_AVX512_BF16) && amx_permitted ();
    case SPX_ISA_AVX512_BF16:
      return has_avx512 () && __builtin_cpu_supports ("avx512bf16");
    case SPX_ISA_AVX512:
      return has_avx512 ();
    case SPX_ISA_AVX2:
      return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
    case SPX_ISA_GENERIC:
    default:
      return TRUE;
    }
}

SpxIsa
spx_isa_best (void)
{
  if (spx_isa_supported (SPX_ISA_AVX512))
    return SPX_ISA_AVX512;
  return spx_isa_supported (SPX_ISA_AVX2) ? SPX_ISA_AVX2 : SPX_ISA_GENERIC;
}
