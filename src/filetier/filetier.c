/*
 * File tier directories and the files in them (see tier.h), and what both
 * layouts of a persistent region build on: its path, its lock, the messages
 * of a failed opening. The regions themselves: filetier/region.c (flat layout,
 * either layout) and filetier/chunks.c (chunk layout), both above this file.
 */
#include "filetier/filetier.h"
#include "clock.h"
#include "dir.h"
#include "units.h"
#include "random_id.h"
#include "os/file_space.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

static const char *filetier_name(const struct loci_target *t) { return t && t->name[0] ? t->name : "file tier"; }

int filetier_check_dir(const struct loci_target *t)
{
    const char *tier = filetier_name(t), *dir = t ? t->path : NULL;
    if (!dir || !*dir)
        return loci__fail(LOCI_EINVAL, "%s has no directory", tier);
    /* every component, so that no link planted above it redirects the tier */
    char what[64];
    snprintf(what, sizeof what, "%s: directory", tier);
    int fd = dir_open_checked(what, dir, false);
    if (fd < 0)
        return fd;
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? 0 : loci__fail(LOCI_EIO, "%s: cannot stat %s: %s", tier, dir, strerror(errno));
    close(fd);
    if (rc != 0)
        return rc;
    if (st.st_uid != geteuid())
        return loci__fail(LOCI_EPERM, "%s: %s is owned by uid %u, not by you (uid %u); use a directory of your own",
                          tier, dir, (unsigned)st.st_uid, (unsigned)geteuid());
    /* writable by nobody else: then no one else can plant a FIFO or a link where a region or a block file goes */
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return loci__fail(LOCI_EPERM, "%s: %s is writable by others (mode %03o); `chmod go-w %s` or use another "
                                      "directory", tier, dir, (unsigned)(st.st_mode & 07777), dir);
    return 0;
}

bool filetier_process_gone(long pid) { return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }

/* A block's file "loci-<pid>-<n>-<16 hex>" (filetier_create) whose process is
 * gone: a crash skipped its unlink, and nobody else can ever use it. */
static int remove_dead_block(int dirfd, const char *path, const char *entry, void *arg)
{
    (void)arg;
    long pid;
    unsigned long n;
    char hex[17];
    int used = 0;
    if (sscanf(entry, "loci-%ld-%lu-%16[0-9a-f]%n", &pid, &n, hex, &used) != 3 || entry[used] || strlen(hex) != 16)
        return 0;
    if (filetier_process_gone(pid) && unlinkat(dirfd, entry, 0) == 0)
        loci__log(LOCI_LOG_INFO, "%s: removed %s, left by process %ld", path, entry, pid);
    return 0;
}

/* Once per tier directory and process: remove the block files of processes
 * that died (mode=mmap blocks are named files while they live). */
static void sweep_dead_blocks(const struct loci_target *t)
{
    typedef struct swept {
        struct swept *next;
        char path[];
    } swept_t;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static swept_t *swept; /* directories done; a few per process, kept for its life */
    pthread_mutex_lock(&lock);
    swept_t *d = swept;
    while (d && strcmp(d->path, t->path) != 0)
        d = d->next;
    if (!d && (d = malloc(sizeof *d + strlen(t->path) + 1))) {
        strcpy(d->path, t->path);
        d->next = swept;
        swept = d;
        int fd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) {
            dir_each_entry(fd, t->path, remove_dead_block, NULL);
            close(fd);
        }
    }
    pthread_mutex_unlock(&lock);
}


int filetier_open_maybe_direct(const char *path, int flags, mode_t mode)
{
    int fd = open(path, flags, mode);
    if (fd < 0 && errno == EINVAL && (flags & O_DIRECT))
        fd = open(path, flags & ~O_DIRECT, mode);
    return fd;
}

int filetier_create_fail(const struct loci_target *t, int e)
{
    return loci__fail(e == ENOSPC || e == EDQUOT ? LOCI_ENOSPC : e == EACCES || e == EROFS ? LOCI_EPERM : LOCI_EIO,
                      "%s: cannot create a file in %s: %s%s", filetier_name(t), t->path, strerror(e),
                      e == EACCES || e == EROFS ? " (make the directory writable, or choose another tier)" : "");
}

int filetier_create(const struct loci_target *t, int oflags, char *path, size_t len)
{
    int rc = filetier_check_dir(t);
    if (rc != 0)
        return rc;
    sweep_dead_blocks(t);
    static atomic_ulong counter;
    int base = O_RDWR | O_CLOEXEC | oflags;
    if (!path) {
        int fd = filetier_open_maybe_direct(t->path, base | O_TMPFILE, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EOPNOTSUPP && errno != EISDIR) /* else: no O_TMPFILE here, create and unlink */
            return filetier_create_fail(t, errno);
    }
    char name[4096];
    for (int tries = 0; tries < 8; tries++) {
        snprintf(name, sizeof name, "%s/loci-%ld-%lu-%016llx", t->path, (long)getpid(),
                 atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed), (unsigned long long)random_id());
        int fd = filetier_open_maybe_direct(name, base | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            if (path)
                snprintf(path, len, "%s", name);
            else
                unlink(name);
            return fd;
        }
        if (errno != EEXIST)
            return filetier_create_fail(t, errno);
    }
    return filetier_create_fail(t, EEXIST);
}

int filetier_fits(const struct loci_target *t, uint64_t size)
{
    char sz[32], fr[32];
    units_format_size(size, sz, sizeof sz);
    if (size > (uint64_t)INT64_MAX) /* off_t: no file is that big */
        return loci__fail(LOCI_ENOMEM, "%s: %s is more than a file can hold (8 EiB)", filetier_name(t), sz);
    struct statvfs sv;
    uint64_t avail = 0;
    if (statvfs(t->path, &sv) == 0 && size > (avail = (uint64_t)sv.f_bavail * sv.f_frsize))
        return loci__fail(LOCI_ENOSPC, "%s: no space for %s in %s (%s free); free space there or choose another tier",
                          filetier_name(t), sz, t->path, units_format_size(avail, fr, sizeof fr));
    return 0;
}

int filetier_reserve(const struct loci_target *t, int fd, uint64_t size)
{
    int rc = filetier_fits(t, size);
    int err = rc == 0 ? file_reserve(fd, size) : 0;
    if (rc != 0 || err == 0)
        return rc;
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    if (err == ENOSPC || err == EDQUOT || err == EFBIG)
        return loci__fail(LOCI_ENOSPC, "%s: no space for %s in %s (posix_fallocate: %s); free space there "
                                       "or choose another tier", filetier_name(t), sz, t->path, strerror(err));
    return loci__fail(LOCI_EIO, "%s: posix_fallocate of %s in %s: %s", filetier_name(t), sz, t->path, strerror(err));
}

int filetier_available(const place_t *place, uint64_t *bytes)
{
    struct statvfs sv;
    if (!place->target || !place->target->path || statvfs(place->target->path, &sv) != 0)
        return LOCI_ENOTSUP;
    *bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
    return 0;
}

bool filetier_in_memory(int fd)
{
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

int filetier_region_path(const place_t *place, const char *name, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/%s.region", place->target->path, name);
    if (strchr(name, '/') || n < 0 || (size_t)n >= len) /* nvm validates names; never leave the directory */
        return loci__fail(LOCI_EINVAL, "region name \"%s\" is not a plain file name", name);
    return 0;
}

int filetier_region_checked_path(const place_t *place, const char *name, char *buf, size_t len)
{
    int rc = filetier_check_dir(place->target);
    return rc ? rc : filetier_region_path(place, name, buf, len);
}

int filetier_lock_region(int fd, unsigned flags, const char *name)
{
    bool exclusive = !(flags & (LOCI_READONLY | LOCI_SHARED));
    if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0)
        return 0;
    if (errno == EWOULDBLOCK)
        return loci__fail(LOCI_EBUSY, "region \"%s\" is open elsewhere%s", name,
                          exclusive ? " (to open it from several processes at once, every one must pass LOCI_SHARED "
                                      "or LOCI_READONLY)"
                                    : " by a writer without LOCI_SHARED");
    return loci__fail(LOCI_EIO, "region \"%s\": flock: %s", name, strerror(errno));
}

int filetier_size_mismatch(const char *name, uint64_t has, uint64_t want)
{
    char h[32], w[32];
    return loci__fail(LOCI_EINVAL, "region \"%s\" holds %s, not the %s asked (open it with its size, or size 0 to take "
                                   "it as it is)", name, units_format_size(has, h, sizeof h),
                      units_format_size(want, w, sizeof w));
}

int filetier_open_fail(const place_t *place, const char *name, const char *path, unsigned flags, int e)
{
    if (e == ENOENT)
        return loci__fail(LOCI_ENOENT, "region \"%s\" does not exist in %s%s", name, place->target->path,
                          flags & LOCI_READONLY ? "" : " (pass LOCI_CREATE to create it)");
    if (e == ELOOP)
        return loci__fail(LOCI_EPERM, "%s is a symbolic link; loci refuses it (remove it if it is not yours)", path);
    if (flags & LOCI_CREATE)
        return filetier_create_fail(place->target, e);
    return loci__fail(e == EACCES ? LOCI_EPERM : LOCI_EIO, "cannot open %s: %s", path, strerror(e));
}
