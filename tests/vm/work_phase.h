/* A test phase of a tiered program counted in *intervals of work* (vm_tiering.c, tests/tier/gups.c):
 * the hot set of its updates must reach the fast node within DEADLINE_INTERVALS of the phase's start.
 *
 * An interval counts only when tiering ran one AND the program made WORK_PER_INTERVAL updates in it. A
 * loaded host stretches both — the tiering thread sleeps an interval after each step, a step's moves
 * take 0.3 s or more a 4 MiB arena under TCG — and starves the emulated VM's program: a vCPU waiting
 * for the host makes few updates, each fault the faults source takes waiting for its sampler thread's
 * vCPU (417 updates a second against 50,000 at a host load of 5). An interval in which the program
 * hardly ran says nothing of where its hot set belongs.
 *
 * A phase ends STAY_INTERVALS after its hot set got there, or after PHASE_INTERVALS: at the check that
 * finds that many intervals of work done, not at the next one. Whatever the work, it ends at PHASE_CAP
 * times its nominal time (PHASE_INTERVALS of tiering's interval); one that ends so without
 * DEADLINE_INTERVALS of work and without the hot set placed is *starved*: no verdict, said so, and the
 * program exits 77 unless another check failed. */
#ifndef LOCI_VM_WORK_PHASE_H
#define LOCI_VM_WORK_PHASE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define PHASE_INTERVALS 15 /* 10 to get there, 5 to stay */
#define DEADLINE_INTERVALS 10
#define STAY_INTERVALS 5
#define WORK_PER_INTERVAL 10000 /* updates: under half of what a paced phase makes in an interval in an idle VM */
#define PHASE_CAP 6

typedef struct {
    double start, interval_s; /* CLOCK_MONOTONIC seconds; tiering's interval */
    uint64_t tiering_first, updates_first; /* the program's counts when the phase began */
    uint64_t done; /* intervals of work */
    long placed_at; /* intervals of work done when the hot set was first seen placed; -1: not yet */
} work_phase_t;

typedef enum { WORK_PHASE_IN_TIME, WORK_PHASE_LATE, WORK_PHASE_NEVER, WORK_PHASE_STARVED } work_phase_verdict_t;

static inline double work_phase_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double work_phase_seconds(const work_phase_t *p) { return work_phase_clock() - p->start; }

/* `tiering_intervals`: tiering's intervals so far; `updates`: the program's. */
static inline void work_phase_begin(work_phase_t *p, double interval_s, uint64_t tiering_intervals, uint64_t updates)
{
    *p = (work_phase_t){.start = work_phase_clock(), .interval_s = interval_s, .tiering_first = tiering_intervals,
                        .updates_first = updates, .placed_at = -1};
}

/* Intervals of work done, from the same counts now: the fewer of tiering's intervals and of
 * WORK_PER_INTERVAL updates since the phase began. */
static inline uint64_t work_phase_update(work_phase_t *p, uint64_t tiering_intervals, uint64_t updates)
{
    uint64_t tiering = tiering_intervals - p->tiering_first, work = (updates - p->updates_first) / WORK_PER_INTERVAL;
    p->done = tiering < work ? tiering : work;
    return p->done;
}

/* The hot set placed or not at this check: false when it was placed before and, past the deadline, left again. */
static inline bool work_phase_check(work_phase_t *p, bool placed)
{
    if (placed && p->placed_at < 0)
        p->placed_at = (long)p->done;
    return placed || p->placed_at < 0 || p->done <= DEADLINE_INTERVALS;
}

static inline bool work_phase_goes_on(const work_phase_t *p)
{
    return p->done < PHASE_INTERVALS && (p->placed_at < 0 || p->done < (uint64_t)p->placed_at + STAY_INTERVALS) &&
           work_phase_seconds(p) < PHASE_CAP * PHASE_INTERVALS * p->interval_s;
}

static inline work_phase_verdict_t work_phase_verdict(const work_phase_t *p)
{
    if (p->placed_at < 0)
        return p->done < DEADLINE_INTERVALS ? WORK_PHASE_STARVED : WORK_PHASE_NEVER;
    return p->placed_at <= DEADLINE_INTERVALS ? WORK_PHASE_IN_TIME : WORK_PHASE_LATE;
}

/* The exit status of `program` whose checks passed but `starved` phases had no verdict (says so). */
static inline int work_phase_skip(const char *program, int starved)
{
    fprintf(stderr, "%s: skipped: %d phase(s) starved of CPU by the host (above): no verdict\n", program, starved);
    return 77;
}

#endif
