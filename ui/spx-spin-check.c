/* spx-spin-check.c: number fields that refuse what they cannot read.
 * GtkSpinButton's own reading takes "x" (or an empty field) for 0 and
 * clamps it to the range: a value nobody typed. Here the "input" signal
 * reads the text itself and, refusing it, answers the value kept. */
#include "spx-spin-check.h"
#include "spx-util.h"

#include <locale.h>
#include <math.h>

#define KEY "spx-spin-check"

typedef struct {
  GtkLabel *message;
  char     *problem;
  gboolean  putting_back; /* the kept value's text is no edit */
} Check;

static void
check_free (gpointer data)
{
  Check *c = data;
  g_object_unref (c->message);
  g_free (c->problem);
  g_free (c);
}

/* Show problem (taken; NULL: nothing) on the field and its message. */
static void
show (GtkSpinButton *spin, Check *c, char *problem)
{
  g_free (c->problem);
  c->problem = problem;
  GtkStyleContext *style = gtk_widget_get_style_context (GTK_WIDGET (spin));
  if (problem != NULL)
    gtk_style_context_add_class (style, GTK_STYLE_CLASS_ERROR);
  else
    gtk_style_context_remove_class (style, GTK_STYLE_CLASS_ERROR);
  gtk_label_set_text (c->message, problem ? problem : "");
  gtk_widget_set_visible (GTK_WIDGET (c->message), problem != NULL);
}

/* The field shows numbers with the locale's decimal point: read it as
 * a C point. */
static char *
c_notation (const char *text)
{
  const char *point = localeconv ()->decimal_point;
  g_autofree char *trimmed = g_strstrip (g_strdup (text));
  if (point == NULL || g_str_equal (point, "."))
    return g_steal_pointer (&trimmed);
  g_auto (GStrv) parts = g_strsplit (trimmed, point, -1);
  return g_strjoinv (".", parts);
}

/* Why spin cannot take text (NULL: it can, as *value). */
static char *
refusal (GtkSpinButton *spin, const char *text, double *value)
{
  double lo, hi;
  gtk_spin_button_get_range (spin, &lo, &hi);
  g_autofree char *c_text = c_notation (text);
  g_autofree char *quoted = spx_excerpt (text);
  if (*c_text == '\0')
    return g_strdup ("the field is empty");
  if (!spx_parse_number (c_text, value))
    return g_strdup_printf ("%s is not a number", quoted);
  if (*value < lo || *value > hi)
    return g_strdup_printf ("%s is not between %.15g and %.15g", quoted, lo,
                            hi);
  if (gtk_spin_button_get_digits (spin) == 0 && *value != floor (*value))
    return g_strdup_printf ("%s is not a whole number", quoted);
  return NULL;
}

static gint
on_input (GtkSpinButton *spin, double *new_value, Check *c)
{
  char *why = refusal (spin, gtk_entry_get_text (GTK_ENTRY (spin)),
                       new_value);
  if (why == NULL)
    return TRUE;
  /* the kept value's own text back at once, so the message quotes it as
   * the field shows it; the same value again changes nothing */
  *new_value = gtk_spin_button_get_value (spin);
  c->putting_back = TRUE;
  gtk_spin_button_set_value (spin, *new_value);
  c->putting_back = FALSE;
  show (spin, c, g_strdup_printf ("%s: kept %s", why,
                                  gtk_entry_get_text (GTK_ENTRY (spin))));
  g_free (why);
  return GTK_INPUT_ERROR;
}

/* Editing the text (or a new value shown) ends the message. */
static void
on_changed (GtkEditable *editable, Check *c)
{
  if (!c->putting_back && c->problem != NULL)
    show (GTK_SPIN_BUTTON (editable), c, NULL);
}

void
spx_spin_check (GtkSpinButton *spin, GtkLabel *message)
{
  g_return_if_fail (g_object_get_data (G_OBJECT (spin), KEY) == NULL);
  Check *c = g_new0 (Check, 1);
  c->message = g_object_ref (message);
  gtk_widget_set_no_show_all (GTK_WIDGET (message), TRUE);
  gtk_widget_hide (GTK_WIDGET (message));
  gtk_style_context_add_class (gtk_widget_get_style_context (
                                 GTK_WIDGET (message)), GTK_STYLE_CLASS_ERROR);
  /* what is typed shows, to be read and refused here if need be */
  gtk_spin_button_set_numeric (spin, FALSE);
  gtk_spin_button_set_update_policy (spin, GTK_UPDATE_ALWAYS);
  g_object_set_data_full (G_OBJECT (spin), KEY, c, check_free);
  g_signal_connect (spin, "input", G_CALLBACK (on_input), c);
  g_signal_connect (spin, "changed", G_CALLBACK (on_changed), c);
}

const char *
spx_spin_check_get_problem (GtkSpinButton *spin)
{
  Check *c = g_object_get_data (G_OBJECT (spin), KEY);
  return c != NULL ? c->problem : NULL;
}
