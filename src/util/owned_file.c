#include "owned_file.h"
#include "dir.h"
#include "internal.h"
#include "random_id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
         : S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket" : S_ISLNK(mode) ? "a symbolic link"
                                                                     : "something else";
}

/* st, of the file at path, is a file loci may use: 0, or why not. */
static int check(const struct stat *st, const char *path, owned_by_t owners, mode_t forbidden, const char *what)
{
    uid_t me = geteuid();
    const char *whose = owners == OWNED_BY_ME_OR_ROOT ? "yours or root's" : "yours";
    if (!S_ISREG(st->st_mode))
        return loci__fail(LOCI_EPERM, "%s: %s is %s, not a regular file of %s: loci leaves it alone", what, path,
                          kind_of(st->st_mode), whose);
    if (st->st_uid != me && !(owners == OWNED_BY_ME_OR_ROOT && st->st_uid == 0))
        return loci__fail(LOCI_EPERM, "%s: %s is owned by uid %u, not by you (uid %u)%s: loci leaves it alone", what,
                          path, (unsigned)st->st_uid, (unsigned)me, owners == OWNED_BY_ME_OR_ROOT ? " nor root" : "");
    mode_t extra = st->st_mode & forbidden;
    if (extra)
        return loci__fail(LOCI_EPERM, "%s: %s is %s by others (mode %04o); loci trusts it only at mode %04o or "
                                      "less (chmod it, or remove it)", what, path,
                          extra & (S_IWGRP | S_IWOTH) ? "writable" : extra & (S_IRGRP | S_IROTH) ? "readable" : "usable",
                          (unsigned)(st->st_mode & 07777), (unsigned)(0777 & ~forbidden));
    return 0;
}

int owned_file_open(const char *path, int flags, owned_by_t owners, mode_t forbidden, const char *what)
{
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT)
            return loci__fail(LOCI_ENOENT, "%s: %s does not exist", what, path);
        /* a link, a FIFO to write with no reader, a file of another user's: say which */
        int why = lstat(path, &st) == 0 ? check(&st, path, owners, forbidden, what) : 0;
        return why ? why : loci__fail(e == EACCES || e == EPERM ? LOCI_EPERM : LOCI_EIO, "%s: cannot open %s: %s", what, path,
                          strerror(e));
    }
    int rc = fstat(fd, &st) != 0 ? loci__fail(LOCI_EIO, "%s: cannot stat %s: %s", what, path, strerror(errno))
                                 : check(&st, path, owners, forbidden, what);
    int fl = rc == 0 ? fcntl(fd, F_GETFL) : 0;
    if (rc == 0 && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0))
        rc = loci__fail(LOCI_EIO, "%s: %s: fcntl: %s", what, path, strerror(errno));
    if (rc != 0) {
        close(fd);
        return rc;
    }
    return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* data as a new file `tmp` of dirfd, mode 0600, synced. */
static int write_new(int dirfd, const char *tmp, const void *data, size_t len, const char *path, const char *what)
{
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return loci__fail(errno == EACCES || errno == EROFS ? LOCI_EPERM : errno == ENOSPC ? LOCI_ENOSPC : LOCI_EIO,
                          "%s: cannot create a file beside %s: %s", what, path, strerror(errno));
    /* fchmod: the umask neither loosens nor tightens what the readers' check expects */
    int rc = fchmod(fd, 0600) == 0 && write_all(fd, data, len) == 0 && fsync(fd) == 0 ? 0 : -1;
    int e = errno;
    close(fd);
    if (rc != 0) {
        unlinkat(dirfd, tmp, 0);
        return loci__fail(e == ENOSPC || e == EDQUOT ? LOCI_ENOSPC : LOCI_EIO, "%s: cannot write beside %s: %s", what,
                          path, strerror(e));
    }
    return 0;
}

/* tmp renamed to name; when nothing was there, nothing that appears there
 * meanwhile is replaced (where the file system has RENAME_NOREPLACE). */
static int put_in_place(int dirfd, const char *tmp, const char *name, bool exists)
{
    if (!exists && renameat2(dirfd, tmp, dirfd, name, RENAME_NOREPLACE) == 0)
        return 0;
    if (!exists && errno != EINVAL)
        return -1;
    return renameat(dirfd, tmp, dirfd, name);
}

int owned_file_replace(const char *path, const void *data, size_t len, const char *what)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return loci__fail(LOCI_EINVAL, "%s: %s names a directory; give a file's path", what, path);
    char dir[PATH_MAX], tmp[NAME_MAX + 1];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    int n = snprintf(tmp, sizeof tmp, ".%s.%016llx.tmp", name, (unsigned long long)random_id());
    if (n < 0 || (size_t)n >= sizeof tmp)
        return loci__fail(LOCI_EINVAL, "%s: %s: the file name is too long to write beside it", what, path);
    int dirfd = dir_open_checked(what, dir[0] ? dir : "/", true);
    if (dirfd < 0)
        return dirfd;
    struct stat st;
    bool exists = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    int rc = !exists && errno != ENOENT ? loci__fail(LOCI_EIO, "%s: cannot stat %s: %s", what, path, strerror(errno))
             : exists                  ? check(&st, path, OWNED_BY_ME, 0, what)
                                       : 0;
    if (rc == 0)
        rc = write_new(dirfd, tmp, data, len, path, what);
    if (rc == 0 && put_in_place(dirfd, tmp, name, exists) != 0) {
        rc = errno == EEXIST ? loci__fail(LOCI_EPERM, "%s: %s appeared while loci wrote it; it is left alone", what, path)
                             : loci__fail(LOCI_EIO, "%s: cannot rename onto %s: %s", what, path, strerror(errno));
        unlinkat(dirfd, tmp, 0);
    }
    close(dirfd);
    return rc;
}
