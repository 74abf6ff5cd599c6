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

G_END_DECLS
