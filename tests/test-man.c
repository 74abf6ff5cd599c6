/* test-man.c: the man page against the built program's own help, so the
 * page cannot drift from it. Every option a command's --help lists must be
 * an option entry (.TP) of that command's section (or of a common section
 * the command's text names), with its short form in the same entry and its
 * help in the entry's text; and every entry there must be an option the
 * command has. */
#include "spx-config.h"
#include "test-run.h"
#include "test-files.h"

#include <string.h>

typedef struct {
  char      *title;  /* .SS title, or "OPTIONS" for the program's own */
  char      *parent; /* the .SH it is under */
  GString   *text;
  GPtrArray *tags;   /* char ** per .TP: the options its tag names */
  GPtrArray *bodies; /* GString per .TP: its text, as plain text */
} Section;

typedef struct {
  char *lng, *shrt; /* shrt NULL when there is none */
  char *help;       /* its line in --help */
} Opt;

static GPtrArray *sections;

static void
section_free (gpointer data)
{
  Section *s = data;
  g_free (s->title);
  g_free (s->parent);
  g_string_free (s->text, TRUE);
  g_ptr_array_unref (s->tags);
  g_ptr_array_unref (s->bodies);
  g_free (s);
}

static void
string_free (gpointer data)
{
  g_string_free (data, TRUE);
}

static void
opt_free (gpointer data)
{
  Opt *o = data;
  g_free (o->lng);
  g_free (o->shrt);
  g_free (o->help);
  g_free (o);
}

/* A line of troff as plain text: no macro name, font changes, quotes or
 * escaped hyphens. */
static char *
plain (const char *line)
{
  if (line[0] == '.')
    line += strcspn (line, " ") + (line[strcspn (line, " ")] == ' ');
  g_autoptr (GRegex) re = g_regex_new ("\\\\f[BIRP]|\"", 0, 0, NULL);
  g_autofree char *text = g_regex_replace_literal (re, line, -1, 0, "", 0,
                                                   NULL);
  g_autoptr (GRegex) dash = g_regex_new ("\\\\-", 0, 0, NULL);
  return g_regex_replace_literal (dash, text, -1, 0, "-", 0, NULL);
}

/* Appends a line of an entry's text as the reader sees it: plain, with
 * \e, \& and \[uXXXX] read. */
static void
append_text (GString *body, const char *line)
{
  g_autofree char *text = plain (line);
  if (body->len > 0)
    g_string_append_c (body, ' ');
  for (const char *p = text; *p != '\0'; p++)
    {
      guint64 c;
      char *end;
      if (g_str_has_prefix (p, "\\e"))
        g_string_append_c (body, '\\'), p++;
      else if (g_str_has_prefix (p, "\\&"))
        p++;
      else if (g_str_has_prefix (p, "\\[u") &&
               (c = g_ascii_strtoull (p + 3, &end, 16)) != 0 && *end == ']')
        g_string_append_unichar (body, (gunichar) c), p = end;
      else
        g_string_append_c (body, *p);
    }
}

/* The options (-x, --name) a tag names. */
static char **
tag_options (const char *tag)
{
  g_autoptr (GRegex) re = g_regex_new (
    "(?:^|[\\s,\\[|(])(--?[A-Za-z0-9][A-Za-z0-9-]*)", 0, 0, NULL);
  GPtrArray *found = g_ptr_array_new ();
  g_autoptr (GMatchInfo) m = NULL;
  for (g_regex_match (re, tag, 0, &m); g_match_info_matches (m);
       g_match_info_next (m, NULL))
    g_ptr_array_add (found, g_match_info_fetch (m, 1));
  g_ptr_array_add (found, NULL);
  return (char **) g_ptr_array_free (found, FALSE);
}

static void
load_page (void)
{
  const char *path = g_getenv ("SPX_MAN_PAGE");
  g_assert_nonnull (path);
  g_autofree char *page = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &page, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (page, "\"Sparse Explorer " SPX_VERSION "\""));

  sections = g_ptr_array_new_with_free_func (section_free);
  g_auto (GStrv) lines = g_strsplit (page, "\n", -1);
  g_autofree char *sh = NULL;
  Section *cur = NULL;
  for (char **l = lines; *l != NULL; l++)
    {
      gboolean is_sh = g_str_has_prefix (*l, ".SH ");
      if (is_sh || g_str_has_prefix (*l, ".SS "))
        {
          g_autofree char *title = plain (*l);
          if (is_sh)
            {
              g_free (sh);
              sh = g_strdup (title);
            }
          cur = NULL;
          if (is_sh && !g_str_equal (title, "OPTIONS"))
            continue;
          cur = g_new0 (Section, 1);
          cur->title = g_strdup (title);
          cur->parent = g_strdup (sh);
          cur->text = g_string_new (NULL);
          cur->tags = g_ptr_array_new_with_free_func (
            (GDestroyNotify) g_strfreev);
          cur->bodies = g_ptr_array_new_with_free_func (string_free);
          g_ptr_array_add (sections, cur);
        }
      else if (cur != NULL && g_str_equal (*l, ".TP") && l[1] != NULL)
        {
          g_autofree char *tag = plain (*++l);
          g_ptr_array_add (cur->tags, tag_options (tag));
          g_ptr_array_add (cur->bodies, g_string_new (NULL));
        }
      else if (cur != NULL)
        {
          g_string_append_printf (cur->text, "%s\n", *l);
          if (cur->bodies->len > 0)
            append_text (g_ptr_array_index (cur->bodies,
                                            cur->bodies->len - 1), *l);
        }
    }
}

static Section *
find_section (const char *parent, const char *title)
{
  for (guint i = 0; i < sections->len; i++)
    {
      Section *s = sections->pdata[i];
      if (g_str_equal (s->parent, parent) && g_str_equal (s->title, title))
        return s;
    }
  return NULL;
}

/* The options of help text (only under heading `only`, when given). */
static GPtrArray *
help_options (const char *help, const char *only)
{
  g_autoptr (GRegex) re = g_regex_new (
    "^\\s+(?:(-[A-Za-z0-9]), )?(--[a-z][a-z0-9-]*)\\S*\\s+(.*)", 0, 0,
    NULL);
  GPtrArray *opts = g_ptr_array_new_with_free_func (opt_free);
  g_auto (GStrv) lines = g_strsplit (help, "\n", -1);
  const char *heading = "";
  for (char **l = lines; *l != NULL; l++)
    {
      g_autoptr (GMatchInfo) m = NULL;
      if (**l != ' ' && **l != '\0')
        heading = *l;
      else if ((only == NULL || g_str_equal (heading, only)) &&
               g_regex_match (re, *l, 0, &m))
        {
          Opt *o = g_new0 (Opt, 1);
          o->shrt = g_match_info_fetch (m, 1);
          o->lng = g_match_info_fetch (m, 2);
          o->help = g_match_info_fetch (m, 3);
          if (*o->shrt == '\0')
            g_clear_pointer (&o->shrt, g_free);
          g_ptr_array_add (opts, o);
        }
    }
  return opts;
}

/* The program's output for one or two arguments (b may be NULL). Not
 * inlined: GCC then takes test_run's local for what the result points
 * to (-Wdangling-pointer). */
G_GNUC_NO_INLINE static char *
help_of (const char *a, const char *b, int *status)
{
  const char *argv[] = { test_binary (), a, b, NULL };
  return test_run (argv, NULL, status, NULL);
}

/* The commands `sparse-explorer --help` lists. */
static char **
program_commands (void)
{
  int status;
  g_autofree char *help = help_of ("--help", NULL, &status);
  g_assert_cmpint (status, ==, 0);
  const char *list = strstr (help, "\nCommands:\n");
  g_assert_nonnull (list);
  g_autoptr (GRegex) re = g_regex_new ("^  ([a-z]+)  ", G_REGEX_MULTILINE,
                                       0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  GPtrArray *found = g_ptr_array_new ();
  for (g_regex_match (re, list, 0, &m); g_match_info_matches (m);
       g_match_info_next (m, NULL))
    g_ptr_array_add (found, g_match_info_fetch (m, 1));
  g_ptr_array_add (found, NULL);
  return (char **) g_ptr_array_free (found, FALSE);
}

/* The tag of `sec` naming `option`, or NULL. */
static char **
find_tag (Section *sec, const char *option)
{
  for (guint i = 0; i < sec->tags->len; i++)
    if (g_strv_contains (sec->tags->pdata[i], option))
      return sec->tags->pdata[i];
  return NULL;
}

static gboolean
has_option (GPtrArray *opts, const char *option)
{
  for (guint i = 0; i < opts->len; i++)
    {
      Opt *o = opts->pdata[i];
      if (g_str_equal (o->lng, option) || g_strcmp0 (o->shrt, option) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Says what disagrees and goes on, so one run lists every difference. */
G_GNUC_PRINTF (1, 2) static void
disagree (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *text = g_strdup_vprintf (format, args);
  va_end (args);
  g_test_message ("%s", text);
  g_test_fail ();
}

/* Every option of `opts` has an entry in `docs` (with its short form),
 * and every entry of `docs` is one of `opts`. */
static void
check_agree (GPtrArray *opts, GPtrArray *docs, const char *who)
{
  for (guint i = 0; i < opts->len; i++)
    {
      Opt *o = opts->pdata[i];
      char **tag = NULL;
      for (guint j = 0; j < docs->len && tag == NULL; j++)
        tag = find_tag (docs->pdata[j], o->lng);
      if (tag == NULL)
        disagree ("%s: %s is not in the man page", who, o->lng);
      else if (o->shrt != NULL && !g_strv_contains ((const char *const *) tag,
                                                    o->shrt))
        disagree ("%s: the man page's %s lacks %s", who, o->lng, o->shrt);
    }
  for (guint j = 0; j < docs->len; j++)
    {
      Section *sec = docs->pdata[j];
      for (guint i = 0; i < sec->tags->len; i++)
        for (char **t = sec->tags->pdata[i]; *t != NULL; t++)
          if (!has_option (opts, *t))
            disagree ("%s: the man page's \"%s\" has %s, which the "
                      "program does not", who, sec->title, *t);
    }
}

/* The text of the entry in docs that names option, or NULL. */
static const char *
find_body (GPtrArray *docs, const char *option)
{
  for (guint j = 0; j < docs->len; j++)
    {
      Section *sec = docs->pdata[j];
      for (guint i = 0; i < sec->tags->len; i++)
        if (g_strv_contains (sec->tags->pdata[i], option))
          return ((GString *) sec->bodies->pdata[i])->str;
    }
  return NULL;
}

/* text with each character beyond ASCII as ?, as --help shows them in
 * the C locale. */
static char *
ascii (const char *text)
{
  GString *out = g_string_new (NULL);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    g_string_append_c (out, *p & 0x80 ? '?' : *p);
  return g_string_free (out, FALSE);
}

/* Whether body says help: all of it, or, in an entry several commands
 * share, the words before its last parenthesis and those inside it. */
static gboolean
says (const char *page, const char *shown)
{
  int depth = 0;
  g_autofree char *body = ascii (page);
  g_autofree char *help = ascii (shown);
  if (strstr (body, help) != NULL)
    return TRUE;
  if (!g_str_has_suffix (help, ")"))
    return FALSE;
  for (const char *p = help + strlen (help) - 1; p > help; p--)
    if ((depth += *p == ')' ? 1 : *p == '(' ? -1 : 0) == 0)
      {
        g_autofree char *head = g_strndup (help, p - help);
        g_autofree char *aside = g_strndup (p + 1, strlen (p) - 2);
        return strstr (body, head) != NULL && strstr (body, aside) != NULL;
      }
  return FALSE;
}

/* Every option's entry says what its --help line says: the page is made
 * from the same rows. */
static void
check_help (GPtrArray *opts, GPtrArray *docs, const char *who)
{
  for (guint i = 0; i < opts->len; i++)
    {
      Opt *o = opts->pdata[i];
      const char *body = find_body (docs, o->lng);
      if (body != NULL && !says (body, o->help))
        disagree ("%s: the man page's %s says \"%s\", not \"%s\"", who,
                  o->lng, body, o->help);
    }
}

/* One section per command, and a command for each section. */
static void
test_commands (void)
{
  g_auto (GStrv) commands = program_commands ();
  guint n = g_strv_length (commands);
  g_assert_cmpuint (n, >=, 6);
  for (char **c = commands; *c != NULL; c++)
    if (find_section ("COMMANDS", *c) == NULL)
      disagree ("%s has no section in the man page", *c);
  guint documented = 0;
  for (guint i = 0; i < sections->len; i++)
    documented += g_str_equal (((Section *) sections->pdata[i])->parent,
                               "COMMANDS");
  g_assert_cmpuint (documented, ==, n);
}

static void
test_command (gconstpointer data)
{
  const char *command = data;
  int status;
  g_autofree char *help = help_of (command, "--help", &status);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (GPtrArray) opts = help_options (help, NULL);
  g_assert_cmpuint (opts->len, >=, 2);
  g_ptr_array_remove_index (opts, 0); /* -h, --help: under OPTIONS */

  Section *own = find_section ("COMMANDS", command);
  if (own == NULL)
    {
      disagree ("%s has no section in the man page", command);
      return;
    }
  g_autoptr (GPtrArray) docs = g_ptr_array_new ();
  g_ptr_array_add (docs, own);
  for (guint i = 0; i < sections->len; i++)
    {
      Section *s = sections->pdata[i];
      if (g_str_equal (s->parent, "COMMON OPTIONS") &&
          strstr (own->text->str, s->title) != NULL)
        g_ptr_array_add (docs, s);
    }
  check_agree (opts, docs, command);
  check_help (opts, docs, command);
}

/* The program's own options: --help, --version and the window's. */
static void
test_program (void)
{
  if (!SPX_HAVE_GUI)
    {
      g_test_skip ("no window in this build to list its options");
      return;
    }
  int status;
  g_autofree char *help = help_of ("--help", NULL, &status);
  g_assert_cmpint (status, ==, 0);
  g_autofree char *all = help_of ("--help-all", NULL, &status);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (GPtrArray) opts = help_options (help, NULL);
  g_autoptr (GPtrArray) window = help_options (all, "Application Options:");
  g_assert_cmpuint (window->len, >=, 3);
  /* --help lists every window option --help-all does, and no other */
  for (guint i = 0; i < window->len; i++)
    {
      const Opt *o = window->pdata[i];
      if (!has_option (opts, o->lng))
        disagree ("sparse-explorer --help lacks %s", o->lng);
    }
  g_assert_cmpuint (opts->len, ==, 2 + window->len);

  g_autoptr (GPtrArray) docs = g_ptr_array_new ();
  g_ptr_array_add (docs, find_section ("OPTIONS", "OPTIONS"));
  g_assert_nonnull (docs->pdata[0]);
  check_agree (opts, docs, "sparse-explorer");
}

/* The views as `render --help` lists them ("mask, tiles … or speedup"). */
static char *
program_views (char ***names)
{
  int status;
  g_autofree char *help = help_of ("render", "--help", &status);
  g_assert_cmpint (status, ==, 0);
  g_autoptr (GRegex) re = g_regex_new (
    "--view=VIEW +((?:[a-z]+, )+[a-z]+ or [a-z]+) \\(required\\)", 0, 0,
    NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_assert_true (g_regex_match (re, help, 0, &m));
  char *list = g_match_info_fetch (m, 1);
  g_autoptr (GRegex) sep = g_regex_new (", | or ", 0, 0, NULL);
  *names = g_regex_split (sep, list, 0);
  return list;
}

/* Every list of the views in the page is the program's: the window's
 * and render's --view, and the description's "The window has N views:
 * Mask (…), Tiles (…), …" (titles, in the program's order). */
static void
test_views (void)
{
  g_auto (GStrv) names = NULL;
  g_autofree char *list = program_views (&names);
  g_autofree char *page = NULL;
  g_assert_true (g_file_get_contents (g_getenv ("SPX_MAN_PAGE"), &page,
                                      NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (page, "\n", -1);
  guint entries = 0;
  for (char **l = lines; *l != NULL; l++)
    {
      if (!g_str_equal (*l, ".TP") || l[1] == NULL ||
          strstr (l[1], "\\-\\-view") == NULL)
        continue;
      GString *text = g_string_new (NULL);
      for (char **t = l + 2; *t != NULL && !g_str_has_prefix (*t, ".TP") &&
           !g_str_has_prefix (*t, ".S") && !g_str_has_prefix (*t, ".PP");
           t++)
        {
          g_autofree char *words = plain (*t);
          g_string_append_printf (text, "%s ", words);
        }
      if (strstr (text->str, list) == NULL)
        disagree ("the man page's --view says \"%s\", the program \"%s\"",
                  text->str, list);
      g_string_free (text, TRUE);
      entries++;
    }
  g_assert_cmpuint (entries, ==, SPX_HAVE_GUI ? 2 : 1);

  const char *has = strstr (page, "The window has ");
  g_assert_nonnull (has);
  g_autofree char *paragraph = g_strndup (has, strstr (has, ".PP") - has);
  g_autoptr (GRegex) title = g_regex_new ("(?:: |, |and )([A-Z][a-z]+) \\(",
                                          0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  guint n = 0;
  for (g_regex_match (title, paragraph, 0, &m); g_match_info_matches (m);
       g_match_info_next (m, NULL), n++)
    {
      g_autofree char *t = g_match_info_fetch (m, 1);
      g_autofree char *lower = g_ascii_strdown (t, -1);
      if (n >= g_strv_length (names) || !g_str_equal (lower, names[n]))
        disagree ("the description's view %u is %s", n + 1, t);
    }
  g_assert_cmpuint (n, ==, g_strv_length (names));
}

/* groff reads it without a warning. */
static void
test_groff (void)
{
  g_autofree char *groff = g_find_program_in_path ("groff");
  if (groff == NULL)
    {
      g_test_skip ("needs groff");
      return;
    }
  const char *argv[] = { groff, "-man", "-ww", "-z", "-Tutf8",
                         g_getenv ("SPX_MAN_PAGE"), NULL };
  int status;
  g_autofree char *err = NULL;
  g_autofree char *out = test_run (argv, NULL, &status, &err);
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpint (status, ==, 0);
}

/* ---- the README against the program ---------------------------------- */

/* The code block under "## Command line" of the README: each command's
 * lines. */
static GHashTable *
readme_synopsis (void)
{
  g_autofree char *text = test_read_readme ();
  g_autoptr (GRegex) re = g_regex_new ("\n## Command line\n+```\n(.*?)```",
                                       G_REGEX_DOTALL, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_assert_true (g_regex_match (re, text, 0, &m));
  g_autofree char *block = g_match_info_fetch (m, 1);
  GHashTable *lines = g_hash_table_new_full (g_str_hash, g_str_equal,
                                             g_free, string_free);
  g_auto (GStrv) rows = g_strsplit (block, "\n", -1);
  GString *current = NULL;
  for (char **r = rows; *r != NULL; r++)
    {
      if (g_str_has_prefix (*r, "sparse-explorer "))
        {
          g_autofree char *word = g_strndup (*r + 16, strcspn (*r + 16, " "));
          current = NULL;
          if (g_ascii_isalpha (word[0]))
            {
              current = g_string_new (NULL);
              g_hash_table_insert (lines, g_steal_pointer (&word), current);
            }
        }
      if (current != NULL)
        g_string_append_printf (current, "%s\n", *r);
    }
  return lines;
}

/* The patterns --pattern lists ("uniform, tilewise … or magnitude"). */
static char **
pattern_words (GPtrArray *opts)
{
  for (guint i = 0; i < opts->len; i++)
    {
      const Opt *o = opts->pdata[i];
      if (g_str_equal (o->lng, "--pattern"))
        {
          g_autofree char *list = g_strndup (o->help, strcspn (o->help, "("));
          g_autoptr (GRegex) sep = g_regex_new (", | or |\\s+$", 0, 0, NULL);
          return g_regex_split (sep, g_strstrip (list), 0);
        }
    }
  return NULL;
}

/* Each command's line in the README's synopsis names exactly the options
 * its --help lists ("[pattern options]" standing for those whose help
 * starts "PATTERN:"), so neither can gain one the other lacks. */
static void
test_readme_synopsis (void)
{
  g_autoptr (GHashTable) synopsis = readme_synopsis ();
  g_auto (GStrv) commands = program_commands ();
  g_assert_cmpuint (g_hash_table_size (synopsis), ==,
                    g_strv_length (commands));
  g_autoptr (GRegex) re = g_regex_new ("--[a-z][a-z0-9-]*", 0, 0, NULL);
  for (char **c = commands; *c != NULL; c++)
    {
      GString *line = g_hash_table_lookup (synopsis, *c);
      if (line == NULL)
        {
          disagree ("README's synopsis lacks %s", *c);
          continue;
        }
      int status;
      g_autofree char *help = help_of (*c, "--help", &status);
      g_autoptr (GPtrArray) opts = help_options (help, NULL);
      g_ptr_array_remove_index (opts, 0); /* -h, --help */
      g_auto (GStrv) patterns = pattern_words (opts);
      gboolean stands = strstr (line->str, "[pattern options]") != NULL;
      for (guint i = 0; i < opts->len; i++)
        {
          const Opt *o = opts->pdata[i];
          g_autofree char *word = g_strndup (o->help, strcspn (o->help, ":"));
          gboolean pattern_option = patterns != NULL && o->help[strlen (word)]
                                    == ':' && g_strv_contains (
                                      (const char *const *) patterns, word);
          g_autofree char *pattern = g_strconcat (o->lng, "(?![a-z0-9-])",
                                                  NULL);
          g_autoptr (GRegex) whole = g_regex_new (pattern, 0, 0, NULL);
          if (!(pattern_option && stands) &&
              !g_regex_match (whole, line->str, 0, NULL))
            disagree ("README's %s line lacks %s", *c, o->lng);
        }
      g_autoptr (GMatchInfo) m = NULL;
      for (g_regex_match (re, line->str, 0, &m); g_match_info_matches (m);
           g_match_info_next (m, NULL))
        {
          g_autofree char *option = g_match_info_fetch (m, 0);
          if (!has_option (opts, option))
            disagree ("README's %s line has %s, which %s --help does not",
                      *c, option, *c);
        }
    }
}

/* The default value `command --help` states for option, or NULL. */
static char *
help_default (const char *command, const char *option)
{
  int status;
  g_autofree char *help = help_of (command, "--help", &status);
  g_autofree char *pattern = g_strdup_printf (
    "^\\s+(?:-[a-z], )?%s=\\S+\\s.*\\(default ([^;)]+)[;)]", option);
  g_autoptr (GRegex) re = g_regex_new (pattern, G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  return g_regex_match (re, help, 0, &m) ? g_match_info_fetch (m, 1) : NULL;
}

/* The README's default scenario, "(bow, fp16, m = k = 4096, n = 1024,
 * 16×16 blocks, density 1/16)", is the one render --help states. */
static void
test_readme_default_scenario (void)
{
  g_autofree char *text = test_read_readme ();
  g_autoptr (GRegex) re = g_regex_new (
    "default scenario \\(([a-z0-9]+), ([a-z0-9]+), m = k = ([0-9]+),\\s+"
    "n = ([0-9]+), ([0-9]+)×([0-9]+) blocks, density ([0-9/.]+)\\)",
    0, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_assert_true (g_regex_match (re, text, 0, &m));
  const char *const options[] = { "--machine", "--dtype", "--m", "--n",
                                  "--block", NULL, "--density" };
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      if (options[i] == NULL)
        continue;
      g_autofree char *readme = g_match_info_fetch (m, i + 1);
      g_autofree char *program = help_default ("render", options[i]);
      if (g_strcmp0 (readme, program) != 0)
        disagree ("README's default scenario has %s %s, render --help %s",
                  options[i], readme, program);
    }
  g_autofree char *m_rows = g_match_info_fetch (m, 3);
  g_autofree char *k_cols = help_default ("render", "--k");
  g_assert_cmpstr (m_rows, ==, k_cols);
  g_autofree char *b1 = g_match_info_fetch (m, 5);
  g_autofree char *b2 = g_match_info_fetch (m, 6);
  g_assert_cmpstr (b1, ==, b2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  load_page ();
  g_test_add_func ("/man/commands", test_commands);
  g_auto (GStrv) commands = program_commands ();
  for (char **c = commands; *c != NULL; c++)
    {
      g_autofree char *path = g_strdup_printf ("/man/command/%s", *c);
      g_test_add_data_func (path, *c, test_command);
    }
  g_test_add_func ("/man/program", test_program);
  g_test_add_func ("/man/views", test_views);
  g_test_add_func ("/man/groff", test_groff);
  g_test_add_func ("/readme/synopsis", test_readme_synopsis);
  g_test_add_func ("/readme/default-scenario", test_readme_default_scenario);
  int status = g_test_run ();
  g_ptr_array_unref (sections);
  return status;
}
