/*
 * The portable access source (heat.h): sampled minor faults on shared memory
 * through userfaultfd, without root where the process may use userfaultfd.
 *
 * Once per interval a sampler thread opens a window (heat_window_t: the last
 * heat_window_us of the interval, or up to a heat_collect): it picks a share
 * of every watched granule's resident pages — at random, one from each of as
 * many equal slices of its resident pages — and unmaps them (MADV_DONTNEED:
 * shared memory keeps them in the page cache). The ranges are registered in
 * minor mode: the next access to a sampled page, read or write, from user
 * space or by the kernel on the process's behalf (read(2) into it), faults
 * to the sampler, which maps the page back (UFFDIO_CONTINUE) at once and
 * counts it against its granule while the window is open. A granule's heat
 * is the share of its sampled pages touched again within the window. It
 * cannot see accesses that hit a page's mapping before it was sampled, nor
 * the second access of a window, nor DMA by devices; it costs one fault per
 * sampled page touched (within the window or after), paid by the thread that
 * touches it.
 *
 * The sampler serves faults without the lock (a thread holding it could be
 * the one faulting) and counts them when it gets the lock. Sampled pages not
 * touched within their window are mapped back when it closes (or by
 * heat_unwatch, or heat_hold for a move): a page is unmapped only while its
 * window is open, and never while its range is held still for a move.
 */
#include "heat/heat_internal.h"
#include "clock.h"
#include "os/uffd.h"
#include "os/vm.h"
#include "thread.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define PENDING 4096 /* faults served but not counted yet (more are served, not counted) */
#define WHO "the faults source"

typedef struct {
    uint64_t *unmapped;      /* bit per page: unmapped by the sampler, not mapped back since */
    uint64_t *in_window;      /* bit per page: sampled this window, not touched since */
    uint32_t *sampled;       /* per granule, this window */
    uint32_t *touched;       /* per granule, this window */
    unsigned char *resident; /* mincore's answer, a byte per page */
    bool said_locked;        /* MADV_DONTNEED refused (locked memory): logged once */
} frange_t;

typedef struct {
    int uffd, wake;      /* the userfaultfd; an eventfd that wakes the sampler */
    pthread_t thread;
    bool running;
    _Atomic bool stop;
    _Atomic bool broken; /* the sampler stopped on an error: broken_why */
    char broken_why[256];
    pthread_cond_t ended;    /* a collect was served (heat_collect waits for it) */
    uint64_t collects_served, collect_wanted; /* under h->lock */
    heat_window_t w;         /* (the sampler's, under h->lock) */
    size_t page, pages_per_granule;
    uint64_t rng;
    /* the sampler thread's own */
    uintptr_t pending[PENDING];
    size_t npending;
    uint32_t *scratch; /* resident page indices of one granule */
    uint64_t said_unserved; /* errnos logged (ENOENT: the range was unwatched meanwhile) */
} faults_t;

static bool bit(const uint64_t *v, size_t i) { return (v[i / 64] >> (i % 64)) & 1; }
static void set_bit(uint64_t *v, size_t i) { v[i / 64] |= 1ull << (i % 64); }
static void clear_bit(uint64_t *v, size_t i) { v[i / 64] &= ~(1ull << (i % 64)); }

/* xorshift64*: a sample spread needs no more. */
static uint64_t next_random(faults_t *f)
{
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return f->rng * 2685821657736338717ull;
}

/* Read and serve the faults pending: map the page back, then remember it
 * for counting — until PENDING are remembered, unless `uncounted_ok` (the
 * lock is taken: faults are served all the same, some not counted). A page
 * that cannot be mapped back (its range was unwatched meanwhile) is woken:
 * the kernel serves it. 0, or LOCI_EIO. */
static int serve(faults_t *f, bool uncounted_ok)
{
    uffd_fault_t ft;
    int n = 0;
    while ((f->npending < PENDING || uncounted_ok) && (n = uffd_read(f->uffd, &ft)) == 1) {
        void *page = (void *)(ft.addr & ~(uintptr_t)(f->page - 1));
        if (uffd_continue(f->uffd, page, f->page) != 0) {
            int e = errno;
            if (e != ENOENT && e < 64 && !(f->said_unserved & 1ull << e)) { /* (woken, it faults again) */
                f->said_unserved |= 1ull << e;
                loci__log(LOCI_LOG_WARN, "%s cannot map back page %p: UFFDIO_CONTINUE: %s", WHO, page, strerror(e));
            }
            uffd_wake(f->uffd, page, f->page);
        }
        if (f->npending < PENDING)
            f->pending[f->npending++] = (uintptr_t)page;
    }
    return n;
}

/* Under h->lock: count the faults served since the last time. */
static void count_pending(heat_t *h, faults_t *f)
{
    for (size_t i = 0; i < f->npending; i++) {
        heat_range_t *r = heat__range_of(h, f->pending[i]);
        if (!r)
            continue;
        frange_t *fr = r->src;
        size_t p = (f->pending[i] - r->base) / f->page;
        clear_bit(fr->unmapped, p);
        if (bit(fr->in_window, p)) {
            clear_bit(fr->in_window, p);
            fr->touched[p / f->pages_per_granule]++;
        }
    }
    f->npending = 0;
}

/* Map back r's pages [first, end) unmapped by the sampler —
 * those sampled this window only, or all — each where it is in the page
 * cache. (It fails where the owner unmapped the memory: nothing to keep.) */
static void map_back(faults_t *f, heat_range_t *r, size_t first, size_t end, bool window_only)
{
    frange_t *fr = r->src;
    for (size_t w = first / 64; w < (end + 63) / 64; w++) /* (a word at a time: most are 0) */
        for (uint64_t bits = fr->unmapped[w] & (window_only ? fr->in_window[w] : ~0ull); bits; bits &= bits - 1) {
            size_t p = w * 64 + (size_t)__builtin_ctzll(bits);
            if (p < first || p >= end)
                continue;
            (void)uffd_continue(f->uffd, (void *)(r->base + p * f->page), f->page);
            clear_bit(fr->unmapped, p);
        }
}

static void map_back_all(faults_t *f, heat_range_t *r) { map_back(f, r, 0, r->size / f->page, false); }

/* Under h->lock: the window's counts join the granules' since the last
 * collect, and its sampled pages not touched are mapped back. A page stays
 * unmapped only while its window is open: left unmapped across windows, most
 * pages of a cold range were after a few dozen, and a program reading it
 * through later paid a fault per page, each waiting for a sampler busy
 * opening the next window (a check of 96 MiB took minutes in a loaded VM). */
static void close_window(heat_t *h, faults_t *f)
{
    for (size_t i = 0; i < h->nranges; i++) {
        heat_range_t *r = h->ranges[i];
        frange_t *fr = r->src;
        map_back(f, r, 0, r->size / f->page, true);
        for (size_t g = 0; g < r->ngranules; g++) {
            r->counts[g].obs += fr->sampled[g];
            r->counts[g].hits += fr->touched[g];
            fr->sampled[g] = fr->touched[g] = 0;
        }
        memset(fr->in_window, 0, (r->size / f->page + 63) / 64 * sizeof(uint64_t));
    }
}

/* Sample page p of r for this window: unmap it unless it is already. */
static void sample_page(heat_range_t *r, faults_t *f, size_t p)
{
    frange_t *fr = r->src;
    if (!bit(fr->unmapped, p)) {
        if (vm_drop((void *)(r->base + p * f->page), f->page) != 0) {
            if (!fr->said_locked)
                loci__log(LOCI_LOG_WARN, "%s cannot sample [%p, +%zu): MADV_DONTNEED: %s (locked memory?)", WHO,
                          (void *)r->base, r->size, strerror(errno));
            fr->said_locked = true;
            return;
        }
        set_bit(fr->unmapped, p);
    }
    set_bit(fr->in_window, p);
    fr->sampled[p / f->pages_per_granule]++;
}

/* Under h->lock: pick and unmap this window's sample of every granule.
 * Faults are served granule by granule meanwhile: under TCG or a heavy load
 * opening a window over gigabytes takes longer than an interval, and a thread
 * touching a page sampled before would wait for all of it, window after
 * window. */
static void open_window(heat_t *h, faults_t *f)
{
    for (size_t i = 0; i < h->nranges; i++) {
        heat_range_t *r = h->ranges[i];
        frange_t *fr = r->src;
        if (heat__held(h, r->base, r->size)) /* (its pages are moving: an unmapped one would be left behind) */
            continue;
        if (vm_residency((void *)r->base, r->size, fr->resident) != 0)
            continue; /* (unmapped by its owner, who has not unwatched it yet) */
        size_t npages = r->size / f->page;
        for (size_t first = 0; first < npages; first += f->pages_per_granule) {
            size_t end = first + f->pages_per_granule < npages ? first + f->pages_per_granule : npages, nres = 0;
            for (size_t p = first; p < end; p++)
                if (fr->resident[p] & 1)
                    f->scratch[nres++] = (uint32_t)p;
            size_t k = (size_t)(h->cfg.sample_share * (double)nres + 0.999999);
            for (size_t s = 0; s < k; s++) { /* one page from each of k equal slices */
                size_t lo = s * nres / k, hi = (s + 1) * nres / k;
                sample_page(r, f, f->scratch[lo + next_random(f) % (hi - lo)]);
            }
            (void)serve(f, true); /* (an error shows again at the sampler's next read) */
            count_pending(h, f);
        }
    }
}

/* [base, +size) of r is held still: map its sampled pages back, and its
 * samples of this window no longer count (a move, not the program,
 * touches them now). */
static void faults_hold(heat_t *h, heat_range_t *r, uintptr_t base, size_t size)
{
    faults_t *f = h->src;
    frange_t *fr = r->src;
    size_t first = (base - r->base) / f->page, end = first + size / f->page;
    map_back(f, r, first, end, false);
    for (size_t p = first; p < end; p++)
        if (bit(fr->in_window, p)) {
            clear_bit(fr->in_window, p);
            fr->sampled[p / f->pages_per_granule]--;
        }
}

static void map_back_and_unregister(faults_t *f, heat_range_t *r)
{
    map_back_all(f, r);
    (void)uffd_unregister(f->uffd, (void *)r->base, r->size);
}

/* The sampler stops on an error: every range goes back to the kernel's own
 * fault handling first, so that no thread waits on a fault nobody serves. */
static void give_up(heat_t *h, faults_t *f, const char *what)
{
    snprintf(f->broken_why, sizeof f->broken_why, "%s's sampler thread stopped: %s", WHO, what);
    loci__log(LOCI_LOG_ERROR, "%s; heat is no longer measured", f->broken_why);
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->nranges; i++)
        map_back_and_unregister(f, h->ranges[i]);
    f->broken = true;
    pthread_cond_broadcast(&f->ended);
    pthread_mutex_unlock(&h->lock);
}

/* Under h->lock: a collect that asks ends the window open now; then the
 * window opens or closes when its time has come (both at once when the next
 * spans the whole interval). *until: when the next is due. */
static void keep_time(heat_t *h, faults_t *f, uint64_t *until)
{
    uint64_t now = clock_mono_ns();
    if (f->collect_wanted > f->collects_served) {
        bool closes = heat__window_collect_closes(h, &f->w, now);
        if (closes)
            close_window(h, f);
        if (closes || !f->w.open)
            heat__window_closed(h, &f->w, now, true);
        f->collects_served = f->collect_wanted;
        pthread_cond_broadcast(&f->ended);
    }
    for (heat_window_due_t due; (due = heat__window_due(h, &f->w, now, until)) != HEAT_WINDOW_WAIT;) {
        if (due == HEAT_WINDOW_OPEN) {
            open_window(h, f);
            now = clock_mono_ns(); /* (open once its pages are unmapped: under TCG that takes longer than a window) */
            heat__window_opened(&f->w, now);
        } else {
            close_window(h, f);
            heat__window_closed(h, &f->w, now, false);
        }
    }
}

static void *sampler(void *arg)
{
    heat_t *h = arg;
    faults_t *f = h->src;
    struct pollfd p[2] = {{f->uffd, POLLIN, 0}, {f->wake, POLLIN, 0}};
    bool again = false; /* the lock was taken: faults to count, or a window to open or close */
    uint64_t next = clock_mono_ns();
    while (!f->stop) {
        uint64_t now = clock_mono_ns();
        int timeout = again ? 1 : next > now ? (int)((next - now + 999999) / 1000000) : 0;
        if (poll(p, 2, timeout) < 0 && errno != EINTR) {
            give_up(h, f, strerror(errno));
            break;
        }
        uint64_t woken;
        (void)!read(f->wake, &woken, sizeof woken); /* (reset: EAGAIN when nobody woke it) */
        bool locked = false;
        int rc;
        while ((rc = serve(f, false)) == 0 && f->npending == PENDING && (locked = !pthread_mutex_trylock(&h->lock))) {
            count_pending(h, f); /* a thread faulting page after page: count in batches */
            pthread_mutex_unlock(&h->lock);
        }
        if (rc == 0 && !locked && f->npending == PENDING)
            rc = serve(f, true);
        if (rc != 0) {
            give_up(h, f, loci_last_error());
            break;
        }
        if ((again = pthread_mutex_trylock(&h->lock) != 0))
            continue;
        (void)serve(f, false); /* the faults of this window that came meanwhile */
        count_pending(h, f);
        keep_time(h, f, &next);
        pthread_mutex_unlock(&h->lock);
    }
    return NULL;
}

static int faults_probe(const heat_config_t *cfg, char *why, size_t len)
{
    (void)cfg;
    int fd = uffd_open_minor(WHO);
    if (fd < 0)
        return heat__refuse(why, len, fd, "%s", loci_last_error());
    close(fd);
    return 0;
}

static void free_source(faults_t *f)
{
    if (f->uffd >= 0)
        close(f->uffd);
    if (f->wake >= 0)
        close(f->wake);
    free(f->scratch);
    free(f);
}

static int faults_open(heat_t *h, char *why, size_t len)
{
    faults_t *f = calloc(1, sizeof *f);
    if (!f)
        return heat__refuse(why, len, LOCI_ENOMEM, "out of memory");
    f->uffd = f->wake = -1;
    f->page = vm_page_size();
    f->pages_per_granule = HEAT_GRANULE / f->page;
    f->scratch = malloc(f->pages_per_granule * sizeof *f->scratch);
    f->rng = clock_mono_ns() ^ ((uint64_t)(uintptr_t)f << 17) ^ (uint64_t)getpid();
    f->uffd = uffd_open_minor(WHO);
    int rc = f->uffd < 0 ? f->uffd : 0;
    if (rc != 0)
        snprintf(why, len, "%s", loci_last_error());
    if (rc == 0 && (f->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        rc = heat__refuse(why, len, LOCI_EIO, "eventfd: %s", strerror(errno));
    if (rc == 0 && !f->scratch)
        rc = heat__refuse(why, len, LOCI_ENOMEM, "out of memory");
    if (rc != 0) {
        free_source(f);
        return rc;
    }
    pthread_cond_init(&f->ended, NULL);
    heat__window_init(h, &f->w);
    h->src = f;
    int e = thread_start_quiet(&f->thread, sampler, h);
    if (e != 0) {
        pthread_cond_destroy(&f->ended);
        free_source(f);
        h->src = NULL;
        return heat__refuse(why, len, LOCI_ENOMEM, "cannot start its sampler thread: %s", strerror(e));
    }
    f->running = true;
    return 0;
}

static void free_range_state(frange_t *fr)
{
    if (!fr)
        return;
    free(fr->unmapped);
    free(fr->in_window);
    free(fr->sampled);
    free(fr->touched);
    free(fr->resident);
    free(fr);
}

static void faults_close(heat_t *h, bool in_child)
{
    faults_t *f = h->src;
    if (!in_child) { /* (a child has no sampler thread: it was the parent's) */
        f->stop = true;
        uint64_t one = 1;
        (void)!write(f->wake, &one, sizeof one);
        pthread_join(f->thread, NULL);
        pthread_cond_destroy(&f->ended);
    }
    for (size_t i = 0; i < h->nranges; i++) /* (a child's copies: the parent's ranges were unwatched) */
        free_range_state(h->ranges[i]->src);
    free_source(f);
}

static int faults_watch(heat_t *h, heat_range_t *r)
{
    faults_t *f = h->src;
    if (f->broken)
        return loci__fail(LOCI_EIO, "%s", f->broken_why);
    if (!vm_mapped_shared((void *)r->base, r->size))
        return loci__fail(LOCI_ENOTSUP, "%s watches shared memory only (memfd, MAP_SHARED): [%p, +%zu) is not "
                                        "all mapped shared and writable (a private page it sampled would lose "
                                        "its data)", WHO, (void *)r->base, r->size);
    size_t npages = r->size / f->page, words = (npages + 63) / 64;
    frange_t *fr = calloc(1, sizeof *fr);
    if (fr) {
        fr->unmapped = calloc(words, sizeof(uint64_t));
        fr->in_window = calloc(words, sizeof(uint64_t));
        fr->sampled = calloc(r->ngranules, sizeof(uint32_t));
        fr->touched = calloc(r->ngranules, sizeof(uint32_t));
        fr->resident = malloc(npages);
    }
    if (!fr || !fr->unmapped || !fr->in_window || !fr->sampled || !fr->touched || !fr->resident) {
        free_range_state(fr);
        return loci__fail(LOCI_ENOMEM, "%s: out of memory watching %zu bytes", WHO, r->size);
    }
    if (uffd_register_minor(f->uffd, (void *)r->base, r->size) != 0) {
        int e = errno;
        free_range_state(fr);
        return loci__fail(e == EINVAL ? LOCI_ENOTSUP : LOCI_EIO,
                          "%s watches shared memory only (shmem: memfd, MAP_SHARED|MAP_ANONYMOUS): [%p, +%zu) "
                          "cannot be registered for minor faults: %s", WHO, (void *)r->base, r->size, strerror(e));
    }
    r->src = fr;
    return 0;
}

static void faults_unwatch(heat_t *h, heat_range_t *r)
{
    map_back_and_unregister(h->src, r);
    free_range_state(r->src);
    r->src = NULL;
}

/* End the window open now (the sampler does it, and schedules the next). */
static int faults_refresh(heat_t *h)
{
    faults_t *f = h->src;
    uint64_t want = f->collects_served + 1, one = 1;
    f->collect_wanted = want;
    (void)!write(f->wake, &one, sizeof one);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2 + h->cfg.interval_ms / 1000;
    while (f->collects_served < want && !f->broken)
        if (pthread_cond_timedwait(&f->ended, &h->lock, &until) == ETIMEDOUT) /* (a CPU starved: it serves on) */
            return loci__fail(LOCI_EBUSY, "%s: its sampler thread did not end the window within %ld s", WHO,
                              (long)(2 + h->cfg.interval_ms / 1000));
    if (f->broken)
        return loci__fail(LOCI_EIO, "%s", f->broken_why);
    return 0;
}

static double faults_cpu(const heat_t *h)
{
    const faults_t *f = h->src;
    return f->running ? heat__thread_cpu_s(f->thread) : 0;
}

const heat_ops_t heat_faults_ops = {
    .id = HEAT_SOURCE_FAULTS,
    .needs_shared_memory = true,
    .min_window_us = 250, /* a fault's round trip to the sampler: tens of microseconds */
    .probe = faults_probe,
    .open = faults_open,
    .close = faults_close,
    .watch = faults_watch,
    .unwatch = faults_unwatch,
    .hold = faults_hold,
    .refresh = faults_refresh,
    .thread_cpu_seconds = faults_cpu,
};
