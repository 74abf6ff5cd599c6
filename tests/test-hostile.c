/* test-hostile.c: hostile input ends cleanly. The built program is run on
 * files and options made to hurt it, each run under a 3 GB address-space
 * limit and a time limit, so that a bomb fails the test instead of the
 * machine: every one ends with exit 1 (a bad file) or 2 (bad usage) and
 * one line saying why, or does its work; never a signal, never a hang. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#define ADDRESS_LIMIT (G_GUINT64_CONSTANT (3) << 30)
#define SECONDS       60u

static char *dir;
/* SPX_TEST_TRUNCATE for the next runs (core's test hook), or NULL */
static const char *truncate_to;

typedef struct {
  int   status;   /* exit status; -1 when a signal ended it */
  int   signal;
  char *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

typedef struct {
  guint   seconds;
  guint64 address; /* bytes of address space */
} Limits;

/* In the child, before exec: the limits (the address space is shared by
 * ASan's shadow, so a sanitized build keeps only the budget below). */
static void
limit_child (gpointer data)
{
  const Limits *limits = data;
#ifndef UNDER_ASAN
  struct rlimit rl = { limits->address, limits->address };
  setrlimit (RLIMIT_AS, &rl);
#endif
  alarm (limits->seconds); /* kept across exec: a hang dies */
}

/* The program on args within limits; budget, unless NULL, is its
 * SPX_MEMORY_BUDGET. */
static Run
run_within (Limits limits, const char *budget, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) g_getenv ("SPX_BINARY"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  g_auto (GStrv) env = g_get_environ ();
#ifdef UNDER_ASAN
  env = g_environ_setenv (env, "SPX_MEMORY_BUDGET", "1536M", TRUE);
#endif
  if (budget != NULL)
    env = g_environ_setenv (env, "SPX_MEMORY_BUDGET", budget, TRUE);
  if (truncate_to != NULL)
    env = g_environ_setenv (env, "SPX_TEST_TRUNCATE", truncate_to, TRUE);
  Run r = { 0 };
  int wait_status = 0;
  g_autoptr (GError) error = NULL;
  g_spawn_sync (dir, (char **) argv->pdata, env, G_SPAWN_DEFAULT,
                limit_child, &limits, &r.out, &r.err, &wait_status, &error);
  g_assert_no_error (error);
  r.status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
  r.signal = WIFSIGNALED (wait_status) ? WTERMSIG (wait_status) : 0;
  return r;
}

static Run
run_limited (guint seconds, const char *const *args)
{
  return run_within ((Limits) { seconds, ADDRESS_LIMIT }, NULL, args);
}

#define RUN(...) run_limited (SECONDS, (const char *const[]) { __VA_ARGS__, \
                                                                NULL })

static guint
lines (const char *text)
{
  guint n = 0;
  for (; *text; text++)
    n += *text == '\n';
  return n;
}

/* Ended cleanly with status, one short line naming needle. */
static void
assert_refused (Run *r, int status, const char *needle)
{
  if (r->signal != 0 || r->status != status)
    g_error ("expected exit %d, got status %d signal %d; stderr: %s", status,
             r->status, r->signal, r->err);
  g_assert_cmpuint (lines (r->err), >=, 1);
  g_assert_null (strstr (r->err, "runtime error")); /* UBSan */
  g_assert_cmpuint (strlen (r->err), <, 2000);
  if (needle != NULL && strstr (r->err, needle) == NULL)
    g_error ("'%s' lacks '%s'", r->err, needle);
  run_clear (r);
}

static char *
write_file (const char *name, const char *text, gssize len)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
  return path;
}

/* ---- crashes ---------------------------------------------------------- */

static void
test_bench_operands (void)
{
  Run r = RUN ("bench", "--m", "64", "--k", "64", "--n", "2147483647",
               "--block", "16");
  assert_refused (&r, 1, "memory");
  r = RUN ("bench", "--m", "100000", "--k", "100000", "--n", "1", "--block",
           "16");
  assert_refused (&r, 1, "memory");
  r = RUN ("bench", "--m", "64", "--k", "64", "--n", "8", "--block", "4",
           "--threads", "1024");
  assert_refused (&r, 2, "--threads");
}

static void
test_mask_stats_bomb (void)
{
  /* 35 bytes declaring 8 × 2147483647 */
  g_autofree char *smtx = write_file ("wide.smtx",
                                      "8, 2147483647, 0\n0 0 0 0 0 0 0 0 0\n"
                                      "\n", -1);
  Run r = RUN ("info", smtx);
  assert_refused (&r, 1, "wide.smtx");
  /* 65 bytes declaring 131072 × 131072 */
  g_autofree char *mtx = write_file (
    "square.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
    "131072 131072 0\n", -1);
  r = RUN ("info", mtx, "--block", "1");
  if (r.status == 0) /* within the budget: it may simply work */
    run_clear (&r);
  else
    assert_refused (&r, 1, "square.mtx");
}

static void
test_planner_bombs (void)
{
  g_autofree char *spx = write_file (
    "skewed.spx", "[scenario]\nversion=1\nm=65536\nk=65536\nn=16\nblock=1\n"
    "[mask]\npattern=skewed\ndensity=0.1\n", -1);
  Run r = run_limited (3 * SECONDS, (const char *const[]) {
                         "model", "--scenario", spx, "--mode", "static",
                         NULL });
  if (r.status == 0)
    run_clear (&r);
  else
    assert_refused (&r, 1, NULL);
  g_autofree char *machine = write_file (
    "many.machine", "[machine]\ntiles=16384\nsram-bytes=65536\n"
    "clock-hz=1e9\nflop-per-cycle-fp16=128\nflop-per-cycle-fp32=32\n"
    "exchange-bytes-per-cycle=1000000\n", -1);
  r = RUN ("model", "--m", "4096", "--k", "4096", "--block", "16", "--n",
           "1024", "--machine", machine);
  if (r.status == 0)
    run_clear (&r);
  else
    assert_refused (&r, 1, NULL);
  /* no blocks at all (a file can hold none; a generator is refused):
   * plans, without undefined behaviour */
  g_autofree char *empty = write_file (
    "empty.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
    "64 64 0\n", -1);
  r = RUN ("model", "--mask", empty, "--n", "16", "--block", "16",
           "--machine", "teach16");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.err, "runtime error"));
  run_clear (&r);
  r = RUN ("model", "--m", "64", "--k", "64", "--n", "16", "--block", "16",
           "--density", "0", "--machine", "teach16");
  assert_refused (&r, 2, "--density 0 keeps none");
  /* a 150-byte scenario asking for a 131072² element mask */
  g_autofree char *huge = write_file (
    "huge.spx", "[scenario]\nversion=1\nm=131072\nk=131072\nn=16\nblock=1\n"
    "[mask]\npattern=uniform\ndensity=0.5\n", -1);
  r = RUN ("model", "--scenario", huge);
  assert_refused (&r, 1, "memory");
}

/* 87 bytes declaring 92681² elements, three of them set: at block 1 the
 * mask is 1 GiB and the plan lists three blocks. Drawn coloured by tile
 * (the picture the window shows), one copy of the mask is all it takes,
 * and the colours need memory for the three listed blocks, not 4 bytes
 * for each of the 8.6 billion. */
static void
test_declared_size_render (void)
{
  g_autofree char *three = g_test_build_filename (
    G_TEST_DIST, "data", "hostile", "win-92681-three.mtx", NULL);
  g_autofree char *png = g_build_filename (dir, "three.png", NULL);
  Run r = RUN ("render", "--view", "mask", "--mask", three, "--block", "1",
               "--n", "16", "--out", png);
  if (r.signal != 0 || r.status != 0)
    g_error ("status %d signal %d; stderr: %s", r.status, r.signal, r.err);
  run_clear (&r);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  g_unlink (png);
}

/* ---- bounded in time as in memory ------------------------------------ */

static char *
fixture (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "hostile", name, NULL);
}

/* 102 bytes asking for a 65536² uniform mask at density 1/2: drawn in
 * seconds (it took minutes), then refused by the static planner, which
 * takes at most 2^28 non-zero blocks, naming the scenario. */
static void
test_bounds_generate (void)
{
  g_autofree char *spx = fixture ("bounds-uniform-65536.spx");
  gint64 t0 = g_get_monotonic_time ();
  Run r = run_limited (SECONDS, (const char *const[]) {
                         "model", "--scenario", spx, NULL });
  g_test_message ("refused after %.1f s",
                  (g_get_monotonic_time () - t0) / 1e6);
  g_assert_cmpuint (lines (r.err), ==, 1);
  assert_refused (&r, 1, "bounds-uniform-65536.spx: the static plan "
                  "(65536×65536 in blocks of 1, n = 16, 1472 tiles): "
                  "2,147,483,648 non-zero blocks, more than the "
                  "268,435,456");
}

/* Sweeps of masks declared huge in a few bytes: refused at once when
 * they cannot run, before any point is written (131072²: the element
 * mask over the budget; 32768²: the CPU's 4 GiB dense A), or run in
 * little memory when they can. */
static void
test_bounds_sweep (void)
{
  g_autofree char *square = fixture ("bounds-square-131072.mtx");
  g_autofree char *wide = fixture ("bounds-square-32768.mtx");
  g_autofree char *csv = g_build_filename (dir, "bounds.csv", NULL);
  Run r = run_limited (10, (const char *const[]) {
                         "sweep", "--mask", square, "--out", csv, NULL });
  assert_refused (&r, 1, "bounds-square-131072.mtx");
  r = run_limited (10, (const char *const[]) {
                     "sweep", "--mask", wide, "--out", csv, NULL });
  g_assert_cmpuint (lines (r.err), ==, 1);
  assert_refused (&r, 1, "the operands (dense A 32768×32768");
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  r = run_limited (SECONDS, (const char *const[]) {
                     "sweep", "--mask", wide, "--source", "model",
                     "--blocks", "16", "--out", csv, NULL });
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_assert_true (g_file_test (csv, G_FILE_TEST_EXISTS));
  g_unlink (csv);
}

/* A mask smaller than the default block sizes: swept at the ones asked
 * for, or at the defaults that fit. */
static void
test_bounds_small_sweep (void)
{
  g_autofree char *tiny = fixture ("bounds-tiny-8.mtx");
  g_autofree char *csv = g_build_filename (dir, "tiny.csv", NULL);
  Run r = RUN ("sweep", "--mask", tiny, "--blocks", "1", "--source", "model",
               "--out", csv);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "3 of 3 points"));
  run_clear (&r);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\nmodel,dense,1,0.046875,8,8,"));
  g_unlink (csv);
  r = RUN ("sweep", "--mask", tiny, "--source", "model", "--out", csv);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "12 of 12 points")); /* b 1, 2, 4, 8 */
  run_clear (&r);
  g_unlink (csv);
}

/* ---- PNG decoded a row at a time -------------------------------------- */

static void
put_chunk (GByteArray *png, const char *type, const guint8 *data,
           guint32 n)
{
  const guint8 length[4] = { n >> 24, n >> 16, n >> 8, n };
  g_byte_array_append (png, length, 4);
  gsize start = png->len;
  g_byte_array_append (png, (const guint8 *) type, 4);
  if (n > 0)
    g_byte_array_append (png, data, n);
  guint32 crc = (guint32) crc32 (0, png->data + start, 4 + n);
  const guint8 sum[4] = { crc >> 24, crc >> 16, crc >> 8, crc };
  g_byte_array_append (png, sum, 4);
}

/* A side² 1-bit grey PNG, white but for its diagonal (side set pixels),
 * deflated here a row at a time: about 50 KB for 16000². */
static char *
write_diagonal_png (const char *name, guint32 side)
{
  gsize row_len = 1 + (side + 7) / 8;
  g_autofree guint8 *row = g_malloc (row_len);
  g_autoptr (GByteArray) idat = g_byte_array_new ();
  guint8 out[65536];
  z_stream z = { 0 };
  g_assert_cmpint (deflateInit (&z, 9), ==, Z_OK);
  for (guint32 y = 0; y < side; y++)
    {
      memset (row, 0xff, row_len);
      row[0] = 0; /* filter: none */
      row[1 + y / 8] &= (guint8) ~(0x80u >> (y % 8));
      z.next_in = row;
      z.avail_in = (uInt) row_len;
      int flush = y + 1 == side ? Z_FINISH : Z_NO_FLUSH, ret;
      do
        {
          z.next_out = out;
          z.avail_out = sizeof out;
          ret = deflate (&z, flush);
          g_assert_cmpint (ret, !=, Z_STREAM_ERROR);
          g_byte_array_append (idat, out, sizeof out - z.avail_out);
        }
      while (z.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
    }
  deflateEnd (&z);
  g_autoptr (GByteArray) png = g_byte_array_new ();
  g_byte_array_append (png, (const guint8 *) "\x89PNG\r\n\x1a\n", 8);
  const guint8 ihdr[13] = { side >> 24, side >> 16, side >> 8, side,
                            side >> 24, side >> 16, side >> 8, side,
                            1, 0, 0, 0, 0 };
  put_chunk (png, "IHDR", ihdr, 13);
  put_chunk (png, "IDAT", idat->data, idat->len);
  put_chunk (png, "IEND", NULL, 0);
  return write_file (name, (const char *) png->data, png->len);
}

/* 16000² pixels in about 50 KB: decoded whole at 4 bytes a pixel it took
 * 1 GB, and a budget of 256 MiB refused it; a row at a time it needs the
 * mask's 32 MB, within a 512 MiB address space. */
static void
test_png_rows (void)
{
  g_autofree char *png = write_diagonal_png ("png-diagonal-16000.png",
                                             16000);
  g_autofree char *csv = g_build_filename (dir, "png-rows.csv", NULL);
  Limits small = { SECONDS, G_GUINT64_CONSTANT (512) << 20 };
  Run r = run_within (small, "256M", (const char *const[]) { "info", png,
                                                              NULL });
  if (r.signal != 0 || r.status != 0)
    g_error ("status %d signal %d; stderr: %s", r.status, r.signal, r.err);
  g_assert_nonnull (strstr (r.out, "16000 × 16000"));
  g_assert_nonnull (strstr (r.out, "non-zeros        16000 "));
  run_clear (&r);
  r = run_within (small, "256M", (const char *const[]) {
                    "sweep", "--mask", png, "--source", "model", "--blocks",
                    "16", "--out", csv, NULL });
  if (r.signal != 0 || r.status != 0)
    g_error ("status %d signal %d; stderr: %s", r.status, r.signal, r.err);
  run_clear (&r);
  g_assert_true (g_file_test (csv, G_FILE_TEST_IS_REGULAR));
  g_unlink (csv);
  g_unlink (png);
}

/* ---- files that are not files ----------------------------------------- */

static void
test_not_regular (void)
{
  g_autofree char *fifo = g_build_filename (dir, "pipe.smtx", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_autofree char *zero = g_build_filename (dir, "zero.spx", NULL);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  guint short_time = 10;
  Run r = run_limited (short_time, (const char *const[]) { "info", fifo,
                                                           NULL });
  assert_refused (&r, 1, "not a regular file");
  r = run_limited (short_time, (const char *const[]) {
                     "model", "--scenario", fifo, NULL });
  assert_refused (&r, 1, "not a regular file");
  r = run_limited (short_time, (const char *const[]) {
                     "model", "--m", "64", "--k", "64", "--n", "8",
                     "--block", "8", "--machine", fifo, NULL });
  assert_refused (&r, 1, "not a regular file");
  r = run_limited (short_time, (const char *const[]) { "info", "/dev/zero",
                                                       NULL });
  assert_refused (&r, 1, "not a regular file");
  r = run_limited (short_time, (const char *const[]) {
                     "render", "--view", "mask", "--scenario", zero, "--out",
                     "x.png", NULL });
  assert_refused (&r, 1, "not a regular file");
  r = run_limited (short_time, (const char *const[]) { "info", dir, NULL });
  assert_refused (&r, 1, "is a directory");
  g_unlink (fifo);
  g_unlink (zero);
}

/* ---- what errors say -------------------------------------------------- */

static void
test_messages (void)
{
  g_autofree char *secret = write_file (
    "shadow", "root:$6$secret-hash-never-shown:19000:0:99999:7:::\n", -1);
  g_autofree char *spx = write_file (
    "shadow.spx", "[scenario]\nversion=1\nm=64\nk=64\nn=8\nblock=8\n"
    "machine=shadow\n", -1);
  Run r = RUN ("model", "--scenario", spx);
  assert_refused (&r, 1, "not a machine key file");
  r = RUN ("model", "--scenario", spx);
  g_assert_null (strstr (r.err, "secret"));
  run_clear (&r);

  /* a name too long for titles and lists; a file too long to be one */
  const struct { guint chars; const char *says; } names[] = {
    { 10000, "printable characters" }, { 100000, "too long" } };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *name = g_strnfill (names[i].chars, 'x');
      g_autofree char *text = g_strdup_printf (
        "[machine]\nname=%s\ntiles=16\nsram-bytes=65536\nclock-hz=1e9\n"
        "flop-per-cycle-fp16=128\nflop-per-cycle-fp32=32\n", name);
      g_autofree char *machine = write_file ("long.machine", text, -1);
      r = RUN ("model", "--m", "64", "--k", "64", "--n", "8", "--block",
               "8", "--machine", machine);
      assert_refused (&r, 1, names[i].says); /* a bad file */
    }

  g_autofree char *png = write_file ("broken.png",
                                     "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0",
                                     19);
  r = RUN ("info", png);
  g_assert_null (strstr (r.err, "out of memory"));
  assert_refused (&r, 1, "broken.png");
}

/* A file of tests/data, whole. */
static char *
read_data (const char *name, gsize *len)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", name,
                                                 NULL);
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, len, NULL));
  return text;
}

static void
test_names (void)
{
  gsize len = 0;
  g_autofree char *text = read_data ("small.smtx", &len);
  /* a name that is not UTF-8: the JSON stays valid */
  g_autofree char *latin1 = g_build_filename (dir, "caf\xe9.smtx", NULL);
  g_assert_true (g_file_set_contents (latin1, text, len, NULL));
  Run r = RUN ("info", latin1, "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, r.out, -1, NULL));
  run_clear (&r);
  /* "--" ends the options: a file may start with "-" */
  g_autofree char *dashed = g_build_filename (dir, "-dashed.smtx", NULL);
  g_assert_true (g_file_set_contents (dashed, text, len, NULL));
  r = RUN ("info", "--", "-dashed.smtx");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "-dashed.smtx"));
  run_clear (&r);
  g_unlink (latin1);
  g_unlink (dashed);
}

/* ---- names and values printed ------------------------------------------ */

/* Nothing in text can drive a terminal: UTF-8 without C0 controls (but
 * the newlines ending lines), DEL or C1 controls. */
static void
assert_printable (const char *what, const char *text)
{
  if (!g_utf8_validate (text, -1, NULL))
    g_error ("%s is not UTF-8: %s", what, text);
  for (const char *p = text; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if ((c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f))
        g_error ("%s holds U+%04X raw: %s", what, c, text);
    }
}

static void
assert_shown (Run *r, int status, const char *where, const char *needle)
{
  if (r->signal != 0 || r->status != status)
    g_error ("expected exit %d, got status %d signal %d; stderr: %s", status,
             r->status, r->signal, r->err);
  assert_printable ("stdout", r->out);
  assert_printable ("stderr", r->err);
  const char *text = g_str_equal (where, "stdout") ? r->out : r->err;
  if (strstr (text, needle) == NULL)
    g_error ("%s '%s' lacks '%s'", where, text, needle);
  run_clear (r);
}

/* The ESC sequences that clear a screen and set a title, CR, newline,
 * DEL, a C1 control and bytes that are not UTF-8, in file names and in
 * values read from files, on every path the program prints them: stdout
 * tables, stderr errors, warnings and the window's startup errors. */
#define NASTY_TEXT "\033]0;owned\a\033[2J\r\n\x7f\xc2\x9b" /* UTF-8 */
#define NASTY NASTY_TEXT "\xff"
/* its last byte is shown \\xff, or U+FFFD where a file name is made
 * valid UTF-8 first (g_filename_display_name) */
#define NASTY_SHOWN "\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x0a\\x7f\\u009b"

static void
test_escaped (void)
{
  gsize len = 0;
  g_autofree char *text = read_data ("small.mtx", &len);
  g_autofree char *mtx = write_file (NASTY ".mtx", text, len);

  /* info's table names the file (g_filename_display_name makes the byte
   * that is not UTF-8 U+FFFD); its JSON carries it as JSON escapes */
  Run r = RUN ("info", mtx);
  assert_shown (&r, 0, "stdout", "\\x1b]0;owned\\x07\\x1b[2J\\x0d\\x0a");
  r = RUN ("info", mtx, "--json");
  assert_shown (&r, 0, "stdout", "\\u001b]0;owned\\u0007\\u001b[2J\\u000d\\u000a"
                "\\u007f\\u009b");
  /* errors name it escaped, on one line */
  g_autofree char *missing = g_build_filename (dir, NASTY "missing.mtx", NULL);
  r = RUN ("info", missing);
  g_assert_cmpuint (lines (r.err), ==, 1);
  assert_shown (&r, 1, "stderr", NASTY_SHOWN "\xef\xbf\xbdmissing.mtx");
  /* a scenario's path= and machine= (the hostile fixtures) */
  g_autofree char *path_spx = g_test_build_filename (
    G_TEST_DIST, "data", "hostile", "msg-esc-path.spx", NULL);
  const char *const commands[] = { "model", "bench", "sweep" };
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      r = RUN (commands[i], "--scenario", path_spx, "--out", "x.csv");
      if (i < 2) /* model and bench take no --out */
        {
          run_clear (&r);
          r = RUN (commands[i], "--scenario", path_spx);
        }
      g_assert_cmpuint (lines (r.err), ==, 1);
      assert_shown (&r, 1, "stderr", "\\x1b]0;PWNED\\x07\\x1b[2J\\x0dmissing"
                    "\\u009b.mtx");
    }
  g_autofree char *machine_spx = g_test_build_filename (
    G_TEST_DIST, "data", "hostile", "msg-esc-machine.spx", NULL);
  r = RUN ("model", "--scenario", machine_spx);
  assert_shown (&r, 1, "stderr", "machine '\\x1b]0;PWNED\\x07\\x1b[2Jbow'");
  /* a machine file whose name is hostile, refused for its contents (a
   * name that is not UTF-8 is not an option's text) */
  g_autofree char *machine = write_file (NASTY_TEXT ".machine", "[machine]\n"
                                         "tiles=0\n", -1);
  r = RUN ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "8",
           "--machine", machine);
  assert_shown (&r, 1, "stderr", NASTY_SHOWN ".machine");
  r = RUN ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "8",
           "--machine", NASTY);
  assert_shown (&r, 2, "stderr", "--machine: expected UTF-8 text, got '"
                NASTY_SHOWN "\\xff'");
  /* what generate and sweep wrote, on stdout */
  g_autofree char *out = g_build_filename (dir, NASTY ".smtx", NULL);
  r = RUN ("generate", "--rows", "16", "--cols", "16", "--out", out);
  assert_shown (&r, 0, "stdout", NASTY_SHOWN "\\xff.smtx: 16 × 16");
  g_unlink (out);
  g_autofree char *csv = g_build_filename (dir, NASTY ".csv", NULL);
  r = RUN ("sweep", "--source", "model", "--densities", "1/4", "--blocks",
           "4", "--m", "64", "--k", "64", "--n", "8", "--machine", "teach16",
           "--out", csv);
  assert_shown (&r, 0, "stdout", NASTY_SHOWN "\\xff.csv");
  g_unlink (csv);
  /* option values and words: usage errors, and the window's own */
  r = RUN ("info", "--block", NASTY_TEXT, mtx);
  assert_shown (&r, 2, "stderr", "--block: expected a whole number from 1 to "
                "4096, got '" NASTY_SHOWN "'");
  r = RUN ("model", "--m", "64", "--k", "64", "--n", "8", "--block", "8",
           "--machine", NASTY_TEXT "preset");
  assert_shown (&r, 2, "stderr", NASTY_SHOWN "preset");
  r = RUN (NASTY "word");
  assert_shown (&r, 2, "stderr", "'" NASTY_SHOWN "\\xffword' is neither a "
                "command");
  r = RUN ("--view", NASTY_TEXT, mtx);
  if (r.status == 2) /* a build without the window says another line */
    assert_shown (&r, 2, "stderr", "got '" NASTY_SHOWN "'");
  else
    run_clear (&r);
  g_unlink (mtx);
}

static void
remove_dir (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      g_unlink (child);
    }
  g_rmdir (path);
}

/* ---- files that change while they are read ------------------------------ */

/* A network file cut to half its size once its header is checked (core's
 * test hook, so no race): layers ends with exit 1 and one line naming the
 * file and the change, never SIGBUS. */
static void
test_cut_while_read (void)
{
  const char *const names[] = { "cut-diagonal.safetensors",
                                "cut-diagonal.npz" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *from = fixture (names[i]);
      char *text = NULL;
      gsize len = 0;
      g_assert_true (g_file_get_contents (from, &text, &len, NULL));
      g_autofree char *path = write_file (names[i], text, (gssize) len);
      g_free (text);
      g_autofree char *half = g_strdup_printf ("%" G_GSIZE_FORMAT, len / 2);
      truncate_to = half;
      Run r = RUN ("layers", path, "--source", "model", "--n", "16");
      truncate_to = NULL;
      g_assert_cmpuint (lines (r.err), ==, 1);
      g_autofree char *said = g_strdup_printf (
        "%s: changed while it was read: %" G_GSIZE_FORMAT " bytes when its "
        "header was read, %" G_GSIZE_FORMAT " now", path, len, len / 2);
      assert_refused (&r, 1, said);
      g_unlink (path);
    }
}

/* ---- what is never written over ----------------------------------------- */

/* --out naming a read-only file (mode 0444), or a link to one, as
 * whoever runs the tests (root in CI, whom access(2) lets write
 * anything): generate, render and layers refuse, and its bytes stay. */
static void
test_out_read_only (void)
{
  g_autofree char *net = fixture ("cut-diagonal.safetensors");
  const char *const exts[] = { "mtx", "png", "json" };
  for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
    {
      g_autofree char *name = g_strdup_printf ("kept.%s", exts[i]);
      g_autofree char *link = g_strdup_printf ("link.%s", exts[i]);
      g_autofree char *file = write_file (name, "old", -1);
      g_assert_cmpint (g_chmod (file, 0444), ==, 0);
      g_autofree char *to = g_build_filename (dir, link, NULL);
      g_assert_cmpint (symlink (name, to), ==, 0);
      const char *const outs[] = { file, to };
      for (guint j = 0; j < G_N_ELEMENTS (outs); j++)
        {
          Run r = i == 0 ? RUN ("generate", "--rows", "8", "--cols", "8",
                                "--out", outs[j])
                : i == 1 ? RUN ("render", "--view", "tiles", "--machine",
                                "teach16", "--m", "64", "--k", "64",
                                "--block", "4", "--out", outs[j])
                         : RUN ("layers", net, "--source", "model", "--n",
                                "16", "--out", outs[j]);
          g_autofree char *said = g_strdup_printf (
            "%s: is read-only, so it was not replaced", outs[j]);
          assert_refused (&r, 1, said);
          g_autofree char *text = NULL;
          g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
          g_assert_cmpstr (text, ==, "old");
          g_assert_true (g_file_test (to, G_FILE_TEST_IS_SYMLINK));
        }
      g_unlink (to);
      g_unlink (file);
    }
}

/* A folder with a dangling link, a link to /dev/zero, a FIFO and lying
 * network files beside two masks: the two are surveyed, each other
 * entry is listed as skipped with why, and nothing waits on the FIFO. */
static void
test_folder_bad_entries (void)
{
  g_autofree char *folder = g_build_filename (dir, "net", NULL);
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  const char *const masks[] = { "small.smtx", "small.mtx" };
  for (guint i = 0; i < G_N_ELEMENTS (masks); i++)
    {
      gsize len = 0;
      g_autofree char *text = read_data (masks[i], &len);
      g_autofree char *path = g_build_filename (folder, masks[i], NULL);
      g_assert_true (g_file_set_contents (path, text, (gssize) len, NULL));
    }
  const char *const bad[][2] = {
    { "dangling.smtx", "No such file or directory" },
    { "devzero.npy", "is not a regular file (a device)" },
    { "fifo.smtx", "is not a regular file (a FIFO)" },
    { "lying.npz", "expected a zip archive of .npy files" },
    { "lying.safetensors", "runs past the end of the file" },
  };
  g_autofree char *cwd = g_get_current_dir ();
  g_assert_cmpint (chdir (folder), ==, 0);
  g_assert_cmpint (symlink ("missing.smtx", bad[0][0]), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", bad[1][0]), ==, 0);
  g_assert_cmpint (mkfifo (bad[2][0], 0600), ==, 0);
  g_assert_true (g_file_set_contents (bad[3][0], "PK\x03\x04 lies\x05\0"
                                      "w.npy", 17, NULL));
  g_assert_true (g_file_set_contents (bad[4][0], "\xff\0\0\0\0\0\0\0"
                                      "{}", 10, NULL));
  g_assert_cmpint (chdir (cwd), ==, 0);
  Run r = run_limited (10, (const char *const[]) {
                         "layers", folder, "--source", "model", "--n", "16",
                         NULL });
  if (r.signal != 0 || r.status != 0)
    g_error ("status %d signal %d; stderr: %s", r.status, r.signal, r.err);
  g_test_message ("%s", r.out);
  /* the two masks surveyed: a row each, shape first and name last */
  const char *const rows[] = { "\n3 × 4 ", " small.smtx\n", "\n4 × 5 ",
                               " small.mtx\n" };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    if (strstr (r.out, rows[i]) == NULL)
      g_error ("'%s' lacks '%s'", r.out, rows[i]);
  g_assert_null (strstr (r.out, "skipped small"));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *said = g_strdup_printf ("skipped %s: %s/%s: ",
                                               bad[i][0], folder, bad[i][0]);
      if (strstr (r.out, said) == NULL || strstr (r.out, bad[i][1]) == NULL)
        g_error ("'%s' lacks '%s' or '%s'", r.out, said, bad[i][1]);
    }
  run_clear (&r);
  remove_dir (folder);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("spx-hostile-XXXXXX", NULL);
  g_test_add_func ("/hostile/bench-operands", test_bench_operands);
  g_test_add_func ("/hostile/mask-stats-bomb", test_mask_stats_bomb);
  g_test_add_func ("/hostile/planner-bombs", test_planner_bombs);
  g_test_add_func ("/hostile/declared-size-render",
                   test_declared_size_render);
  g_test_add_func ("/hostile/bounds/generate", test_bounds_generate);
  g_test_add_func ("/hostile/bounds/sweep", test_bounds_sweep);
  g_test_add_func ("/hostile/bounds/small-sweep", test_bounds_small_sweep);
  g_test_add_func ("/hostile/png-rows", test_png_rows);
  g_test_add_func ("/hostile/not-regular", test_not_regular);
  g_test_add_func ("/hostile/cut-while-read", test_cut_while_read);
  g_test_add_func ("/hostile/out-read-only", test_out_read_only);
  g_test_add_func ("/hostile/folder-bad-entries", test_folder_bad_entries);
  g_test_add_func ("/hostile/messages", test_messages);
  g_test_add_func ("/hostile/names", test_names);
  g_test_add_func ("/hostile/escaped", test_escaped);
  int status = g_test_run ();
  remove_dir (dir);
  g_free (dir);
  return status;
}
