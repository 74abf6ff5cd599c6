/* test-save.c: spx_save_file against what a file system holds: read-only
 * files, FIFOs, devices and links to them, other users' files, hard
 * links, and saves that fail half-way */
#include "spx-save.h"
#include "test-files.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#define NOBODY 65534

/* ---- folders and users --------------------------------------------- */

static char *
new_folder (void)
{
  char *dir = g_dir_make_tmp ("spx-save-XXXXXX", NULL);
  g_assert_nonnull (dir);
  return dir;
}

static guint
count_files (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static void
write_file (const char *path, const char *text, mode_t mode)
{
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

static struct stat
stat_of (const char *path)
{
  struct stat st;
  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st;
}

/* TRUE in a subprocess running this test again, which is where the rest
 * of the test goes; the parent waits for it to pass. For what must run
 * as an ordinary user, or under limits of its own. */
static gboolean
in_subprocess (void)
{
  if (g_test_subprocess ())
    return TRUE;
  g_test_trap_subprocess (NULL, 30 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  return FALSE;
}

/* In such a subprocess: an ordinary user from now on (nobody when root,
 * as in CI, since root may write any file), owning dir. */
static void
become_ordinary (const char *dir)
{
  if (geteuid () != 0)
    return;
  g_assert_cmpint (chown (dir, NOBODY, NOBODY), ==, 0);
  g_assert_cmpint (setgroups (0, NULL), ==, 0);
  g_assert_cmpint (setgid (NOBODY), ==, 0);
  g_assert_cmpint (setuid (NOBODY), ==, 0);
  g_assert_cmpint (geteuid (), ==, NOBODY);
}

static void
assert_save_error (const char *path, const char *data, SpxSaveFlags flags,
                   SpxSaveError code, const char *words)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_save_file (path, data, strlen (data), flags, &error));
  g_assert_error (error, SPX_SAVE_ERROR, (gint) code);
  if (!g_str_has_prefix (error->message, path) ||
      strstr (error->message, words) == NULL)
    g_error ("'%s' does not start with '%s' or lacks '%s'", error->message,
             path, words);
}

static void
assert_saves (const char *path, const char *data, SpxSaveFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (spx_save_file (path, data, strlen (data), flags, &error));
  g_assert_no_error (error);
}

/* ---- new and regular files ----------------------------------------- */

static void
test_new_file (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *path = g_build_filename (dir, "new.csv", NULL);
  mode_t mask = umask (022);
  assert_saves (path, "a,b\n", SPX_SAVE_DEFAULT);
  umask (mask);
  g_autofree char *text = test_read_all (path);
  g_assert_cmpstr (text, ==, "a,b\n");
  g_assert_cmpuint (stat_of (path).st_mode & 07777, ==, 0644);
  g_assert_cmpuint (count_files (dir), ==, 1); /* no temporary file left */
  test_remove_folder (dir);
}

/* A failed write names the path the caller gave, never the temporary
 * file beside it ("x.csv.LANAZ3"). */
static void
test_error_names_path (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *file = g_build_filename (dir, "plain", NULL);
  write_file (file, "x", 0644);
  /* under a missing folder, and under a file (root writes anywhere
   * else) */
  g_autofree char *missing = g_build_filename (dir, "none", "x.csv", NULL);
  g_autofree char *under = g_build_filename (file, "x.csv", NULL);
  const char *paths[] = { missing, under };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (spx_save_file (paths[i], "data", 4, SPX_SAVE_DEFAULT,
                                     &error));
      g_assert_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_FAILED);
      g_autofree char *prefix = g_strconcat (paths[i], ": could not be "
                                             "written (", NULL);
      if (!g_str_has_prefix (error->message, prefix))
        g_error ("'%s' does not start with '%s'", error->message, prefix);
      g_autofree char *temp = g_strconcat (paths[i], ".", NULL);
      g_assert_null (strstr (error->message, temp));
    }
  test_remove_folder (dir);
}

/* Replaced whole, with its mode, and nothing left beside it. */
static void
test_replace_keeps_mode (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *path = g_build_filename (dir, "s.spx", NULL);
  write_file (path, "old contents, longer than the new", 0640);
  assert_saves (path, "new", SPX_SAVE_DEFAULT);
  g_autofree char *text = test_read_all (path);
  g_assert_cmpstr (text, ==, "new");
  g_assert_cmpuint (stat_of (path).st_mode & 07777, ==, 0640);
  g_assert_cmpuint (count_files (dir), ==, 1);
  test_remove_folder (dir);
}

/* Mode 0444 in the user's own folder: what the shell refuses to write
 * into is refused, until the user confirms; then it keeps its mode. */
static void
test_read_only (void)
{
  if (!in_subprocess ())
    return;
  g_autofree char *dir = new_folder ();
  become_ordinary (dir);
  g_autofree char *path = g_build_filename (dir, "kept.spx", NULL);
  write_file (path, "the user's", 0444);
  assert_save_error (path, "new", SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_READ_ONLY,
                     "is read-only");
  g_autofree char *kept = test_read_all (path);
  g_assert_cmpstr (kept, ==, "the user's");
  g_assert_cmpuint (count_files (dir), ==, 1);

  assert_saves (path, "new", SPX_SAVE_REPLACE_READ_ONLY);
  g_autofree char *text = test_read_all (path);
  g_assert_cmpstr (text, ==, "new");
  g_assert_cmpuint (stat_of (path).st_mode & 07777, ==, 0444);
  g_assert_cmpuint (count_files (dir), ==, 1);
  test_remove_folder (dir);
}

/* Mode 0444, and a link to such a file, as whoever runs the tests (root
 * in CI, whom access(2) lets write anything): the mode says read-only,
 * so neither is replaced, and the bytes stay. */
static void
test_read_only_any_user (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *path = g_build_filename (dir, "kept.mtx", NULL);
  g_autofree char *link = g_build_filename (dir, "link.mtx", NULL);
  write_file (path, "the user's", 0444);
  g_assert_cmpint (symlink ("kept.mtx", link), ==, 0);
  const char *const paths[] = { path, link };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      assert_save_error (paths[i], "new", SPX_SAVE_DEFAULT,
                         SPX_SAVE_ERROR_READ_ONLY, "is read-only");
      g_autofree char *kept = test_read_all (path);
      g_assert_cmpstr (kept, ==, "the user's");
      g_assert_cmpuint (stat_of (path).st_mode & 07777, ==, 0444);
      g_assert_true (S_ISLNK (stat_of (link).st_mode));
    }
  g_assert_cmpuint (count_files (dir), ==, 2);
  assert_saves (link, "new", SPX_SAVE_REPLACE_READ_ONLY);
  g_autofree char *text = test_read_all (path);
  g_assert_cmpstr (text, ==, "new");
  g_assert_cmpuint (stat_of (path).st_mode & 07777, ==, 0444);
  g_assert_true (S_ISLNK (stat_of (link).st_mode));
  test_remove_folder (dir);
}

/* ---- FIFOs and devices ---------------------------------------------- */

typedef struct {
  int      fd;    /* the read end, opened without waiting */
  gsize    stop;  /* close after this many bytes (0: read to the end) */
  GString *got;
} Reader;

/* Reads until the writer closes (or stop bytes). A FIFO that never had a
 * writer polls as nothing to read, so this waits for the save. */
static gpointer
read_fifo (gpointer data)
{
  Reader *r = data;
  char buf[4096];
  for (;;)
    {
      struct pollfd p = { r->fd, POLLIN, 0 };
      if (poll (&p, 1, 10000) <= 0)
        break;
      ssize_t n = read (r->fd, buf, sizeof buf);
      if (n < 0 && errno == EAGAIN)
        continue;
      if (n <= 0)
        break;
      g_string_append_len (r->got, buf, n);
      if (r->stop != 0 && r->got->len >= r->stop)
        break;
    }
  close (r->fd);
  return NULL;
}

/* Larger than a pipe holds, so the save waits on its reader. */
static char *
big_text (gsize len)
{
  char *text = g_malloc (len + 1);
  for (gsize i = 0; i < len; i++)
    text[i] = (char) ('a' + i % 26);
  text[len] = '\0';
  return text;
}

static void
test_fifo_reader (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *fifo = g_build_filename (dir, "out.csv", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  Reader r = { open (fifo, O_RDONLY | O_NONBLOCK), 0, g_string_new (NULL) };
  g_assert_cmpint (r.fd, >=, 0);
  GThread *thread = g_thread_new ("reader", read_fifo, &r);
  g_autofree char *text = big_text (1 << 20);
  assert_saves (fifo, text, SPX_SAVE_DEFAULT);
  g_thread_join (thread);
  g_assert_cmpuint (r.got->len, ==, 1 << 20);
  g_assert_true (memcmp (r.got->str, text, 1 << 20) == 0);
  g_assert_true (S_ISFIFO (stat_of (fifo).st_mode));
  g_assert_cmpuint (count_files (dir), ==, 1);
  g_string_free (r.got, TRUE);
  test_remove_folder (dir);
}

/* A reader that leaves early ends the save with an error, not the
 * program with SIGPIPE. */
static void
test_fifo_reader_stops (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *fifo = g_build_filename (dir, "out.csv", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  Reader r = { open (fifo, O_RDONLY | O_NONBLOCK), 4096,
               g_string_new (NULL) };
  GThread *thread = g_thread_new ("reader", read_fifo, &r);
  g_autofree char *text = big_text (1 << 20);
  assert_save_error (fifo, text, SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_FAILED,
                     "its reader stopped after");
  g_thread_join (thread);
  g_assert_true (S_ISFIFO (stat_of (fifo).st_mode));
  g_string_free (r.got, TRUE);
  test_remove_folder (dir);
}

/* Nobody reading: refused at once (the subprocess has a time limit),
 * and the FIFO stays one. */
static void
test_fifo_no_reader (void)
{
  if (!in_subprocess ())
    return;
  g_autofree char *dir = new_folder ();
  g_autofree char *fifo = g_build_filename (dir, "out.png", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  assert_save_error (fifo, "data", SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_NO_READER,
                     "no program is reading");
  g_assert_true (S_ISFIFO (stat_of (fifo).st_mode));
  test_remove_folder (dir);
}

static void
assert_link_to (const char *link, const char *target)
{
  g_assert_true (S_ISLNK (stat_of (link).st_mode));
  g_autofree char *now = g_file_read_link (link, NULL);
  g_assert_cmpstr (now, ==, target);
  g_assert_true (S_ISCHR (stat_of (target).st_mode));
}

/* A link to a device is written through: the link stays a link and the
 * device a device. */
static void
test_device_links (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *null = g_build_filename (dir, "null.png", NULL);
  g_assert_cmpint (symlink ("/dev/null", null), ==, 0);
  assert_saves (null, "a PNG", SPX_SAVE_DEFAULT);
  assert_link_to (null, "/dev/null");
  struct stat st = stat_of ("/dev/null");
  g_assert_cmpuint (major (st.st_rdev), ==, 1);
  g_assert_cmpuint (minor (st.st_rdev), ==, 3);

  /* a device that refuses the bytes says so */
  g_autofree char *full = g_build_filename (dir, "full.csv", NULL);
  g_assert_cmpint (symlink ("/dev/full", full), ==, 0);
  assert_save_error (full, "a,b\n", SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_FAILED,
                     g_strerror (ENOSPC));
  assert_link_to (full, "/dev/full");
  g_assert_cmpuint (count_files (dir), ==, 2);
  test_remove_folder (dir);
}

/* A device node named itself (a private /dev/null, made where root may
 * make one): written into, still a device. */
static void
test_device_node (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *node = g_build_filename (dir, "null", NULL);
  if (mknod (node, S_IFCHR | 0666, makedev (1, 3)) != 0)
    {
      g_test_skip ("no device nodes here (not root, or no CAP_MKNOD)");
      test_remove_folder (dir);
      return;
    }
  assert_saves (node, "data", SPX_SAVE_DEFAULT);
  struct stat st = stat_of (node);
  g_assert_true (S_ISCHR (st.st_mode));
  g_assert_cmpuint (st.st_rdev, ==, makedev (1, 3));
  test_remove_folder (dir);
}

/* What cannot be written to is refused and left as it was. */
static void
test_refused_kinds (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *sub = g_build_filename (dir, "folder.csv", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  assert_save_error (sub, "x", SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_NOT_A_FILE,
                     "is a folder");
  g_assert_true (S_ISDIR (stat_of (sub).st_mode));
  g_assert_cmpint (g_rmdir (sub), ==, 0);

  g_autofree char *sock = g_build_filename (dir, "sock.csv", NULL);
  int fd = socket (AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  g_assert_cmpuint (strlen (sock), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, sock);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  assert_save_error (sock, "x", SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_NOT_A_FILE,
                     "is a socket");
  g_assert_true (S_ISSOCK (stat_of (sock).st_mode));
  close (fd);

  g_autofree char *block = g_build_filename (dir, "block.png", NULL);
  if (mknod (block, S_IFBLK | 0600, makedev (7, 0)) == 0)
    {
      assert_save_error (block, "x", SPX_SAVE_DEFAULT,
                         SPX_SAVE_ERROR_NOT_A_FILE, "is a block device");
      g_assert_true (S_ISBLK (stat_of (block).st_mode));
    }
  test_remove_folder (dir);
}

/* ---- owners and links ----------------------------------------------- */

/* Root saving over a user's private file leaves it the user's. */
static void
test_owner_kept (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("only root can save another user's file");
      return;
    }
  g_autofree char *dir = new_folder ();
  g_autofree char *path = g_build_filename (dir, "theirs.spx", NULL);
  write_file (path, "their old", 0600);
  g_assert_cmpint (chown (path, NOBODY, NOBODY), ==, 0);
  assert_saves (path, "new", SPX_SAVE_DEFAULT);
  struct stat st = stat_of (path);
  g_assert_cmpuint (st.st_uid, ==, NOBODY);
  g_assert_cmpuint (st.st_gid, ==, NOBODY);
  g_assert_cmpuint (st.st_mode & 07777, ==, 0600);
  g_autofree char *text = test_read_all (path);
  g_assert_cmpstr (text, ==, "new");
  g_assert_cmpuint (count_files (dir), ==, 1);
  test_remove_folder (dir);
}

/* A user who may write a file but not give one away (someone else's,
 * writable by all): written in place, so its owner stays. */
static void
test_owner_in_place (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("needs a file of another user: run as root");
      return;
    }
  if (!in_subprocess ())
    return;
  g_autofree char *dir = new_folder ();
  g_autofree char *path = g_build_filename (dir, "shared.csv", NULL);
  write_file (path, "root's old contents", 0666);
  ino_t inode = stat_of (path).st_ino;
  become_ordinary (dir);
  assert_saves (path, "new", SPX_SAVE_DEFAULT);
  struct stat st = stat_of (path);
  g_assert_cmpuint (st.st_uid, ==, 0);
  g_assert_cmpuint (st.st_ino, ==, inode);
  g_assert_cmpuint (st.st_mode & 07777, ==, 0666);
  g_autofree char *text = test_read_all (path);
  g_assert_cmpstr (text, ==, "new");
  g_assert_cmpuint (count_files (dir), ==, 1);
  test_remove_folder (dir);
}

/* Both names see the new contents, longer or shorter: one file still. */
static void
test_hard_link (void)
{
  g_autofree char *dir = new_folder ();
  g_autofree char *a = g_build_filename (dir, "a.mtx", NULL);
  g_autofree char *b = g_build_filename (dir, "b.mtx", NULL);
  write_file (a, "old contents", 0640);
  g_assert_cmpint (link (a, b), ==, 0);
  ino_t inode = stat_of (a).st_ino;
  const char *texts[] = { "new contents, longer than the old", "short" };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      assert_saves (a, texts[i], SPX_SAVE_DEFAULT);
      g_autofree char *via_a = test_read_all (a);
      g_autofree char *via_b = test_read_all (b);
      g_assert_cmpstr (via_a, ==, texts[i]);
      g_assert_cmpstr (via_b, ==, texts[i]);
      struct stat st = stat_of (b);
      g_assert_cmpuint (st.st_ino, ==, inode);
      g_assert_cmpuint (st.st_nlink, ==, 2);
      g_assert_cmpuint (st.st_mode & 07777, ==, 0640);
      g_assert_cmpuint (count_files (dir), ==, 2);
    }
  test_remove_folder (dir);
}

/* ---- failures ------------------------------------------------------- */

/* The disk refuses half-way (a file size limit): the old file, alone or
 * linked, is whole and nothing is left beside it. */
static void
test_failed_keeps_old (void)
{
  if (!in_subprocess ())
    return;
  g_autofree char *dir = new_folder ();
  g_autofree char *alone = g_build_filename (dir, "alone.spx", NULL);
  g_autofree char *a = g_build_filename (dir, "a.spx", NULL);
  g_autofree char *b = g_build_filename (dir, "b.spx", NULL);
  write_file (alone, "old contents", 0644);
  write_file (a, "old linked", 0644);
  g_assert_cmpint (link (a, b), ==, 0);
  signal (SIGXFSZ, SIG_IGN);
  struct rlimit limit = { 4096, 4096 };
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  g_autofree char *text = big_text (65536);
  assert_save_error (alone, text, SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_FAILED,
                     g_strerror (EFBIG));
  assert_save_error (a, text, SPX_SAVE_DEFAULT, SPX_SAVE_ERROR_FAILED,
                     g_strerror (EFBIG));
  g_autofree char *still = test_read_all (alone);
  g_autofree char *still_b = test_read_all (b);
  g_assert_cmpstr (still, ==, "old contents");
  g_assert_cmpstr (still_b, ==, "old linked");
  g_assert_cmpuint (count_files (dir), ==, 3);
  test_remove_folder (dir);
}

/* The user's own read-only file, confirmed, where a rename would lose
 * something (a hard link; a group they are not in): made writable for
 * the moment and written in place, then read-only again. */
static void
test_read_only_in_place (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("needs a group the user is not in: run as root");
      return;
    }
  if (!in_subprocess ())
    return;
  g_autofree char *dir = new_folder ();
  g_autofree char *a = g_build_filename (dir, "a.spx", NULL);
  g_autofree char *b = g_build_filename (dir, "b.spx", NULL);
  g_autofree char *grouped = g_build_filename (dir, "grouped.spx", NULL);
  write_file (a, "old", 0444);
  g_assert_cmpint (link (a, b), ==, 0);
  write_file (grouped, "old", 0440);
  g_assert_cmpint (chown (a, NOBODY, NOBODY), ==, 0);
  g_assert_cmpint (chown (grouped, NOBODY, 0), ==, 0); /* group root */
  become_ordinary (dir);
  const char *paths[] = { a, grouped };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      struct stat before = stat_of (paths[i]);
      assert_saves (paths[i], "new", SPX_SAVE_REPLACE_READ_ONLY);
      struct stat after = stat_of (paths[i]);
      g_assert_cmpuint (after.st_ino, ==, before.st_ino);
      g_assert_cmpuint (after.st_uid, ==, before.st_uid);
      g_assert_cmpuint (after.st_gid, ==, before.st_gid);
      g_assert_cmpuint (after.st_mode, ==, before.st_mode);
      g_autofree char *text = test_read_all (paths[i]);
      g_assert_cmpstr (text, ==, "new");
    }
  g_autofree char *via_b = test_read_all (b);
  g_assert_cmpstr (via_b, ==, "new");
  g_assert_cmpuint (count_files (dir), ==, 3);
  test_remove_folder (dir);
}

/* Written beside, then in place: when the second step fails (another
 * user's linked read-only file, confirmed), the error says where the new
 * contents are and they are there whole; the old file is untouched. */
static void
test_in_place_fails (void)
{
  if (geteuid () != 0)
    {
      g_test_skip ("needs a file of another user: run as root");
      return;
    }
  if (!in_subprocess ())
    return;
  g_autofree char *dir = new_folder ();
  g_autofree char *a = g_build_filename (dir, "a.spx", NULL);
  g_autofree char *b = g_build_filename (dir, "b.spx", NULL);
  write_file (a, "old", 0444);
  g_assert_cmpint (link (a, b), ==, 0);
  become_ordinary (dir);
  g_autoptr (GError) error = NULL;
  g_assert_false (spx_save_file (a, "new", 3, SPX_SAVE_REPLACE_READ_ONLY,
                                 &error));
  g_assert_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_FAILED);
  const char *where = "the complete new contents are in ";
  const char *kept = strstr (error->message, where);
  g_assert_nonnull (kept);
  g_assert_true (g_str_has_prefix (error->message, a));
  g_autofree char *temp_text = test_read_all (kept + strlen (where));
  g_assert_cmpstr (temp_text, ==, "new");
  g_autofree char *old = test_read_all (b);
  g_assert_cmpstr (old, ==, "old");
  g_assert_cmpuint (stat_of (a).st_mode & 07777, ==, 0444);
  g_assert_cmpuint (count_files (dir), ==, 3);
  test_remove_folder (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/save/new-file", test_new_file);
  g_test_add_func ("/save/error-names-path", test_error_names_path);
  g_test_add_func ("/save/replace-keeps-mode", test_replace_keeps_mode);
  g_test_add_func ("/save/read-only", test_read_only);
  g_test_add_func ("/save/read-only-any-user", test_read_only_any_user);
  g_test_add_func ("/save/fifo-reader", test_fifo_reader);
  g_test_add_func ("/save/fifo-reader-stops", test_fifo_reader_stops);
  g_test_add_func ("/save/fifo-no-reader", test_fifo_no_reader);
  g_test_add_func ("/save/device-links", test_device_links);
  g_test_add_func ("/save/device-node", test_device_node);
  g_test_add_func ("/save/refused-kinds", test_refused_kinds);
  g_test_add_func ("/save/owner-kept", test_owner_kept);
  g_test_add_func ("/save/owner-in-place", test_owner_in_place);
  g_test_add_func ("/save/hard-link", test_hard_link);
  g_test_add_func ("/save/failed-keeps-old", test_failed_keeps_old);
  g_test_add_func ("/save/read-only-in-place", test_read_only_in_place);
  g_test_add_func ("/save/in-place-fails", test_in_place_fails);
  return g_test_run ();
}
