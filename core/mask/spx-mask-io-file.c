/* spx-mask-io-file.c: network files read by offset (pread), never
 * mapped: a file cut short while it is read then ends the read with an
 * error naming it, where a mapping would end the program with SIGBUS.
 * Tensors are read once, a piece at a time, to build their masks, so
 * the pages a mapping would share cost only a copy through a buffer. */
#include "spx-mask-io.h"
#include "spx-mask-io-private.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct _SpxIoFile {
  char       *name; /* as messages show it */
  int         fd;
  struct stat st;   /* when opened: what a change is measured against */
};

SpxIoFile *
spx_io_file_new (int fd, const char *shown, GError **error)
{
  SpxIoFile *file = g_new0 (SpxIoFile, 1);
  file->name = g_strdup (shown);
  file->fd = fd;
  if (fstat (fd, &file->st) == 0)
    return file;
  int err = errno;
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO, "%s: cannot be "
               "examined (%s)", shown, g_strerror (err));
  spx_io_file_free (file);
  return NULL;
}

void
spx_io_file_free (SpxIoFile *file)
{
  if (file == NULL)
    return;
  close (file->fd);
  g_free (file->name);
  g_free (file);
}

const char *
spx_io_file_name (const SpxIoFile *file)
{
  return file->name;
}

guint64
spx_io_file_size (const SpxIoFile *file)
{
  return (guint64) file->st.st_size;
}

gboolean
spx_io_file_read_some (SpxIoFile *file, guint64 offset, void *buf, gsize n,
                       gsize *got, GError **error)
{
  *got = 0;
  while (*got < n)
    {
      ssize_t r = pread (file->fd, (char *) buf + *got,
                         MIN (n - *got, G_MAXSSIZE),
                         (off_t) (offset + *got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          int err = errno;
          g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_IO, "%s: could "
                       "not be read at byte %" G_GUINT64_FORMAT " (%s)",
                       file->name, offset + *got, g_strerror (err));
          return FALSE;
        }
      if (r == 0)
        break;
      *got += (gsize) r;
    }
  return TRUE;
}

gboolean
spx_io_file_read (SpxIoFile *file, guint64 offset, void *buf, gsize n,
                  GError **error)
{
  gsize got;
  if (!spx_io_file_read_some (file, offset, buf, n, &got, error))
    return FALSE;
  if (got == n)
    return TRUE;
  /* what was checked against its size at open is no longer there */
  if (!spx_io_file_unchanged (file, error))
    return FALSE;
  g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_CHANGED, "%s: ends at "
               "byte %" G_GUINT64_FORMAT ", before the %" G_GSIZE_FORMAT
               " bytes at byte %" G_GUINT64_FORMAT ": it changed while it "
               "was read",
               file->name, offset + got, n, offset);
  return FALSE;
}

gboolean
spx_io_file_unchanged (const SpxIoFile *file, GError **error)
{
  struct stat now;
  const struct stat *then = &file->st;
  if (fstat (file->fd, &now) != 0)
    now.st_size = -1;
  if (now.st_size != then->st_size)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_CHANGED, "%s: "
                   "changed while it was read: %" G_GINT64_FORMAT " bytes "
                   "when its header was read, %" G_GINT64_FORMAT " now "
                   "(open it again)", file->name, (gint64) then->st_size,
                   (gint64) now.st_size);
      return FALSE;
    }
  if (now.st_mtim.tv_sec != then->st_mtim.tv_sec ||
      now.st_mtim.tv_nsec != then->st_mtim.tv_nsec)
    {
      g_set_error (error, SPX_MASK_ERROR, SPX_MASK_ERROR_CHANGED, "%s: "
                   "changed while it was read: written to after its header "
                   "was read (open it again)", file->name);
      return FALSE;
    }
  return TRUE;
}

void
spx_io_file_test_hook (SpxIoFile *file)
{
  const char *cut = g_getenv (SPX_IO_TEST_TRUNCATE_ENV);
  if (cut == NULL)
    return;
  /* the descriptor is read-only: the file is reached again through it */
  g_autofree char *self = g_strdup_printf ("/proc/self/fd/%d", file->fd);
  if (truncate (self, (off_t) g_ascii_strtoull (cut, NULL, 10)) != 0)
    g_warning ("%s: %s", file->name, g_strerror (errno));
}
