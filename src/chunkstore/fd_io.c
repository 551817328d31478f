/*
 * Reading and writing one file of a store (chunkstore.h): whole lengths, zeros
 * past the end, and no second copy in DRAM. Files are opened O_DIRECT where
 * the file system allows; where it does not, each access is followed by
 * dropping the kernel's pages for it (written back first) — except on tmpfs,
 * where those pages are the file.
 */
#include "chunkstore/chunkstore.h"
#include "os/aio.h"
#include "os/file_space.h"
#include "os/raw_write.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int chunkstore_fd_fail(const chunkstore_fd_t *f, const char *op, uint64_t off, size_t len, int e)
{
    int code = e == ENOSPC || e == EDQUOT ? LOCI_ENOSPC : LOCI_EIO;
    if (len == 0) /* not about a range: the whole file */
        return loci__fail(code, "%s: %s: %s", f->what, op, strerror(e));
    return loci__fail(code, "%s: %s of %zu bytes at offset %llu: %s", f->what, op, len, (unsigned long long)off,
                      strerror(e));
}

/* Without O_DIRECT: push the range to the disk and out of the page cache. */
static int drop_cached(const chunkstore_fd_t *f, uint64_t off, size_t len, bool written)
{
    if (f->direct || f->in_memory)
        return 0;
    int e = written ? file_writeback_wait(f->fd, off, len) : 0;
    if (e != 0)
        return chunkstore_fd_fail(f, "writing back", off, len, e);
    file_drop_cache(f->fd, off, len);
    return 0;
}

int chunkstore_fd_read(const chunkstore_fd_t *f, uint64_t off, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return chunkstore_fd_fail(f, "read", off, len, errno);
        if (n == 0) { /* end of file */
            memset((char *)buf + done, 0, len - done);
            break;
        }
        done += (size_t)n;
    }
    return drop_cached(f, off, len, false);
}

int chunkstore_fd_write(const chunkstore_fd_t *f, uint64_t off, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        long n = raw_pwrite(f->fd, (const char *)buf + done, len - done, off + done); /* (application memory) */
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return chunkstore_fd_fail(f, "write", off, len, n < 0 ? errno : EIO);
        done += (size_t)n;
    }
    return drop_cached(f, off, len, true);
}

/* ---- several pieces in flight (os/aio.c) ---- */

/* Piece p read `got` bytes (< 0: -errno): the rest read synchronously (zeros at the end). */
static int piece_done(const chunkstore_piece_t *p, long got)
{
    if (got < 0)
        return chunkstore_fd_fail(p->f, "read", p->off, p->len, (int)-got);
    if ((size_t)got == p->len)
        return 0;
    return chunkstore_fd_read(p->f, p->off + (uint64_t)got, (char *)p->buf + got, p->len - (size_t)got);
}

int chunkstore_fd_read_pieces(const chunkstore_piece_t *p, unsigned n)
{
    int rc = 0;
    while (n > 0) {
        unsigned k = n < AIO_DEPTH ? n : AIO_DEPTH, direct = 0;
        aio_read_t r[AIO_DEPTH];
        for (unsigned i = 0; i < k; i++) {
            direct += p[i].f->direct;
            r[i] = (aio_read_t){p[i].f->fd, p[i].off, p[i].buf, p[i].len, 0};
        }
        int taken = k > 1 && direct == k ? aio_read_all(r, k) : 0;
        if (taken < 0)
            return chunkstore_fd_fail(p[0].f, "io_getevents", p[0].off, p[0].len, -taken);
        for (unsigned i = 0; i < k; i++) { /* what AIO did not take is read one after the other */
            int e = (int)i < taken ? piece_done(&p[i], r[i].got) : chunkstore_fd_read(p[i].f, p[i].off, p[i].buf, p[i].len);
            rc = rc ? rc : e;
        }
        p += k;
        n -= k;
    }
    return rc;
}
