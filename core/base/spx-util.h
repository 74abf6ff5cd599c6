/* spx-util.h: small helpers shared across core */
#pragma once

#include <glib.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/* Monotonic time in milliseconds, for timings reported to users. */
double   spx_now_ms (void);

/* Set error (domain, code, a printf-style message) and return FALSE: the
 * one line a check of input ends with when it refuses. */
gboolean spx_invalid (GError **error, GQuark domain, gint code,
                      const char *format, ...) G_GNUC_PRINTF (4, 5);

/* The choice nearest word by edit distance (insert, delete, replace or
 * swap two neighbours, each 1), when at most max_distance away and
 * nearer than any other; else NULL. For "did you mean …?". */
const char *spx_nearest (const char *word, const char *const *choices,
                         guint max_distance);

/* A count with its noun in the number it takes: "1 thread", "2
 * threads" (through g_dngettext, so a translation can take over). Every
 * count printed or drawn beside a noun goes through here. */
char    *spx_count_text (guint64 n, const char *one, const char *many);

/* ---- files input comes from --------------------------------------- */

/* Open path for reading if it is a regular file (or a link to one),
 * without waiting on a FIFO or a device: a descriptor, or -1 with an
 * error "PATH: is a directory, expected KIND", "PATH: is not a regular
 * file (a FIFO), expected KIND", or the system's reason. kind: "a mask
 * file", "a scenario", "a machine file". Close with close(). */
int      spx_open_regular (const char *path, const char *kind,
                           GError **error);
/* Its whole contents (NUL-terminated) when at most max_bytes long. */
gboolean spx_read_regular (const char *path, const char *kind,
                           gsize max_bytes, char **contents, gsize *len,
                           GError **error);

/* A finite number written out whole (C notation, or a fraction a/b as
 * densities are written): TRUE with *value, FALSE for anything else. */
gboolean spx_parse_number (const char *text, double *value);
/* The character at *p (before end), moving *p past it; (gunichar) -1,
 * moving one byte, where no UTF-8 character starts. */
gunichar spx_utf8_take (const char **p, const char *end);
/* Text from a file or the command line, fit to print on a terminal or
 * show in a label: control characters (C0, DEL) and bytes that are not
 * UTF-8 as \xNN, C1 controls (U+0080 to U+009F) as \u00NN, everything
 * else as it is. len < 0: up to the NUL. max_chars 0: all of it, else at
 * most that many characters, then "…". Escaping twice changes nothing. */
char    *spx_escape_len (const char *text, gssize len, guint max_chars);
/* All of a NUL-terminated text so. */
char    *spx_escape  (const char *text);
/* A value from a file, fit to quote in a message: at most 32
 * characters, escaped, quoted ('…'). */
char    *spx_excerpt (const char *text);
/* The same unquoted, for a key or group name. */
char    *spx_short   (const char *text);
/* Text whose lines end in CR alone (old Mac files; the first line end
 * decides) is read as if they ended in LF: *data then points to a copy
 * (*copy, to free; NUL-terminated) with LF line ends. Other text is left
 * as it is (*copy NULL). FALSE, with an error naming name, when the copy
 * is over the memory budget. */
gboolean spx_text_cr_lines (const char *name, const char **data, gsize len,
                            char **copy, GError **error);
/* Whether path ends in suffix (".csv"), ignoring ASCII case. */
gboolean spx_has_suffix (const char *path, const char *suffix);
/* A count with its thousands grouped, "66,944", for figures people add
 * up by eye. */
char    *spx_format_count (guint64 value);
/* A size for people: "512 B", "4.0 KiB", "3.1 MiB". */
char    *spx_format_bytes (double bytes);
/* The first n of items (n < 0: up to NULL) as a choice in words: "a",
 * "a or b", "a, b or c". */
char    *spx_join_choices (const char *const *items, gssize n);
/* Where a key file that GKeyFile refused goes wrong, for a message that
 * must not quote it: "NAME:LINE" at the first line that is neither
 * blank, a comment, a [group] nor a key = value, else "NAME". */
char    *spx_key_file_where (const char *name, const char *data, gsize len);
/* Parses name's data into kf, CR-only lines read as LF. FALSE with
 * *error set when the text is over budget; FALSE with *where (free it)
 * from spx_key_file_where when GKeyFile refuses it: the caller says what
 * was expected and never quotes the file (it may not be ours: say,
 * /etc/shadow). */
gboolean spx_key_file_parse (GKeyFile *kf, const char *name,
                             const char *data, gsize len, char **where,
                             GError **error);

/* ---- what input may ask of the machine ---------------------------- */

#define SPX_BUDGET_ERROR (spx_budget_error_quark ())
GQuark spx_budget_error_quark (void);

typedef enum {
  SPX_BUDGET_ERROR_TOO_LARGE, /* more memory than the budget */
  SPX_BUDGET_ERROR_CANCELLED, /* the caller gave up waiting */
} SpxBudgetError;

/* The memory one operation may take for what its input asks (a mask's
 * bits, a plan's arrays, dense operands): SPX_MEMORY_BUDGET (bytes, or
 * with a K, M or G suffix) when set, else a quarter of the physical
 * memory; never more than half of what an address-space or data limit
 * (ulimit -v, -d) allows. The command line and the window share it. */
#define SPX_MEMORY_BUDGET_ENV "SPX_MEMORY_BUDGET"
guint64  spx_memory_budget (void);
/* TRUE when bytes fit the budget; else an error naming what ("FILE",
 * "--n 2147483647", "the static plan"), the size and the budget. */
gboolean spx_budget_check (guint64 bytes, const char *what, GError **error);
/* The same for bytes more when held bytes are taken already by what
 * lives on (other masks): the sum must fit, and the error says both. */
gboolean spx_budget_check_held (guint64 bytes, guint64 held,
                                const char *what, GError **error);
/* spx_budget_check for an estimate: a double, so that products of sizes
 * from input cannot wrap (past 2^62 bytes it counts as 2^62). */
gboolean spx_budget_check_estimate (double bytes, const char *what,
                                    GError **error);
/* count × size bytes, zeroed, after spx_budget_check (the product
 * checked for overflow); NULL with an error when refused or when the
 * allocation fails. Free with g_free. */
gpointer spx_budget_alloc0 (guint64 count, gsize size, const char *what,
                            GError **error);

/* The most threads a measurement may ask for: more than this many per
 * processor online cannot run sensibly (OpenBLAS takes a buffer of about
 * 32 MiB per thread, and under a memory limit its allocator retries
 * forever). Scenarios, options and the engine hold to it. */
#define SPX_THREADS_PER_CPU 4
guint    spx_max_threads      (void);
/* It in words: "8 (4 × the 2 processors online)". */
char    *spx_max_threads_text (void);

/* Long work polls this between steps: TRUE (and a CANCELLED error) once
 * the thread's current GCancellable (g_cancellable_push_current) is
 * cancelled. Cheap enough for every few thousand iterations. */
gboolean spx_cancelled (GError **error);

G_END_DECLS
