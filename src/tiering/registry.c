/*
 * The auto arenas of this process and the tiering totals, under one lock:
 * what the tiering thread plans over and moves, what loci_tier_stats and
 * `loci tier` read. The thread marks a record busy while it moves that
 * arena (without the lock, so that creating and destroying other arenas
 * never waits for a move); destroying it waits until it is idle.
 */
#include "tiering/tiering.h"
#include "list.h"

#include <math.h>
#include <stdlib.h>

#define SMOOTHING 0.5          /* weight of the last interval in a heat */
#define SPREAD_SMOOTHING 0.125 /* ... and of its step in the spread (its noise; slow, so that a step in heat
                                * does not read as noise for long) */
/* The share of its fall a held heat takes each interval. An incumbent counted with its smoothed
 * heat lost its place to another process's arena as hot as it when its process was starved of CPU
 * for two intervals (5 processes and their tiering threads on the VM's 2 CPUs): both its hot
 * arenas read half their heat, the other's took one place, and when the node had room again 4
 * intervals later it came back — ping-pong (node test, 6.1 and 6.12, 3 runs in 24). Held, a true
 * fall (a hot set that moved on) reaches the plan an interval later. */
#define HELD_FALL 0.5
/* A step between two intervals' heats, as a deviation from the smoothed heat: for readings that
 * stray independently by s, the step strays by s * sqrt(2), the deviation from the heat before it
 * by s * sqrt(1 + SMOOTHING / (2 - SMOOTHING)) — so the spread reads the same of noise. */
#define STEP_AS_DEVIATION 0.8165

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static tier_arena_t *arenas;
static tier_totals_t totals;
static uint64_t next_id = 1;

void tiering_lock(void) { pthread_mutex_lock(&lock); }
void tiering_unlock(void) { pthread_mutex_unlock(&lock); }

void tiering_wait_idle(tier_arena_t *t)
{
    while (t->busy)
        pthread_cond_wait(&idle, &lock);
}

void tiering_set_idle(tier_arena_t *t)
{
    t->busy = false;
    pthread_cond_broadcast(&idle);
}

/* The spread is fed each interval's step from the last reading, not its deviation from the smoothed
 * heat: after a step in heat, the smoothed heat lags behind for intervals, and every one of them read
 * as noise — a hot set that moved read 0.75 +- 0.2 and its predecessor 0.15 +- 0.2 for 5 intervals,
 * the noise alone holding it there (vm_parts, 6.12). A step reads as noise once so. */
void tiering_track_heat(tier_track_t *k, double now)
{
    if (k->heat_seen)
        k->spread = SPREAD_SMOOTHING * STEP_AS_DEVIATION * fabs(now - k->last) + (1 - SPREAD_SMOOTHING) * k->spread;
    k->before = k->heat_seen ? k->heat : now;
    k->heat = k->heat_seen ? SMOOTHING * now + (1 - SMOOTHING) * k->heat : now;
    k->held = k->heat_seen && k->heat < k->held ? k->held + HELD_FALL * (k->heat - k->held) : k->heat;
    k->last = now;
    k->heat_seen = true;
}

bool tiering_track_moved(tier_track_t *k, const struct loci_target *from, const struct loci_target *to,
                         uint64_t interval, unsigned within)
{
    bool back = k->left == to && interval - k->moved_at <= within;
    k->left = from;
    k->moved_at = interval;
    k->residence = 0;
    k->rent = 0;
    k->held = k->heat; /* what it held before the move is no claim to its new place */
    return back;
}

tier_arena_t *tiering_arenas(void) { return arenas; }
tier_totals_t *tiering_totals(void) { return &totals; }

int tiering_register(loci_arena_t *ar)
{
    tier_arena_t *t = calloc(1, sizeof *t);
    if (!t)
        return loci__fail(LOCI_ENOMEM, "out of memory registering an auto arena");
    t->ar = ar;
    t->seen = loci_arena_target(ar);
    pthread_mutex_lock(&lock);
    t->id = next_id++;
    DLIST_PUSH(arenas, t, next, prev);
    pthread_mutex_unlock(&lock);
    return 0;
}

tier_arena_t *tiering_find(const loci_arena_t *ar)
{
    for (tier_arena_t *t = arenas; t; t = t->next)
        if (t->ar == ar)
            return t;
    return NULL;
}

tier_arena_t *tiering_unregister(loci_arena_t *ar)
{
    tier_arena_t *t = tiering_find(ar);
    if (!t)
        return NULL;
    tiering_wait_idle(t);
    tiering_unwatch(t); /* before its memory goes: heat must not sample what is mapped there next */
    DLIST_UNLINK(arenas, t, next, prev);
    return t;
}

void tiering_record_free(tier_arena_t *t)
{
    tiering_site_free(&t->site);
    free(t->watched);
    free(t->parts);
    free(t);
}

void tiering_registry_clear(void)
{
    pthread_mutex_lock(&lock);
    while (arenas) {
        tier_arena_t *t = arenas;
        DLIST_UNLINK(arenas, t, next, prev);
        tiering_record_free(t);
    }
    totals = (tier_totals_t){0};
    pthread_mutex_unlock(&lock);
}

void tiering_registry_fork(loci_fork_phase_t phase)
{
    loci__fork_mutex(&lock, phase);
    if (phase != LOCI_FORK_CHILD)
        return;
    /* the child has no tiering thread: nothing is busy, and heat (opened
     * again when the thread starts again) watches nothing yet */
    pthread_cond_init(&idle, NULL);
    for (tier_arena_t *t = arenas; t; t = t->next) {
        t->busy = false;
        t->nwatched = 0;
    }
}
