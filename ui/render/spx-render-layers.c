/* spx-render-layers.c: the survey's chart: a row of bars per layer, the
 * totals below */
#include "spx-render-layers.h"
#include "spx-render-series.h"
#include "spx-defaults.h"
#include "spx-util.h"

#include <math.h>
#include <string.h>

#define PAD 12.0
/* A row's height per bar at full size, and the room between rows, in
 * font sizes; below half of it the labels would not read and go. */
#define BAR_EM 1.35
#define GAP_EM 0.55
/* The name column at most this share of the width. */
#define NAME_SHARE 0.34
/* Room right of the longest bar for its label, in font sizes. */
#define LABEL_EM 13.0

static const SpxSweepSource order[] = { SPX_SWEEP_CPU, SPX_SWEEP_MODEL };

typedef struct {
  cairo_t              *cr;
  const SpxRenderStyle *style;
  const SpxSurvey      *survey;
  guint                 n_sources;
  gboolean              ran[SPX_SWEEP_N_SOURCES];
  double                fs;
  double                row_h, bar_h;
  double                width;
  double                name_w, x0, x1, xmax; /* bars from x0 (0×) */
  /* What every layer's name starts and ends with (bytes), left out */
  gsize                 prefix, suffix;
  double                name_size, bar_size;  /* × the font size */
  gboolean              bar_labels;
} Chart;

static SpxRgb
colour_of (const Chart *c, SpxSweepSource s)
{
  return c->style->series[s == SPX_SWEEP_CPU ? 0 : 1];
}

/* A source's marker (its static row's: the CPU's ●, the model's ◆), at
 * the end of its sparse bars and on its legend swatch, so that a grey
 * print tells the sources apart. */
static void
source_marker (const Chart *c, SpxSweepSource s, double x, double y,
               double r)
{
  cairo_new_path (c->cr);
  spx_render_marker_path (c->cr, spx_series_style (spx_series_kind_row (
    s, SPX_SWEEP_STATIC))->marker, x, y, r);
  spx_render_look_plain (c->cr, c->style, colour_of (c, s));
}

static double
x_of (const Chart *c, double speedup)
{
  return c->x0 + (c->x1 - c->x0) * MAX (0, speedup) / c->xmax;
}

/* The network as a title names it: its last two path components
 * ("magnitude_pruning/0.9"), a folder's own name being often short. */
static char *
network_name (const SpxSurvey *survey)
{
  g_autofree char *path = g_filename_display_name (survey->path
                                                   ? survey->path : "");
  g_auto (GStrv) parts = g_strsplit (path, G_DIR_SEPARATOR_S, -1);
  guint n = g_strv_length (parts);
  while (n > 0 && parts[n - 1][0] == '\0')
    n--;
  if (n == 0)
    return g_strdup ("network");
  if (n == 1)
    return g_strdup (parts[0]);
  return g_strdup_printf ("%s/%s", parts[n - 2], parts[n - 1]);
}

static guint
ran_sources (const SpxSurvey *survey, gboolean *ran)
{
  ran[SPX_SWEEP_CPU] = survey->settings.run_cpu;
  ran[SPX_SWEEP_MODEL] = survey->settings.run_model;
  return (ran[0] != 0) + (ran[1] != 0);
}

/* Full-size rows of n_sources bars: their height in font sizes. */
static double
row_em (guint n_sources)
{
  return GAP_EM + BAR_EM * MAX (n_sources, 1);
}

/* Above the rows: title, settings, legend. Below: the axis's labels
 * and the totals' row, then the lines of words. In font sizes. */
#define HEAD_EM 5.2
#define FOOT_EM 2.4
#define LINE_EM 1.3

/* The rows drawn: the layers surveyed. Entries skipped (biases, norms,
 * files that did not load) are counted in the header and listed, with
 * why, by the table beside the chart: a bias per layer would double the
 * chart's height with nothing to read. */
static guint
drawn_rows (const SpxSurvey *survey)
{
  return survey->n_layers; /* counted as they come */
}

static guint words (const Chart *c, double y, double width, gboolean draw);

double
spx_render_layers_height (const SpxSurvey *survey,
                          const SpxRenderStyle *style, double width)
{
  gboolean ran[SPX_SWEEP_N_SOURCES];
  guint n = ran_sources (survey, ran);
  double rows = drawn_rows (survey) + 1; /* and the totals' */
  /* the sentence's lines, measured on a scratch surface */
  cairo_surface_t *scratch = cairo_image_surface_create (CAIRO_FORMAT_A8, 1,
                                                         1);
  cairo_t *cr = cairo_create (scratch);
  Chart c = { .cr = cr, .style = style, .survey = survey, .width = width,
              .fs = style->font_size };
  guint lines = words (&c, 0, width, FALSE);
  cairo_destroy (cr);
  cairo_surface_destroy (scratch);
  return 2 * PAD + style->font_size * (HEAD_EM + FOOT_EM + LINE_EM * lines +
                                       rows * row_em (n));
}

static gboolean
separator (char c)
{
  return c == '_' || c == '.' || c == '/' || c == '-';
}

/* The longest start and end every surveyed name shares, each ending (or
 * starting) at a separator, leaving at least a character of each name:
 * "body_" … "_fully_connected.smtx" of DLMC's layers. */
static void
common_affixes (const SpxSurvey *survey, gsize *prefix, gsize *suffix)
{
  const char *first = NULL;
  gsize pre = 0, suf = 0, shortest = G_MAXSIZE;
  *prefix = *suffix = 0;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const char *name = ((SpxSurveyLayer *) survey->layers->pdata[i])->name;
      gsize len = strlen (name), fl = first ? strlen (first) : 0;
      shortest = MIN (shortest, len);
      if (first == NULL)
        {
          first = name;
          pre = suf = len;
          continue;
        }
      gsize p = 0, q = 0;
      while (p < pre && p < len && name[p] == first[p])
        p++;
      while (q < suf && q < len && q < fl &&
             name[len - 1 - q] == first[fl - 1 - q])
        q++;
      pre = p;
      suf = q;
    }
  if (survey->layers->len < 2 || first == NULL)
    return;
  gsize fl = strlen (first);
  while (pre > 0 && !separator (first[pre - 1]))
    pre--;
  while (suf > 0 && !separator (first[fl - suf]))
    suf--;
  if (pre + suf < shortest)
    {
      *prefix = pre;
      *suffix = suf;
    }
}

/* A layer's name as the chart shows it: without the common affixes. */
static char *
shown_name (const Chart *c, const char *name)
{
  gsize len = strlen (name);
  g_autofree char *part = g_strndup (name + c->prefix,
                                     len - c->prefix - c->suffix);
  return g_utf8_make_valid (part, -1);
}

/* One bar: filled to a sparse choice's speedup, hatched to 1× for
 * dense. */
static void
draw_bar (const Chart *c, double y, SpxSweepSource s, double speedup,
          gboolean dense, const char *label, gboolean bold)
{
  cairo_t *cr = c->cr;
  SpxRgb colour = colour_of (c, s);
  double w = x_of (c, speedup) - c->x0;
  double h = c->bar_h * 0.78;
  if (dense)
    {
      cairo_rectangle (cr, c->x0 + 0.75, y + 0.75, MAX (w - 1.5, 0),
                       MAX (h - 1.5, 0));
      spx_render_look_keep_dense (cr, c->style, colour);
      source_marker (c, s, c->x0 + w, y + h / 2, 0.42 * h);
    }
  else
    {
      cairo_rectangle (cr, c->x0, y, w, h);
      spx_render_set_rgb (cr, colour);
      cairo_fill (cr);
      source_marker (c, s, c->x0 + w, y + h / 2, 0.42 * h);
    }
  if (!c->bar_labels || label == NULL)
    return;
  double x = c->x0 + w + 0.42 * h + 0.4 * c->fs;
  SpxTextOpts t = { .size = c->bar_size, .ay = 0.5, .bold = bold,
                    .max_width = c->width - PAD - x };
  spx_render_text (cr, c->style, x, y + h / 2, &t, label);
}

static void
draw_name (const Chart *c, double y, const char *name, gboolean bold)
{
  SpxTextOpts t = { .size = c->name_size, .ax = 1, .ay = 0.5, .bold = bold,
                    .max_width = c->name_w };
  spx_render_text (c->cr, c->style, c->x0 - 0.6 * c->fs, y, &t, name);
}

/* What a row draws for each source: a bar when valid. */
typedef struct {
  gboolean valid, dense;
  double   speedup;
  char    *label;
} Bar;

/* A row's bars, one per source that ran, centred in the row at y. */
static void
draw_bars (const Chart *c, double y, Bar *bars, gboolean bold)
{
  double top = y + (c->row_h - c->n_sources * c->bar_h) / 2;
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      SpxSweepSource s = order[i];
      if (c->ran[s] && bars[s].valid)
        draw_bar (c, top, s, bars[s].speedup, bars[s].dense, bars[s].label,
                  bold);
      top += c->ran[s] ? c->bar_h : 0;
      g_free (bars[s].label);
    }
}

static void
draw_layer (const Chart *c, const SpxSurveyLayer *layer, double y)
{
  g_autofree char *name = shown_name (c, layer->name);
  if (c->name_size > 0)
    draw_name (c, y + c->row_h / 2, name, FALSE);
  Bar bars[SPX_SWEEP_N_SOURCES];
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      const SpxSurveyChoice *ch = &layer->recommended[s];
      bars[s] = (Bar) { ch->valid, ch->mode == SPX_SWEEP_DENSE, ch->speedup,
                        spx_survey_choice_describe (ch) };
    }
  draw_bars (c, y, bars, FALSE);
}

static void
draw_totals (const Chart *c, double y)
{
  const SpxSurvey *survey = c->survey;
  draw_name (c, y + c->row_h / 2, survey->complete ? "whole network"
                                                   : "layers so far",
             TRUE);
  Bar bars[SPX_SWEEP_N_SOURCES];
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      const SpxSurveyTotal *t = &survey->total[s];
      /* hatched only when every layer stays dense */
      /* nothing measured: no bar (the sentence says why) */
      bars[s] = (Bar) { t->valid && t->layers > 0,
                        t->chosen_ms >= t->dense_ms, t->speedup,
                        g_strdup_printf ("%.2f×: %.3g → %.3g ms", t->speedup,
                                         t->dense_ms, t->chosen_ms) };
    }
  draw_bars (c, y, bars, TRUE);
}

/* The ticks over the rows' span and the dashed 1× line; labels below. */
static void
draw_axis (const Chart *c, double top, double bottom)
{
  cairo_t *cr = c->cr;
  double ticks[16];
  guint n = spx_render_nice_ticks (0, c->xmax, 6, ticks);
  cairo_set_line_width (cr, 1);
  for (guint i = 0; i < n; i++)
    {
      double x = round (x_of (c, ticks[i])) + 0.5;
      spx_render_set_rgba (cr, c->style->muted, 0.35);
      cairo_move_to (cr, x, top);
      cairo_line_to (cr, x, bottom);
      cairo_stroke (cr);
      g_autofree char *label = g_strdup_printf ("%g×", ticks[i]);
      SpxTextOpts t = { .size = 0.85, .ax = 0.5, .colour = c->style->muted,
                        .use_colour = TRUE };
      spx_render_text (cr, c->style, x, bottom + 0.25 * c->fs, &t, label);
    }
  double dash[] = { 5, 3 };
  double x = round (x_of (c, 1)) + 0.5;
  cairo_set_dash (cr, dash, 2, 0);
  spx_render_set_rgb (cr, c->style->foreground);
  cairo_move_to (cr, x, top);
  cairo_line_to (cr, x, bottom);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
}

static double
header (const Chart *c, const SpxRenderLayersData *d, double width)
{
  const SpxSurvey *survey = c->survey;
  const SpxSurveyOptions *o = &survey->settings;
  g_autofree char *name = network_name (survey);
  g_autofree char *own = d->title ? g_strdup (d->title)
    : g_strdup_printf ("%s: recommended speedup per layer", name);
  double y = PAD;
  SpxTextOpts t = { .size = 1.25, .bold = TRUE };
  /* a long title wraps; one line keeps its old room */
  y += MAX (1.7 * c->fs, spx_render_title (c->cr, c->style, PAD, y, &t,
                                           width - 2 * PAD,
                                           spx_render_title_text (c->style,
                                                                  own)) +
                           0.2 * c->fs);
  guint surveyed = drawn_rows (survey);
  guint skipped = survey->layers->len - surveyed;
  g_autofree char *state = survey->complete || d->running ? g_strdup ("")
                           : g_strdup (" · interrupted");
  g_autofree char *on = spx_defaults_threads_text (o->threads);
  g_autofree char *threads = o->run_cpu ? g_strdup_printf (" · CPU on %s",
                                                           on)
                                        : g_strdup ("");
  const char *first = ((SpxSurveyLayer *) survey->layers->pdata[0])->name;
  g_autofree char *pre = g_utf8_make_valid (first, c->prefix);
  g_autofree char *suf = g_utf8_make_valid (first + strlen (first) -
                                            c->suffix, -1);
  g_autofree char *names = c->prefix + c->suffix == 0 ? g_strdup ("")
    : g_strdup_printf (" · names without %s…%s", pre, suf);
  g_autofree char *entries = spx_count_text (skipped, "other entry",
                                             "other entries");
  g_autofree char *layers = spx_count_text (surveyed, "layer", "layers");
  g_autofree char *left = skipped == 0 ? g_strdup ("")
    : g_strdup_printf (" (%s skipped, not drawn)", entries);
  g_autofree char *sub = g_strdup_printf (
    "%s · %s surveyed%s · n = %" G_GUINT64_FORMAT "%s%s%s",
    survey->format ? survey->format : "", layers, left, o->n, threads, state,
    names);
  SpxTextOpts m = { .size = 0.9, .colour = c->style->muted,
                    .use_colour = TRUE };
  return y + MAX (1.5 * c->fs, spx_render_title (c->cr, c->style, PAD, y, &m,
                                                 width - 2 * PAD, sub) +
                                 0.4 * c->fs);
}

/* One entry of the legend at (*x, *y), on the next line when it would
 * pass the right edge: a swatch (filled, with a source's marker when
 * source ≥ 0, or hatched for dense) or none, then text. */
static void
legend_item (const Chart *c, double *x, double *y, const SpxRgb *swatch,
             gboolean dense, int source, const char *text)
{
  double s = 0.8 * c->fs, gap = swatch ? s + 0.4 * c->fs : 0;
  SpxTextOpts t = { .size = 0.9, .ay = 0.5 };
  double w = gap + spx_render_text_width (c->cr, c->style, 0.9, text, NULL);
  if (*x > PAD && *x + w > c->width - PAD)
    {
      *x = PAD;
      *y += 1.3 * c->fs;
    }
  if (swatch != NULL && dense)
    {
      cairo_rectangle (c->cr, *x + 0.75, *y - s / 2 + 0.75, s - 1.5,
                       s - 1.5);
      spx_render_look_keep_dense (c->cr, c->style, *swatch);
    }
  else if (swatch != NULL)
    {
      cairo_rectangle (c->cr, *x, *y - s / 2, s, s);
      spx_render_set_rgb (c->cr, *swatch);
      cairo_fill (c->cr);
      if (source >= 0)
        source_marker (c, (SpxSweepSource) source, *x + s / 2, *y, 0.42 * s);
    }
  *x += gap + spx_render_text (c->cr, c->style, *x + gap, *y, &t, text) +
        1.2 * c->fs;
}

/* Some bar is hatched: a layer, or every layer, stays dense. */
static gboolean
any_kept_dense (const Chart *c)
{
  const SpxSurvey *survey = c->survey;
  for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
    {
      const SpxSurveyTotal *t = &survey->total[s];
      if (t->valid && t->chosen_ms >= t->dense_ms)
        return TRUE;
      for (guint i = 0; i < survey->layers->len; i++)
        {
          const SpxSurveyLayer *layer = survey->layers->pdata[i];
          const SpxSurveyChoice *ch = &layer->recommended[s];
          if (layer->skipped == NULL && ch->valid &&
              ch->mode == SPX_SWEEP_DENSE)
            return TRUE;
        }
    }
  return FALSE;
}

/* The sources' swatches, as the bars draw them, and dense's (hatched
 * only when a bar is); returns where the rows may start. */
static double
legend (const Chart *c, double y)
{
  const SpxSurveyOptions *o = &c->survey->settings;
  g_autofree char *cpu = g_strdup_printf (
    "this CPU, measured (%s)",
    spx_cpu_type_name (spx_bench_cpu_type (o->dtype)));
  g_autofree char *model = g_strdup_printf (
    "IPU model, planned (%s, %s)", o->machine ? o->machine->name : "bow",
    spx_dtype_to_string (spx_dtype_on_ipu (o->dtype)));
  const char *names[SPX_SWEEP_N_SOURCES] = {
    [SPX_SWEEP_CPU] = cpu, [SPX_SWEEP_MODEL] = model
  };
  double x = PAD;
  y += 0.5 * c->fs;
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    if (c->ran[order[i]])
      {
        SpxRgb colour = colour_of (c, order[i]);
        legend_item (c, &x, &y, &colour, FALSE, (int) order[i],
                     names[order[i]]);
      }
  if (any_kept_dense (c))
    legend_item (c, &x, &y, &c->style->muted, TRUE, -1,
                 "keep dense (nothing beats it by 5%)");
  legend_item (c, &x, &y, NULL, FALSE, -1, "┆ 1× = dense");
  return y + 1.1 * c->fs;
}

/* The widest name, at most NAME_SHARE of the width. */
static double
names_width (const Chart *c, double width)
{
  /* the totals' name is bold: about a tenth wider */
  double w = 1.15 * spx_render_text_width (c->cr, c->style, 1,
                                           "whole network", NULL);
  for (guint i = 0; i < c->survey->layers->len; i++)
    {
      const SpxSurveyLayer *layer = c->survey->layers->pdata[i];
      if (layer->skipped != NULL)
        continue;
      g_autofree char *name = shown_name (c, layer->name);
      w = MAX (w, spx_render_text_width (c->cr, c->style, c->name_size,
                                         name, NULL));
    }
  return MIN (w, NAME_SHARE * width);
}

static double
largest_speedup (const SpxSurvey *survey)
{
  double most = 1.25;
  for (guint i = 0; i < survey->layers->len; i++)
    {
      const SpxSurveyLayer *layer = survey->layers->pdata[i];
      for (guint s = 0; s < SPX_SWEEP_N_SOURCES; s++)
        if (layer->recommended[s].valid && isfinite (layer->recommended[s].speedup))
          most = MAX (most, layer->recommended[s].speedup);
    }
  return most;
}

/* Row height and type sizes for rows rows in room, at most full size. */
static void
size_rows (Chart *c, double room, guint rows)
{
  double full = row_em (c->n_sources) * c->fs;
  c->row_h = MIN (full, room / MAX (rows, 1));
  double shrink = c->row_h / full;
  c->bar_h = BAR_EM * c->fs * shrink;
  c->name_size = shrink >= 0.45 ? MIN (1, MAX (0.6, shrink)) : 0;
  c->bar_size = MIN (0.85, MAX (0.6, shrink * 0.85));
  c->bar_labels = shrink >= 0.6;
}

static void
place_columns (Chart *c, double width)
{
  c->name_w = names_width (c, width);
  c->x0 = PAD + c->name_w + 0.6 * c->fs;
  c->x1 = MAX (c->x0 + 4 * c->fs, width - PAD - LABEL_EM * c->fs);
  double ticks[16];
  guint n = spx_render_nice_ticks (0, largest_speedup (c->survey) * 1.02, 6,
                                   ticks);
  c->xmax = MAX (ticks[n - 1], largest_speedup (c->survey));
}

/* The survey's sentence, broken into lines that fit at its "; " and
 * ", " (drawn when draw); how many lines. */
static guint
words (const Chart *c, double y, double width, gboolean draw)
{
  guint lines = 0;
  g_autofree char *text = spx_survey_describe (c->survey);
  text[0] = g_ascii_toupper (text[0]);
  g_autoptr (GString) line = g_string_new (NULL);
  SpxTextOpts t = { .size = 0.95, .max_width = width - 2 * PAD };
  const char *p = text;
  while (*p != '\0')
    {
      /* the next clause, with the separator that ends it */
      const char *semi = strstr (p, "; "), *comma = strstr (p, ", ");
      const char *end = semi && (!comma || semi < comma) ? semi : comma;
      g_autofree char *clause = end ? g_strndup (p, end - p + 1)
                                    : g_strdup (p);
      p = end ? end + 2 : p + strlen (p);
      g_autofree char *joined = g_strdup_printf ("%s%s%s", line->str,
                                                 line->len ? " " : "",
                                                 clause);
      gboolean fits = spx_render_text_width (c->cr, c->style, t.size, joined,
                                             NULL) <= t.max_width;
      gboolean ends = g_str_has_suffix (line->str, ";");
      if (line->len > 0 && (!fits || ends))
        {
          if (draw)
            spx_render_text (c->cr, c->style, PAD, y, &t, line->str);
          y += LINE_EM * c->fs;
          lines++;
          g_string_assign (line, clause);
        }
      else
        g_string_assign (line, joined);
    }
  if (line->len > 0 && draw)
    spx_render_text (c->cr, c->style, PAD, y, &t, line->str);
  return lines + (line->len > 0);
}

void
spx_render_layers (cairo_t *cr, double width, double height,
                   gconstpointer data, const SpxRenderStyle *style)
{
  const SpxRenderLayersData *d = data;
  spx_render_clear (cr, style, width, height);
  if (d == NULL || d->survey == NULL || drawn_rows (d->survey) == 0)
    {
      spx_render_placeholder (cr, style, width, height,
                              d && d->running ? "Surveying the first layer…"
                              : d && d->survey && d->survey->layers->len
                              ? "No layer surveyed (see the table)"
                              : "No survey yet");
      return;
    }
  Chart c = { .cr = cr, .style = style, .survey = d->survey,
              .width = width };
  c.fs = style->font_size;
  common_affixes (d->survey, &c.prefix, &c.suffix);
  c.n_sources = ran_sources (d->survey, c.ran);
  double y = legend (&c, header (&c, d, width));
  double full = row_em (c.n_sources) * c.fs;
  guint rows = drawn_rows (d->survey);
  double foot = FOOT_EM + LINE_EM * words (&c, 0, width, FALSE);
  size_rows (&c, height - PAD - foot * c.fs - full - y, rows);
  place_columns (&c, width);
  Chart total = c;
  size_rows (&total, full, 1);
  total.name_size = 1;
  double rows_top = y;
  double totals_top = y + rows * c.row_h + 0.4 * c.fs;
  draw_axis (&c, rows_top, totals_top + total.row_h);
  for (guint i = 0; i < d->survey->layers->len; i++)
    {
      const SpxSurveyLayer *layer = d->survey->layers->pdata[i];
      if (layer->skipped != NULL)
        continue;
      draw_layer (&c, layer, y);
      y += c.row_h;
    }
  /* the totals below a rule */
  spx_render_set_rgba (cr, style->muted, 0.6);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, PAD, round (y + 0.2 * c.fs) + 0.5);
  cairo_line_to (cr, width - PAD, round (y + 0.2 * c.fs) + 0.5);
  cairo_stroke (cr);
  draw_totals (&total, totals_top);
  words (&c, totals_top + total.row_h + 1.6 * c.fs, width, TRUE);
}
