/* spx-cli-options.h: a command's options, each declared in one row */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SPX_CLI_TEXT, /* char *: the value as given, checked where it is used */
  SPX_CLI_FILE, /* char *: a file name, in the file system's encoding */
  SPX_CLI_FLAG, /* gboolean */
} SpxCliKind;

/* A command lists its options as rows of an X-macro:
 *
 *   #define THING_OPTIONS(O) \
 *     O (field, letter, KIND, value, help, more) \
 *     …
 *
 *   field   the member of the command's args that holds the option, and
 *           the option's name (each _ a -);
 *   letter  its short form, or 0;
 *   KIND    TEXT, FILE or FLAG;
 *   value   the value's name in --help ("B"), NULL for a FLAG;
 *   help    its line in --help: an expression evaluated where the rows
 *           are made, so that it can state a default as the program has
 *           it (spx_cli_keep_printf);
 *   more    sentences the man page adds after help, or NULL.
 *
 * SPX_CLI_FIELDS (THING_OPTIONS) inside the args struct declares the
 * members; SPX_CLI_ADD (options, THING_OPTIONS, section) adds the rows
 * where `args` points to that struct. The man page's entries are made
 * from the same rows (app/spx-man-page.c). */
typedef struct {
  const char *field;
  char        letter;
  SpxCliKind  kind;
  gpointer    data;
  const char *value;
  const char *help;
  const char *more;
} SpxCliOption;

#define SPX_CLI_TYPE_TEXT char *
#define SPX_CLI_TYPE_FILE char *
#define SPX_CLI_TYPE_FLAG gboolean
#define SPX_CLI_FIELD(field, letter, kind, value, help, more) \
  SPX_CLI_TYPE_##kind field;
#define SPX_CLI_ROW(field, letter, kind, value, help, more) \
  { #field, letter, SPX_CLI_##kind, &args->field, value, help, more },
#define SPX_CLI_FIELDS(list) list (SPX_CLI_FIELD)
#define SPX_CLI_ADD(options, list, section) \
  G_STMT_START { \
    const SpxCliOption spx_cli_rows_[] = { list (SPX_CLI_ROW) }; \
    spx_cli_options_add (options, spx_cli_rows_, \
                         G_N_ELEMENTS (spx_cli_rows_), section); \
  } G_STMT_END

/* One command's options: its GOptionContext, its args (the values
 * parsed) and the rows, for the man page. One exists at a time. */
typedef struct _SpxCliOptions SpxCliOptions;

/* parameter_string: the usage's positional part ("FILE"), or NULL;
 * args_size: the size of the command's args, given zeroed. */
SpxCliOptions  *spx_cli_options_new     (const char *parameter_string,
                                         gsize args_size);
/* Frees the values parsed into args, and the texts kept. */
void            spx_cli_options_free    (SpxCliOptions *options);
gpointer        spx_cli_options_args    (SpxCliOptions *options);
GOptionContext *spx_cli_options_context (SpxCliOptions *options);

/* Adds rows to the context's options, after those added before (the
 * order of --help). section: the man page's section for options several
 * commands share ("pattern" for @OPTIONS pattern@), NULL for the
 * command's own. */
void spx_cli_options_add   (SpxCliOptions *options,
                            const SpxCliOption *rows, guint n_rows,
                            const char *section);
/* A second name for option `of`, hidden from --help and the man page. */
void spx_cli_options_alias (SpxCliOptions *options, const char *name,
                            const char *of);

typedef struct {
  const char  *name;    /* the long name, without -- */
  const char  *section; /* see spx_cli_options_add */
  SpxCliOption option;
} SpxCliOptionInfo;

/* Every long name the command takes, aliases and help too, without
 * "--": for suggestions. Free with g_strfreev. */
char **spx_cli_options_long_names (SpxCliOptions *options);

/* The rows, in the order of --help (aliases left out). */
const SpxCliOptionInfo *spx_cli_options_list (SpxCliOptions *options,
                                              guint *n);

/* A text made for an option's help (GOptionEntry keeps the pointer):
 * freed with the options. Returns text. */
const char *spx_cli_keep        (char *text);
const char *spx_cli_keep_printf (const char *format, ...)
  G_GNUC_PRINTF (1, 2);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpxCliOptions, spx_cli_options_free)

G_END_DECLS
