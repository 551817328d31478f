#include "dir.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int dir_each_entry(int dirfd, const char *path, int (*fn)(int dirfd, const char *path, const char *entry, void *arg),
                   void *arg)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return loci__fail(LOCI_EIO, "cannot list %s: %s", path, strerror(errno));
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            rc = fn(dirfd, path, e->d_name, arg);
    closedir(d);
    return rc;
}

/* The component `name` of `path` could not be opened under dirfd: why. */
static int refused(int dirfd, const char *what, const char *path, const char *name, int e)
{
    struct stat st;
    if ((e == ELOOP || e == ENOTDIR) && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return loci__fail(LOCI_EPERM, "%s %s: %s in it is a symbolic link; loci refuses it (give the real directory)",
                          what, path, name);
    if (e == ENOTDIR)
        return loci__fail(LOCI_EINVAL, "%s %s: %s in it is not a directory", what, path, name);
    if (e == ENOENT)
        return loci__fail(LOCI_ENOENT, "%s %s does not exist (create it with mode 0700)", what, path);
    if (e == EACCES)
        return loci__fail(LOCI_EPERM, "%s %s: cannot enter %s: %s", what, path, name, strerror(e));
    return loci__fail(LOCI_EIO, "%s %s: cannot open %s: %s", what, path, name, strerror(e));
}

int dir_open_checked(const char *what, const char *path, bool parent)
{
    int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* relative: from here */
    if (fd < 0)
        return loci__fail(LOCI_EIO, "%s %s: cannot open its start: %s", what, path, strerror(errno));
    uid_t me = geteuid();
    for (const char *p = path; fd >= 0;) {
        p += strspn(p, "/");
        if (!*p)
            break;
        size_t n = strcspn(p, "/");
        char name[256];
        if (n >= sizeof name) {
            close(fd);
            return loci__fail(LOCI_EINVAL, "%s %s: a component longer than 255 characters", what, path);
        }
        memcpy(name, p, n);
        name[n] = '\0';
        p += n;
        if (strcmp(name, "..") == 0) {
            close(fd);
            return loci__fail(LOCI_EINVAL, "%s %s: \"..\" in it; give the directory's own path", what, path);
        }
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int rc = next < 0 ? refused(fd, what, path, name, errno) : 0;
        close(fd);
        if (rc != 0)
            return rc;
        fd = next;
        struct stat st;
        bool last = p[strspn(p, "/")] == '\0';
        if (last && !parent)
            break;
        if (fstat(fd, &st) != 0)
            rc = loci__fail(LOCI_EIO, "%s %s: cannot stat %s: %s", what, path, name, strerror(errno));
        else if (st.st_uid != 0 && st.st_uid != me) /* its owner could swap what lies below */
            rc = loci__fail(LOCI_EPERM, "%s %s: %s in it is owned by uid %u, neither root nor you (uid %u)", what,
                            path, name, (unsigned)st.st_uid, (unsigned)me);
        else if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
            rc = loci__fail(LOCI_EPERM, "%s %s: %s in it is writable by others and not sticky (mode %04o)", what, path,
                            name, (unsigned)(st.st_mode & 07777));
        if (rc != 0) {
            close(fd);
            return rc;
        }
    }
    return fd;
}
