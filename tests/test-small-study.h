/* test-small-study.h: the small study the render tests draw: teach16,
 * 64 × 64, n = 32, blocks of 8, a quarter dense, planned. */
#pragma once

#include "spx-study.h"

static inline SpxStudy *
test_small_study (void)
{
  g_autoptr (GError) error = NULL;
  SpxStudy *study = spx_study_new ();
  g_assert_true (spx_study_set_machine (study, "teach16", &error));
  SpxScenario *sc = study->scenario;
  sc->m = sc->k = 64;
  sc->n = 32;
  sc->block = 8;
  sc->gen.density = 0.25;
  g_assert_true (spx_study_build_mask (study, &error));
  g_assert_true (spx_study_plan (study, &error));
  g_assert_no_error (error);
  return study;
}
