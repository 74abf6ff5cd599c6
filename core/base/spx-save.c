/* spx-save.c: the one way every file is written: never replace what is
 * not a plain file, nor a file its user may not write, and keep what the
 * file system knows about a file (owner, group, mode, links) */
#include "spx-save.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

G_DEFINE_QUARK (spx-save-error-quark, spx_save_error)

/* A file name longer than this is cut in its temporary file's name, so
 * that the suffix still fits the file system's limit. */
#define TEMP_BASE_MAX 200

static gboolean
fail (GError **error, SpxSaveError code, const char *path, int err)
{
  g_set_error (error, SPX_SAVE_ERROR, code, "%s: could not be written (%s)",
               path, g_strerror (err));
  return FALSE;
}

/* Where a write to path lands: a link's target (the link stays a link),
 * followed as far as it goes. */
static char *
follow_links (const char *path)
{
  char *cur = g_strdup (path);
  for (guint hops = 0; hops < 40; hops++)
    {
      g_autofree char *target = g_file_read_link (cur, NULL);
      if (target == NULL)
        break;
      g_autofree char *dir = g_path_get_dirname (cur);
      char *next = g_path_is_absolute (target)
                     ? g_steal_pointer (&target)
                     : g_build_filename (dir, target, NULL);
      g_free (cur);
      cur = next;
    }
  return cur;
}

/* All of data to fd: 0, or the errno that stopped it (*done bytes in). */
static int
write_all (int fd, const char *data, gsize len, gsize *done)
{
  *done = 0;
  while (*done < len)
    {
      ssize_t n = write (fd, data + *done, MIN (len - *done, G_MAXSSIZE));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return n < 0 ? errno : EIO;
      *done += (gsize) n;
    }
  return 0;
}

/* write_all with SIGPIPE held back: a reader that goes away must end the
 * save with EPIPE, not the program. */
static int
write_all_no_sigpipe (int fd, const char *data, gsize len, gsize *done)
{
  sigset_t pipe_set, old, pending;
  sigemptyset (&pipe_set);
  sigaddset (&pipe_set, SIGPIPE);
  sigpending (&pending);
  gboolean was_pending = sigismember (&pending, SIGPIPE);
  pthread_sigmask (SIG_BLOCK, &pipe_set, &old);
  int err = write_all (fd, data, len, done);
  if (err == EPIPE && !was_pending)
    {
      const struct timespec now = { 0, 0 };
      sigtimedwait (&pipe_set, NULL, &now); /* ours: consumed */
    }
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  return err;
}

static gboolean
same_file (int fd, const struct stat *st)
{
  struct stat now;
  return fstat (fd, &now) == 0 && now.st_dev == st->st_dev &&
         now.st_ino == st->st_ino &&
         (now.st_mode & S_IFMT) == (st->st_mode & S_IFMT);
}

/* ---- FIFOs and character devices: written into, never replaced ----- */

static gboolean
save_stream (const char *path, const struct stat *st, const char *data,
             gsize len, GError **error)
{
  /* O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of
   * waiting for one */
  int fd = open (path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO && S_ISFIFO (st->st_mode))
    {
      g_set_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_NO_READER,
                   "%s: is a FIFO that no program is reading; nothing was "
                   "written (start its reader first)", path);
      return FALSE;
    }
  if (fd < 0)
    return fail (error, SPX_SAVE_ERROR_FAILED, path, errno);
  if (!same_file (fd, st))
    {
      close (fd);
      g_set_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_FAILED,
                   "%s: changed while being saved; nothing was written",
                   path);
      return FALSE;
    }
  int err = fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) < 0
              ? errno : 0;
  gsize done = 0;
  if (err == 0)
    err = write_all_no_sigpipe (fd, data, len, &done);
  if (close (fd) < 0 && err == 0 && errno != EINTR)
    err = errno;
  if (err == EPIPE)
    g_set_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_FAILED,
                 "%s: its reader stopped after %" G_GSIZE_FORMAT " of %"
                 G_GSIZE_FORMAT " bytes", path, done, len);
  else if (err != 0)
    fail (error, SPX_SAVE_ERROR_FAILED, path, err);
  return err == 0;
}

/* ---- regular files -------------------------------------------------- */

/* The complete contents in a new file beside target, named in *temp; an
 * open descriptor, or -1 with the reason in errno. mode: a new file's
 * (less the umask). */
static int
write_temp (const char *target, const char *data, gsize len, int mode,
            gboolean durable, char **temp)
{
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  g_autofree char *name = g_strdup_printf (
    "%.*s.XXXXXX", (int) MIN (strlen (base), TEMP_BASE_MAX), base);
  *temp = g_build_filename (dir, name, NULL);
  int fd = g_mkstemp_full (*temp, O_WRONLY | O_CLOEXEC, mode);
  if (fd < 0)
    return -1;
  gsize done;
  int err = write_all (fd, data, len, &done);
  /* before a rename over an old file, so that a crash leaves the old
   * contents or the new, never an empty file */
  if (err == 0 && durable && fsync (fd) < 0)
    err = errno;
  if (err != 0)
    {
      close (fd);
      g_unlink (*temp);
      errno = err;
      return -1;
    }
  return fd;
}

/* The old file's owner, group and mode on the temporary file; FALSE when
 * the owner or group cannot be given (only root may give a file away). */
static gboolean
keep_attributes (int fd, const struct stat *old)
{
  struct stat now;
  if (fstat (fd, &now) < 0)
    return FALSE;
  if ((now.st_uid != old->st_uid || now.st_gid != old->st_gid) &&
      fchown (fd, old->st_uid, old->st_gid) < 0)
    return FALSE;
  /* after fchown, which clears set-id bits */
  return fchmod (fd, old->st_mode & 07777) == 0;
}

/* The old file opened for writing in place. A read-only file of the
 * user's own that they confirmed replacing is made writable for the
 * moment, as editors do (*unlocked: its mode is to be put back). */
static int
open_in_place (const char *target, const struct stat *old,
               SpxSaveFlags flags, gboolean *unlocked)
{
  const int how = O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC;
  int fd = open (target, how);
  *unlocked = FALSE;
  if (fd >= 0 || errno != EACCES || !(flags & SPX_SAVE_REPLACE_READ_ONLY) ||
      old->st_uid != geteuid () ||
      chmod (target, (old->st_mode & 07777) | S_IWUSR) < 0)
    return fd;
  fd = open (target, how);
  int err = errno;
  if (fd < 0)
    chmod (target, old->st_mode & 07777);
  *unlocked = fd >= 0;
  errno = err;
  return fd;
}

/* The new contents over the old file itself: its inode, so its links,
 * owner and group, stay. 0 or an errno. */
static int
overwrite (const char *target, const struct stat *old, const char *data,
           gsize len, SpxSaveFlags flags)
{
  gboolean unlocked;
  int fd = open_in_place (target, old, flags, &unlocked);
  if (fd < 0)
    return errno;
  gsize done;
  int err = !same_file (fd, old) ? EAGAIN : write_all (fd, data, len, &done);
  if (err == 0 && ftruncate (fd, (off_t) len) < 0)
    err = errno;
  if (unlocked && fchmod (fd, old->st_mode & 07777) < 0 && err == 0)
    err = errno;
  if (err == 0 && fsync (fd) < 0)
    err = errno;
  if (close (fd) < 0 && err == 0 && errno != EINTR)
    err = errno;
  return err;
}

static gboolean
save_in_place (const char *path, const char *target, const struct stat *old,
               const char *data, gsize len, SpxSaveFlags flags,
               const char *temp, GError **error)
{
  int err = overwrite (target, old, data, len, flags);
  if (err == 0)
    {
      g_unlink (temp);
      return TRUE;
    }
  g_set_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_FAILED,
               "%s: could not be written in place (%s); the complete new "
               "contents are in %s", path,
               err == EAGAIN ? "it changed while being saved"
                             : g_strerror (err),
               temp);
  return FALSE;
}

/* A new file, or old (not NULL) replaced: by a rename when the new file
 * can be given all the old one's attributes, else in place. */
static gboolean
save_regular (const char *path, const char *target, const struct stat *old,
              const char *data, gsize len, SpxSaveFlags flags, GError **error)
{
  g_autofree char *temp = NULL;
  int fd = write_temp (target, data, len, old != NULL ? 0600 : 0666,
                       old != NULL, &temp);
  if (fd < 0)
    return fail (error, SPX_SAVE_ERROR_FAILED, path, errno);
  gboolean in_place =
    old != NULL && (old->st_nlink > 1 || !keep_attributes (fd, old));
  int err = close (fd) < 0 && errno != EINTR ? errno : 0;
  if (err == 0 && in_place)
    return save_in_place (path, target, old, data, len, flags, temp,
                          error);
  if (err == 0 && g_rename (temp, target) < 0)
    err = errno;
  if (err == 0)
    return TRUE;
  g_unlink (temp);
  return fail (error, SPX_SAVE_ERROR_FAILED, path, err);
}

/* ---- which kind of file -------------------------------------------- */

static gboolean
refuse_kind (const char *path, const struct stat *st, GError **error)
{
  const char *what = S_ISDIR (st->st_mode)    ? "a folder"
                     : S_ISBLK (st->st_mode)  ? "a block device"
                     : S_ISSOCK (st->st_mode) ? "a socket"
                     : S_ISLNK (st->st_mode)  ? "a link that does not end"
                                                : "not a file";
  g_set_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_NOT_A_FILE,
               "%s: is %s; expected a file, a FIFO or a character device "
               "to write to", path, what);
  return FALSE;
}

/* An existing file that is read-only by its mode (no write bit for
 * anyone), or that this user may not write, is replaced only when they
 * said so: the rename would get past what the file's mode says. The
 * mode bits come first: access(2) lets root write anything. */
static gboolean
may_replace (const char *path, const char *target, const struct stat *st,
             SpxSaveFlags flags, GError **error)
{
  gboolean read_only = (st->st_mode & 0222) == 0;
  if (!read_only && faccessat (AT_FDCWD, target, W_OK, AT_EACCESS) != 0)
    {
      if (errno != EACCES && errno != EPERM)
        return fail (error, SPX_SAVE_ERROR_FAILED, path, errno);
      read_only = TRUE;
    }
  if (!read_only || (flags & SPX_SAVE_REPLACE_READ_ONLY))
    return TRUE;
  g_set_error (error, SPX_SAVE_ERROR, SPX_SAVE_ERROR_READ_ONLY,
               "%s: is read-only, so it was not replaced (make it writable, "
               "e.g. chmod u+w, or save under another name)", path);
  return FALSE;
}

gboolean
spx_save_file (const char *path, const void *data, gsize len,
               SpxSaveFlags flags, GError **error)
{
  struct stat st;
  /* a stream is opened through its links as the shell would (a link of
   * /proc's may name a pipe, not a path) */
  if (stat (path, &st) == 0 && (S_ISFIFO (st.st_mode) || S_ISCHR (st.st_mode)))
    return save_stream (path, &st, data, len, error);
  g_autofree char *target = follow_links (path);
  if (lstat (target, &st) < 0)
    return errno == ENOENT
             ? save_regular (path, target, NULL, data, len, flags, error)
             : fail (error, SPX_SAVE_ERROR_FAILED, path, errno);
  if (!S_ISREG (st.st_mode))
    return refuse_kind (path, &st, error);
  return may_replace (path, target, &st, flags, error) &&
         save_regular (path, target, &st, data, len, flags, error);
}
