#include "dirs.h"
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
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
