/* fuzz-check.h: what every harness checks about one load */
#pragma once

#include "spx-mask.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* Exactly one of a mask and an error; an error is in SPX_MASK_ERROR and
 * its message starts with the file's name. Takes both. */
static inline void
fuzz_check (const char *name, SpxMask *mask, GError *error)
{
  gboolean ok = (mask == NULL) != (error == NULL);
  if (ok && error != NULL)
    ok = error->domain == SPX_MASK_ERROR &&
         g_str_has_prefix (error->message, name);
  if (ok && mask != NULL)
    ok = mask->block == 1 && spx_mask_count (mask) <= mask->rows * mask->cols;
  if (!ok)
    {
      fprintf (stderr, "fuzz: bad result: mask %p, error %s\n",
               (void *) mask, error != NULL ? error->message : "(none)");
      abort ();
    }
  spx_mask_free (mask);
  g_clear_error (&error);
}
