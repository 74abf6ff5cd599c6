/* spx-render-speedup-titles.c: the speedup chart's title and the lines
 * under it: what was run, and what to make of the points */
#include "spx-render-speedup-private.h"

/* The title as head + tail; a subject's sweep says what was measured:
 * its name (the head, cut first when too long), how much of it is
 * non-zero and what is plotted (the tail). */
static void
title_parts (const Chart *c, const char **head, char **tail)
{
  const SpxSweepOptions *o = &c->d->sweep->settings;
  gboolean sddmm = o->op == SPX_BENCH_OP_SDDMM;
  *tail = g_strdup ("");
  if (c->d->title != NULL)
    *head = c->d->title;
  else if (o->subject != NULL)
    {
      const SpxMask *m = o->subject;
      double d = (double) spx_mask_count_elements (m) /
                 ((double) m->rows * (double) m->cols);
      *head = o->subject_name != NULL && *o->subject_name
                ? o->subject_name : "The mask";
      g_free (*tail);
      *tail = g_strdup_printf (" (%.3g%% non-zero): %s%s by block size",
                               100 * d, sddmm ? "SDDMM " : "",
                               c->d->throughput ? "non-zero throughput"
                                                : "speedup over dense");
    }
  else if (sddmm)
    *head = c->d->throughput ? "SDDMM non-zero throughput against density"
                             : "Block-sparse SDDMM speedup over dense";
  else
    *head = c->d->throughput ? "Non-zero throughput against density"
                             : "Block-sparse speedup over dense";
  if (o->subject == NULL && o->pattern == SPX_PATTERN_TILEWISE)
    {
      g_free (*tail);
      *tail = g_strdup_printf (", tile-wise masks (tiles of %u columns)",
                               o->tile_width);
    }
  if (o->run_model && o->run_cpu && o->op == SPX_BENCH_OP_SPMM &&
      o->dtype != SPX_DTYPE_FP32) /* the two sides' numbers differ */
    {
      g_autofree char *label = spx_dtype_label (o->dtype);
      char *both = g_strdup_printf ("%s, %s", *tail, label);
      g_free (*tail);
      *tail = both;
    }
}

/* The title is bold, wider than spx_render_text_width's regular face:
 * drawn into an empty clip, it is measured without leaving a mark. */
double
_spx_speedup_title_width (cairo_t *cr, const Chart *c, double size,
                          const char *text)
{
  SpxTextOpts t = { .size = size, .bold = TRUE };
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_rectangle (cr, 0, 0, 0, 0);
  cairo_clip (cr);
  double w = spx_render_text (cr, c->style, 0, 0, &t, text);
  cairo_restore (cr);
  return w;
}

/* The title's text: the user's, the caller's or one from the sweep. */
static char *
title_text (const Chart *c)
{
  const char *head;
  g_autofree char *tail = NULL;
  title_parts (c, &head, &tail);
  g_autofree char *own = g_strconcat (head, tail, NULL);
  return g_strdup (spx_render_title_text (c->style, own));
}

/* A long title shrinks a little, then wraps onto more lines: a file's
 * name is never cut. */
static void
fit_title (cairo_t *cr, Chart *c, double width)
{
  c->title = title_text (c);
  double max_w = width - 2 * PAD, size = 1.2;
  while (size > 1.0 + 1e-9 &&
         _spx_speedup_title_width (cr, c, size, c->title) > max_w)
    size -= 0.05;
  c->title_size = size;
  SpxTextOpts t = { .size = size, .bold = TRUE };
  c->title_h = spx_render_title_height (cr, c->style, &t, max_w, c->title);
}

static const SpxSweepPoint *
first_point (const Chart *c, SpxSweepSource source)
{
  for (guint i = 0; i < c->points->len; i++)
    if (_spx_speedup_point_at (c, i)->source == source)
      return _spx_speedup_point_at (c, i);
  return NULL;
}

/* "avx2-4t" of "cpu-avx2-4t": said after "CPU". */
const char *
_spx_speedup_cpu_name (const SpxSweepPoint *p)
{
  return g_str_has_prefix (p->machine, "cpu-") ? p->machine + 4 : p->machine;
}

/* The CPU points' machines: "avx2-4t", or "avx2-4t and avx2-1t" when
 * some were measured again on fewer threads. */
static char *
cpu_machines (const SpxSweep *sweep, const SpxSweepPoint *first)
{
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (p->source == SPX_SWEEP_CPU && !g_str_equal (p->machine,
                                                      first->machine))
        return g_strdup_printf ("%s and %s", _spx_speedup_cpu_name (first),
                                _spx_speedup_cpu_name (p));
    }
  return g_strdup (_spx_speedup_cpu_name (first));
}

/* The dense the CPU points are over: one library's name when they all
 * agree, else both (each point used the faster at its shape). */
static const char *
cpu_dense (const SpxSweep *sweep)
{
  const char *name = NULL;
  for (guint i = 0; i < sweep->points->len; i++)
    {
      const SpxSweepPoint *p = &g_array_index (sweep->points, SpxSweepPoint,
                                               i);
      if (p->source != SPX_SWEEP_CPU || p->dense[0] == '\0')
        continue;
      if (name != NULL && !g_str_equal (name, p->dense))
        return "OpenBLAS or oneDNN, the faster";
      name = p->dense;
    }
  return name != NULL ? name : "OpenBLAS";
}

/* One line per source: what was run, so the picture stands alone. */
static GPtrArray *
subtitle_lines (const Chart *c)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  const SpxSweepPoint *p = first_point (c, SPX_SWEEP_MODEL);
  if (p != NULL)
    {
      g_autofree char *n = c->d->sweep->settings.model_n == 0
        ? g_strdup ("best n")
        : g_strdup_printf ("n = %" G_GUINT64_FORMAT, p->n);
      SpxDtype asked = c->d->sweep->settings.dtype;
      g_ptr_array_add (lines, g_strdup_printf (
        "IPU model %s: %s%s, %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT
        ", %s", p->machine, spx_dtype_to_string (p->dtype),
        asked != p->dtype ? " (it has no bf16)" : "", p->m, p->k, n));
    }
  p = first_point (c, SPX_SWEEP_CPU);
  g_autofree char *cpus = p ? cpu_machines (c->d->sweep, p) : NULL;
  if (p != NULL)
    g_ptr_array_add (lines, g_strdup_printf (
      "CPU %s: %s, %" G_GUINT64_FORMAT " × %" G_GUINT64_FORMAT ", n = %"
      G_GUINT64_FORMAT ", over %s dense", cpus,
      spx_dtype_to_string (p->dtype), p->m, p->k, p->n,
      cpu_dense (c->d->sweep)));
  return lines;
}

/* Text as lines no wider than max_w, broken between words. */
static void
add_wrapped (cairo_t *cr, Chart *c, const char *text, double max_w)
{
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  GString *line = g_string_new (NULL);
  for (guint i = 0; words[i] != NULL; i++)
    {
      gsize was = line->len;
      if (was > 0)
        g_string_append_c (line, ' ');
      g_string_append (line, words[i]);
      if (was > 0 && spx_render_text_width (cr, c->style, TICK_TEXT,
                                            line->str, NULL) > max_w)
        {
          g_string_truncate (line, was);
          g_ptr_array_add (c->subtitle, g_strdup (line->str));
          g_string_assign (line, words[i]);
        }
    }
  g_ptr_array_add (c->subtitle, g_string_free (line, FALSE));
}

/* The source lines: joined with " · " when that fits the width, else
 * each on its own lines. */
static void
fit_subtitle (cairo_t *cr, Chart *c, double width)
{
  g_autoptr (GPtrArray) lines = subtitle_lines (c);
  c->subtitle = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *joined = lines->len == 2
    ? g_strconcat (lines->pdata[0], " · ", lines->pdata[1], NULL) : NULL;
  if (joined != NULL &&
      spx_render_text_width (cr, c->style, TICK_TEXT, joined, NULL) <=
        width - 2 * PAD)
    g_ptr_array_add (c->subtitle, g_steal_pointer (&joined));
  else
    for (guint i = 0; i < lines->len; i++)
      add_wrapped (cr, c, lines->pdata[i], width - 2 * PAD);
}

/* Below the sources: what to make of the points. A sweep that stopped
 * early says so, or its missing points could pass for results. */
static void
add_notes (cairo_t *cr, Chart *c, double width)
{
  guint total = spx_sweep_total (&c->d->sweep->settings);
  double max_w = width - 2 * PAD;
  if (c->n_noisy > 0 && !c->style->no_noise_note)
    {
      /* every point counted, dense ones too, as the window and the
       * command line count them; too long for one line: broken at the
       * semicolon first */
      g_autofree char *what = g_strdup_printf (
        "%u of %u points noisy (hollow): measured while other programs "
        "ran;", spx_sweep_count_noisy (c->d->sweep), c->points->len);
      const char *advice = "measure again on a quiet machine";
      g_autofree char *text = g_strconcat (what, " ", advice, NULL);
      if (spx_render_text_width (cr, c->style, TICK_TEXT, text, NULL) <=
          max_w)
        g_ptr_array_add (c->subtitle, g_steal_pointer (&text));
      else
        {
          add_wrapped (cr, c, what, max_w);
          add_wrapped (cr, c, advice, max_w);
        }
    }
  if (!c->d->running && c->points->len > 0 && c->points->len < total)
    g_ptr_array_add (c->subtitle, g_strdup_printf (
      "partial: %u of %u points", c->points->len, total));
}

void
_spx_speedup_draw_titles (cairo_t *cr, const Chart *c, double width)
{
  SpxTextOpts t = { .size = c->title_size, .bold = TRUE, .ax = 0.5 };
  spx_render_title (cr, c->style, width / 2, PAD, &t, width - 2 * PAD,
                    c->title);
  SpxTextOpts s = { .size = TICK_TEXT, .ax = 0.5, .colour = c->style->muted,
                    .use_colour = TRUE };
  double y = PAD + c->title_h + 2;
  for (guint i = 0; i < c->subtitle->len; i++)
    {
      spx_render_text (cr, c->style, width / 2, y, &s,
                       g_ptr_array_index (c->subtitle, i));
      y += _spx_speedup_text_h (cr, c->style, TICK_TEXT);
    }
}

void
_spx_speedup_fit_titles (cairo_t *cr, Chart *c, double width)
{
  fit_title (cr, c, width);
  fit_subtitle (cr, c, width);
  add_notes (cr, c, width);
}

char *
spx_render_speedup_title (cairo_t *cr, double width,
                          const SpxRenderSpeedupData *data,
                          const SpxRenderStyle *style, SpxTextExtent *extent)
{
  if (data == NULL || data->sweep == NULL)
    return NULL;
  Chart c;
  _spx_speedup_chart_init (&c, cr, data, style, width);
  SpxTextOpts t = { .size = c.title_size, .bold = TRUE, .ax = 0.5,
                    .max_width = width - 2 * PAD, .wrap = TRUE };
  if (extent != NULL)
    spx_render_text_extent (cr, style, &t, c.title, extent);
  char *title = g_steal_pointer (&c.title);
  _spx_speedup_chart_clear (&c);
  return title;
}
