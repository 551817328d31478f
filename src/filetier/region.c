/*
 * Persistent regions of a tier as a whole (see tier.h): a region in flat
 * layout, one file "<tier dir>/<name>.region" mapped as it is; which layout
 * a region has; and its removal in either layout. Chunk layout: filetier/chunks.c.
 */
#include "filetier/filetier.h"
#include "os/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file must be a plain file of ours that nobody else can read or write:
 * anything else in a tier directory was put there by someone else. */
static int check_region_file(int fd, const char *path)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return loci__fail(LOCI_EIO, "cannot stat %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return loci__fail(LOCI_EPERM, "%s is not a plain file; loci refuses it", path);
    if (st.st_uid != geteuid() || (st.st_mode & 077))
        return loci__fail(LOCI_EPERM, "%s is owned by uid %u with mode %03o, not a 0600 file of yours (uid %u); "
                                      "loci refuses it (remove it if it is not yours)",
                          path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
    if ((uint64_t)st.st_size % vm_page_size() != 0)
        return loci__fail(LOCI_EINVAL, "%s holds %lld bytes, not whole pages: it was not made by loci", path,
                          (long long)st.st_size);
    return 0;
}

int filetier_open_region(const place_t *place, const char *name, unsigned flags, int oflags, uint64_t *size)
{
    char path[4096];
    int rc = filetier_region_checked_path(place, name, path, sizeof path);
    if (rc != 0)
        return rc;
    int base = (flags & LOCI_READONLY ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_CLOEXEC | oflags;
    bool created = false;
    int fd = -1;
    if (flags & LOCI_CREATE) {
        fd = filetier_open_maybe_direct(path, base | O_CREAT | O_EXCL, 0600);
        created = fd >= 0;
    }
    if (fd < 0 && (!(flags & LOCI_CREATE) || errno == EEXIST))
        fd = filetier_open_maybe_direct(path, base, 0);
    if (fd < 0)
        return filetier_open_fail(place, name, path, flags, errno);
    /* A new file is locked exclusively until it has its size, so that no
     * other opener sees it half-made. */
    rc = filetier_lock_region(fd, created ? 0 : flags, name);
    if (rc == 0 && created)
        rc = filetier_reserve(place->target, fd, *size);
    if (rc == 0 && created && (flags & (LOCI_READONLY | LOCI_SHARED)))
        rc = filetier_lock_region(fd, flags, name);
    if (rc == 0 && !created)
        rc = check_region_file(fd, path);
    struct stat st;
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = loci__fail(LOCI_EIO, "cannot stat %s: %s", path, strerror(errno));
    if (rc == 0 && *size && (uint64_t)st.st_size != *size)
        rc = filetier_size_mismatch(name, (uint64_t)st.st_size, *size);
    if (rc == 0 && st.st_size == 0)
        rc = loci__fail(LOCI_EINVAL, "region \"%s\" is empty (a creator died before sizing it?); remove it", name);
    if (rc != 0) {
        if (created)
            unlink(path);
        close(fd);
        return rc;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

int filetier_remove_region(const place_t *place, const char *name)
{
    char path[4096];
    int rc = filetier_region_checked_path(place, name, path, sizeof path);
    if (rc != 0)
        return rc;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return loci__fail(LOCI_ENOENT, "region \"%s\" does not exist in %s", name, place->target->path);
        if (errno != ELOOP)
            return loci__fail(LOCI_EIO, "cannot open %s: %s", path, strerror(errno));
    } else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return loci__fail(LOCI_EBUSY, "region \"%s\" is open in another process; close it there first", name);
    }
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        rc = filetier_remove_chunked(fd, path);
    else /* Whatever is there (even another user's symlink) goes: the directory is ours. */
        rc = unlink(path) == 0 ? 0 : loci__fail(LOCI_EIO, "cannot remove %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

region_layout_t filetier_region_layout(const place_t *place, const char *name)
{
    char path[4096];
    struct stat st;
    if (filetier_region_path(place, name, path, sizeof path) != 0 || lstat(path, &st) != 0)
        return REGION_MISSING; /* opening says why */
    return S_ISDIR(st.st_mode) ? REGION_CHUNKS : REGION_FLAT;
}
