/*
 * What the heat layer's files share (src/heat only): the measurement object,
 * its watched ranges with their per-granule counts, and the ops table each
 * source fills.
 *
 * The files call each other one way, each only files listed before it:
 * heat_base (what the others share: ranges, refusals, the window's
 * schedule); the sources perf, damon, faults and dirty, each an ops table
 * that calls none of the others; heat (the watched ranges, the source chosen
 * by trying the sources' tables in trust order, the window adapted). As in
 * mm/damon, what the sources share lies below them, and none calls heat.c.
 */
#ifndef LOCI_HEAT_INTERNAL_H
#define LOCI_HEAT_INTERNAL_H

#include "heat/heat.h"
#include "os/run_share.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

/** What a granule's heat rests on since the last collect: `hits` of `obs`
 *  observations found it accessed (fractional for DAMON's regions). */
typedef struct {
    double hits;
    uint64_t obs;
} heat_count_t;

typedef struct {
    uintptr_t base;
    size_t size;
    uint64_t tag;
    size_t ngranules;
    heat_count_t *counts; /* ngranules */
    void *src;            /* the source's own state for the range */
} heat_range_t;

typedef struct {
    uintptr_t base;
    size_t size;
} heat_span_t;

struct heat {
    pthread_mutex_t lock; /* the ranges, their counts, the source's state, the holds */
    struct heat *next_opened; /* the process's measurements (heat.c, for heat_hold) */
    heat_span_t *held;        /* ranges held still (heat_hold), one entry per hold */
    size_t nheld, cap_held;
    heat_config_t cfg;
    const struct heat_ops *ops;
    void *src;   /* the source's own state */
    pid_t owner; /* the process that opened it: a fork's child may not use it */
    heat_range_t **ranges; /* sorted by base, none overlapping */
    size_t nranges, cap;
    _Atomic uint64_t collect_cpu_ns; /* CPU the collecting threads spent in the source (refresh) */
    _Atomic uint64_t window_us;      /* the window its adaptation wants (heat.c); in force: heat__window_us */
    _Atomic uint64_t window_most_us; /* 0, or the longest window in force (heat_limit_window) */
    run_share_t ran;     /* the process's share of the time it could run, read at each collect (heat.c) */
    double usual_share;  /* its share as it usually runs: the highest of late, falling slowly (heat.c) */
    char skipped[1024];
};

/** A source. probe and open get why[len] to explain a refusal. Under h->lock:
 *  watch, unwatch, refresh. */
typedef struct heat_ops {
    heat_source_t id;
    bool needs_shared_memory;
    bool needs_base_pages; /* sees a transparent huge page as one page (heat_needs_base_pages) */
    uint64_t min_window_us;   /* the shortest window it observes in */
    /** How it sees (heat_how); NULL: one way only. */
    const char *(*how)(const heat_t *h);
    /** Could it work here? 0, or LOCI_E* with the reason in why: cheap, and
     *  leaves nothing behind. */
    int (*probe)(const heat_config_t *cfg, char *why, size_t len);
    /** Start it (h->cfg is set): 0, or LOCI_E* with the reason in why. */
    int (*open)(heat_t *h, char *why, size_t len);
    /** Stop it: its threads joined, the kernel's state undone, the ranges
     *  already unwatched. `in_child`: a fork's child, where nothing of the
     *  parent's may be stopped, only this copy freed. */
    void (*close)(heat_t *h, bool in_child);
    /** r is set up (counts zeroed) and in h->ranges already (taken out
     *  again on failure). 0 or LOCI_E*. */
    int (*watch)(heat_t *h, heat_range_t *r);
    /** Before r leaves h->ranges: leave the memory as it was. */
    void (*unwatch)(heat_t *h, heat_range_t *r);
    /** [base, +size), inside r, is held still from now (heat_hold): map
     *  back what the source unmapped there, forget its samples of this
     *  window. NULL: the source unmaps nothing. */
    void (*hold)(heat_t *h, heat_range_t *r, uintptr_t base, size_t size);
    /** Bring the counts up to the present (heat_collect): 0, or LOCI_EIO
     *  with a message when the source stopped working. */
    int (*refresh)(heat_t *h);
    /** CPU seconds of the source's own threads (0 without). */
    double (*thread_cpu_seconds)(const heat_t *h);
} heat_ops_t;

/* --- what the sources and heat.c share (heat_base.c) --------------------- */

/** Index in h->ranges of the first range whose base is >= addr: where a range
 *  starting at addr is, or would go (under h->lock). */
size_t heat__range_index(const heat_t *h, uintptr_t addr);

/** The watched range holding addr, or NULL (under h->lock). */
heat_range_t *heat__range_of(const heat_t *h, uintptr_t addr);

/** Whether any of [base, +size) is held still (heat_hold): a source
 *  samples none of it (under h->lock). */
bool heat__held(const heat_t *h, uintptr_t base, size_t size);

/** The granule of r holding addr (addr inside r). */
static inline size_t heat__granule_of(const heat_range_t *r, uintptr_t addr)
{
    return (addr - r->base) / HEAT_GRANULE;
}

/** Bytes of granule g of r. */
static inline size_t heat__granule_size(const heat_range_t *r, size_t g)
{
    size_t left = r->size - g * HEAT_GRANULE;
    return left < HEAT_GRANULE ? left : HEAT_GRANULE;
}

/** A granule's `heat` (the share of its observations that found it touched)
 *  as it would have read over `ratio` times the time its process ran — a
 *  page touched at a rate r is found touched with chance 1 - e^(-r t), so
 *  1 - (1 - heat)^ratio — with ratio at most HEAT_MOST_CORRECTION. */
#define HEAT_MOST_CORRECTION 4.0
double heat__as_if_ran(double heat, double ratio);

/** CPU seconds a thread has used (its CPU clock); 0 when it cannot be read. */
double heat__thread_cpu_s(pthread_t thread);

/** text_first_line (util/text_file.h) for use inside an expression:
 *  returns buf ("" when the file cannot be read). */
const char *heat__read_line(const char *path, char *buf, size_t len);

/** Write the reason of a refusal into why[len] (printf-style) and return code. */
int heat__refuse(char *why, size_t len, int code, const char *fmt, ...) LOCI_PRINTF(4, 5);

/** The window an observation watches a page for now (heat.c adapts it,
 *  within heat_limit_window's and the interval), in
 *  microseconds, at most the interval. */
uint64_t heat__window_us(const heat_t *h);

/** The windows of a source that watches in windows of its own timing
 *  (faults, dirty): one per interval, its last heat_window_us, so that it
 *  ends when the collector comes; a collect that comes earlier ends it then
 *  (refresh) — unless it opened less than half a window ago (its thread
 *  woke late on a busy machine: so short a window would read everything
 *  cold), then it runs its length and the next collect gets it — and the
 *  next starts a window before the next collect is due. */
typedef struct {
    bool open;
    uint64_t opened_ns; /* when the one open now started */
    uint64_t next_ns;   /* when the next starts */
} heat_window_t;

/** A window schedule whose first window ends an interval from now. */
void heat__window_init(const heat_t *h, heat_window_t *w);

/** What the source's thread does now: HEAT_WINDOW_OPEN or HEAT_WINDOW_CLOSE
 *  one, or HEAT_WINDOW_WAIT until *until (CLOCK_MONOTONIC ns). */
typedef enum { HEAT_WINDOW_WAIT, HEAT_WINDOW_OPEN, HEAT_WINDOW_CLOSE } heat_window_due_t;
heat_window_due_t heat__window_due(const heat_t *h, const heat_window_t *w, uint64_t now, uint64_t *until);

/** Whether a collect at `now` closes the open window (see above). */
bool heat__window_collect_closes(const heat_t *h, const heat_window_t *w, uint64_t now);

/** The source opened / closed the window at `now`; `collected`: by a
 *  collect, closing the window or finding none open (the next then ends an
 *  interval from now). */
void heat__window_opened(heat_window_t *w, uint64_t now);
void heat__window_closed(const heat_t *h, heat_window_t *w, uint64_t now, bool collected);

/* --- the perf source's parts that need no PMU (perf.c) ------------------- */

/** The events the perf source samples with: one per PMU (a hybrid Intel
 *  CPU's two core types), `what` for messages. */
typedef struct {
    int nevents;
    struct {
        char pmu[32];
        struct perf_event_attr attr;
    } events[2];
    char what[96];
    int paranoid;
} heat_perf_choice_t;

/** Choose the events from the PMUs under `devices` (/sys/bus/event_source/
 *  devices) and the `paranoid_file` (/proc/sys/kernel/perf_event_paranoid),
 *  `privileged`: CAP_PERFMON or CAP_SYS_ADMIN. 0, or LOCI_E* with why. */
int heat__perf_choose(const char *devices, const char *paranoid_file, bool privileged, heat_perf_choice_t *c,
                      char *why, size_t len);

/** Bin the records of a ring's data area (`size` bytes, a power of two),
 *  from `tail` to `head`: the data address of each sample of this process
 *  (forked children inherit the events; their samples are dropped) into the
 *  page of the watched range it falls in; lost samples counted into *lost.
 *  Under h->lock. */
void heat__perf_records(heat_t *h, const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head, uint64_t *lost);

/** One data address binned (heat__perf_records' step). */
void heat__perf_bin(heat_t *h, uintptr_t addr);

/** Close the interval: each granule's sampled pages become its counts. */
void heat__perf_end_interval(heat_t *h);

/* --- the sources (perf.c, damon.c, faults.c, dirty.c) and their user (heat.c) */

extern const heat_ops_t heat_perf_ops, heat_damon_ops, heat_faults_ops, heat_dirty_ops;

/** heat.c: a measurement by `ops` whose source is not opened (src NULL: no
 *  event, thread or kdamond), for tests that feed its bookkeeping by hand. */
int heat__open_unstarted(const heat_ops_t *ops, const heat_config_t *cfg, heat_t **out);

#endif
