/*
 * The tiering thread: started with the first auto arena, it opens the heat
 * source ([tiering] source, watch.c), and every interval keeps heat
 * watching exactly the auto arenas' extents, collects the heat and runs one
 * step (step.c). When the source stops working (heat_collect LOCI_EIO), or
 * its thread has not answered in time for LATE_LIMIT intervals in a row
 * (LOCI_EBUSY: an interval without heat, on a starved CPU), tiering pauses,
 * with one warning: data stays where it is and heat watches nothing. No source
 * at all: one warning, and auto arenas stay where they start (under their
 * budgets).
 *
 * loci_fini stops the thread first of all (tiering_fini). A forked child
 * has no thread and no usable heat source (its threads stayed in the
 * parent); it opens a new one when it creates its next auto arena.
 */
#include "tiering/tiering.h"
#include "clock.h"
#include "thread.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LATE_LIMIT 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_t thread;
static bool running, stopping, warned;
static tiering_config_t config;
static uint64_t started_ns; /* the thread's start, for `loci tier`'s share of a core */

static void init_wake(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
}

/* ---- the loop ---------------------------------------------------------------- */

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep one interval; false when told to stop. Under `lock`. */
static bool wait_interval(void)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += config.interval_ms / 1000;
    until.tv_nsec += (long)(config.interval_ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    while (!stopping && pthread_cond_timedwait(&wake, &lock, &until) == 0)
        ;
    return !stopping;
}

/* The heat source stopped working, or its thread has not answered for
 * LATE_LIMIT intervals: arenas stay where they are, and heat lets go of
 * every page it watches — sampled pages mapped back, nothing registered —
 * so that no thread of the program can wait on a fault that nobody serves. */
static void pause_tiering(void)
{
    loci__log(LOCI_LOG_WARN, "tiering paused: the %s heat source stopped working (%s); tier=auto arenas stay where "
                             "they are", tiering_source_name(), loci_last_error());
    tiering_lock();
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        tiering_unwatch(t);
    tiering_totals()->paused = true;
    tiering_unlock();
}

static void *run(void *arg)
{
    (void)arg;
    unsigned late = 0; /* intervals in a row whose heat did not come in time */
    pthread_mutex_lock(&lock);
    while (wait_interval()) {
        pthread_mutex_unlock(&lock);
        tiering_lock();
        for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
            tiering_watch(t);
        tiering_unlock();
        heat_sample_t *samples = NULL;
        size_t n = 0;
        int rc = tiering_watch_collect(&samples, &n);
        late = rc == LOCI_EBUSY ? late + 1 : 0;
        if (rc == 0)
            tiering_step(&config, samples, n);
        else if (late && late < LATE_LIMIT)
            loci__log(LOCI_LOG_DEBUG, "tiering: no heat this interval: %s", loci_last_error());
        free(samples);
        double cpu = thread_cpu_seconds();
        tiering_lock();
        tiering_totals()->cpu_seconds = cpu;
        tiering_unlock();
        if (rc == 0)
            tiering_publish(config.interval_ms, started_ns);
        pthread_mutex_lock(&lock);
        if (rc != 0 && (!late || late == LATE_LIMIT)) {
            pause_tiering();
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------------- */

int tiering_start(const tiering_config_t *c)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_wake);
    pthread_mutex_lock(&lock);
    int rc = 0;
    if (running || warned)
        goto out;
    config = *c;
    if (tiering_watch_open(c) != 0) {
        warned = true; /* once per process: every auto arena after it works the same */
        loci__log(LOCI_LOG_WARN, "tier=auto: no heat source works here, so auto arenas stay where they start "
                                 "(the best candidate with room under its budget): %s", loci_last_error());
        goto out;
    }
    int e = thread_start_quiet(&thread, run, NULL);
    if (e != 0) {
        tiering_watch_close();
        rc = loci__fail(LOCI_ENOMEM, "cannot start the tiering thread: %s", strerror(e));
        goto out;
    }
    running = true;
    stopping = false;
    started_ns = clock_mono_ns();
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

void tiering_fini(void)
{
    pthread_mutex_lock(&lock);
    bool was = running;
    stopping = true;
    if (running)
        pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    if (was)
        pthread_join(thread, NULL);
    tiering_unpublish(false);
    tiering_ledger_leave(false);
    pthread_mutex_lock(&lock);
    tiering_watch_close();
    running = stopping = warned = false;
    pthread_mutex_unlock(&lock);
    tiering_profile_save(); /* what the arenas learned, before their records go */
    tiering_profile_reset();
    tiering_registry_clear();
    tiering_step_reset();
}

void tiering_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_PREPARE)
        pthread_mutex_lock(&lock);
    tiering_watch_fork(phase);
    tiering_publish_fork(phase); /* before the registry's lock: publishing takes it inside its own */
    tiering_registry_fork(phase);
    tiering_ledger_fork(phase); /* after the registry's lock: the step shares under it */
    if (phase == LOCI_FORK_CHILD) { /* the parent's thread did not come along */
        running = stopping = false;
        init_wake();
    }
    if (phase != LOCI_FORK_PREPARE)
        pthread_mutex_unlock(&lock);
}
