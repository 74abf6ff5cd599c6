/* test-network-io.c: network files that change while they are read, JSON
 * numbers in their headers, and folders holding entries that do not open
 * or lie */
#include "spx-json-check.h"
#include "spx-mask-io.h"
#include "spx-network.h"
#include "test-files.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#define NOBODY 65534
#define ROWS 64
#define COLS 64

/* ---- files ------------------------------------------------------------ */

/* ROWS × COLS bytes, non-zero on the diagonal only. */
static guint8 *
diagonal (void)
{
  guint8 *v = g_new0 (guint8, ROWS * COLS);
  for (guint i = 0; i < ROWS; i++)
    v[i * COLS + i] = 7;
  return v;
}

/* An .npz whose member "w.npy" (stored) holds diagonal() as |u1. */
static void
write_npz (const char *path)
{
  const char dict[] = "{'descr': '|u1', 'fortran_order': False, "
                      "'shape': (64, 64), }";
  gsize total = (10 + sizeof dict + 63) / 64 * 64; /* padded, '\n' last */
  g_autoptr (GByteArray) b = g_byte_array_new ();
  const guint8 pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (guint8) (total - 10), 0 };
  g_byte_array_append (b, pre, 10);
  g_byte_array_append (b, (const guint8 *) dict, sizeof dict - 1);
  while (b->len < total - 1)
    g_byte_array_append (b, (const guint8 *) " ", 1);
  g_byte_array_append (b, (const guint8 *) "\n", 1);
  g_autofree guint8 *v = diagonal ();
  g_byte_array_append (b, v, ROWS * COLS);
  int err = 0;
  zip_t *zip = zip_open (path, ZIP_CREATE | ZIP_TRUNCATE, &err);
  g_assert_nonnull (zip);
  gsize len = b->len;
  zip_source_t *src = zip_source_buffer (zip, g_memdup2 (b->data, len), len,
                                         1);
  zip_int64_t i = zip_file_add (zip, "w.npy", src, 0);
  g_assert_cmpint (i, >=, 0);
  g_assert_cmpint (zip_set_file_compression (zip, (zip_uint64_t) i,
                                             ZIP_CM_STORE, 0), ==, 0);
  g_assert_cmpint (zip_close (zip), ==, 0);
}

static void
write_network (const char *path)
{
  g_autofree guint8 *v = diagonal ();
  if (g_str_has_suffix (path, ".npz"))
    write_npz (path);
  else
    test_write_safetensors (path, "w", ROWS, COLS, v);
}

static char *
file_bytes (const char *path, gsize *len)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, len, NULL));
  return text;
}

/* ---- JSON numbers ----------------------------------------------------- */

typedef struct {
  const char *text;
  const char *why; /* NULL: valid */
} Number;

/* RFC 8259: number = [ "-" ] int [ frac ] [ exp ], int = "0" or a digit
 * 1-9 then digits, frac = "." digits, exp = ("e" / "E") [ sign ] digits. */
static const Number numbers[] = {
  { "0", NULL }, { "0.5", NULL }, { "-0.0", NULL }, { "1e5", NULL },
  { "1E+5", NULL }, { "-1.25e-3", NULL }, { "10", NULL },
  { "9223372036854775807", NULL }, { "-9223372036854775808", NULL },
  { "1e308", NULL },
  { "01", "a number with a leading zero" },
  { "-01", "a number with a leading zero" },
  { "00", "a number with a leading zero" },
  { ".5", "a number without a digit before its '.'" },
  { "1.", "a number without a digit after its '.'" },
  { "1.e5", "a number without a digit after its '.'" },
  { "+1", "a number with a '+' before it" },
  { "-", "a '-' without a digit after it" },
  { "- 1", "a '-' without a digit after it" },
  { "1e", "a number without a digit in its exponent" },
  { "1e+", "a number without a digit in its exponent" },
  { "0x1f", "a hexadecimal number" },
  { "1.5.5", "a number run into what follows it" },
  { "9223372036854775808", "a whole number past 2^63 - 1" },
  { "-9223372036854775809", "a whole number below -2^63" },
  { "1e400", "a number past the largest a double holds" },
};

/* Each number as a member's value: refused with why, at its byte, or
 * taken. */
static void
test_json_numbers (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      g_autofree char *text = g_strdup_printf ("{\"a\": \"01\",\n \"key\": "
                                               "[%s]}", numbers[i].text);
      SpxJsonFlaw flaw;
      gboolean ok = spx_json_check (text, strlen (text), 16, &flaw);
      g_test_message ("%s: %s", numbers[i].text, ok ? "valid" : flaw.why);
      g_assert_cmpint (ok, ==, numbers[i].why == NULL);
      if (ok)
        continue;
      g_assert_cmpstr (flaw.why, ==, numbers[i].why);
      g_assert_cmpuint (flaw.at, ==, strlen ("{\"a\": \"01\",\n \"key\": ["));
      g_assert_cmpuint (flaw.line, ==, 2);
      g_assert_false (flaw.deep);
      g_assert_cmpmem (flaw.key, flaw.key_len, "key", 3);
    }
  SpxJsonFlaw flaw;
  g_assert_true (spx_json_check ("[[[]]]", 6, 3, &flaw));
  g_assert_false (spx_json_check ("[[[[]]]]", 8, 3, &flaw));
  g_assert_true (flaw.deep);
  g_assert_cmpuint (flaw.at, ==, 3);
}

/* A safetensors file of header and one F32, 1.0. */
static void
write_one_float (const char *path, const char *header)
{
  const guint8 one[4] = { 0, 0, 0x80, 0x3f };
  g_autoptr (GByteArray) b = g_byte_array_new ();
  guint64 le = GUINT64_TO_LE ((guint64) strlen (header));
  g_byte_array_append (b, (const guint8 *) &le, 8);
  g_byte_array_append (b, (const guint8 *) header, strlen (header));
  g_byte_array_append (b, one, 4);
  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len,
                                      NULL));
}

/* A safetensors header with a number in its __metadata__ opens when the
 * number is one; else it is refused at its byte, naming why. Whole
 * numbers are expected in data_offsets and shape, named by key. */
static void
test_json_numbers_safetensors (void)
{
  g_autofree char *dir = g_dir_make_tmp ("spx-netio-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "m.safetensors", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    {
      g_autofree char *header = g_strdup_printf (
        "{\"__metadata__\": {\"lr\": %s}, \"w\": {\"dtype\": \"F32\", "
        "\"shape\": [1, 1], \"data_offsets\": [0, 4]}}", numbers[i].text);
      write_one_float (path, header);
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
      if (numbers[i].why == NULL)
        {
          g_assert_no_error (error);
          g_assert_cmpuint (spx_network_n_layers (n), ==, 1);
          continue;
        }
      g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_INVALID);
      g_autofree char *want = g_strdup_printf (
        "%s: tensor '__metadata__': byte %zu: %s", path,
        8 + strlen ("{\"__metadata__\": {\"lr\": "), numbers[i].why);
      g_assert_cmpstr (error->message, ==, want);
    }
  const char *const wrong[][2] = {
    { "\"shape\": [1, 1], \"data_offsets\": [0.0, 4.0]",
      "data_offsets[0]: expected a whole number ≥ 0, got '0.0'" },
    { "\"shape\": [1, 1], \"data_offsets\": [0, 4e0]",
      "data_offsets[1]: expected a whole number ≥ 0, got '4.0'" },
    { "\"shape\": [1, 0.5], \"data_offsets\": [0, 4]",
      "shape[1]: expected a whole number ≥ 0, got '0.5'" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (wrong); i++)
    {
      g_autofree char *header = g_strdup_printf (
        "{\"w\": {\"dtype\": \"F32\", %s}}", wrong[i][0]);
      write_one_float (path, header);
      g_autoptr (GError) error = NULL;
      g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
      g_assert_null (n);
      g_autofree char *want = g_strdup_printf ("%s: tensor 'w': %s", path,
                                               wrong[i][1]);
      g_assert_cmpstr (error->message, ==, want);
    }
  test_remove_folder (dir);
}

/* ---- files that change while they are read ---------------------------- */

/* A network of one layer opened, then (through the test hook) cut to
 * keep bytes once its header is checked: loading the layer fails,
 * naming the file and the change, where a mapped file raised SIGBUS. */
static void
assert_cut_refused (const char *path, guint64 keep)
{
  g_autofree char *cut = g_strdup_printf ("%" G_GUINT64_FORMAT, keep);
  g_setenv (SPX_IO_TEST_TRUNCATE_ENV, cut, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
  g_unsetenv (SPX_IO_TEST_TRUNCATE_ENV);
  g_assert_no_error (error);
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpuint ((guint64) st.st_size, ==, keep); /* the hook ran */
  gint i = spx_network_find (n, "w");
  g_assert_cmpint (i, >=, 0);
  g_autoptr (SpxMask) mask = spx_network_load (n, (guint) i, &error);
  g_assert_null (mask);
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_CHANGED);
  g_test_message ("%s", error->message);
  g_autofree char *want = g_strdup_printf (
    "%s: changed while it was read: ", path);
  g_assert_true (g_str_has_prefix (error->message, want));
  g_autofree char *sizes = g_strdup_printf (" bytes when its header was "
                                            "read, %" G_GUINT64_FORMAT
                                            " now", keep);
  g_assert_nonnull (strstr (error->message, sizes));
}

static void
test_cut_while_read (gconstpointer data)
{
  const char *name = data;
  g_autofree char *dir = g_dir_make_tmp ("spx-netio-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  write_network (path);
  gsize len;
  g_autofree char *whole = file_bytes (path, &len);
  /* unchanged, it loads: the diagonal */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
    g_assert_no_error (error);
    g_autoptr (SpxMask) mask = spx_network_load (
      n, (guint) spx_network_find (n, "w"), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (mask->rows, ==, ROWS);
    g_assert_cmpuint (spx_mask_count (mask), ==, ROWS);
  }
  assert_cut_refused (path, len / 2);
  write_network (path);
  assert_cut_refused (path, 0);
  test_remove_folder (dir);
}

/* A network of one layer, "w", in a new folder (*dir). */
static char *
new_network (char **dir)
{
  *dir = g_dir_make_tmp ("spx-netio-XXXXXX", NULL);
  char *path = g_build_filename (*dir, "m.safetensors", NULL);
  write_network (path);
  return path;
}

/* The same size, written again after the header was read: the time of
 * change says so. */
static void
test_rewritten_while_read (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = new_network (&dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) n = spx_network_open (path, &error);
  g_assert_no_error (error);
  struct stat st;
  g_assert_cmpint (stat (path, &st), ==, 0);
  struct timespec later[2] = { st.st_atim, st.st_mtim };
  later[1].tv_sec += 10;
  g_assert_cmpint (utimensat (AT_FDCWD, path, later, 0), ==, 0);
  g_autoptr (SpxMask) mask = spx_network_load (
    n, (guint) spx_network_find (n, "w"), &error);
  g_assert_null (mask);
  g_autofree char *want = g_strdup_printf (
    "%s: changed while it was read: written to after its header was read "
    "(open it again)", path);
  g_assert_cmpstr (error->message, ==, want);
  test_remove_folder (dir);
}

/* A read that ends early (the file cut after the check that it was
 * unchanged) names the file and where it ends. */
static void
test_short_read (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = new_network (&dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxIoFile) file = spx_io_file_open (path, "shown", &error);
  g_assert_no_error (error);
  guint8 buf[16];
  g_assert_true (spx_io_file_read (file, 0, buf, sizeof buf, &error));
  g_assert_cmpint (truncate (path, 10), ==, 0);
  g_assert_false (spx_io_file_read (file, 4, buf, sizeof buf, &error));
  g_assert_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_CHANGED);
  g_assert_true (g_str_has_prefix (error->message, "shown: changed while "
                                   "it was read: "));
  test_remove_folder (dir);
}

/* ---- folders ---------------------------------------------------------- */

typedef struct {
  const char *name;
  const char *says; /* in why it is skipped */
} Bad;

/* Every kind of entry that does not open or lies, each skipped with
 * why; the two masks beside them are layers. */
static const Bad bads[] = {
  { "dangling.smtx", "No such file or directory" },
  { "devzero.npy", "is not a regular file (a device)" },
  { "fifo.smtx", "is not a regular file (a FIFO)" },
  { "folder-link.mtx", "is a directory" },
  { "lying.npy", "lying.npy" },
  { "lying.npz", "expected a zip archive of .npy files" },
  { "lying.safetensors", "run past the end of the file" },
  { "lying.smtx", "lying.smtx:" },
  { "unreadable.mtx", "Permission denied" },
};

static void
make_bad_folder (const char *dir)
{
  g_autofree char *small = g_test_build_filename (G_TEST_DIST, "data",
                                                  "small.smtx", NULL);
  g_autofree char *mtx = g_test_build_filename (G_TEST_DIST, "data",
                                                "small.mtx", NULL);
  gsize len;
  g_autofree char *a = file_bytes (small, &len);
  g_autofree char *good_a = g_build_filename (dir, "good-a.smtx", NULL);
  g_assert_true (g_file_set_contents (good_a, a, (gssize) len, NULL));
  g_autofree char *b = file_bytes (mtx, &len);
  g_autofree char *good_b = g_build_filename (dir, "good-b.mtx", NULL);
  g_assert_true (g_file_set_contents (good_b, b, (gssize) len, NULL));
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_autofree char *cwd = g_get_current_dir ();
  g_assert_cmpint (chdir (dir), ==, 0);
  g_assert_cmpint (symlink ("missing.smtx", "dangling.smtx"), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", "devzero.npy"), ==, 0);
  g_assert_cmpint (mkfifo ("fifo.smtx", 0666), ==, 0);
  g_assert_cmpint (chmod ("fifo.smtx", 0666), ==, 0);
  g_assert_cmpint (symlink ("sub", "folder-link.mtx"), ==, 0);
  g_assert_true (g_file_set_contents ("lying.npy", "\x93NUMPY\x01\0\x10\0"
                                      "{'descr': 1}\n", 23, NULL));
  g_assert_true (g_file_set_contents ("lying.npz", "PK\x03\x04garbage "
                                      "garbage garbage garbage\x05\0w.npy",
                                      41, NULL));
  g_autofree guint8 *v = diagonal ();
  test_write_safetensors ("lying.safetensors", "w", ROWS, COLS, v);
  g_assert_cmpint (truncate ("lying.safetensors", 200), ==, 0);
  g_assert_true (g_file_set_contents ("lying.smtx", "3, 3, 2\nnonsense\n",
                                      -1, NULL));
  g_assert_true (g_file_set_contents ("unreadable.mtx", b, -1, NULL));
  g_assert_cmpint (chmod ("unreadable.mtx", 0), ==, 0);
  g_assert_cmpint (chdir (cwd), ==, 0);
}

/* Run as an ordinary user (nobody when root, whom no mode keeps from
 * reading a file) in a subprocess of its own. */
static void
test_folder_bad_entries (void)
{
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC,
                              G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  g_autofree char *dir = g_dir_make_tmp ("spx-netio-XXXXXX", NULL);
  make_bad_folder (dir);
  if (geteuid () == 0)
    {
      g_assert_cmpint (chown (dir, NOBODY, NOBODY), ==, 0);
      g_assert_cmpint (setgroups (0, NULL), ==, 0);
      g_assert_cmpint (setgid (NOBODY), ==, 0);
      g_assert_cmpint (setuid (NOBODY), ==, 0);
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (SpxNetwork) n = spx_network_open (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (spx_network_n_entries (n), ==, G_N_ELEMENTS (bads) + 2);
  g_assert_cmpuint (spx_network_n_layers (n), ==, 2);
  const char *const good[] = { "good-a.smtx", "good-b.mtx" };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      gint at = spx_network_find (n, good[i]);
      g_assert_cmpint (at, >=, 0);
      g_autoptr (SpxMask) mask = spx_network_load (n, (guint) at, &error);
      g_assert_no_error (error);
      g_assert_nonnull (mask);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bads); i++)
    {
      gint at = spx_network_find (n, bads[i].name);
      g_assert_cmpint (at, >=, 0);
      const SpxNetworkEntry *e = spx_network_entry (n, (guint) at);
      g_test_message ("%s: %s", e->name, e->skipped);
      g_assert_nonnull (e->skipped);
      g_assert_nonnull (strstr (e->skipped, bads[i].name));
      g_assert_nonnull (strstr (e->skipped, bads[i].says));
    }
  test_remove_folder (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/network-io/json-numbers", test_json_numbers);
  g_test_add_func ("/network-io/json-numbers/safetensors",
                   test_json_numbers_safetensors);
  g_test_add_data_func ("/network-io/cut/safetensors", "m.safetensors",
                        test_cut_while_read);
  g_test_add_data_func ("/network-io/cut/npz", "m.npz", test_cut_while_read);
  g_test_add_func ("/network-io/rewritten", test_rewritten_while_read);
  g_test_add_func ("/network-io/short-read", test_short_read);
  g_test_add_func ("/network-io/folder-bad-entries", test_folder_bad_entries);
  return g_test_run ();
}
