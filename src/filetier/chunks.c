/*
 * Persistent regions in chunk layout (paged/paged.h): the directory
 * "<tier dir>/<name>.region", 0700, holding `meta` — written once at
 * creation, atomically (a temporary file, fsync, rename, fsync of the
 * directory) — and the chunk files the store makes (chunk_files.c). The
 * directory is what is locked, as a flat region's file is.
 */
#include "filetier/filetier.h"
#include "os/vm.h"
#include "dir.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define META "meta"
#define META_TMP "meta.tmp"
#define META_VERSION 1

/* Write the meta file of a new region: durable once this returns. */
static int write_meta(int dirfd, const char *path, uint64_t size, size_t chunk)
{
    char text[128];
    int n = snprintf(text, sizeof text, "loci chunked region %d\nsize %llu\nchunk %zu\n", META_VERSION,
                     (unsigned long long)size, chunk);
    int fd = openat(dirfd, META_TMP, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    ssize_t w = fd < 0 ? -1 : write(fd, text, (size_t)n);
    int rc = w < 0 ? errno : w != n ? EIO : fsync(fd) != 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    if (rc == 0 && renameat(dirfd, META_TMP, dirfd, META) != 0)
        rc = errno;
    if (rc == 0 && fsync(dirfd) != 0)
        rc = errno;
    if (rc != 0)
        return loci__fail(rc == ENOSPC || rc == EDQUOT ? LOCI_ENOSPC : LOCI_EIO, "%s/%s: writing it: %s", path, META,
                          strerror(rc));
    return 0;
}

/* Read the meta file of an existing region: its size and chunk size. */
static int read_meta(int dirfd, const char *path, const char *name, uint64_t *size, size_t *chunk)
{
    char text[256];
    int fd = openat(dirfd, META, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return loci__fail(LOCI_EINVAL, "region \"%s\": %s has no %s file (its creator died before writing it, or "
                                       "a removal was cut short); remove the region", name, path, META);
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (n < 0)
        return loci__fail(LOCI_EIO, "%s/%s: cannot read it: %s", path, META, strerror(e));
    text[n] = '\0';
    int version, used = 0;
    unsigned long long sz, ch;
    size_t page = vm_page_size();
    if (sscanf(text, "loci chunked region %d\nsize %llu\nchunk %llu\n%n", &version, &sz, &ch, &used) != 3 ||
        used != (int)n)
        return loci__fail(LOCI_EINVAL, "%s/%s is not a loci region description (\"loci chunked region 1\", "
                                       "\"size N\", \"chunk N\"): it was not made by loci", path, META);
    if (version != META_VERSION)
        return loci__fail(LOCI_ENOTSUP, "%s/%s: format version %d; this loci reads version %d", path, META, version,
                          META_VERSION);
    if (sz == 0 || sz % page || ch == 0 || ch % page)
        return loci__fail(LOCI_EINVAL, "%s/%s: size %llu and chunk %llu must be whole pages (%zu bytes); it was not "
                                       "made by loci", path, META, sz, ch, page);
    *size = sz;
    *chunk = (size_t)ch;
    return 0;
}

/* The directory must be ours and closed to others, as region files are. */
static int check_dir(int dirfd, const char *path)
{
    struct stat st;
    if (fstat(dirfd, &st) != 0)
        return loci__fail(LOCI_EIO, "cannot stat %s: %s", path, strerror(errno));
    if (st.st_uid != geteuid() || (st.st_mode & 077))
        return loci__fail(LOCI_EPERM, "%s is owned by uid %u with mode %03o, not a 0700 directory of yours (uid %u); "
                                      "loci refuses it (remove it if it is not yours)",
                          path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
    return 0;
}

/* A copy-on-write file "c<16 hex>.cow.<pid>.<tid>" whose process is gone
 * (a crash between its creation and its rename): the chunk it was to
 * replace still has its old contents, the copy goes. */
static int remove_dead_cow(int dirfd, const char *path, const char *entry, void *arg)
{
    (void)arg;
    long pid, tid;
    int used = 0;
    if (strlen(entry) < 17 || sscanf(entry + 17, ".cow.%ld.%ld%n", &pid, &tid, &used) != 2 || entry[17 + used])
        return 0;
    if (filetier_process_gone(pid) && unlinkat(dirfd, entry, 0) == 0)
        loci__log(LOCI_LOG_INFO, "%s: removed %s, left by process %ld", path, entry, pid);
    return 0;
}

static int remove_entry(int dirfd, const char *path, const char *entry, void *arg)
{
    (void)arg;
    if (unlinkat(dirfd, entry, 0) == 0 || errno == ENOENT)
        return 0;
    return loci__fail(LOCI_EIO, "cannot remove %s/%s: %s", path, entry, strerror(errno));
}

int filetier_remove_chunked(int dirfd, const char *path)
{
    int rc = remove_entry(dirfd, path, META, NULL);
    if (rc == 0)
        rc = dir_each_entry(dirfd, path, remove_entry, NULL);
    if (rc == 0 && rmdir(path) != 0)
        rc = loci__fail(LOCI_EIO, "cannot remove %s: %s", path, strerror(errno));
    return rc;
}

/* The tier directory's entry for a new region is durable once this returns. */
static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = fd >= 0 && fsync(fd) == 0 ? 0 : loci__fail(LOCI_EIO, "fsync of %s: %s", dir, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Room for a new region of `size` bytes: its chunks are made as they are
 * written, so the space is checked, not reserved. */
static int check_space(const place_t *place, const char *name, uint64_t size)
{
    uint64_t avail;
    if (filetier_available(place, &avail) != 0 || avail >= size)
        return 0;
    char sz[32], av[32];
    return loci__fail(LOCI_ENOSPC, "region \"%s\": %s has %s free, not the %s asked; free space in %s or choose "
                                   "another tier or a smaller size", name, place->target->name,
                      units_format_size(avail, av, sizeof av), units_format_size(size, sz, sizeof sz),
                      place->target->path);
}

int filetier_open_chunked(const place_t *place, const char *name, unsigned flags, uint64_t *size, size_t *chunk,
                      char *path, size_t len)
{
    int rc = filetier_region_checked_path(place, name, path, len);
    if (rc != 0)
        return rc;
    bool created = false;
    if (flags & LOCI_CREATE) {
        created = mkdir(path, 0700) == 0;
        if (!created && errno != EEXIST)
            return filetier_create_fail(place->target, errno);
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOTDIR) /* made flat meanwhile */
        return loci__fail(LOCI_EINVAL, "%s is a flat region file, not a chunk directory", path);
    if (fd < 0)
        return filetier_open_fail(place, name, path, flags, errno);
    /* A new region is locked exclusively until its meta file is there, so
     * that no other opener sees it half-made. */
    rc = filetier_lock_region(fd, created ? 0 : flags, name);
    uint64_t has = *size;
    if (rc == 0 && created && (rc = check_space(place, name, *size)) == 0)
        rc = write_meta(fd, path, *size, *chunk);
    if (rc == 0 && created)
        rc = fsync_dir(place->target->path);
    if (rc == 0 && !created && (rc = check_dir(fd, path)) == 0)
        rc = read_meta(fd, path, name, &has, chunk);
    if (rc == 0 && *size && has != *size)
        rc = filetier_size_mismatch(name, has, *size);
    if (rc == 0 && !(flags & LOCI_READONLY))
        rc = dir_each_entry(fd, path, remove_dead_cow, NULL);
    if (rc != 0) {
        if (created)
            filetier_remove_chunked(fd, path);
        close(fd);
        return rc;
    }
    *size = has;
    return fd;
}
