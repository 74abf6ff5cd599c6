/* spx-isa.h: the instruction sets the CPU kernels are compiled for, and
 * which of them this processor runs. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SPX_ISA_GENERIC,
  SPX_ISA_AVX2,   /* AVX2 + FMA */
  SPX_ISA_AVX512, /* AVX-512 F, VL, BW and DQ */
  /* AVX-512's bf16 extensions, each with the ones before: only bf16
   * kernels use them (fp32 runs its AVX-512 kernels there), so
   * spx_isa_best never returns them; bf16 plans choose them by timing
   * (spx-engine-tune.h). */
  SPX_ISA_AVX512_BF16, /* + AVX512_BF16 (vdpbf16ps) */
  SPX_ISA_AMX_BF16,    /* + AMX-TILE and AMX-BF16, with the kernel's leave
                          (none with SPX_AMX=0) */
} SpxIsa;

/* How many there are: the size of a table indexed by SpxIsa. */
#define SPX_ISA_COUNT (SPX_ISA_AMX_BF16 + 1)

const char *spx_isa_to_string   (SpxIsa isa);
gboolean    spx_isa_from_string (const char *name, SpxIsa *isa);
/* The best instruction set this processor runs. */
SpxIsa      spx_isa_best        (void);
gboolean    spx_isa_supported   (SpxIsa isa);
/* What bf16 products in blocks of b run on when isa is asked for:
 * AVX-512 moves to the fastest this processor has for b, anything else
 * stays. */

G_END_DECLS
