/*
 * Moving file memory — a MAP_SHARED mapping of a file, a file tier's extent
 * — to anonymous or shared memory, addresses kept, while other threads read
 * and write it (see vm.h, vm_fill_over).
 *
 * Why the other way round from move_copy.c: a mapping of a regular file
 * cannot be write-protected (userfaultfd protects anonymous and shared memory
 * only), so a copy followed by a remap would lose a store made after the copy
 * of its page. Here the destination — fresh memory, empty, registered with a
 * userfaultfd for missing pages — takes the range first, in one mremap. From
 * that instant a thread touching a page not filled yet waits in the kernel,
 * and the file, which the old mapping wrote through, holds every store made
 * before. Each page is then filled from the file (pread, UFFDIO_COPY, which
 * wakes its waiters): pages threads wait on first, then the file's data in
 * order; pages the file holds no data for (holes) are left to the kernel's
 * zero-fill once the range is handed back to it. No store is lost, none read
 * stale; the file is read with pread, so an I/O error is an error, not a
 * SIGBUS.
 *
 * The registration must survive the mremap: the descriptor asks for remap
 * events (uffd_open_remap), and the kernel makes the mremap wait until its
 * event is read — so a helper thread makes the mremap while this one reads.
 *
 * A strict (bound) destination is filled under its preferred form: a full
 * node sends pages elsewhere rather than wake the OOM killer (a fill
 * allocates like a fault). The policy is then bound again, the strays
 * migrated (the kernel's migration gives up rather than kill) and every
 * page's node checked: pages left elsewhere fail the move.
 *
 * Failing once the destination holds the range, it gives the range back:
 * every page write-protected (writers wait; pages not filled make everyone
 * wait), the pages filled so far — the newest data — written back to the
 * file, the file mapped over the range again, the waiters woken.
 */
#include "os/uffd.h"
#include "os/vm.h"
#include "grow.h"
#include "thread.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 20) /* bytes read from the file and filled at once */

typedef struct {
    int uffd, file;
    char *addr;
    size_t size, page;
    uint64_t offset;        /* of addr in the file */
    uint8_t *filled;        /* a bit per page */
    char *buf;              /* CHUNK bytes read from the file */
    uintptr_t *waiting;     /* pages threads waited on while the mremap ran */
    size_t nwaiting, cap;
} fill_t;

static bool is_filled(const fill_t *f, size_t pg) { return f->filled[pg / 8] >> (pg % 8) & 1; }

/* Bytes [from, from+len) of the range (page-aligned, len <= CHUNK) filled
 * from the file, past pages there already, and their waiters woken. */
static int fill_run(fill_t *f, size_t from, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(f->file, f->buf + got, len - got, (off_t)(f->offset + from + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return loci__fail(LOCI_EIO, "reading the file under %p at offset %llu: %s", (void *)(f->addr + from),
                              (unsigned long long)(f->offset + from + got), strerror(errno));
        if (n == 0) /* past its end: zeros */
            break;
        got += (size_t)n;
    }
    memset(f->buf + got, 0, len - got);
    int rc = uffd_copy(f->uffd, f->addr + from, f->buf, len, false);
    uffd_wake(f->uffd, f->addr + from, len);
    for (size_t pg = from / f->page; rc == 0 && pg < (from + len) / f->page; pg++)
        f->filled[pg / 8] |= (uint8_t)(1u << (pg % 8));
    return rc;
}

/* The page of `at` filled, for the thread that waits on it. */
static int fill_waiting(fill_t *f, uintptr_t at)
{
    size_t off = (at - (uintptr_t)f->addr) & ~(f->page - 1);
    return off >= f->size || is_filled(f, off / f->page) ? 0 : fill_run(f, off, f->page);
}

/* Faults pending now, served. */
static int serve_faults(fill_t *f)
{
    uffd_fault_t flt;
    int r, rc = 0;
    while (rc == 0 && (r = uffd_read(f->uffd, &flt)) != 0)
        rc = r < 0 ? r : flt.remap ? 0 : fill_waiting(f, flt.addr);
    return rc;
}

typedef struct {
    void *from, *to;
    size_t size;
    int err;               /* 0, or mremap's errno */
    int done;              /* a byte written here when mremap returned */
} remap_job_t;

static void *remap_job(void *arg)
{
    remap_job_t *j = arg;
    if (mremap(j->from, j->size, j->size, MREMAP_MAYMOVE | MREMAP_FIXED, j->to) == MAP_FAILED)
        j->err = errno;
    (void)!write(j->done, "", 1);
    return NULL;
}

/* dst (registered) mremapped over the range by a helper thread while this
 * thread reads the descriptor: the remap event that mremap waits for, and the
 * faults of threads touching the range from that instant (noted; served
 * first). The helper's failure is mremap's: errno in *err. */
static int switch_over(fill_t *f, void *dst, int *err)
{
    int done[2];
    if (pipe2(done, O_CLOEXEC) != 0)
        return loci__fail(LOCI_ENOMEM, "a pipe for a move: %s", strerror(errno));
    remap_job_t job = {dst, f->addr, f->size, 0, done[1]};
    pthread_t helper;
    int e = thread_start_quiet(&helper, remap_job, &job);
    if (e != 0) {
        close(done[0]);
        close(done[1]);
        return loci__fail(LOCI_ENOMEM, "cannot start a thread for a move: %s", strerror(e));
    }
    struct pollfd p[2] = {{.fd = f->uffd, .events = POLLIN}, {.fd = done[0], .events = POLLIN}};
    for (bool over = false; !over;) { /* until the helper is back: it waits for this loop's reads */
        (void)poll(p, 2, -1);
        uffd_fault_t flt;
        while (uffd_read(f->uffd, &flt) == 1) {
            if (flt.remap)
                continue;
            uintptr_t *w = grow_for_one(f->waiting, f->nwaiting, &f->cap, sizeof *w, 16);
            if (w) /* (else its page comes in the file's order) */
                (f->waiting = w)[f->nwaiting++] = flt.addr;
        }
        over = (p[1].revents & POLLIN) != 0;
    }
    pthread_join(helper, NULL);
    close(done[0]);
    close(done[1]);
    *err = job.err;
    return 0;
}

/* Every run of the file's data under the range filled, threads that wait
 * served between chunks. */
static int fill_data(fill_t *f)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f->nwaiting; i++)
        rc = fill_waiting(f, f->waiting[i]);
    off_t end = (off_t)(f->offset + f->size);
    for (off_t at = (off_t)f->offset; rc == 0 && at < end;) {
        off_t data = lseek(f->file, at, SEEK_DATA), hole;
        if (data < 0 && errno == ENXIO) /* no data after `at` */
            break;
        if (data < 0) /* no SEEK_DATA here: all of it is data */
            data = at;
        if (data >= end)
            break;
        hole = lseek(f->file, data, SEEK_HOLE);
        hole = hole < 0 || hole > end ? end : hole;
        size_t from = ((size_t)(data - (off_t)f->offset)) & ~(f->page - 1);
        size_t to = ((size_t)(hole - (off_t)f->offset) + f->page - 1) & ~(f->page - 1);
        for (size_t off = from; rc == 0 && off < to; off += CHUNK) {
            rc = serve_faults(f);
            if (rc == 0)
                rc = fill_run(f, off, to - off < CHUNK ? to - off : CHUNK);
        }
        at = (off_t)(f->offset + to);
    }
    return rc == 0 ? serve_faults(f) : rc;
}

/* The range back to the file (the move failed once dst held it): writers
 * stopped, the pages filled written back, the file mapped over it again, the
 * waiters woken. `why` is the failure's code; its message is kept. */
static int give_back(fill_t *f, int map_flags, int why)
{
    char msg[600];
    snprintf(msg, sizeof msg, "%s", loci_last_error());
    int rc = uffd_protect(f->uffd, f->addr, f->size);
    size_t n = f->size / f->page;
    for (size_t pg = 0; rc == 0 && pg < n;) {
        if (!is_filled(f, pg)) {
            pg++;
            continue;
        }
        size_t run = pg;
        while (run < n && is_filled(f, run))
            run++;
        size_t off = pg * f->page, len = (run - pg) * f->page;
        for (size_t done = 0; rc == 0 && done < len;) {
            ssize_t w = pwrite(f->file, f->addr + off + done, len - done, (off_t)(f->offset + off + done));
            if (w > 0)
                done += (size_t)w;
            else if (w < 0 && errno != EINTR)
                rc = loci__fail(LOCI_EIO, "writing %p back to its file: %s", (void *)(f->addr + off), strerror(errno));
        }
        pg = run;
    }
    void *p = rc == 0 ? mmap(f->addr, f->size, PROT_READ | PROT_WRITE, map_flags | MAP_FIXED, f->file, (off_t)f->offset)
                      : MAP_FAILED;
    if (rc == 0 && p == MAP_FAILED)
        rc = loci__fail(LOCI_EIO, "mapping the file over %p again: %s", (void *)f->addr, strerror(errno));
    uffd_wake(f->uffd, f->addr, f->size);
    if (rc != 0) /* the data stays in the new memory, which keeps the range */
        return loci__fail(rc, "%s; then giving the range back to its file failed: %s (its data is in place, "
                              "in the new memory)", msg, loci_last_error());
    return loci__fail(why, "%s", msg);
}

/* After the fill, a strict destination bound again: strays migrated (no OOM
 * killer: the migration gives up), every page's node checked. */
static int bind_again(fill_t *f, const place_t *to)
{
    if (!place_is_strict(to))
        return 0;
    int rc = vm_migrate(f->addr, f->size, to);
    if (rc == 0 || rc == LOCI_EIO)
        rc = vm_check_placed(f->addr, f->size, to);
    if (rc == 0)
        return 0;
    char sz[32], why[512];
    snprintf(why, sizeof why, "%s", loci_last_error());
    return loci__fail(LOCI_ENOMEM, "the destination's nodes could not take all %s moved there: %s",
                      units_format_size(f->size, sz, sizeof sz), why);
}

static const char *refusal;

/* A remap-event descriptor, and an anonymous page it watches for missing
 * pages and write-protection. */
static void probe(void)
{
    int fd = uffd_open_remap();
    if (fd < 0) {
        refusal = errno == EPERM ? "this process may not use userfaultfd (vm.unprivileged_userfaultfd, "
                                   "CAP_SYS_PTRACE or access to /dev/userfaultfd allow it)"
                                 : "the kernel's userfaultfd lacks write-protection or remap events";
        return;
    }
    size_t page = vm_page_size();
    void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || uffd_register(fd, p, page, true) != 0)
        refusal = "the kernel's userfaultfd cannot watch anonymous memory for missing pages and writes";
    if (p != MAP_FAILED)
        munmap(p, page);
    close(fd);
}

const char *vm_fill_over_refusal(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    const char *refused = vm_copies_refused();
    if (refused)
        return refused;
    pthread_once(&once, probe);
    return refusal;
}

int vm_fill_over(void *addr, void *dst, size_t size, int file, uint64_t offset, int map_flags, const place_t *to)
{
    const char *why = vm_copies_refused();
    if (why) {
        loci__fail(LOCI_ENOTSUP, "%p is not filled under userfaultfd: %s", addr, why);
        return 1;
    }
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    fill_t f = {.uffd = uffd_open_remap(), .file = file, .addr = addr, .size = size, .page = vm_page_size(),
                .offset = offset};
    if (f.uffd < 0) {
        loci__fail(LOCI_ENOTSUP, "%s at %p cannot be filled while threads use it: %s", sz, addr,
                   errno == EPERM ? "this process may not use userfaultfd (vm.unprivileged_userfaultfd, "
                                    "CAP_SYS_PTRACE or access to /dev/userfaultfd allow it)"
                                  : "the kernel's userfaultfd lacks write-protection or remap events");
        return 1;
    }
    place_t fill_place = *to;
    if (place_is_strict(to))
        fill_place.policy = PLACE_PREFERRED;
    int rc = fill_place.policy != to->policy ? vm_apply_policy(dst, size, &fill_place, 0) : 0;
    if (rc == 0 && uffd_register(f.uffd, dst, size, true) != 0) {
        loci__fail(LOCI_ENOTSUP, "%s at %p cannot be filled while threads use it: userfaultfd cannot watch "
                                 "its destination (a file's mapping)", sz, addr);
        if (fill_place.policy != to->policy)
            (void)vm_apply_policy(dst, size, to, 0);
        close(f.uffd);
        return 1;
    }
    f.filled = calloc(size / f.page / 8 + 1, 1);
    f.buf = malloc(CHUNK);
    if (rc == 0 && (!f.filled || !f.buf))
        rc = loci__fail(LOCI_ENOMEM, "out of memory for a move of %s", sz);
    int err = 0;
    if (rc == 0)
        rc = switch_over(&f, dst, &err);
    if (rc == 0 && err != 0) {
        /* mremap may have dropped the range before failing: the file holds its data */
        void *p = mmap(addr, size, PROT_READ | PROT_WRITE, map_flags | MAP_FIXED_NOREPLACE, file, (off_t)offset);
        if (p != MAP_FAILED && p != addr)
            munmap(p, size);
        rc = loci__fail(LOCI_ENOMEM, "mremap of %s over %p: %s", sz, addr, strerror(err));
    } else if (rc == 0) {
        vm_unmapped(dst, size);
        rc = fill_data(&f);
        if (rc == 0)
            rc = bind_again(&f, to);
        if (rc != 0)
            rc = give_back(&f, map_flags, rc);
    }
    close(f.uffd); /* the range goes back to the kernel's own fault handling: holes are zero-filled */
    free(f.filled);
    free(f.buf);
    free(f.waiting);
    return rc;
}
