/* spx-cli-model.c: `sparse-explorer model`: the IPU model for one
 * scenario, dense, static and dynamic */
#include "spx-cli.h"
#include "spx-cli-study.h"
#include "spx-ipu.h"
#include "spx-json.h"

#include <stdio.h>
#include <string.h>

#define CMD "model"
#define N_BEST_MAX 65536

/* model's options: see spx-cli-options.h */
#define MODEL_OPTIONS(O) \
  O (mode, 0, TEXT, "MODE", spx_cli_keep_printf ( \
     "The programs printed: %s; several separated by commas (default " \
     "all; dense is planned anyway, as what speedups divide by)", \
     modes), NULL) \
  O (json, 0, FLAG, NULL, "Print one JSON object", NULL) \
  O (explain, 0, FLAG, NULL, \
     "Also print where each mode's cycles go, term by term", \
     "One row per term of every superstep, with its formula.")

typedef struct {
  SpxCliStudyArgs study;
  SPX_CLI_FIELDS (MODEL_OPTIONS)
} ModelArgs;

/* What to plan: modes printed, and the fixed n (0: best over n). Dense
 * is planned whenever anything is: every speedup divides by it. */
typedef struct {
  gboolean       want[SPX_IPU_N_MODES];
  guint64        n;
  SpxDtype       dtype;
  const SpxIpuMachine *machine;
  const SpxMask *mask;
  double         density;
} ModelRequest;

/* Only the figures are printed: each plan's transfers and per-tile
 * arrays (up to tiles² of them, each plan within the memory budget) are
 * let go before the next mode is planned, so three never add up. */
static SpxIpuProgram *
plan_mode (const ModelRequest *r, SpxIpuMode mode, GError **error)
{
  SpxIpuProgram *p = r->n != 0
    ? spx_ipu_plan (r->machine, mode, r->mask, r->n, r->dtype, error)
    : spx_ipu_plan_best_n (r->machine, mode, r->mask, N_BEST_MAX, r->dtype,
                           error);
  if (p != NULL)
    spx_ipu_program_drop_detail (p);
  return p;
}

/* Calls f for every term of every superstep, in program order, with the
 * superstep counted from 1. */
typedef void (*TermFunc) (guint superstep, const SpxIpuStep *s,
                          const SpxIpuTerm *t, gpointer data);

static void
foreach_term (const SpxIpuProgram *p, TermFunc f, gpointer data)
{
  for (guint i = 0; i < p->steps->len; i++)
    {
      const SpxIpuStep *s = &g_array_index (p->steps, SpxIpuStep, i);
      for (guint j = 0; s->terms && j < s->terms->len; j++)
        f (i + 1, s, &g_array_index (s->terms, SpxIpuTerm, j), data);
    }
}

static void
json_term (guint superstep, const SpxIpuStep *s, const SpxIpuTerm *t,
           gpointer data)
{
  SpxJson *json = data;
  spx_json_begin_object (json, NULL);
  spx_json_uint (json, "superstep", superstep);
  spx_json_string (json, "kind", spx_ipu_step_kind_to_string (s->kind));
  spx_json_string (json, "phase", s->phase ? s->phase : "");
  spx_json_string (json, "term", t->term);
  spx_json_string (json, "formula", t->formula);
  spx_json_uint (json, "cycles", t->cycles);
  spx_json_end_object (json);
}

static void
json_mode (SpxJson *json, const SpxIpuProgram *p, const SpxIpuProgram *dense)
{
  spx_json_begin_object (json, spx_ipu_mode_to_string (p->mode));
  spx_json_uint (json, "n", p->n);
  spx_json_uint (json, "cycles", p->cycles);
  spx_json_double (json, "ms", p->ms);
  spx_json_double (json, "tflops", p->tflops);
  spx_json_double (json, "nz_tflops", p->nz_tflops);
  spx_json_double (json, "speedup", dense && dense->nz_tflops > 0
                                      ? p->nz_tflops / dense->nz_tflops : 1.0);
  spx_json_uint (json, "tiles_used", p->tiles_used);
  spx_json_uint (json, "max_tile_bytes", p->max_tile_bytes);
  spx_json_bool (json, "fits", p->fits);
  spx_json_uint (json, "supersteps", p->steps->len);
  spx_json_string (json, "plan", p->plan ? p->plan : "");
  spx_json_begin_object (json, "phases");
  for (guint i = 0; i < p->phases->len; i++)
    {
      const SpxIpuPhase *ph = &g_array_index (p->phases, SpxIpuPhase, i);
      spx_json_uint (json, ph->name, ph->cycles);
    }
  spx_json_end_object (json);
  if (p->mode == SPX_IPU_MODE_DYNAMIC)
    {
      spx_json_uint (json, "propagation_steps", p->propagation_steps);
      spx_json_bool (json, "overflow", p->overflow);
    }
  spx_json_begin_array (json, "explain");
  foreach_term (p, json_term, json);
  spx_json_end_array (json);
  spx_json_end_object (json);
}

static void
print_json (const ModelRequest *r, SpxIpuProgram *const *programs)
{
  SpxJson json;
  spx_json_init (&json);
  spx_json_begin_object (&json, NULL);
  spx_json_string (&json, "machine", r->machine->name);
  /* what the model computed in; bf16 asked for is modelled as fp16 */
  spx_json_string (&json, "dtype",
                   spx_dtype_to_string (spx_dtype_on_ipu (r->dtype)));
  if (spx_dtype_on_ipu (r->dtype) != r->dtype)
    spx_json_string (&json, "dtype_asked", spx_dtype_to_string (r->dtype));
  spx_json_uint (&json, "m", r->mask->rows);
  spx_json_uint (&json, "k", r->mask->cols);
  if (r->n != 0)
    spx_json_uint (&json, "n", r->n);
  else
    spx_json_string (&json, "n", "best");
  spx_json_uint (&json, "block", r->mask->block);
  spx_json_double (&json, "density", r->density);
  spx_json_double (&json, "block_density",
                   (double) spx_mask_count (r->mask) /
                   spx_mask_n_blocks (r->mask));
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    if (r->want[mode])
      json_mode (&json, programs[mode], programs[SPX_IPU_MODE_DENSE]);
  spx_json_end_object (&json);
  g_autofree char *text = spx_json_finish (&json);
  spx_cli_line (stdout, "%s", text);
}

static void
print_table (const ModelRequest *r, SpxIpuProgram *const *programs)
{
  SpxDtype on_ipu = spx_dtype_on_ipu (r->dtype);
  g_autofree char *dtype = on_ipu == r->dtype
    ? g_strdup (spx_dtype_to_string (r->dtype))
    : g_strdup_printf ("%s (the IPU has no %s)", spx_dtype_to_string (on_ipu),
                       spx_dtype_to_string (r->dtype));
  spx_cli_line (stdout, "%s · %s · %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
                " · %u × %u blocks · density %.4g · n %s", r->machine->name,
                dtype, r->mask->rows, r->mask->cols,
                r->mask->block, r->mask->block, r->density,
                r->n ? "fixed" : "best of 1 … 65536");
  fputc ('\n', stdout);
  /* two rates: the work of W as if dense, and of its non-zeros only */
  spx_cli_line (stdout, "%-8s %6s %12s %10s %10s %10s", "", "", "", "",
                "TFLOP/s", "TFLOP/s");
  spx_cli_line (stdout, "%-8s %6s %12s %10s %10s %10s %8s %6s %12s %s", "",
                "n", "cycles", "ms", "dense-eq.", "non-zero", "speedup",
                "tiles", "max bytes", "fits");
  const SpxIpuProgram *dense = programs[SPX_IPU_MODE_DENSE];
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    {
      const SpxIpuProgram *p = programs[mode];
      if (!r->want[mode])
        continue;
      spx_cli_line (stdout, "%-8s %6" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT
                    " %10.4f %10.2f %10.2f %7.2f× %6u %12" G_GUINT64_FORMAT
                    " %s%s", spx_ipu_mode_to_string (p->mode), p->n,
                    p->cycles, p->ms, p->tflops, p->nz_tflops,
                    dense && dense->nz_tflops > 0
                      ? p->nz_tflops / dense->nz_tflops : 1.0,
                    p->tiles_used, p->max_tile_bytes, p->fits ? "yes" : "NO",
                    p->overflow ? " (overflow)" : "");
    }
  fputc ('\n', stdout);
  spx_cli_line (stdout, "dense-eq. TFLOP/s: 2·m·k·n per second, as if W were "
                "dense (a sparse plan can exceed the peak)");
  spx_cli_line (stdout, "non-zero TFLOP/s: the work of W's non-zeros only "
                "(dense's at the same density); speedup: their ratio to "
                "dense's");
}

/* ---- --explain: every superstep's cycles, term by term ------------- */

#define EXPLAIN_WIDTH 100
#define FORMULA_MIN   16

typedef struct {
  guint step, kind, phase, term, formula, cycles; /* column widths */
} ExplainColumns;

static guint
text_width (const char *text)
{
  return (guint) g_utf8_strlen (text ? text : "", -1);
}

static guint
digits (guint64 value)
{
  guint n = 1;
  while (value >= 10)
    value /= 10, n++;
  return n;
}

static void
widen (guint superstep, const SpxIpuStep *s, const SpxIpuTerm *t,
       gpointer data)
{
  ExplainColumns *c = data;
  c->step = MAX (c->step, digits (superstep));
  c->kind = MAX (c->kind, text_width (spx_ipu_step_kind_to_string (s->kind)));
  c->phase = MAX (c->phase, text_width (s->phase));
  c->term = MAX (c->term, text_width (t->term));
  c->cycles = MAX (c->cycles, digits (t->cycles));
}

/* text, then spaces to width characters (not bytes: formulas hold ×). */
static void
pad (GString *out, const char *text, guint width)
{
  g_string_append (out, text ? text : "");
  for (guint n = text_width (text); n < width; n++)
    g_string_append_c (out, ' ');
}

typedef struct {
  const ExplainColumns *c;
  GString *out;
} ExplainRows;

/* One row per term. A formula wider than its column goes whole on a line
 * of its own under the row, starting below the term (never cut). */
static void
explain_row (guint superstep, const SpxIpuStep *s, const SpxIpuTerm *t,
             gpointer data)
{
  ExplainRows *rows = data;
  const ExplainColumns *c = rows->c;
  gboolean fits = text_width (t->formula) <= c->formula;
  g_string_append_printf (rows->out, "%*u ", (int) c->step, superstep);
  pad (rows->out, spx_ipu_step_kind_to_string (s->kind), c->kind + 1);
  pad (rows->out, s->phase, c->phase + 1);
  pad (rows->out, t->term, c->term + 1);
  pad (rows->out, fits ? t->formula : "↓", c->formula + 1);
  g_string_append_printf (rows->out, "%*" G_GUINT64_FORMAT "\n",
                          (int) c->cycles, t->cycles);
  if (!fits)
    {
      pad (rows->out, "", c->step + c->kind + c->phase + 5);
      g_string_append_printf (rows->out, "%s\n", t->formula);
    }
}

static void
print_explain (const SpxIpuProgram *p)
{
  ExplainColumns c = { .step = 4, .kind = 4, .phase = 5, .term = 4,
                       .cycles = MAX (6, digits (p->cycles)) };
  foreach_term (p, widen, &c);
  guint rest = c.step + c.kind + c.phase + c.term + c.cycles + 5;
  c.formula = rest + FORMULA_MIN < EXPLAIN_WIDTH ? EXPLAIN_WIDTH - rest
                                                  : FORMULA_MIN;
  g_autoptr (GString) out = g_string_new (NULL);
  g_string_append_printf (out, "\n%s · n %" G_GUINT64_FORMAT " · %u "
                          "supersteps · %" G_GUINT64_FORMAT " cycles",
                          spx_ipu_mode_to_string (p->mode), p->n,
                          p->steps->len, p->cycles);
  if (p->plan && *p->plan)
    g_string_append_printf (out, "\n%s", p->plan);
  g_string_append (out, "\n\n");
  g_string_append_printf (out, "%*s ", (int) c.step, "step");
  pad (out, "kind", c.kind + 1);
  pad (out, "phase", c.phase + 1);
  pad (out, "term", c.term + 1);
  pad (out, "formula", c.formula + 1);
  g_string_append_printf (out, "%*s\n", (int) c.cycles, "cycles");
  ExplainRows rows = { &c, out };
  foreach_term (p, explain_row, &rows);
  /* the terms of every step sum to its cycles, so the rows to this */
  pad (out, "total", rest + c.formula - c.cycles);
  g_string_append_printf (out, "%*" G_GUINT64_FORMAT "\n", (int) c.cycles,
                          p->cycles);
  /* the model's own text, printed line by line like any other */
  g_string_truncate (out, out->len - 1); /* the last line's end */
  g_auto (GStrv) lines = g_strsplit (out->str, "\n", -1);
  spx_cli_lines (stdout, (const char *const *) lines);
}

static gboolean
parse_modes (const char *text, gboolean *want)
{
  guint modes = SPX_CLI_MODES_IPU, named;
  if (text != NULL && !spx_cli_modes_parse (CMD, "--mode", text,
                                            SPX_CLI_MODES_IPU, TRUE, &modes,
                                            &named))
    return FALSE;
  for (guint m = 0; m < SPX_IPU_N_MODES; m++)
    want[m] = (modes & SPX_CLI_MODE (m)) != 0;
  return TRUE;
}

static int
run (gconstpointer data)
{
  const ModelArgs *a = data;
  ModelRequest r = { 0 };
  int status = SPX_EXIT_USAGE;
  gboolean best = FALSE, want[SPX_IPU_N_MODES];
  SpxIpuProgram *programs[SPX_IPU_N_MODES] = { NULL };
  g_autoptr (GError) error = NULL;
  if (!parse_modes (a->mode, want))
    return SPX_EXIT_USAGE;
  g_autoptr (SpxStudy) study = spx_cli_study_args_build (&a->study, CMD,
                                                        &best, &status);
  if (study == NULL)
    return status;
  const SpxScenario *sc = study->scenario;
  r = (ModelRequest) { .n = best ? 0 : sc->n, .dtype = sc->dtype,
                       .machine = study->machine, .mask = sc->mask };
  memcpy (r.want, want, sizeof want);
  r.density = spx_study_element_density (study);
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    if ((r.want[mode] || mode == SPX_IPU_MODE_DENSE) &&
        !(programs[mode] = plan_mode (&r, mode, &error)))
      {
        if (study->path != NULL)
          g_prefix_error (&error, "%s: ", study->path);
        status = spx_cli_input_error (CMD, error);
        goto out;
      }
  if (a->json)
    print_json (&r, programs);
  else
    {
      print_table (&r, programs);
      for (guint mode = 0; a->explain && mode < SPX_IPU_N_MODES; mode++)
        if (r.want[mode])
          print_explain (programs[mode]);
    }
  status = SPX_EXIT_OK;
out:
  for (guint mode = 0; mode < SPX_IPU_N_MODES; mode++)
    spx_ipu_program_free (programs[mode]);
  return status;
}

SpxCliOptions *
spx_cli_model_options (void)
{
  SpxCliOptions *o = spx_cli_options_new (NULL, sizeof (ModelArgs));
  ModelArgs *args = spx_cli_options_args (o);
  GOptionContext *context = spx_cli_options_context (o);
  g_autofree char *modes = spx_cli_modes_words (SPX_CLI_MODES_IPU, TRUE);
  g_option_context_set_summary (context, "Plan Y = W·X on a model of a "
                                "Graphcore IPU as dense, static and dynamic "
                                "block-sparse BSP programs, and cost them.");
  SPX_CLI_ADD (o, MODEL_OPTIONS, NULL);
  spx_cli_study_args_add (&args->study, o, SPX_CLI_STUDY_ALL |
                          SPX_CLI_STUDY_REQUIRED);
  g_option_context_set_description (context, "--n best tries n = 1, 2, 4, "
                                    "…, 65536 and keeps each mode's "
                                    "fastest.");
  return o;
}

int
spx_cli_model (int argc, char **argv)
{
  g_autoptr (SpxCliOptions) options = spx_cli_model_options ();
  return spx_cli_parse_and_run (CMD, options, argc, argv, run);
}
