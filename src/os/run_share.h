/*
 * How much of the time it could run the process did run: summed over its
 * threads, the time each spent on a CPU against that and the time it waited
 * on a run queue for one, between two readings — the scheduler's own
 * accounting (/proc/self/task/TID/schedstat, CONFIG_SCHED_INFO: every
 * Debian kernel), no privilege needed. A thread asleep counts neither way: a
 * program waiting for I/O or a message is not starved; one with more
 * runnable threads than the CPUs it may use is. The heat layer reads it: a
 * process starved of CPU touches its memory less than it does as it runs
 * (heat.c).
 */
#ifndef LOCI_OS_RUN_SHARE_H
#define LOCI_OS_RUN_SHARE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    pid_t tid;
    uint64_t ran_ns, waited_ns;
} run_thread_t;

/** The last reading, kept for the next: zero-initialised before the first
 *  (a reading holds one thread at least). */
typedef struct {
    run_thread_t *threads; /* sorted by tid */
    size_t n;
} run_share_t;

/** The share of the time since the last call that the process's threads,
 *  while runnable, ran: in [0, 1]; -1 when unknown (the first call, no
 *  schedstat, out of memory, or no thread ran or waited since). Threads
 *  born since count from their start; those gone since are left out. Not
 *  thread-safe: one caller per run_share_t. */
double run_share_next(run_share_t *r);

void run_share_free(run_share_t *r);

#endif
