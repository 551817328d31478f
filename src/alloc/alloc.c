/*
 * The allocation functions of loci.h. The fast path is the pool's, inline,
 * on the allocator's best heap; everything else (a full target, the
 * intent's fallback) is in allocator_on_fail(), which the pool calls.
 */
#include "alloc/allocator.h"
#include "pool/pool_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *heap_alloc(pool_heap_t *h, const pool_request_t *req)
{
    switch (req->kind) {
    case POOL_REQ_CALLOC: return pool_calloc(h, req->n, req->size);
    case POOL_REQ_ALIGNED: return pool_aligned_alloc(h, req->align, req->size);
    default: return pool_alloc(h, req->size);
    }
}

/* What a fallback asks again, and where it got it. */
struct retry {
    loci_allocator_t *a;
    allocator_plan_t *plan; /* a's, as the fallback walks it */
    const pool_request_t *req;
    void *p;
};

static bool retry_on(loci_allocator_t *local, int i, void *arg)
{
    struct retry *t = arg;
    if (local == t->a) /* fallback=default from the local allocator itself: its best said no */
        return false;
    pool_heap_t *h = local ? allocator_heap(local, i) : allocator_plan_heap(t->a, t->plan, i);
    if (!h || !(t->p = heap_alloc(h, t->req)))
        return false;
    if (!local) /* fallback=next */
        loci__log(LOCI_LOG_INFO, "intent \"%s\": %s full, placed %zu bytes on %s", t->a->intent,
                  t->plan->res.candidates[0]->name, t->req->size * t->req->n, t->plan->res.candidates[i]->name);
    return true;
}

/* The pool calls this when an allocator's best heap cannot serve a request
 * (installed by allocator_heap on candidate 0): apply the intent's fallback.
 * Errors other than "full" are returned as they are. */
void *allocator_on_fail(pool_heap_t *primary, const pool_request_t *req)
{
    /* a full tier is full too; a target that went away at run time is
     * passed over like a full one (until the allocator's new plan, made by
     * the refresh that found it gone, is in place) */
    if (errno != ENOMEM && errno != ENOSPC && errno != ENODEV)
        return NULL;
    int code = errno == ENOSPC ? LOCI_ENOSPC : errno == ENODEV ? LOCI_ENODEV : LOCI_ENOMEM;
    loci_allocator_t *a = pool_heap_owner(primary);
    allocator_plan_t *plan = atomic_load_explicit(&a->plan, memory_order_acquire);
    pool_heap_t *now = allocator_plan_heap(a, plan, 0);
    if (now && now != primary) /* a topology refresh gave a a new plan meanwhile: its best says */
        return heap_alloc(now, req);
    const resolution_t *r = &plan->res;
    char reason[512]; /* why the best target said no: kept for the final message */
    snprintf(reason, sizeof reason, "%s", loci_last_error());
    size_t size = req->size * req->n;
    char why[600];
    snprintf(why, sizeof why, "cannot allocate %zu bytes: %s", size, reason);
    struct retry retry = {a, plan, req, NULL};
    if (allocator_fallback(r, a->intent, why, retry_on, &retry))
        return retry.p;
    if (code == LOCI_ENODEV) /* nothing was full: say what happened */
        return loci__fail_null(code, "intent \"%s\": %s", a->intent, reason);
    return allocator_fallback_failed("intent", a->intent, r, code, size, reason);
}

static void *no_allocator(void)
{
    return loci__fail_null(LOCI_EINVAL, "NULL allocator; create one with loci_allocator_create(intent)");
}

/* The best candidate's heap: a plain load on x86 (acquire: a heap a
 * topology refresh swapped in is seen whole). */
static inline pool_heap_t *primary(loci_allocator_t *a)
{
    return atomic_load_explicit(&a->primary, memory_order_acquire);
}

/* Fast paths: the pool's on the best heap; a full target comes back
 * through allocator_on_fail. loci_alloc carries the pool's fast path
 * inline: no call per block. */
void *loci_alloc(loci_allocator_t *a, size_t size)
{
    return LOCI_LIKELY(a != NULL) ? pool__alloc_fast(primary(a), size) : no_allocator();
}

void *loci_calloc(loci_allocator_t *a, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return loci__fail_null(LOCI_ENOMEM, "loci_calloc(%zu, %zu): the size overflows", n, size);
    return a ? pool_calloc(primary(a), n, size) : no_allocator();
}

void *loci_aligned_alloc(loci_allocator_t *a, size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)))
        return loci__fail_null(LOCI_EINVAL, "alignment %zu is not a power of two (e.g. 64, 4096, 2097152)",
                               alignment);
    return a ? pool_aligned_alloc(primary(a), alignment, size) : no_allocator();
}
