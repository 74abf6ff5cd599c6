/* spx-lesson.h: a guided lesson: steps that each set a scenario and what
 * the views show, with a text whose figures come from the live plan */
#pragma once

#include "spx-study.h"

G_BEGIN_DECLS

/* One step. Keys a step leaves out keep the step before's value, so a
 * step's state is whole: going back to it shows the same thing. */
typedef struct {
  char        *title;
  char        *text;          /* with {placeholders}, see spx_lesson_expand */
  SpxScenario *scenario;      /* the whole scenario (generated mask) */
  SpxIpuMode   mode;          /* the program the views show */
  char        *view;          /* one of the views the loader was given */
  gint         tile;          /* selected tile, -1: none */
  char        *superstep;     /* "kind phase" (see spx_lesson_find_step),
                                 or NULL: none */
  gboolean     colour_by_tile;
  gint         timeline_fit;  /* the program (SpxIpuMode) the Timeline's
                                 axis fits, SPX_LESSON_FIT_ALL: all of
                                 them, SPX_LESSON_FIT_BROKEN: all of them
                                 on a broken axis */
} SpxLessonStep;

#define SPX_LESSON_FIT_ALL    (-1)
#define SPX_LESSON_FIT_BROKEN (-2)

typedef struct {
  char      *title;
  GPtrArray *steps;           /* SpxLessonStep */
} SpxLesson;

/* A lesson file is a key file: a [lesson] group with a title, then one
 * group per step in order, with keys title, text, view, mode, tile,
 * superstep, colour-by-tile, timeline-fit (dense, static, dynamic, all,
 * or broken: all on a broken axis, so that short programs beside a long
 * one read), and the scenario's own keys written
 * scenario.KEY and mask.KEY (as in a .spx file). Every step is checked:
 * its scenario through the .spx reader, its view against views (NULL-
 * terminated), its placeholders against those spx_lesson_expand knows;
 * errors name the file, the step and the key. */
SpxLesson *spx_lesson_load_data (const char *name, const char *data,
                                 gsize len, const char *const *views,
                                 GError **error);
void       spx_lesson_free      (SpxLesson *lesson);

/* The first superstep of p whose kind and phase match selector ("compute
 * compute", "exchange reduce"), -1 for none. */
gint       spx_lesson_find_step (const SpxIpuProgram *p,
                                 const char *selector);

/* What the views show now, for the figures. */
typedef struct {
  const SpxStudy *study;
  SpxIpuMode      mode;
  gint            tile;       /* -1: none */
  gint            superstep;  /* index into the shown program, -1: none */
} SpxLessonView;

/* text with each {name} replaced by a figure of the live study:
 * {machine} {tiles} {sram} {budget} {m} {k} {n} {block} {density}
 * {dtype}; per program P (static, dynamic, dense or shown):
 * {P.cycles} {P.time} {P.steps} {P.plan} {P.tiles-used} (holding
 * anything) {P.tiles-computing} (multiplying) {P.fits}
 * {P.max-bytes} {P.speedup} (over dense); of the selected tile: {tile}
 * {tile.values} {tile.indices} {tile.input} {tile.partials}
 * {tile.output} {tile.bytes} {tile.cycles} {tile.macs} and its counts
 * of blocks, each with its words (spx_ipu_count_text): {tile.stored}
 * {tile.received} {tile.held} {tile.products} {tile.per-worker}; of the
 * selected superstep: {step} {step.name} {step.cycles} {step.share}
 * {step.terms}, and the tile its terms are about, {step.tile}, with the
 * same counts {step.tile.stored} … {step.tile.per-worker}. A figure
 * that does not exist now (no plan yet, no tile selected) reads "—".
 * Free with g_free. */
char      *spx_lesson_expand    (const char *text, const SpxLessonView *v);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxLesson, spx_lesson_free)

G_END_DECLS
