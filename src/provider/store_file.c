/*
 * File store: one file of a tier read and written with O_DIRECT, so that the
 * chunk cache holds the only DRAM copy. Where the file system has no
 * O_DIRECT, each access is followed by dropping the kernel's pages for it
 * (written back first) — except on tmpfs, where those pages are the file.
 */
#include "provider/store.h"
#include "provider/tier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE 0x01
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

typedef struct {
    store_t base;
    int fd;
    bool direct;    /* O_DIRECT: no page cache at all */
    bool in_memory; /* tmpfs */
    char what[256];
} file_store_t;

static file_store_t *fs_of(store_t *s) { return (file_store_t *)s; }

static int io_fail(file_store_t *f, const char *op, uint64_t off, size_t len, int e)
{
    return loci__fail(e == ENOSPC || e == EDQUOT ? LOCI_ENOSPC : LOCI_EIO, "%s: %s of %zu bytes at offset %llu: %s",
                      f->what, op, len, (unsigned long long)off, strerror(e));
}

/* Without O_DIRECT: push the range to the disk and out of the page cache. */
static void drop_cached(file_store_t *f, uint64_t off, size_t len, bool written)
{
    if (f->direct || f->in_memory)
        return;
    if (written)
        sync_file_range(f->fd, (off_t)off, (off_t)len,
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}

static int file_read(store_t *s, uint64_t off, void *buf, size_t len)
{
    file_store_t *f = fs_of(s);
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return io_fail(f, "read", off, len, errno);
        if (n == 0) { /* end of file */
            memset((char *)buf + done, 0, len - done);
            break;
        }
        done += (size_t)n;
    }
    drop_cached(f, off, len, false);
    return 0;
}

static int file_write(store_t *s, uint64_t off, const void *buf, size_t len)
{
    file_store_t *f = fs_of(s);
    size_t done = 0;
    while (done < len) {
        /* The raw system call: buf is application memory, ordered with the
         * application's stores by page faults that sanitizers cannot see. */
        long n = syscall(SYS_pwrite64, f->fd, (const char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return io_fail(f, "write", off, len, n < 0 ? errno : EIO);
        done += (size_t)n;
    }
    drop_cached(f, off, len, true);
    return 0;
}

static int file_sync(store_t *s)
{
    file_store_t *f = fs_of(s);
    return fdatasync(f->fd) == 0 ? 0 : io_fail(f, "fdatasync", 0, 0, errno);
}

static int file_discard(store_t *s, uint64_t off, size_t len)
{
    file_store_t *f = fs_of(s);
    if (fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) != 0)
        return io_fail(f, "punching a hole", off, len, errno);
    /* Reserve the blocks again so that writing there cannot hit ENOSPC
     * (not on tmpfs, where a reservation would be memory). */
    if (!f->in_memory)
        (void)fallocate(f->fd, 0, (off_t)off, (off_t)len);
    return 0;
}

static void file_close(store_t *s)
{
    file_store_t *f = fs_of(s);
    close(f->fd);
    free(f);
}

static const store_ops_t file_store_ops = {
    .name = "file",
    .read = file_read,
    .write = file_write,
    .sync = file_sync,
    .discard = file_discard,
    .close = file_close,
};

store_t *store_file_open(int fd, uint64_t size, const char *what)
{
    file_store_t *f = calloc(1, sizeof *f);
    if (!f)
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening the store %s", what);
    f->base = (store_t){&file_store_ops, size};
    f->fd = fd;
    f->direct = (fcntl(fd, F_GETFL) & O_DIRECT) != 0;
    f->in_memory = tier_in_memory(fd);
    snprintf(f->what, sizeof f->what, "%s", what);
    return &f->base;
}
