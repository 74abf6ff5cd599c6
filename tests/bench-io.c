/* bench-io.c: how fast the .mtx and .smtx loaders parse a large file.
 *
 *   bench-io [ROWS COLS PER_ROW]      (default 20000 20000 1000: 20M entries)
 *
 * Writes a seeded random mask with PER_ROW entries in every row, as a real
 * .mtx ("123 4567 0.123456") and as a .smtx, to the temporary directory,
 * loads each a few times with spx_mask_load and prints the best MB/s. */
#include "spx-mask-io.h"
#include "spx-util.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 3

typedef struct {
  guint64 rows, cols, per_row;
} Shape;

/* A small seeded generator: the data is the same on every run. */
static guint64
next_random (guint64 *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* PER_ROW distinct sorted columns: one random column in each of PER_ROW
 * equal slices of the row. */
static void
row_columns (const Shape *s, guint64 *state, guint64 *cols)
{
  guint64 slice = s->cols / s->per_row;
  for (guint64 k = 0; k < s->per_row; k++)
    cols[k] = k * slice + next_random (state) % slice;
}

static GString *
make_mtx (const Shape *s)
{
  GString *out = g_string_sized_new (s->rows * s->per_row * 21 + 128);
  g_autofree guint64 *cols = g_new (guint64, s->per_row);
  guint64 state = 0x9e3779b97f4a7c15u;
  g_string_append_printf (out, "%%%%MatrixMarket matrix coordinate real "
                          "general\n%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                          " %" G_GUINT64_FORMAT "\n", s->rows, s->cols,
                          s->rows * s->per_row);
  for (guint64 r = 0; r < s->rows; r++)
    {
      row_columns (s, &state, cols);
      for (guint64 k = 0; k < s->per_row; k++)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT " %"
                                G_GUINT64_FORMAT " 0.%06u\n", r + 1,
                                cols[k] + 1,
                                (guint) (next_random (&state) % 1000000));
    }
  return out;
}

static GString *
make_smtx (const Shape *s)
{
  GString *out = g_string_sized_new (s->rows * s->per_row * 7 + s->rows * 10);
  g_autofree guint64 *cols = g_new (guint64, s->per_row);
  guint64 state = 0x9e3779b97f4a7c15u;
  g_string_append_printf (out, "%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                          ", %" G_GUINT64_FORMAT "\n", s->rows, s->cols,
                          s->rows * s->per_row);
  for (guint64 r = 0; r <= s->rows; r++)
    g_string_append_printf (out, r == 0 ? "%" G_GUINT64_FORMAT
                                        : " %" G_GUINT64_FORMAT,
                            r * s->per_row);
  g_string_append_c (out, '\n');
  for (guint64 r = 0; r < s->rows; r++)
    {
      row_columns (s, &state, cols);
      for (guint64 k = 0; k < s->per_row; k++)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT " ", cols[k]);
    }
  g_string_append_c (out, '\n');
  return out;
}

static int
bench (const char *label, const char *path, GString *content,
       const Shape *s)
{
  g_autoptr (GError) error = NULL;
  if (!g_file_set_contents (path, content->str, (gssize) content->len,
                            &error))
    {
      fprintf (stderr, "bench-io: %s\n", error->message);
      return 1;
    }
  double best = G_MAXDOUBLE;
  for (int run = 0; run < RUNS; run++)
    {
      double t0 = spx_now_ms ();
      g_autoptr (SpxMask) mask = spx_mask_load (path, NULL, &error);
      double ms = spx_now_ms () - t0;
      if (mask == NULL)
        {
          fprintf (stderr, "bench-io: %s\n", error->message);
          return 1;
        }
      if (spx_mask_count (mask) != s->rows * s->per_row)
        {
          fprintf (stderr, "bench-io: %s: wrong number of entries\n", path);
          return 1;
        }
      best = MIN (best, ms);
    }
  double mb = (double) content->len / 1e6;
  printf ("%-5s %" G_GUINT64_FORMAT " entries, %.1f MB, best of %d: "
          "%.0f ms, %.0f MB/s\n", label, s->rows * s->per_row, mb, RUNS,
          best, mb / (best / 1000.0));
  g_unlink (path);
  return 0;
}

int
main (int argc, char **argv)
{
  Shape s = { 20000, 20000, 1000 };
  if (argc == 4)
    {
      s.rows = g_ascii_strtoull (argv[1], NULL, 10);
      s.cols = g_ascii_strtoull (argv[2], NULL, 10);
      s.per_row = g_ascii_strtoull (argv[3], NULL, 10);
    }
  if (argc != 1 && argc != 4)
    {
      fprintf (stderr, "usage: bench-io [ROWS COLS PER_ROW]\n");
      return 2;
    }
  if (s.rows == 0 || s.per_row == 0 || s.per_row > s.cols)
    {
      fprintf (stderr, "bench-io: expected 0 < PER_ROW ≤ COLS and ROWS > 0\n");
      return 2;
    }

  g_autofree char *dir = g_dir_make_tmp ("spx-bench-io-XXXXXX", NULL);
  g_autofree char *mtx = g_build_filename (dir, "bench.mtx", NULL);
  g_autofree char *smtx = g_build_filename (dir, "bench.smtx", NULL);
  int status = 0;
  {
    g_autoptr (GString) content = make_mtx (&s);
    status |= bench ("mtx", mtx, content, &s);
  }
  {
    g_autoptr (GString) content = make_smtx (&s);
    status |= bench ("smtx", smtx, content, &s);
  }
  g_rmdir (dir);
  return status;
}
