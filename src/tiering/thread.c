/*
 * The tiering thread: started with the first auto arena, it opens the heat
 * source ([tiering] source), and every interval keeps heat watching exactly
 * the auto arenas' extents (they come and go with the pool), collects the
 * heat and runs one step (step.c). When the source stops working
 * (heat_collect LOCI_EIO) tiering pauses, with one warning, and data stays
 * where it is. No source at all: one warning, and auto arenas stay where
 * they start (under their budgets).
 *
 * loci_fini stops the thread first of all (tiering_fini). A forked child
 * has no thread and no usable heat source (its threads stayed in the
 * parent); it opens a new one when it creates its next auto arena.
 */
#include "tiering/tiering.h"
#include "clock.h"
#include "grow.h"
#include "thread.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_t thread;
static bool running, stopping, warned;
static heat_t *heat;
static heat_t *forked; /* a child's copy of its parent's heat: closed when the child opens its own */
static tiering_config_t config;
static double cpu_seconds;
static uint64_t started_ns; /* the thread's start, for `loci tier`'s share of a core */

static void init_wake(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_condattr_destroy(&a);
}

/* ---- heat watches the auto arenas' extents, exactly ------------------------- */

typedef struct {
    tier_span_t *v;
    size_t n, cap;
} spans_t;

static int add_span(void *base, size_t size, void *arg)
{
    spans_t *s = arg;
    tier_span_t *v = grow_for_one(s->v, s->n, &s->cap, sizeof *v, 16);
    if (!v)
        return LOCI_ENOMEM;
    s->v = v;
    s->v[s->n++] = (tier_span_t){base, size};
    return 0;
}

static int by_base(const void *pa, const void *pb)
{
    const tier_span_t *a = pa, *b = pb;
    return a->base < b->base ? -1 : a->base > b->base;
}

static bool same(const tier_span_t *a, const tier_span_t *b) { return a->base == b->base && a->size == b->size; }

/* t's extents now against what heat watches of it: the difference watched
 * or unwatched, both lists sorted by address. Under the registry lock. */
static void sync_one(tier_arena_t *t)
{
    spans_t now = {0};
    if (t->ar->res.ncandidates < 2) /* it cannot move: nothing to measure (create.c) */
        return;
    if (pool_heap_foreach_extent(t->ar->heap, add_span, &now) != 0) {
        free(now.v);
        return; /* out of memory: as it was, next interval again */
    }
    if (now.n) /* qsort's base may not be NULL, even for none */
        qsort(now.v, now.n, sizeof *now.v, by_base);
    size_t i = 0, j = 0;
    while (i < t->nwatched || j < now.n) {
        if (j == now.n || (i < t->nwatched && t->watched[i].base < now.v[j].base) ||
            (i < t->nwatched && t->watched[i].base == now.v[j].base && !same(&t->watched[i], &now.v[j]))) {
            heat_unwatch(heat, t->watched[i].base, t->watched[i].size);
            i++;
        } else if (i < t->nwatched && same(&t->watched[i], &now.v[j])) {
            i++, j++;
        } else {
            if (heat_watch(heat, now.v[j].base, now.v[j].size, t->id) != 0)
                loci__log(LOCI_LOG_DEBUG, "tiering: heat cannot watch %p of arena \"%s\": %s", now.v[j].base,
                          t->ar->intent, loci_last_error());
            j++;
        }
    }
    free(t->watched);
    t->watched = now.v;
    t->nwatched = now.n;
    t->cap_watched = now.cap;
}

void tiering_unwatch(tier_arena_t *t)
{
    for (size_t i = 0; heat && i < t->nwatched; i++)
        heat_unwatch(heat, t->watched[i].base, t->watched[i].size);
    t->nwatched = 0;
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

static void *run(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (wait_interval()) {
        pthread_mutex_unlock(&lock);
        tiering_lock();
        for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
            sync_one(t);
        tiering_unlock();
        heat_sample_t *samples = NULL;
        size_t n = 0;
        int rc = heat_collect(heat, &samples, &n);
        if (rc == 0)
            tiering_step(&config, samples, n);
        free(samples);
        cpu_seconds = thread_cpu_seconds();
        if (rc == 0)
            tiering_publish(config.interval_ms, started_ns);
        pthread_mutex_lock(&lock);
        if (rc != 0) {
            loci__log(LOCI_LOG_WARN, "tiering paused: the %s heat source stopped working (%s); tier=auto arenas "
                                     "stay where they are", heat_source_name(heat_source(heat)), loci_last_error());
            tiering_lock();
            tiering_totals()->paused = true;
            tiering_unlock();
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
    if (forked)
        heat_close(forked);
    forked = NULL;
    heat_config_t hc = {.interval_ms = c->interval_ms, .sample_share = c->sample, .only = c->source};
    if (heat_open(&hc, &heat) != 0) {
        warned = true; /* once per process: every auto arena after it works the same */
        loci__log(LOCI_LOG_WARN, "tier=auto: no heat source works here, so auto arenas stay where they start "
                                 "(the best candidate with room under its budget): %s", loci_last_error());
        heat = NULL;
        goto out;
    }
    int e = thread_start_quiet(&thread, run, NULL);
    if (e != 0) {
        heat_close(heat);
        heat = NULL;
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

bool tiering_shared_memory(void)
{
    pthread_mutex_lock(&lock);
    bool shared = heat && heat_needs_shared_memory(heat);
    pthread_mutex_unlock(&lock);
    return shared;
}

bool tiering_base_pages(void)
{
    pthread_mutex_lock(&lock);
    bool base = heat && heat_needs_base_pages(heat);
    pthread_mutex_unlock(&lock);
    return base;
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
    pthread_mutex_lock(&lock);
    if (heat)
        heat_close(heat);
    if (forked)
        heat_close(forked);
    heat = forked = NULL;
    running = stopping = warned = false;
    cpu_seconds = 0;
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
    tiering_publish_fork(phase); /* before the registry's lock: publishing takes it inside its own */
    tiering_registry_fork(phase);
    if (phase == LOCI_FORK_CHILD) { /* the parent's thread and heat's threads did not come along */
        running = stopping = false;
        forked = heat;
        heat = NULL;
        init_wake();
    }
    if (phase != LOCI_FORK_PREPARE)
        pthread_mutex_unlock(&lock);
}

const char *tiering_source_name(void)
{
    return heat ? heat_source_name(heat_source(heat)) : "none";
}

double tiering_heat_cpu_seconds(void)
{
    return cpu_seconds + (heat ? heat_cpu_seconds(heat) : 0);
}
