/*
 * What bench_tiering measures from outside the placement being measured,
 * the same way for every mode (tracker.c): each page's node every interval
 * (move_pages), from which the hot set's residency on the fast node, the
 * bytes that changed node and those that went back within 10 intervals
 * (ping-pong); and CPU time — the process's, loci's tiering thread's (when
 * loci is loaded), the kernel threads' that tier (kdamond, kswapd).
 */
#ifndef LOCI_BENCH_TIERING_TRACKER_H
#define LOCI_BENCH_TIERING_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PINGPONG_INTERVALS 10

typedef struct {
    size_t pages;          /* of all arrays together */
    int *node;             /* last known node of each page (-1: never seen) */
    int *left;             /* the node its last move left */
    int *moved_at;         /* interval of its last move */
    int *now;              /* this interval's move_pages answers */
    uint64_t moved, pingpong; /* bytes, since the start */
} tracker_t;

typedef struct {
    double user, sys;      /* the process's (all its threads) */
    double loci;           /* loci's tiering thread and heat source (loci_tier_totals), 0 without loci */
    double kernel;         /* kdamond* and kswapd* threads, since the start */
} cpu_t;

int tracker_init(tracker_t *t, size_t pages);
/** Read every page's node: arrays[a] spans `bytes`; interval i. Counts
 *  moves and ping-pong; returns the number of pages whose node is known. */
size_t tracker_scan(tracker_t *t, void *const *arrays, int narrays, size_t bytes, int interval);
/** The share (0..1) of the known pages of arrays [first, first + n) on node. */
double tracker_share_on(const tracker_t *t, int first, int n, size_t pages_per_array, int node, size_t *known);
/** Bytes of arrays [first, first + n) on node. */
uint64_t tracker_bytes_on(const tracker_t *t, int first, int n, size_t pages_per_array, int node);

/** utime + stime of process `pid` (all its threads), seconds (/proc/PID/stat). */
double tracker_proc_cpu(int pid);
/** The same of the kdamond* and kswapd* threads: the kernel's tiering work outside the process. */
double tracker_kernel_cpu(void);
/** CPU times now. */
void cpu_now(cpu_t *c);
/** loci's tiering totals when libloci is in the process (dlsym): the source
 *  name and moved bytes; false without loci or without auto arenas. */
bool loci_totals(const char **source, uint64_t *moved, uint64_t *pingpong);

#endif
