/*
 * The access source that needs no privilege at all (heat.h): which pages the
 * process wrote, from the kernel's per-process interfaces (os/write_track.h)
 * — asynchronous userfaultfd write-protection read back with PAGEMAP_SCAN
 * where the kernel has it (Linux 6.7+), else soft-dirty bits through
 * /proc/self/clear_refs and /proc/self/pagemap. No root, capability, sysctl,
 * device node, PMU or DAMON: what an ordinary user on a compute node has.
 *
 * Once per interval a window thread opens a window (heat_window_t: the last
 * heat_window_us of the interval) over a sample of each watched granule: a
 * run of sample_share of its pages at a random place, write-protected
 * (asynchronously: the first write to a page lifts it in the kernel, nobody
 * waits) — or, with soft-dirty bits, the whole process is. When the window
 * closes — its time is up, or heat_collect comes first — each resident page
 * of a run is one observation, touched when written since: a granule's heat
 * is the share of its sampled pages written within the window; the
 * protection is lifted (soft-dirty bits cannot be: each page of the process
 * faults once more at its next write). A range watched while a window is
 * open joins at the next one. Sampled runs, not pages one by one: a run is
 * one protection, one read-back and one lift, and a whole range's would cost
 * the collector some 0.4 us of CPU per page per window (measured here:
 * 7 ms a window for 64 MiB).
 *
 * It sees writes only — the program's stores and the kernel's on its
 * behalf (read(2) into the memory) — never a load: a hot array the program
 * only reads reads cold. It costs one write fault per sampled page written
 * within a window (in the kernel: no thread of ours serves it) and, per
 * window, three system calls per granule; with soft-dirty bits every page
 * the whole process writes after a window starts faults once, until the
 * next, and other users of soft-dirty bits in the process (CRIU's
 * incremental dumps) lose theirs.
 */
#include "heat/heat_internal.h"
#include "clock.h"
#include "grow.h"
#include "os/vm.h"
#include "os/write_track.h"
#include "thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WHO "the dirty source"

typedef struct {
    write_track_t wt;
    heat_window_t w;
    pthread_t thread;
    bool running;
    pthread_cond_t wake;  /* the window thread waits here (CLOCK_MONOTONIC) */
    /* under h->lock: */
    bool stop;
    char broken[300];     /* why tracking stopped; "" while it works */
    uint8_t *flags;       /* per page of one run (write_track_read) */
    size_t flags_cap;
    write_track_range_t *runs; /* the sampled runs of the window open now, in the ranges' order */
    size_t nruns, cap;
    uint64_t rng;
} dirty_t;

typedef struct {
    bool armed;       /* sampled in the open window (watched before it opened) */
    size_t first_run; /* its granules' runs: d->runs[first_run + g] */
} drange_t;

/* xorshift64*: a sample's place needs no more. */
static uint64_t next_random(dirty_t *d)
{
    d->rng ^= d->rng >> 12;
    d->rng ^= d->rng << 25;
    d->rng ^= d->rng >> 27;
    return d->rng * 2685821657736338717ull;
}

static void stop_working(dirty_t *d)
{
    snprintf(d->broken, sizeof d->broken, "%s stopped: %s", WHO, loci_last_error());
    loci__log(LOCI_LOG_ERROR, "%s; heat is no longer measured", d->broken);
}

/* Under h->lock: sample a run of each granule of r into d->runs; false when
 * out of memory. */
static bool sample_range(heat_t *h, dirty_t *d, heat_range_t *r)
{
    size_t page = vm_page_size(), first = d->nruns;
    for (size_t g = 0; g < r->ngranules; g++) {
        write_track_range_t *v = grow_for_one(d->runs, d->nruns, &d->cap, sizeof *d->runs, 64);
        if (!v) {
            d->nruns = first;
            return false;
        }
        d->runs = v;
        size_t pages = heat__granule_size(r, g) / page, k = (size_t)(h->cfg.sample_share * (double)pages + 0.999999);
        size_t at = pages > k ? next_random(d) % (pages - k + 1) : 0;
        d->runs[d->nruns++] = (write_track_range_t){(void *)(r->base + g * HEAT_GRANULE + at * page), k * page};
    }
    drange_t *dr = r->src;
    dr->armed = true;
    dr->first_run = first;
    return true;
}

/* Under h->lock: start a window over a sample of every range watched now. */
static void open_window(heat_t *h, dirty_t *d)
{
    d->nruns = 0;
    for (size_t i = 0; i < h->nranges && sample_range(h, d, h->ranges[i]); i++)
        ; /* (out of memory: the ranges before it only) */
    if (write_track_start(&d->wt, d->runs, d->nruns) != 0) {
        stop_working(d);
        return;
    }
    heat__window_opened(&d->w, clock_mono_ns());
}

/* Under h->lock: the resident pages of each armed range's runs, written or
 * not, into its granules' counts; the window's protection lifted. */
static void close_window(heat_t *h, dirty_t *d, bool collected)
{
    size_t page = vm_page_size();
    for (size_t i = 0; i < h->nranges && !d->broken[0]; i++) {
        heat_range_t *r = h->ranges[i];
        drange_t *dr = r->src;
        for (size_t g = 0; dr->armed && g < r->ngranules; g++) {
            const write_track_range_t *run = &d->runs[dr->first_run + g];
            size_t pages = run->len / page;
            if (pages > d->flags_cap) {
                uint8_t *f = realloc(d->flags, pages);
                if (!f)
                    continue; /* (out of memory: no observation of it this time) */
                d->flags = f;
                d->flags_cap = pages;
            }
            if (write_track_read(&d->wt, run->addr, run->len, d->flags) != 0) {
                stop_working(d);
                break;
            }
            for (size_t p = 0; p < pages; p++) {
                r->counts[g].obs += d->flags[p] & WRITE_TRACK_PRESENT;
                r->counts[g].hits += (d->flags[p] & WRITE_TRACK_WRITTEN) != 0;
            }
        }
        dr->armed = false;
    }
    write_track_stop(&d->wt, d->runs, d->nruns); /* (ranges unwatched meanwhile: nothing left to lift) */
    d->nruns = 0;
    heat__window_closed(h, &d->w, clock_mono_ns(), collected);
}

static void *window_thread(void *arg)
{
    heat_t *h = arg;
    dirty_t *d = h->src;
    pthread_mutex_lock(&h->lock);
    while (!d->stop && !d->broken[0]) {
        uint64_t until = 0;
        switch (heat__window_due(h, &d->w, clock_mono_ns(), &until)) {
        case HEAT_WINDOW_OPEN:
            open_window(h, d);
            break;
        case HEAT_WINDOW_CLOSE:
            close_window(h, d, false);
            break;
        case HEAT_WINDOW_WAIT: {
            struct timespec ts = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
            pthread_cond_timedwait(&d->wake, &h->lock, &ts);
            break;
        }
        }
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

static int dirty_probe(const heat_config_t *cfg, char *why, size_t len)
{
    (void)cfg;
    write_track_how_t how;
    return write_track_probe(&how, why, len);
}

static void free_source(dirty_t *d)
{
    write_track_close(&d->wt);
    free(d->flags);
    free(d->runs);
    free(d);
}

static int dirty_open(heat_t *h, char *why, size_t len)
{
    dirty_t *d = calloc(1, sizeof *d);
    if (!d)
        return heat__refuse(why, len, LOCI_ENOMEM, "out of memory");
    int rc = write_track_open(&d->wt, why, len);
    if (rc != 0) {
        free(d);
        return rc;
    }
    heat__window_init(h, &d->w);
    d->rng = clock_mono_ns() ^ ((uint64_t)(uintptr_t)d << 17) ^ (uint64_t)getpid();
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &a);
    pthread_condattr_destroy(&a);
    h->src = d;
    int e = thread_start_quiet(&d->thread, window_thread, h);
    if (e != 0) {
        pthread_cond_destroy(&d->wake);
        free_source(d);
        h->src = NULL;
        return heat__refuse(why, len, LOCI_ENOMEM, "cannot start its window thread: %s", strerror(e));
    }
    d->running = true;
    loci__log(LOCI_LOG_INFO, "%s: %s", WHO, write_track_how_name(d->wt.how));
    return 0;
}

static void dirty_close(heat_t *h, bool in_child)
{
    dirty_t *d = h->src;
    if (!in_child) { /* (a child has no window thread: it was the parent's) */
        pthread_mutex_lock(&h->lock);
        d->stop = true;
        pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&h->lock);
        pthread_join(d->thread, NULL);
        pthread_cond_destroy(&d->wake);
    }
    for (size_t i = 0; i < h->nranges; i++) /* (a child's copies: the parent's ranges were unwatched) */
        free(h->ranges[i]->src);
    free_source(d); /* (a child's copies of the descriptors are its own to close) */
}

static int dirty_watch(heat_t *h, heat_range_t *r)
{
    dirty_t *d = h->src;
    if (d->broken[0])
        return loci__fail(LOCI_EIO, "%s", d->broken);
    drange_t *dr = calloc(1, sizeof *dr);
    if (!dr)
        return loci__fail(LOCI_ENOMEM, "%s: out of memory watching %zu bytes", WHO, r->size);
    int rc = write_track_add(&d->wt, (void *)r->base, r->size);
    if (rc != 0) {
        free(dr);
        return rc;
    }
    r->src = dr; /* not armed: it joins at the next window */
    return 0;
}

static void dirty_unwatch(heat_t *h, heat_range_t *r)
{
    dirty_t *d = h->src;
    write_track_remove(&d->wt, (void *)r->base, r->size);
    free(r->src);
    r->src = NULL;
}

/* Close the open window now, so that this collect gets it (unless it just
 * opened); the next one ends an interval from now (or opens at once when it
 * spans the interval). */
static int dirty_refresh(heat_t *h)
{
    dirty_t *d = h->src;
    uint64_t until, now = clock_mono_ns();
    if (!d->broken[0] && heat__window_collect_closes(h, &d->w, now))
        close_window(h, d, true);
    else if (!d->w.open)
        heat__window_closed(h, &d->w, now, true);
    if (!d->broken[0] && heat__window_due(h, &d->w, clock_mono_ns(), &until) == HEAT_WINDOW_OPEN)
        open_window(h, d);
    pthread_cond_signal(&d->wake);
    return d->broken[0] ? loci__fail(LOCI_EIO, "%s", d->broken) : 0;
}

static double dirty_cpu(const heat_t *h)
{
    const dirty_t *d = h->src;
    return d->running ? heat__thread_cpu_s(d->thread) : 0;
}

static const char *dirty_how(const heat_t *h) { return write_track_how_name(((const dirty_t *)h->src)->wt.how); }

const heat_ops_t heat_dirty_ops = {
    .id = HEAT_SOURCE_DIRTY,
    .needs_base_pages = true, /* a huge page is protected, and written, as one */
    .min_window_us = 250, /* three system calls per granule a window: a fraction of a millisecond is fine */
    .how = dirty_how,
    .probe = dirty_probe,
    .open = dirty_open,
    .close = dirty_close,
    .watch = dirty_watch,
    .unwatch = dirty_unwatch,
    .refresh = dirty_refresh,
    .thread_cpu_seconds = dirty_cpu,
};
