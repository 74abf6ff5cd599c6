/* spx-cli-mask.h: the options that describe a generated mask, shared by
 * every command that makes one */
#pragma once

#include <glib.h>
#include "spx-mask-gen.h"

G_BEGIN_DECLS

typedef struct {
  char *pattern, *density, *seed, *tile_width, *nm, *band, *exponent;
} SpxCliGenArgs;

/* Adds --pattern, --density, --seed, --tile-width, --nm, --band,
 * --exponent to context's main entries. */
void     spx_cli_gen_args_add   (SpxCliGenArgs *args, GOptionContext *context);
void     spx_cli_gen_args_clear (SpxCliGenArgs *args);
/* Checks them (one line naming the option on failure) over the defaults
 * already in gen. */
gboolean spx_cli_gen_args_parse (const SpxCliGenArgs *args,
                                 const char *command, SpxGenOptions *gen);

/* Where the sparse operand's mask comes from: a file (--mask, blocked to
 * B) or a generator at --m × --k. */
typedef struct {
  SpxCliGenArgs gen;
  char *mask, *m, *k;
} SpxCliMaskArgs;

void     spx_cli_mask_args_add   (SpxCliMaskArgs *args, GOptionContext *context);
void     spx_cli_mask_args_clear (SpxCliMaskArgs *args);
/* The mask at block size block, or NULL with *status set (2: usage, one
 * line printed; 1: a bad file). */
SpxMask *spx_cli_mask_args_build (const SpxCliMaskArgs *args,
                                  const char *command, guint block,
                                  int *status);

G_END_DECLS
