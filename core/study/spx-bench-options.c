/* spx-bench-options.c: what a measurement is asked: its options, as
 * the shared defaults give them, and the words of its types and
 * operations */
#include "spx-bench-private.h"
#include "spx-defaults.h"
#include "spx-mask-gen.h"

#include <string.h>

void
spx_bench_options_init (SpxBenchOptions *options)
{
  memset (options, 0, sizeof *options);
  options->warmup = spx_defaults ()->warmup;
  options->reps = spx_defaults ()->reps;
  options->engine.threads = spx_defaults ()->threads;
  options->engine.isa = spx_isa_best ();
  options->engine.pick = SPX_PICK_TUNED;
  options->run_static = options->run_dynamic = TRUE;
  options->seed = 1;
  SpxGenOptions gen; /* tiles as wide as the generator's */
  spx_gen_options_init (&gen);
  options->tile_width = gen.tile_width;
  options->peer_timeout_s = SPX_PEER_TIMEOUT_DEFAULT;
}

SpxCpuType
spx_bench_cpu_type (SpxDtype dtype)
{
  return spx_dtype_cpu_bf16 (dtype) ? SPX_CPU_BF16 : SPX_CPU_FP32;
}

const char *
spx_cpu_type_name (SpxCpuType type)
{
  return type == SPX_CPU_BF16 ? "bf16" : "fp32";
}

const char *
spx_bench_op_name (SpxBenchOp op)
{
  switch (op)
    {
    case SPX_BENCH_OP_SPMM: return "spmm";
    case SPX_BENCH_OP_SDDMM: return "sddmm";
    default: return NULL;
    }
}

gboolean
spx_bench_op_parse (const char *name, SpxBenchOp *op)
{
  for (SpxBenchOp o = SPX_BENCH_OP_SPMM; o <= SPX_BENCH_OP_SDDMM; o++)
    if (name != NULL && g_strcmp0 (name, spx_bench_op_name (o)) == 0)
      {
        *op = o;
        return TRUE;
      }
  return FALSE;
}
