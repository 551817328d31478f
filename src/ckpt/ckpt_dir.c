/*
 * The checkpoint directory (this node's level 1; not the job store, not a
 * region's chunk store) and its chunk pool. Its place is a file tier's
 * directory, so that regions' chunk files can be hard-linked into the pool;
 * pool files are named by random ids (getrandom, retried on a clash), never
 * by content, so that a file linked from a region needs no read to be named.
 * One flock on the directory orders saves, removals and GC (exclusive)
 * against restores and readers (shared).
 */
#include "dir.h"
#include "ckpt/ckpt.h"
#include "filetier/filetier.h"
#include "random_id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int where(char *out, size_t len)
{
    const char *env = getenv("LOCI_CKPT_DIR");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return 0;
    }
    place_t place;
    int rc = region_resolve_dir(NULL, &place);
    if (rc == 0)
        rc = filetier_check_dir(place.target);
    if (rc == 0)
        snprintf(out, len, "%s/ckpt", place.target->path);
    return rc;
}

/* The directory must be ours and writable by nobody else: its files are
 * restored into this process's memory. */
static int check_ours(int fd, const char *path)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return loci__fail(LOCI_EIO, "checkpoint directory %s: %s", path, strerror(errno));
    if (st.st_uid != geteuid())
        return loci__fail(LOCI_EPERM, "checkpoint directory %s is owned by uid %u, not by you (uid %u)", path,
                          (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return loci__fail(LOCI_EPERM, "checkpoint directory %s is writable by others (mode %03o); `chmod go-w %s`",
                          path, (unsigned)(st.st_mode & 07777), path);
    return 0;
}

static int open_dir(int at, const char *name, const char *path, bool create, int *fd)
{
    if (create && mkdirat(at, name, 0700) != 0 && errno != EEXIST)
        return loci__fail(ckpt_code_of(errno), "cannot create checkpoint directory %s: %s", path, strerror(errno));
    *fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0)
        return loci__fail(errno == ENOENT ? LOCI_ENOENT : errno == ENOTDIR || errno == ELOOP ? LOCI_EPERM
                                                                                             : ckpt_code_of(errno),
                          "checkpoint directory %s: %s%s", path, strerror(errno),
                          errno == ENOENT ? " (no checkpoint was saved there)"
                          : errno == ELOOP ? " (a symbolic link: loci refuses it)" : "");
    int rc = check_ours(*fd, path);
    if (rc != 0)
        close(*fd);
    return rc;
}

/* The checkpoint directory itself: its parents walked one by one (no link
 * planted above it may redirect checkpoints), then it, made if asked. */
static int open_top(const char *path, bool create, int *fd)
{
    const char *slash = strrchr(path, '/');
    char parent[sizeof ((ckpt_dir_t *)0)->path];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) /* "/ckpt" */
        snprintf(parent, sizeof parent, "/");
    int at = dir_open_checked("checkpoint directory", parent, true);
    if (at < 0)
        return at;
    int rc = open_dir(at, slash ? slash + 1 : path, path, create, fd);
    close(at);
    return rc;
}

int ckpt_dir_open(ckpt_dir_t *d, bool exclusive, bool create)
{
    int rc = topo_ensure();
    if (rc == 0)
        rc = where(d->path, sizeof d->path);
    if (rc == 0)
        rc = open_top(d->path, create, &d->fd);
    if (rc != 0)
        return rc;
    while ((rc = flock(d->fd, exclusive ? LOCK_EX : LOCK_SH)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        rc = loci__fail(LOCI_EIO, "cannot lock checkpoint directory %s: %s", d->path, strerror(errno));
        close(d->fd);
        return rc;
    }
    char pool[sizeof d->path + 8];
    snprintf(pool, sizeof pool, "%s/chunks", d->path);
    if ((rc = open_dir(d->fd, "chunks", pool, create, &d->pool)) != 0)
        close(d->fd);
    return rc;
}

void ckpt_dir_close(ckpt_dir_t *d)
{
    close(d->pool);
    close(d->fd); /* drops the lock */
}

typedef struct {
    int (*fn)(const char *name, void *arg);
    void *arg;
} each_t;

/* Manifests only: "<name>.manifest", not chunks/ nor temporaries. */
static int each_manifest(int dirfd, const char *path, const char *entry, void *arg)
{
    (void)dirfd, (void)path;
    const each_t *e = arg;
    char name[NVM_NAME_MAX + 1];
    return ckpt_manifest_name(entry, name) ? e->fn(name, e->arg) : 0;
}

int ckpt_dir_manifest_each(const ckpt_dir_t *d, int (*fn)(const char *name, void *arg), void *arg)
{
    each_t e = {fn, arg};
    return dir_each_entry(d->fd, d->path, each_manifest, &e);
}

static uint64_t fresh_id(void)
{
    uint64_t id = CKPT_ZERO;
    while (id == CKPT_ZERO)
        id = random_id();
    return id;
}

int ckpt_pool_create(ckpt_dir_t *d, uint64_t *id)
{
    char name[17];
    for (;;) {
        *id = fresh_id();
        ckpt_id_name(*id, name);
        int fd = openat(d->pool, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return loci__fail(ckpt_code_of(errno), "cannot create a chunk in %s/chunks: %s", d->path, strerror(errno));
    }
}

int ckpt_pool_link(ckpt_dir_t *d, int dirfd, const char *name, uint64_t *id)
{
    char to[17];
    for (;;) {
        *id = fresh_id();
        ckpt_id_name(*id, to);
        if (linkat(dirfd, name, d->pool, to, 0) == 0)
            return 0;
        if (errno == EXDEV)
            return LOCI_ENOTSUP;
        if (errno != EEXIST)
            return loci__fail(ckpt_code_of(errno), "cannot link chunk file %s into %s/chunks: %s", name, d->path,
                              strerror(errno));
    }
}

int ckpt_sum_pool(const ckpt_dir_t *d, uint64_t id, void *buf, size_t buflen, ckpt_sum_t *sum, uint64_t *bytes,
                  const char *what)
{
    char name[17];
    ckpt_id_name(id, name);
    int fd = openat(d->pool, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return loci__fail(LOCI_EIO, "%s: pool file chunks/%s: %s", what, name, strerror(errno));
    int rc = ckpt_sum_fd(fd, buf, buflen, sum, bytes, what);
    close(fd);
    return rc;
}

