/* spx-man-page.c: the man page with its option entries made from the
 * rows the commands parse (spx-cli-options.h), run by the build:
 *
 *   spx-man-page TEMPLATE OUTPUT VERSION
 *
 * TEMPLATE is the page in troff with @VERSION@ for the version and lines
 * "@OPTIONS NAME@" for the entries of command NAME's own options, or of
 * the options several commands share in section NAME. An option that
 * lands on no such line, or a line that gets none, fails the build.
 * A line "@VIEWS@" becomes the sentence naming the window's views. */
#include "spx-cli.h"
#include "spx-render-png.h"
#include "spx-render-views.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  const char *command;
  char       *name, *section, *value, *help, *more;
  char        letter;
  gboolean    used;
} Entry;

static void
entry_free (gpointer data)
{
  Entry *e = data;
  g_free (e->name);
  g_free (e->section);
  g_free (e->value);
  g_free (e->help);
  g_free (e->more);
  g_free (e);
}

/* Every option of every command, in --help's order. */
static GPtrArray *
collect_entries (void)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func (entry_free);
  guint n_commands, n;
  const SpxCliCommand *commands = spx_cli_commands (&n_commands);
  for (guint c = 0; c < n_commands; c++)
    {
      g_autoptr (SpxCliOptions) options = commands[c].options ();
      const SpxCliOptionInfo *rows = spx_cli_options_list (options, &n);
      for (guint i = 0; i < n; i++)
        {
          Entry *e = g_new0 (Entry, 1);
          e->command = commands[c].name;
          e->name = g_strdup (rows[i].name);
          e->section = g_strdup (rows[i].section);
          e->value = g_strdup (rows[i].option.value);
          e->help = g_strdup (rows[i].option.help);
          e->more = g_strdup (rows[i].option.more);
          e->letter = rows[i].option.letter;
          g_ptr_array_add (entries, e);
        }
    }
  return entries;
}

/* text as troff: hyphens as \-, options in bold, other characters than
 * ASCII as \[uXXXX], a leading . or ' made harmless. */
static void
append_troff (GString *out, const char *text, gboolean bold_options)
{
  gboolean line_start = TRUE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      gboolean after_word = p > text && (g_ascii_isalnum (p[-1]) ||
                                         p[-1] == '-');
      if (line_start && (c == '.' || c == '\''))
        g_string_append (out, "\\&");
      line_start = c == '\n';
      if (bold_options && !after_word && g_str_has_prefix (p, "--") &&
          g_ascii_isalpha (p[2]))
        {
          gsize len = 2 + strspn (p + 2, "abcdefghijklmnopqrstuvwxyz"
                                         "0123456789-");
          g_autofree char *word = g_strndup (p, len);
          g_string_append (out, "\\fB");
          append_troff (out, word, FALSE);
          g_string_append (out, "\\fR");
          p += len - 1;
        }
      else if (c == '-')
        g_string_append (out, "\\-");
      else if (c == '\\')
        g_string_append (out, "\\e");
      else if (c < 0x80)
        g_string_append_c (out, (char) c);
      else
        g_string_append_printf (out, "\\[u%04X]", c);
    }
}

/* The entry's tag: "-b, --block=B" as the old hand-written page set it. */
static void
append_tag (GString *out, const Entry *e)
{
  g_autofree char *name = g_strconcat ("--", e->name, NULL);
  g_autoptr (GString) value = g_string_new (NULL);
  if (e->value)
    append_troff (value, e->value, FALSE);
  g_string_append (out, e->letter ? ".BR " : e->value ? ".BI " : ".B ");
  if (e->letter)
    g_string_append_printf (out, "\\-%c \", \" ", e->letter);
  append_troff (out, name, FALSE);
  if (e->value && e->letter)
    g_string_append_printf (out, " =\\fI%s\\fR", value->str);
  else if (e->value)
    g_string_append_printf (out, "= %s", value->str);
  g_string_append_c (out, '\n');
}

static void
append_entry (GString *out, const Entry *e, const char *help)
{
  g_string_append (out, ".TP\n");
  append_tag (out, e);
  append_troff (out, help, TRUE);
  if (!g_str_has_suffix (help, "."))
    g_string_append_c (out, '.');
  if (e->more)
    {
      g_string_append_c (out, '\n');
      append_troff (out, e->more, TRUE);
    }
  g_string_append_c (out, '\n');
}

static void
string_free (gpointer s)
{
  g_string_free (s, TRUE);
}

/* Where text's last parenthesis opens, when text ends with one. */
static const char *
last_aside (const char *text)
{
  int depth = 0;
  if (!g_str_has_suffix (text, ")"))
    return NULL;
  for (const char *p = text + strlen (text) - 1; p > text; p--)
    if ((depth += *p == ')' ? 1 : *p == '(' ? -1 : 0) == 0)
      return p[-1] == ' ' ? p : NULL;
  return NULL;
}

/* One help for an option several commands share: theirs when they say
 * the same, else the words they share with each command's last aside,
 * "Block size (bench, model: required without --scenario; render:
 * default 16)". NULL when they differ otherwise. */
static char *
shared_help (GPtrArray *same)
{
  const Entry *first = same->pdata[0];
  const char *cut = last_aside (first->help);
  gsize head = cut ? (gsize) (cut - first->help) : 0;
  g_autoptr (GPtrArray) asides = g_ptr_array_new (); /* distinct */
  g_autoptr (GPtrArray) who = g_ptr_array_new_with_free_func (string_free);
  for (guint i = 0; i < same->len; i++)
    {
      const Entry *e = same->pdata[i];
      guint at;
      gboolean same_words = g_str_equal (e->help, first->help) ||
        (cut != NULL && last_aside (e->help) == e->help + head &&
         strncmp (e->help, first->help, head) == 0);
      if (!same_words || g_strcmp0 (e->more, first->more) != 0)
        return NULL;
      if (!g_ptr_array_find_with_equal_func (asides, e->help + head,
                                             g_str_equal, &at))
        {
          g_ptr_array_add (asides, e->help + head);
          g_ptr_array_add (who, g_string_new (NULL));
          at = asides->len - 1;
        }
      GString *names = who->pdata[at];
      g_string_append_printf (names, "%s%s", names->len ? ", " : "",
                              e->command);
    }
  if (asides->len == 1)
    return g_strdup (first->help);
  GString *help = g_string_new_len (first->help, head);
  for (guint i = 0; i < asides->len; i++)
    {
      const char *aside = asides->pdata[i];
      g_string_append_printf (help, "%s%s: %.*s", i ? "; " : "(",
                              ((GString *) who->pdata[i])->str,
                              (int) strlen (aside) - 2, aside + 1);
    }
  g_string_append_c (help, ')');
  return g_string_free (help, FALSE);
}

/* The entries for "@OPTIONS name@": a command's own options, or those
 * the commands share in section name (each once). FALSE when there are
 * none, or a shared one's help cannot be put in words for all. */
static gboolean
append_section (GString *out, GPtrArray *entries, const char *name,
                GError **error)
{
  gboolean found = FALSE;
  for (guint i = 0; i < entries->len; i++)
    {
      Entry *e = entries->pdata[i];
      gboolean own = e->section == NULL && g_str_equal (e->command, name);
      if (e->used || !(own || g_strcmp0 (e->section, name) == 0))
        continue;
      g_autoptr (GPtrArray) same = g_ptr_array_new ();
      for (guint j = i; j < entries->len && !own; j++)
        {
          Entry *f = entries->pdata[j];
          if (g_strcmp0 (f->section, name) == 0 &&
              g_str_equal (f->name, e->name))
            g_ptr_array_add (same, f);
        }
      g_autofree char *help = own ? g_strdup (e->help) : shared_help (same);
      if (help == NULL)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "--%s: the "
                       "commands sharing it in section %s say different "
                       "things (give them the same words, or tell them "
                       "apart only in the last parenthesis)", e->name, name);
          return FALSE;
        }
      for (guint j = 0; j < same->len; j++)
        ((Entry *) same->pdata[j])->used = TRUE;
      e->used = found = TRUE;
      append_entry (out, e, help);
    }
  if (!found)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "@OPTIONS %s@: no "
                 "command or shared section of that name has options left "
                 "to place", name);
  return found;
}

/* "The window has five views: Mask (what it shows), …, and Speedup (…)." */
static void
append_views (GString *out)
{
  static const char *const counts[] = { "no", "one", "two", "three", "four",
                                        "five", "six", "seven", "eight",
                                        "nine" };
  G_STATIC_ASSERT (SPX_RENDER_N_VIEWS < G_N_ELEMENTS (counts));
  g_string_append_printf (out, "The window has %s views:",
                          counts[SPX_RENDER_N_VIEWS]);
  for (guint i = 0; i < SPX_RENDER_N_VIEWS; i++)
    g_string_append_printf (out, "%s %s (%s)%s",
                            i == 0 ? "" : i + 1 < SPX_RENDER_N_VIEWS
                            ? "," : " and", spx_render_views[i]->title,
                            spx_render_views[i]->summary,
                            i + 1 < SPX_RENDER_N_VIEWS ? "" : ".\n");
}

/* The template with its @OPTIONS …@ and @VIEWS@ lines filled in and its
 * version. */
static char *
fill (const char *template, const char *version, GError **error)
{
  g_autoptr (GPtrArray) entries = collect_entries ();
  g_autoptr (GString) out = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (template, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      g_autofree char *name = g_str_has_prefix (*l, "@OPTIONS ") &&
                              g_str_has_suffix (*l, "@")
        ? g_strndup (*l + 9, strlen (*l) - 10) : NULL;
      if (name != NULL && !append_section (out, entries, name, error))
        return NULL;
      if (g_str_equal (*l, "@VIEWS@"))
        append_views (out);
      else if (name == NULL)
        g_string_append_printf (out, "%s%s", *l, l[1] ? "\n" : "");
    }
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = entries->pdata[i];
      if (!e->used)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s --%s: "
                       "no @OPTIONS %s@ line", e->command, e->name,
                       e->section ? e->section : e->command);
          return NULL;
        }
    }
  g_string_replace (out, "@VERSION@", version, 0);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *template = NULL;
  if (argc != 4)
    {
      fprintf (stderr, "usage: spx-man-page TEMPLATE OUTPUT VERSION\n");
      return 2;
    }
  /* PNG's name joins the formats listed, as in the program */
  spx_mask_png_register ();
  g_autofree char *page = NULL;
  if (!g_file_get_contents (argv[1], &template, NULL, &error) ||
      !(page = fill (template, argv[3], &error)) ||
      !g_file_set_contents (argv[2], page, -1, &error))
    {
      fprintf (stderr, "spx-man-page: %s: %s\n", argv[1], error->message);
      return 1;
    }
  return 0;
}
