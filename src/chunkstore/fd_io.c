/*
 * Reading and writing one file of a store (chunkstore.h): whole lengths, zeros
 * past the end, and no second copy in DRAM. Files are opened O_DIRECT where
 * the file system allows; where it does not, each access is followed by
 * dropping the kernel's pages for it (written back first) — except on tmpfs,
 * where those pages are the file.
 */
#include "chunkstore/chunkstore.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define AIO_DEPTH 32 /* pieces in flight at once */

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
    unsigned all = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    if (written && sync_file_range(f->fd, (off_t)off, (off_t)len, all) != 0)
        return chunkstore_fd_fail(f, "writing back", off, len, errno);
    posix_fadvise(f->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
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
        /* The raw system call: buf is application memory, ordered with the
         * application's stores by page faults that sanitizers cannot see. */
        long n = syscall(SYS_pwrite64, f->fd, (const char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return chunkstore_fd_fail(f, "write", off, len, n < 0 ? errno : EIO);
        done += (size_t)n;
    }
    return drop_cached(f, off, len, true);
}

/* ---- several pieces in flight: Linux AIO, which is asynchronous for O_DIRECT files ---- */

/* The calling thread's AIO context (0: none yet, or none to be had), destroyed when
 * the thread ends; a child of fork() has none of its parent's. */
static pthread_key_t ctx_key;
static _Thread_local aio_context_t ctx;
static _Thread_local pid_t ctx_pid;

static void ctx_destroy(void *arg) { syscall(SYS_io_destroy, (aio_context_t)(uintptr_t)arg); }
static void make_key(void) { pthread_key_create(&ctx_key, ctx_destroy); }

static aio_context_t thread_ctx(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (ctx_pid != getpid()) { /* first use in this thread, or a fork since */
        pthread_once(&once, make_key);
        ctx = 0;
        ctx_pid = getpid();
        if (syscall(SYS_io_setup, AIO_DEPTH, &ctx) == 0)
            pthread_setspecific(ctx_key, (void *)(uintptr_t)ctx);
        else
            ctx = 0; /* none (aio-max-nr reached, no AIO in this kernel): one piece after the other */
    }
    return ctx;
}

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
        for (unsigned i = 0; i < k; i++)
            direct += p[i].f->direct;
        aio_context_t io = k > 1 && direct == k ? thread_ctx() : 0;
        struct iocb cb[AIO_DEPTH], *cbp[AIO_DEPTH];
        long submitted = 0;
        if (io) {
            for (unsigned i = 0; i < k; i++) {
                cb[i] = (struct iocb){.aio_data = i, .aio_lio_opcode = IOCB_CMD_PREAD, .aio_fildes = (uint32_t)p[i].f->fd,
                                      .aio_buf = (uint64_t)(uintptr_t)p[i].buf, .aio_nbytes = p[i].len,
                                      .aio_offset = (int64_t)p[i].off};
                cbp[i] = &cb[i];
            }
            submitted = syscall(SYS_io_submit, io, (long)k, cbp);
            if (submitted < 0)
                submitted = 0;
        }
        struct io_event ev[AIO_DEPTH];
        for (long done = 0; done < submitted;) {
            long got = syscall(SYS_io_getevents, io, 1L, submitted - done, ev, NULL);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) { /* a broken context: destroying it waits for the reads in flight, then none writes buf */
                int e = errno;
                syscall(SYS_io_destroy, io);
                pthread_setspecific(ctx_key, NULL);
                ctx_pid = 0;
                return chunkstore_fd_fail(p[0].f, "io_getevents", p[0].off, p[0].len, e);
            }
            for (long e = 0; e < got; e++) {
                int r = piece_done(&p[ev[e].data], (long)ev[e].res);
                rc = rc ? rc : r;
            }
            done += got;
        }
        for (unsigned i = (unsigned)submitted; i < k; i++) { /* what AIO did not take */
            int r = chunkstore_fd_read(p[i].f, p[i].off, p[i].buf, p[i].len);
            rc = rc ? rc : r;
        }
        p += k;
        n -= k;
    }
    return rc;
}
