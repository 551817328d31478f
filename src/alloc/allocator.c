/*
 * Creation and caching of allocator objects. SharP's MPI path lost ~7 us per
 * call re-resolving intents, so objects are cached: first by the exact text
 * and initiator (no parsing at all), then by the canonical text (equivalent
 * spellings share one object). Objects live until loci_fini: their memory
 * stays valid after loci_allocator_destroy.
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

pool_heap_t *allocator_heap(loci_allocator_t *a, int i)
{
    pool_heap_t *h = atomic_load_explicit(&a->heaps[i], memory_order_acquire);
    if (h)
        return h;
    pthread_mutex_lock(&create_lock);
    h = atomic_load_explicit(&a->heaps[i], memory_order_acquire);
    if (!h) {
        place_t place;
        allocator_place(&a->res, i, &place);
        const provider_ops_t *ops = provider_for_place(&place);
        if (!ops)
            loci__fail(LOCI_ENOTSUP, "no provider can place memory on %s%s", place.target->name,
                       place.shared ? " shareably" : "");
        else if ((h = pool_heap_create(ops, &place, a))) {
            if (i == 0)
                pool_heap_set_on_fail(h, allocator_on_fail);
            atomic_store_explicit(&a->heaps[i], h, memory_order_release);
        }
    }
    pthread_mutex_unlock(&create_lock);
    return h;
}

static loci_allocator_t *make(const intent_t *in, int initiator)
{
    resolution_t res;
    int rc = intent_resolve(in, &res);
    if (rc == 0 && res.tier_auto) /* an allocator's blocks share pages with each other: nothing moves as a unit */
        rc = loci__fail(LOCI_EINVAL, "intent \"%s\": tier=auto is for arenas, whose data moves as a whole: create "
                                     "one with loci_arena_create(\"%s\", max_bytes), or drop tier=auto",
                        in->canonical, in->canonical);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    loci_allocator_t *a = calloc(1, sizeof *a);
    if (!a)
        return loci__fail_null(LOCI_ENOMEM, "out of memory creating an allocator");
    snprintf(a->intent, sizeof a->intent, "%s", in->canonical);
    a->res = res;
    a->res.initiator = initiator;
    if (!(a->primary = allocator_heap(a, 0))) {
        free(a);
        return NULL;
    }
    return a;
}

static loci_allocator_t *find_canonical(const char *canonical, int initiator)
{
    for (loci_allocator_t *a = allocators; a; a = a->next)
        if (a->res.initiator == initiator && strcmp(a->intent, canonical) == 0)
            return a;
    return NULL;
}

loci_allocator_t *allocator_get(const char *text)
{
    if (topo_ensure())
        return NULL;
    text = text ? text : "";
    int initiator = topo_initiator(topo_get());
    pthread_rwlock_rdlock(&cache_lock);
    loci_allocator_t *a = find_alias(text, initiator);
    pthread_rwlock_unlock(&cache_lock);
    if (a)
        return a;

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
    return a;
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
    for (int i = 0; i < a->res.ncandidates && i < max; i++)
        out[i] = a->res.candidates[i];
    return a->res.ncandidates;
}

const char *loci_allocator_intent(const loci_allocator_t *a) { return a ? a->intent : NULL; }
