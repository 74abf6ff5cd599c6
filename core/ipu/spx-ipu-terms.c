/* spx-ipu-terms.c: the named terms a superstep's cycles are explained
 * by, each with its formula and the same said in words. */
#include "spx-ipu-cost.h"

#include <stdarg.h>

static void
term_clear (gpointer data)
{
  SpxIpuTerm *t = data;
  g_free (t->term);
  g_free (t->formula);
  g_free (t->words);
}

GArray *
spx_ipu_terms_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (SpxIpuTerm));
  g_array_set_clear_func (a, term_clear);
  return a;
}

void
spx_ipu_terms_free (GArray *terms)
{
  if (terms)
    g_array_unref (terms);
}

void
spx_ipu_terms_add (GArray *terms, const char *term, guint64 cycles,
                   const char *formula, ...)
{
  if (terms == NULL)
    return;
  va_list ap;
  va_start (ap, formula);
  SpxIpuTerm t = { g_strdup (term), g_strdup_vprintf (formula, ap), cycles,
                   NULL };
  va_end (ap);
  g_array_append_val (terms, t);
}

guint64
spx_ipu_terms_sum (const GArray *terms)
{
  guint64 sum = 0;
  for (guint i = 0; terms && i < terms->len; i++)
    sum += g_array_index (terms, SpxIpuTerm, i).cycles;
  return sum;
}

void
spx_ipu_terms_copy (GArray *dst, const GArray *src)
{
  g_array_set_size (dst, 0);
  for (guint i = 0; src && i < src->len; i++)
    {
      const SpxIpuTerm *t = &g_array_index (src, SpxIpuTerm, i);
      spx_ipu_terms_add (dst, t->term, t->cycles, "%s", t->formula);
      if (t->words != NULL)
        spx_ipu_terms_say (dst, "%s", t->words);
    }
}

void
spx_ipu_terms_say (GArray *terms, const char *words, ...)
{
  if (terms == NULL || terms->len == 0)
    return;
  SpxIpuTerm *t = &g_array_index (terms, SpxIpuTerm, terms->len - 1);
  va_list ap;
  va_start (ap, words);
  g_free (t->words);
  t->words = g_strdup_vprintf (words, ap);
  va_end (ap);
}
