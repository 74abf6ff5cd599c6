/* spx-isa.h: the instruction sets the CPU kernels are compiled for, and
 * which of them this processor runs. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SPX_ISA_GENERIC,
  SPX_ISA_AVX2,   /* AVX2 + FMA */
  SPX_ISA_AVX512, /* AVX-512 F, VL, BW and DQ */
} SpxIsa;

/* How many there are: the size of a table indexed by SpxIsa. */
#define SPX_ISA_COUNT (SPX_ISA_AVX512 + 1)

const char *spx_isa_to_string   (SpxIsa isa);
gboolean    spx_isa_from_string (const char *name, SpxIsa *isa);
/* The best instruction set this processor runs. */
SpxIsa      spx_isa_best        (void);
gboolean    spx_isa_supported   (SpxIsa isa);
/* AVX-512 with AVX512_BF16 (vdpbf16ps), which the bf16 kernels need. */
gboolean    spx_isa_has_avx512_bf16 (void);

G_END_DECLS
