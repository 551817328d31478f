/*
 * Tiering's heat source and what it watches: the one heat instance of the
 * process (opened for the tiering thread, closed by loci_fini), kept
 * watching exactly each auto arena's extents (they come and go with the
 * pool), and what the source needs of the memory it watches (shared
 * memory, base pages). A forked child keeps its parent's instance, unusable
 * there (its threads stayed in the parent), until it opens its own.
 */
#include "tiering/tiering.h"
#include "grow.h"

#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* heat and forked change under it */
static heat_t *heat;
static heat_t *forked; /* a child's copy of its parent's heat: closed when the child opens its own */

int tiering_watch_open(const tiering_config_t *c)
{
    pthread_mutex_lock(&lock);
    if (forked)
        heat_close(forked);
    forked = NULL;
    heat_config_t hc = {.interval_ms = c->interval_ms, .sample_share = c->sample, .only = c->source};
    int rc = heat_open(&hc, &heat);
    if (rc != 0)
        heat = NULL;
    pthread_mutex_unlock(&lock);
    return rc;
}

void tiering_watch_close(void)
{
    pthread_mutex_lock(&lock);
    if (heat)
        heat_close(heat);
    if (forked)
        heat_close(forked);
    heat = forked = NULL;
    pthread_mutex_unlock(&lock);
}

void tiering_watch_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_CHILD) { /* heat's threads did not come along */
        forked = heat;
        heat = NULL;
    }
    loci__fork_mutex(&lock, phase);
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

int tiering_watch_collect(heat_sample_t **samples, size_t *n) { return heat_collect(heat, samples, n); }

const char *tiering_source_name(void)
{
    return heat ? heat_source_name(heat_source(heat)) : "none";
}

double tiering_heat_cpu_seconds(void) { return heat ? heat_cpu_seconds(heat) : 0; }

uint64_t tiering_wanted_window_us(void) { return heat ? heat_wanted_window_us(heat) : 0; }

void tiering_limit_window(uint64_t most_us)
{
    if (heat)
        heat_limit_window(heat, most_us);
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

void tiering_watch(tier_arena_t *t)
{
    spans_t now = {0};
    if (t->ar->res.ncandidates < 2) /* it cannot move: nothing to measure (create.c) */
        return;
    if (arena_foreach_extent(t->ar, add_span, &now) != 0) {
        free(now.v);
        return; /* out of memory: as it was, next interval again */
    }
    if (now.n) /* qsort's base may not be NULL, even for none */
        qsort(now.v, now.n, sizeof *now.v, by_base);
    /* t's extents now against what heat watches of it: the difference
     * watched or unwatched, both lists sorted by address */
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
