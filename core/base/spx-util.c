/* spx-util.c: small helpers shared across core */
#include "spx-util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

G_DEFINE_QUARK (spx-budget-error-quark, spx_budget_error)

gboolean
spx_invalid (GError **error, GQuark domain, gint code, const char *format,
             ...)
{
  va_list args;

  if (error == NULL)
    return FALSE;
  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (domain, code, format, args));
  va_end (args);
  return FALSE;
}

/* Nanoseconds: small products finish within a microsecond, and
 * g_get_monotonic_time's microseconds would time them as 0. */
double
spx_now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* "3G", "512M", "1048576": bytes, or 0 when not a size. */
static guint64
parse_size (const char *text)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  if (end == text)
    return 0;
  guint shift = 0;
  switch (g_ascii_toupper (*end))
    {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    default: break;
    }
  if (*end != '\0' || v > (G_MAXUINT64 >> shift))
    return 0;
  return v << shift;
}

/* Half of the smallest limit set on this process's memory. */
static guint64
limit_share (void)
{
  guint64 least = G_MAXUINT64;
  const int kinds[] = { RLIMIT_AS, RLIMIT_DATA };
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      struct rlimit rl;
      if (getrlimit (kinds[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        least = MIN (least, (guint64) rl.rlim_cur);
    }
  return least == G_MAXUINT64 ? least : least / 2;
}

guint64
spx_memory_budget (void)
{
  const char *env = g_getenv (SPX_MEMORY_BUDGET_ENV);
  guint64 budget = env != NULL ? parse_size (env) : 0;
  if (budget == 0)
    {
      long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
      budget = pages > 0 && page > 0 ? (guint64) pages * page / 4
                                     : G_GUINT64_CONSTANT (1) << 30;
    }
  return MIN (budget, limit_share ());
}

gboolean
spx_budget_check (guint64 bytes, const char *what, GError **error)
{
  return spx_budget_check_held (bytes, 0, what, error);
}

gboolean
spx_budget_check_estimate (double bytes, const char *what, GError **error)
{
  double most = (double) (G_GUINT64_CONSTANT (1) << 62);
  return spx_budget_check (bytes < most ? (guint64) bytes : (guint64) most,
                           what, error);
}

gboolean
spx_budget_check_held (guint64 bytes, guint64 held, const char *what,
                       GError **error)
{
  guint64 budget = spx_memory_budget ();
  guint64 total = bytes > G_MAXUINT64 - held ? G_MAXUINT64 : bytes + held;
  if (total <= budget)
    return TRUE;
  g_autofree char *need = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *have = g_format_size_full (budget,
                                              G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *with = g_format_size_full (total, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *sum = held == 0 ? g_strdup ("")
    : g_strdup_printf (" (%s with the masks already held)", with);
  g_set_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE,
               "%s: would need %s of memory%s, more than the budget of %s "
               "(%s sets it)", what, need, sum, have, SPX_MEMORY_BUDGET_ENV);
  return FALSE;
}

gpointer
spx_budget_alloc0 (guint64 count, gsize size, const char *what,
                   GError **error)
{
  guint64 bytes = size != 0 && count > G_MAXUINT64 / size ? G_MAXUINT64
                                                          : count * size;
  if (!spx_budget_check (bytes, what, error))
    return NULL;
  gpointer p = bytes <= G_MAXSIZE ? g_try_malloc0 (MAX (bytes, 1)) : NULL;
  if (p == NULL)
    {
      g_autofree char *need = g_format_size_full (bytes,
                                                  G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_TOO_LARGE,
                   "%s: could not get %s of memory", what, need);
    }
  return p;
}

guint
spx_max_threads (void)
{
  return SPX_THREADS_PER_CPU * (guint) MAX (1, sysconf (_SC_NPROCESSORS_ONLN));
}

char *
spx_max_threads_text (void)
{
  guint most = spx_max_threads ();
  return g_strdup_printf ("%u (%u × the %u processors online)", most,
                          SPX_THREADS_PER_CPU, most / SPX_THREADS_PER_CPU);
}

gboolean
spx_cancelled (GError **error)
{
  GCancellable *c = g_cancellable_get_current ();
  if (c == NULL || !g_cancellable_is_cancelled (c))
    return FALSE;
  g_set_error_literal (error, SPX_BUDGET_ERROR, SPX_BUDGET_ERROR_CANCELLED,
                       "cancelled");
  return TRUE;
}

static const char *
file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return "is a directory";
  if (S_ISFIFO (mode))
    return "is not a regular file (a FIFO)";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "is not a regular file (a device)";
  if (S_ISSOCK (mode))
    return "is not a regular file (a socket)";
  return "is not a regular file";
}

int
spx_open_regular (const char *path, const char *kind, GError **error)
{
  /* O_NONBLOCK: opening a FIFO must not wait for a writer */
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                   "%s: %s", path, g_strerror (err));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                   "%s: %s, expected %s", path,
                   fstat (fd, &st) != 0 ? "cannot be examined"
                                        : file_kind (st.st_mode), kind);
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

/* Damerau-Levenshtein (optimal string alignment) of two short words. */
static guint
edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *d = g_new (guint, (la + 1) * (lb + 1));
#define D(i, j) d[(i) * (lb + 1) + (j)]
  for (gsize i = 0; i <= la; i++)
    D (i, 0) = (guint) i;
  for (gsize j = 0; j <= lb; j++)
    D (0, j) = (guint) j;
  for (gsize i = 1; i <= la; i++)
    for (gsize j = 1; j <= lb; j++)
      {
        guint cost = a[i - 1] != b[j - 1];
        guint best = MIN (MIN (D (i - 1, j) + 1, D (i, j - 1) + 1),
                          D (i - 1, j - 1) + cost);
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          best = MIN (best, D (i - 2, j - 2) + 1);
        D (i, j) = best;
      }
  guint result = D (la, lb);
#undef D
  return result;
}

const char *
spx_nearest (const char *word, const char *const *choices,
             guint max_distance)
{
  const char *best = NULL;
  guint best_distance = max_distance + 1;
  gboolean tie = FALSE;
  for (guint i = 0; choices[i] != NULL; i++)
    {
      guint dist = edit_distance (word, choices[i]);
      if (dist < best_distance)
        {
          best = choices[i];
          best_distance = dist;
          tie = FALSE;
        }
      else if (dist == best_distance && best != NULL &&
               !g_str_equal (best, choices[i]))
        tie = TRUE;
    }
  return tie ? NULL : best;
}

char *
spx_count_text (guint64 n, const char *one, const char *many)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", n,
                          g_dngettext (NULL, one, many, (gulong) n));
}

gboolean
spx_read_regular (const char *path, const char *kind, gsize max_bytes,
                  char **contents, gsize *len, GError **error)
{
  int fd = spx_open_regular (path, kind, error);
  if (fd < 0)
    return FALSE;
  GString *data = g_string_new (NULL);
  char buf[65536];
  gssize got;
  while ((got = read (fd, buf, sizeof buf)) > 0 &&
         data->len + (gsize) got <= max_bytes)
    g_string_append_len (data, buf, got);
  int err = errno;
  close (fd);
  if (got != 0)
    {
      if (got < 0)
        g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
                     "%s: %s", path, g_strerror (err));
      else
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                     "%s: longer than %" G_GSIZE_FORMAT " bytes, too long "
                     "for %s", path, max_bytes, kind);
      g_string_free (data, TRUE);
      return FALSE;
    }
  *len = data->len;
  *contents = g_string_free (data, FALSE);
  return TRUE;
}

gunichar
spx_utf8_take (const char **p, const char *end)
{
  gunichar c = g_utf8_get_char_validated (*p, end - *p);
  if (c == (gunichar) -1 || c == (gunichar) -2 || c == 0)
    {
      /* NUL too: GLib calls it incomplete in some versions */
      c = (guchar) **p == 0 ? 0 : (gunichar) -1;
      (*p)++;
      return c;
    }
  *p = g_utf8_next_char (*p);
  return c;
}

char *
spx_escape_len (const char *text, gssize len, guint max_chars)
{
  const char *p = text, *end = text + (len < 0 ? strlen (text) : (gsize) len);
  GString *out = g_string_sized_new ((gsize) (end - p));
  for (guint n = 0; p < end; n++)
    {
      if (max_chars != 0 && n == max_chars)
        {
          g_string_append (out, "…");
          break;
        }
      const char *start = p;
      gunichar c = spx_utf8_take (&p, end);
      if (c == (gunichar) -1 || c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", (guchar) *start);
      else if (c >= 0x80 && c <= 0x9f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, start, p - start);
    }
  return g_string_free (out, FALSE);
}

char *
spx_escape (const char *text)
{
  return spx_escape_len (text, -1, 0);
}

char *
spx_short (const char *text)
{
  return spx_escape_len (text, -1, 32);
}

/* The first line end within the first 64 KiB is a CR alone. */
static gboolean
ends_lines_in_cr (const char *data, gsize len)
{
  gsize n = MIN (len, 65536);
  for (gsize i = 0; i < n; i++)
    if (data[i] == '\n' || data[i] == '\r')
      return data[i] == '\r' && (i + 1 == len || data[i + 1] != '\n');
  return FALSE;
}

gboolean
spx_text_cr_lines (const char *name, const char **data, gsize len,
                   char **copy, GError **error)
{
  *copy = NULL;
  if (!ends_lines_in_cr (*data, len))
    return TRUE;
  g_autofree char *what = g_strdup_printf ("%s: a copy with LF line ends",
                                           name);
  char *out = spx_budget_alloc0 ((guint64) len + 1, 1, what, error);
  if (out == NULL)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    out[i] = (*data)[i] == '\r' && (i + 1 == len || (*data)[i + 1] != '\n')
               ? '\n' : (*data)[i];
  *data = *copy = out;
  return TRUE;
}

gboolean
spx_parse_number (const char *text, double *value)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end != text && *end == '/')
    {
      char *den_end = NULL;
      double den = g_ascii_strtod (end + 1, &den_end);
      v = den != 0 ? v / den : NAN;
      end = den_end == end + 1 ? end : den_end;
    }
  if (end == text || *end != '\0' || !isfinite (v))
    return FALSE;
  *value = v;
  return TRUE;
}

char *
spx_format_count (guint64 value)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, value);
  GString *s = g_string_new (NULL);
  gsize n = strlen (digits);
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

char *
spx_format_bytes (double bytes)
{
  if (bytes < 1024)
    return g_strdup_printf ("%.0f B", bytes);
  if (bytes < 1024.0 * 1024)
    return g_strdup_printf ("%.1f KiB", bytes / 1024);
  return g_strdup_printf ("%.1f MiB", bytes / (1024.0 * 1024));
}

char *
spx_join_choices (const char *const *items, gssize n)
{
  guint count = 0;
  while ((n < 0 || count < (guint) n) && items[count] != NULL)
    count++;
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < count; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? ""
                            : i + 1 == count ? " or " : ", ", items[i]);
  return g_string_free (s, FALSE);
}

/* One line of a key file as GKeyFile reads it: a key only once a group
 * has begun. */
static gboolean
key_file_line_ok (const char *p, const char *end, gboolean *in_group)
{
  while (p < end && g_ascii_isspace (*p))
    p++;
  if (p == end || *p == '#')
    return TRUE;
  if (*p == '[')
    return (*in_group = memchr (p, ']', (gsize) (end - p)) != NULL);
  return *in_group && *p != '=' &&
         memchr (p, '=', (gsize) (end - p)) != NULL;
}

char *
spx_key_file_where (const char *name, const char *data, gsize len)
{
  const char *p = data, *end = data + len;
  gboolean in_group = FALSE;
  for (guint line = 1; p < end; line++)
    {
      const char *eol = memchr (p, '\n', (gsize) (end - p));
      if (!key_file_line_ok (p, eol ? eol : end, &in_group))
        return g_strdup_printf ("%s:%u", name, line);
      p = eol ? eol + 1 : end;
    }
  return g_strdup (name);
}

gboolean
spx_key_file_parse (GKeyFile *kf, const char *name, const char *data,
                    gsize len, char **where, GError **error)
{
  g_autofree char *lf = NULL;
  *where = NULL;
  if (!spx_text_cr_lines (name, &data, len, &lf, error))
    return FALSE;
  /* GLib's own message would quote the line */
  if (g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, NULL))
    return TRUE;
  *where = spx_key_file_where (name, data, len);
  return FALSE;
}

gboolean
spx_has_suffix (const char *path, const char *suffix)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  return g_str_has_suffix (lower, suffix);
}

char *
spx_excerpt (const char *text)
{
  g_autofree char *inner = spx_short (text);
  return g_strdup_printf ("'%s'", inner);
}
