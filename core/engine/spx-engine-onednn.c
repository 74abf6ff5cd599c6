/* spx-engine-onednn.c: dense C = A·B through oneDNN's matmul primitive,
 * the dense a user of a deep-learning framework on this CPU would run.
 * The primitive is made once per shape (oneDNN picks its kernel then);
 * each run only points it at the operands. */
#include "spx-engine.h"
#include "spx-config.h"
#include "spx-util.h"

#include <omp.h>
#include <stdio.h>

#if SPX_HAVE_ONEDNN
#include <dnnl.h>

struct _SpxDenseOnednn {
  dnnl_engine_t    engine;
  dnnl_stream_t    stream;
  dnnl_primitive_t prim;
  dnnl_memory_t    a, b, c;
  guint            threads;
  char             kernel[64];
};

static gboolean
ok (dnnl_status_t status, const char *what, GError **error)
{
  if (status == dnnl_success)
    return TRUE;
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_INVALID,
               "oneDNN could not %s (status %d)", what, (int) status);
  return FALSE;
}

/* oneDNN with the OpenMP runtime runs on the calling thread's OpenMP
 * thread count, and picks its kernel for it when the primitive is made. */
static int
threads_push (guint threads)
{
  int was = omp_get_max_threads ();
  omp_set_num_threads (threads ? (int) threads : omp_get_num_procs ());
  return was;
}

static gboolean
make_memory (SpxDenseOnednn *d, guint64 rows, guint64 cols,
             dnnl_data_type_t type, dnnl_memory_t *mem, GError **error)
{
  dnnl_memory_desc_t md;
  dnnl_dims_t dims = { (dnnl_dim_t) rows, (dnnl_dim_t) cols };
  return ok (dnnl_memory_desc_init_by_tag (&md, 2, dims, type, dnnl_ab),
             "describe an operand", error) &&
         ok (dnnl_memory_create (mem, &md, d->engine, DNNL_MEMORY_NONE),
             "make an operand", error);
}

/* What oneDNN allocates beside the operands (packed copies of B), against
 * the memory budget like everything else the benchmark takes. */
static gboolean
scratch_fits (const_dnnl_primitive_desc_t pd, GError **error)
{
  const dnnl_memory_desc_t *md =
    dnnl_primitive_desc_query_md (pd, dnnl_query_scratchpad_md, 0);
  guint64 bytes = md != NULL ? dnnl_memory_desc_get_size (md) : 0;
  return spx_budget_check (bytes, "oneDNN's scratchpad", error);
}

/* oneDNN 2.6 has a bf16 matmul on AVX-512 CPUs only (natively with
 * AVX512_BF16, emulated on plain AVX-512): elsewhere it finds none. */
static gboolean
have_bf16 (SpxDenseOnednn *d, const dnnl_matmul_desc_t *desc,
           dnnl_primitive_desc_t *pd, GError **error)
{
  if (dnnl_primitive_desc_create (pd, desc, NULL, d->engine, NULL) ==
      dnnl_success)
    return TRUE;
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "oneDNN has no bf16 matmul on this processor (it needs "
               "AVX-512)");
  return FALSE;
}

static gboolean
make_primitive (SpxDenseOnednn *d, gboolean bf16, GError **error)
{
  const dnnl_memory_desc_t *a, *b, *c;
  dnnl_matmul_desc_t desc;
  dnnl_primitive_desc_t pd = NULL;
  const char *impl = NULL;
  gboolean made =
    ok (dnnl_memory_get_memory_desc (d->a, &a), "read A", error) &&
    ok (dnnl_memory_get_memory_desc (d->b, &b), "read B", error) &&
    ok (dnnl_memory_get_memory_desc (d->c, &c), "read C", error) &&
    ok (dnnl_matmul_desc_init (&desc, a, b, NULL, c), "describe the matmul",
        error) &&
    (bf16 ? have_bf16 (d, &desc, &pd, error)
          : ok (dnnl_primitive_desc_create (&pd, &desc, NULL, d->engine,
                                            NULL),
                "find a matmul for this shape", error)) &&
    scratch_fits (pd, error) &&
    ok (dnnl_primitive_create (&d->prim, pd), "make the matmul", error);
  if (made && dnnl_primitive_desc_query (pd, dnnl_query_impl_info_str, 0,
                                         &impl) == dnnl_success && impl)
    g_strlcpy (d->kernel, impl, sizeof d->kernel);
  if (pd != NULL)
    dnnl_primitive_desc_destroy (pd);
  return made;
}

SpxDenseOnednn *
spx_dense_onednn_new (guint64 m, guint64 k, guint64 n, SpxCpuType type,
                      guint threads, GError **error)
{
  gboolean bf16 = type == SPX_CPU_BF16;
  dnnl_data_type_t in = bf16 ? dnnl_bf16 : dnnl_f32;
  SpxDenseOnednn *d = g_new0 (SpxDenseOnednn, 1);
  d->threads = threads;
  int was = threads_push (threads);
  gboolean made =
    ok (dnnl_engine_create (&d->engine, dnnl_cpu, 0), "start", error) &&
    ok (dnnl_stream_create (&d->stream, d->engine,
                            dnnl_stream_default_flags), "start", error) &&
    make_memory (d, m, k, in, &d->a, error) &&
    make_memory (d, k, n, in, &d->b, error) &&
    make_memory (d, m, n, dnnl_f32, &d->c, error) &&
    make_primitive (d, bf16, error);
  omp_set_num_threads (was);
  if (!made)
    g_clear_pointer (&d, spx_dense_onednn_free);
  return d;
}

void
spx_dense_onednn_run (SpxDenseOnednn *d, gconstpointer A, gconstpointer B,
                      float *C)
{
  dnnl_memory_set_data_handle (d->a, (void *) A);
  dnnl_memory_set_data_handle (d->b, (void *) B);
  dnnl_memory_set_data_handle (d->c, C);
  dnnl_exec_arg_t args[] = { { DNNL_ARG_SRC, d->a },
                             { DNNL_ARG_WEIGHTS, d->b },
                             { DNNL_ARG_DST, d->c } };
  int was = threads_push (d->threads);
  dnnl_primitive_execute (d->prim, d->stream, G_N_ELEMENTS (args), args);
  dnnl_stream_wait (d->stream);
  omp_set_num_threads (was);
}

const char *
spx_dense_onednn_kernel (const SpxDenseOnednn *d)
{
  return d->kernel;
}

void
spx_dense_onednn_free (SpxDenseOnednn *d)
{
  if (d == NULL)
    return;
  if (d->prim)
    dnnl_primitive_destroy (d->prim);
  dnnl_memory_t mems[] = { d->a, d->b, d->c };
  for (guint i = 0; i < G_N_ELEMENTS (mems); i++)
    if (mems[i])
      dnnl_memory_destroy (mems[i]);
  if (d->stream)
    dnnl_stream_destroy (d->stream);
  if (d->engine)
    dnnl_engine_destroy (d->engine);
  g_free (d);
}

const char *
spx_dense_onednn_version (void)
{
  static char text[32];
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      const dnnl_version_t *v = dnnl_version ();
      g_snprintf (text, sizeof text, "oneDNN %d.%d.%d", v->major, v->minor,
                  v->patch);
      g_once_init_leave (&once, 1);
    }
  return text;
}

#else /* without oneDNN: say so wherever it is asked for */

struct _SpxDenseOnednn {
  int unused;
};

SpxDenseOnednn *
spx_dense_onednn_new (guint64 m, guint64 k, guint64 n, SpxCpuType type,
                      guint threads, GError **error)
{
  g_set_error (error, SPX_ENGINE_ERROR, SPX_ENGINE_ERROR_UNSUPPORTED,
               "built without oneDNN (Debian: libdnnl-dev)");
  return NULL;
}

void
spx_dense_onednn_run (SpxDenseOnednn *d, gconstpointer A, gconstpointer B,
                      float *C)
{
  g_return_if_reached ();
}

const char *
spx_dense_onednn_kernel (const SpxDenseOnednn *d)
{
  return "";
}

void
spx_dense_onednn_free (SpxDenseOnednn *d)
{
  g_free (d);
}

const char *
spx_dense_onednn_version (void)
{
  return NULL;
}

#endif
