/*
 * Reading and writing one file of a store (store.h): whole lengths, zeros
 * past the end, and no second copy in DRAM. Files are opened O_DIRECT where
 * the file system allows; where it does not, each access is followed by
 * dropping the kernel's pages for it (written back first) — except on tmpfs,
 * where those pages are the file.
 */
#include "provider/store.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int store_fd_fail(const store_fd_t *f, const char *op, uint64_t off, size_t len, int e)
{
    int code = e == ENOSPC || e == EDQUOT ? LOCI_ENOSPC : LOCI_EIO;
    if (len == 0) /* not about a range: the whole file */
        return loci__fail(code, "%s: %s: %s", f->what, op, strerror(e));
    return loci__fail(code, "%s: %s of %zu bytes at offset %llu: %s", f->what, op, len, (unsigned long long)off,
                      strerror(e));
}

/* Without O_DIRECT: push the range to the disk and out of the page cache. */
static int drop_cached(const store_fd_t *f, uint64_t off, size_t len, bool written)
{
    if (f->direct || f->in_memory)
        return 0;
    unsigned all = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    if (written && sync_file_range(f->fd, (off_t)off, (off_t)len, all) != 0)
        return store_fd_fail(f, "writing back", off, len, errno);
    posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
    return 0;
}

int store_fd_read(const store_fd_t *f, uint64_t off, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return store_fd_fail(f, "read", off, len, errno);
        if (n == 0) { /* end of file */
            memset((char *)buf + done, 0, len - done);
            break;
        }
        done += (size_t)n;
    }
    return drop_cached(f, off, len, false);
}

int store_fd_write(const store_fd_t *f, uint64_t off, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        /* The raw system call: buf is application memory, ordered with the
         * application's stores by page faults that sanitizers cannot see. */
        long n = syscall(SYS_pwrite64, f->fd, (const char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return store_fd_fail(f, "write", off, len, n < 0 ? errno : EIO);
        done += (size_t)n;
    }
    return drop_cached(f, off, len, true);
}
