#include "os/aio.h"

#include <errno.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_key_t ctx_key;
static _Thread_local aio_context_t ctx;
static _Thread_local pid_t ctx_pid;

static void ctx_destroy(void *arg) { syscall(SYS_io_destroy, (aio_context_t)(uintptr_t)arg); }
static void make_key(void) { pthread_key_create(&ctx_key, ctx_destroy); }

/* The calling thread's context (0: none to be had). */
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
            ctx = 0;
    }
    return ctx;
}

int aio_read_all(aio_read_t *r, unsigned n)
{
    aio_context_t io = n > 0 && n <= AIO_DEPTH ? thread_ctx() : 0;
    if (!io)
        return 0;
    struct iocb cb[AIO_DEPTH], *cbp[AIO_DEPTH];
    for (unsigned i = 0; i < n; i++) {
        cb[i] = (struct iocb){.aio_data = i, .aio_lio_opcode = IOCB_CMD_PREAD, .aio_fildes = (uint32_t)r[i].fd,
                              .aio_buf = (uint64_t)(uintptr_t)r[i].buf, .aio_nbytes = r[i].len,
                              .aio_offset = (int64_t)r[i].off};
        cbp[i] = &cb[i];
    }
    long submitted = syscall(SYS_io_submit, io, (long)n, cbp);
    if (submitted <= 0)
        return 0;
    struct io_event ev[AIO_DEPTH];
    for (long done = 0; done < submitted;) {
        long got = syscall(SYS_io_getevents, io, 1L, submitted - done, ev, NULL);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            syscall(SYS_io_destroy, io);
            pthread_setspecific(ctx_key, NULL);
            ctx_pid = 0;
            return -e;
        }
        for (long e = 0; e < got; e++)
            r[ev[e].data].got = (long)ev[e].res;
        done += got;
    }
    return (int)submitted;
}
