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
    const pool_request_t *req;
    void *p;
};

static bool retry_on(loci_allocator_t *local, int i, void *arg)
{
    struct retry *t = arg;
    if (local == t->a) /* fallback=default from the local allocator itself: its best said no */
        return false;
    loci_allocator_t *owner = local ? local : t->a;
    pool_heap_t *h = allocator_heap(owner, i);
    if (!h || !(t->p = heap_alloc(h, t->req)))
        return false;
    if (!local) /* fallback=next */
        loci__log(LOCI_LOG_INFO, "intent \"%s\": %s full, placed %zu bytes on %s", t->a->intent,
                  t->a->res.candidates[0]->name, t->req->size * t->req->n, owner->res.candidates[i]->name);
    return true;
}

/* The pool calls this when an allocator's best heap cannot serve a request
 * (installed by allocator_heap on candidate 0): apply the intent's fallback.
 * Errors other than "full" are returned as they are. */
void *allocator_on_fail(pool_heap_t *primary, const pool_request_t *req)
{
    if (errno != ENOMEM && errno != ENOSPC) /* a full tier is full too */
        return NULL;
    int code = errno == ENOSPC ? LOCI_ENOSPC : LOCI_ENOMEM;
    loci_allocator_t *a = pool_heap_owner(primary);
    char reason[512]; /* why the best target said no: kept for the final message */
    snprintf(reason, sizeof reason, "%s", loci_last_error());
    size_t size = req->size * req->n;
    char why[600];
    snprintf(why, sizeof why, "cannot allocate %zu bytes: %s", size, reason);
    struct retry retry = {a, req, NULL};
    if (allocator_fallback(&a->res, a->intent, why, retry_on, &retry))
        return retry.p;
    return allocator_fallback_failed("intent", a->intent, &a->res, code, size, reason);
}

static void *no_allocator(void)
{
    return loci__fail_null(LOCI_EINVAL, "NULL allocator; create one with loci_allocator_create(intent)");
}

/* Fast paths: the pool's on the best heap; a full target comes back
 * through allocator_on_fail. loci_alloc carries the pool's fast path
 * inline: no call per block. */
void *loci_alloc(loci_allocator_t *a, size_t size)
{
    return LOCI_LIKELY(a != NULL) ? pool__alloc_fast(a->primary, size) : no_allocator();
}

void *loci_calloc(loci_allocator_t *a, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return loci__fail_null(LOCI_ENOMEM, "loci_calloc(%zu, %zu): the size overflows", n, size);
    return a ? pool_calloc(a->primary, n, size) : no_allocator();
}

void *loci_aligned_alloc(loci_allocator_t *a, size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)))
        return loci__fail_null(LOCI_EINVAL, "alignment %zu is not a power of two (e.g. 64, 4096, 2097152)",
                               alignment);
    return a ? pool_aligned_alloc(a->primary, alignment, size) : no_allocator();
}
