/*
 * Creation and caching of allocator objects. SharP's MPI path lost ~7 us per
 * call re-resolving intents, so objects are cached: first by the exact text
 * and initiator (no parsing at all), then by the canonical text (equivalent
 * spellings share one object). Objects live until loci_fini: their memory
 * stays valid after loci_allocator_destroy. When targets appear or go away
 * at run time (topo_refresh), every object resolves its intent again and
 * takes the new plan (replan_all): callers keep their pointers.
 */
#include "alloc/allocator.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_BUCKETS 256

typedef struct alias {
    char *text;              /* the intent as the caller wrote it */
    int initiator;
    loci_allocator_t *allocator;
    struct alias *next;
} alias_t;

static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER; /* a candidate's heap, made on first use */
static alias_t *aliases[CACHE_BUCKETS];
static loci_allocator_t *allocators; /* every object, newest first */

static unsigned hash(const char *s, int initiator)
{
    unsigned h = 2166136261u ^ (unsigned)initiator;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % CACHE_BUCKETS;
}

static loci_allocator_t *find_alias(const char *text, int initiator)
{
    for (alias_t *a = aliases[hash(text, initiator)]; a; a = a->next)
        if (a->initiator == initiator && strcmp(a->text, text) == 0)
            return a->allocator;
    return NULL;
}

static int add_alias(const char *text, int initiator, loci_allocator_t *allocator)
{
    alias_t *a = malloc(sizeof *a);
    if (!a || !(a->text = strdup(text))) {
        free(a);
        return loci__fail(LOCI_ENOMEM, "out of memory caching intent \"%s\"", text);
    }
    unsigned b = hash(text, initiator);
    *a = (alias_t){a->text, initiator, allocator, aliases[b]};
    aliases[b] = a;
    return 0;
}

void allocator_file_mode(const resolution_t *res, place_t *out)
{
    out->file_mode = res->mode != MODE_PAGED ? FILE_MMAP : res->mode_forced ? FILE_PAGED_ONLY : FILE_PAGED;
    out->cache = res->cache;
    out->chunk = res->chunk;
    out->object = res->object;
    out->dirty_limit = res->dirty_limit;
    out->dirty_background = res->dirty_background;
}

void allocator_place(const resolution_t *res, int i, place_t *out)
{
    const struct loci_target *tg = res->candidates[i];
    memset(out, 0, sizeof *out);
    out->target = tg;
    out->pinned = res->pinned;
    out->shared = res->access != ACCESS_PROCESS;
    out->simulated = (tg->flags & LOCI_TARGET_SIMULATED) != 0;
    out->managed = res->managed;
    out->gpu_pinned = res->gpu_pinned;
    out->cuda_device = tg->cuda_device;
    if (tg->numa_node < 0) {
        allocator_file_mode(res, out);
        return;
    }
    if (res->partition == PARTITION_INTERLEAVE) {
        /* pages round-robin over every NUMA candidate, weighted by the kernel's
         * interleave weights where it has them (interleave.c) */
        out->policy = PLACE_WEIGHTED_INTERLEAVE;
        for (int k = 0; k < res->ncandidates; k++) {
            int node = res->candidates[k]->numa_node;
            if (node >= 0 && node < PLACE_MAX_NODES)
                out->nodemask[node / 64] |= 1ull << (node % 64);
        }
        interleave_check(out, res->initiator);
        return;
    }
    /* constraints bind; hints prefer, and loci's own fallback picks the next
     * candidate when the pool sees the node full */
    out->policy = res->strict ? PLACE_BIND : PLACE_PREFERRED;
    out->nodemask[tg->numa_node / 64] |= 1ull << (tg->numa_node % 64);
}

pool_heap_t *allocator_plan_heap(loci_allocator_t *a, allocator_plan_t *p, int i)
{
    pool_heap_t *h = atomic_load_explicit(&p->heaps[i], memory_order_acquire);
    if (h)
        return h;
    pthread_mutex_lock(&create_lock);
    h = atomic_load_explicit(&p->heaps[i], memory_order_acquire);
    if (!h) {
        place_t place;
        allocator_place(&p->res, i, &place);
        const provider_ops_t *ops = provider_for_place(&place);
        if (!ops)
            loci__fail(LOCI_ENOTSUP, "no provider can place memory on %s%s", place.target->name,
                       place.shared ? " shareably" : "");
        else if ((h = pool_heap_create(ops, &place, a))) {
            if (i == 0)
                pool_heap_set_on_fail(h, allocator_on_fail);
            atomic_store_explicit(&p->heaps[i], h, memory_order_release);
        }
    }
    pthread_mutex_unlock(&create_lock);
    return h;
}

pool_heap_t *allocator_heap(loci_allocator_t *a, int i)
{
    return allocator_plan_heap(a, atomic_load_explicit(&a->plan, memory_order_acquire), i);
}

static loci_allocator_t *make(const intent_t *in, int initiator)
{
    loci_allocator_t *a = calloc(1, sizeof *a);
    allocator_plan_t *p = calloc(1, sizeof *p);
    if (!a || !p) {
        free(a);
        free(p);
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating an allocator");
    }
    int rc = intent_resolve(in, &p->res);
    if (rc == 0 && p->res.tier_auto) /* an allocator's blocks share pages with each other: nothing moves as a unit */
        rc = loci__fail(LOCI_EINVAL, "intent \"%s\": tier=auto is for arenas, whose data moves as a whole: create "
                                     "one with loci_arena_create(\"%s\", max_bytes), or drop tier=auto",
                        in->canonical, in->canonical);
    pool_heap_t *h = NULL;
    if (rc != 0)
        errno = loci__errno_of(rc);
    else {
        snprintf(a->intent, sizeof a->intent, "%s", in->canonical);
        a->initiator = p->res.initiator = initiator;
        h = allocator_plan_heap(a, p, 0);
    }
    if (!h) {
        free(a);
        free(p);
        return NULL;
    }
    atomic_init(&a->plan, p);
    atomic_init(&a->primary, h);
    return a;
}

static loci_allocator_t *find_canonical(const char *canonical, int initiator)
{
    for (loci_allocator_t *a = allocators; a; a = a->next)
        if (a->initiator == initiator && strcmp(a->intent, canonical) == 0)
            return a;
    return NULL;
}

/* ---- the topology changed: plans made again ------------------------------- */

static bool same_candidates(const resolution_t *x, const resolution_t *y)
{
    return x->ncandidates == y->ncandidates &&
           memcmp(x->candidates, y->candidates, (size_t)x->ncandidates * sizeof *x->candidates) == 0;
}

/* Heaps of the old plan that serve a candidate of the new one placed the
 * same way, and in the same role (the best candidate's heap carries the
 * fallback hook, the others must not), go over: their memory stays theirs. */
static void keep_heaps(const allocator_plan_t *old, allocator_plan_t *p)
{
    for (int i = 0; i < p->res.ncandidates; i++)
        for (int j = 0; j < old->res.ncandidates; j++) {
            place_t now, before;
            pool_heap_t *h = atomic_load_explicit(&((allocator_plan_t *)old)->heaps[j], memory_order_acquire);
            if (!h || (i == 0) != (j == 0) || p->res.candidates[i] != old->res.candidates[j])
                continue;
            allocator_place(&p->res, i, &now);
            allocator_place(&old->res, j, &before);
            if (memcmp(&now, &before, sizeof now) == 0)
                atomic_init(&p->heaps[i], h);
        }
}

/* Resolve a's intent again. Nothing satisfying it any more (its only
 * targets went away): it keeps its candidates with new, empty heaps, so
 * that every allocation reaches the pool's charge, which refuses it naming
 * the target and what happened, instead of blocks kept from before. */
static void replan(loci_allocator_t *a)
{
    allocator_plan_t *old = atomic_load_explicit(&a->plan, memory_order_acquire);
    allocator_plan_t *p = calloc(1, sizeof *p);
    intent_t in;
    if (!p) {
        loci__log(LOCI_LOG_WARN, "intent \"%s\": out of memory resolving it again after the topology changed",
                  a->intent);
        return;
    }
    if (intent_parse(a->intent, &in) == 0 && intent_resolve_from(&in, a->initiator, &p->res) == 0) {
        p->res.initiator = a->initiator;
        if (!old->stranded && same_candidates(&old->res, &p->res)) {
            free(p);
            return;
        }
        keep_heaps(old, p);
    } else if (old->stranded) {
        free(p);
        return;
    } else {
        loci__log(LOCI_LOG_WARN, "allocator \"%s\": %s; its allocations are refused", a->intent, loci_last_error());
        p->res = old->res;
        p->stranded = true;
        snprintf(p->why, sizeof p->why, "%s", loci_last_error());
    }
    pool_heap_t *h = allocator_plan_heap(a, p, 0);
    if (!h) {
        loci__log(LOCI_LOG_WARN, "intent \"%s\": its new best target has no heap: %s", a->intent, loci_last_error());
        free(p);
        return;
    }
    p->replaced = old;
    atomic_store_explicit(&a->plan, p, memory_order_release);
    atomic_store_explicit(&a->primary, h, memory_order_release);
    if (!p->stranded && p->res.candidates[0] != old->res.candidates[0])
        loci__log(LOCI_LOG_INFO, "allocator \"%s\": now on %s (was %s)", a->intent, p->res.candidates[0]->name,
                  old->res.candidates[0]->name);
}

/* topo_on_change's listener: every allocator made again, none made meanwhile. */
static void replan_all(void)
{
    pthread_rwlock_wrlock(&cache_lock);
    for (loci_allocator_t *a = allocators; a; a = a->next)
        replan(a);
    pthread_rwlock_unlock(&cache_lock);
}

static void listen(void) { topo_on_change(replan_all); }

/* An allocator whose targets all went away is not handed out again: the
 * caller gets the resolver's refusal, as for an intent never asked before. */
static bool stranded(const loci_allocator_t *a)
{
    const allocator_plan_t *p = atomic_load_explicit(&((loci_allocator_t *)a)->plan, memory_order_acquire);
    if (p->stranded)
        loci__fail_null(LOCI_ENODEV, "%s", p->why);
    return p->stranded;
}

loci_allocator_t *allocator_get(const char *text)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, listen);
    int rc = topo_ensure();
    if (rc) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    text = text ? text : "";
    int initiator = topo_initiator(topo_get());
    pthread_rwlock_rdlock(&cache_lock);
    loci_allocator_t *a = find_alias(text, initiator);
    pthread_rwlock_unlock(&cache_lock);
    if (a)
        return stranded(a) ? NULL : a;

    intent_t in;
    if (intent_parse(text, &in) != 0) {
        errno = EINVAL;
        return NULL;
    }
    pthread_rwlock_wrlock(&cache_lock);
    a = find_canonical(in.canonical, initiator);
    if (!a && (a = make(&in, initiator))) {
        a->next = allocators;
        allocators = a;
    }
    if (a && !find_alias(text, initiator) && add_alias(text, initiator, a) != 0)
        a = NULL;
    pthread_rwlock_unlock(&cache_lock);
    return a && !stranded(a) ? a : NULL;
}

void allocator_foreach(void (*fn)(loci_allocator_t *a, void *arg), void *arg)
{
    pthread_rwlock_rdlock(&cache_lock);
    for (loci_allocator_t *a = allocators; a; a = a->next)
        fn(a, arg);
    pthread_rwlock_unlock(&cache_lock);
}

void allocator_fork(loci_fork_phase_t phase)
{
    loci__fork_rwlock(&cache_lock, NULL, phase);
    loci__fork_mutex(&create_lock, phase);
}

void allocator_fini(void)
{
    pthread_rwlock_wrlock(&cache_lock);
    for (int b = 0; b < CACHE_BUCKETS; b++)
        while (aliases[b]) {
            alias_t *next = aliases[b]->next;
            free(aliases[b]->text);
            free(aliases[b]);
            aliases[b] = next;
        }
    while (allocators) {
        loci_allocator_t *next = allocators->next;
        for (allocator_plan_t *p = atomic_load(&allocators->plan), *older; p; p = older) {
            older = p->replaced;
            free(p);
        }
        free(allocators);
        allocators = next;
    }
    pthread_rwlock_unlock(&cache_lock);
}

/* ---- public ------------------------------------------------------------- */

loci_allocator_t *loci_allocator_create(const char *intent) { return allocator_get(intent); }

void loci_allocator_destroy(loci_allocator_t *a) { (void)a; /* cached until loci_fini */ }

int loci_allocator_targets(const loci_allocator_t *a, const loci_target_t **out, int max)
{
    if (!a || (max > 0 && !out))
        return loci__fail(LOCI_EINVAL, "loci_allocator_targets: NULL argument");
    const resolution_t *r = allocator_res(a);
    for (int i = 0; i < r->ncandidates && i < max; i++)
        out[i] = r->candidates[i];
    return r->ncandidates;
}

const char *loci_allocator_intent(const loci_allocator_t *a) { return a ? a->intent : NULL; }
