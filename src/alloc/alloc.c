/*
 * The allocation functions of loci.h. The fast path is one call into the
 * pool on the allocator's best heap; everything else (a full target, the
 * intent's fallback) is in allocator_on_fail(), which the pool calls.
 */
#include "alloc/allocator.h"
#include "arena/arena.h"

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
    const resolution_t *r = &a->res;
    size_t size = req->size * req->n;
    switch (r->fallback) {
    case FALLBACK_NEXT:
        for (int i = 1; i < r->ncandidates; i++) {
            pool_heap_t *h = allocator_heap(a, i);
            void *p = h ? heap_alloc(h, req) : NULL;
            if (p) {
                loci__log(LOCI_LOG_INFO, "intent \"%s\": %s full, placed %zu bytes on %s", a->intent,
                          r->candidates[0]->name, size, r->candidates[i]->name);
                return p;
            }
        }
        break;
    case FALLBACK_DEFAULT: {
        loci_allocator_t *local = allocator_get("");
        void *p = local && local != a ? heap_alloc(local->primary, req) : NULL;
        if (p)
            return p;
        break;
    }
    case FALLBACK_ABORT:
        fprintf(stderr, "loci: intent \"%s\": cannot allocate %zu bytes: %s (fallback=abort)\n", a->intent,
                size, reason);
        abort();
    case FALLBACK_NULL:
        break;
    }
    char candidates[512] = "";
    for (int i = 0; i < r->ncandidates; i++) {
        size_t used = strlen(candidates);
        snprintf(candidates + used, sizeof candidates - used, "%s%s", i ? ", " : "", r->candidates[i]->name);
    }
    return loci__fail_null(code, "intent \"%s\": no room for %zu bytes on %s (fallback=%s): %s",
                           a->intent, size, candidates,
                           r->fallback == FALLBACK_NULL      ? "null"
                           : r->fallback == FALLBACK_DEFAULT ? "default"
                                                             : "next",
                           reason);
}

static void *no_allocator(void)
{
    return loci__fail_null(LOCI_EINVAL, "NULL allocator; create one with loci_allocator_create(intent)");
}

/* Fast paths: one call into the pool on the best heap; a full target comes
 * back through allocator_on_fail. */
void *loci_alloc(loci_allocator_t *a, size_t size)
{
    return LOCI_LIKELY(a != NULL) ? pool_alloc(a->primary, size) : no_allocator();
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

void *loci_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return loci_alloc(allocator_get(""), size);
    if (size == 0) {
        loci_free(ptr);
        return NULL;
    }
    loci_arena_t *ar = arena_of_block(ptr); /* arena blocks stay in their arena, under its max_bytes */
    if (ar)
        return arena_realloc(ar, ptr, size);
    pool_heap_t *h = pool_heap_of(ptr);
    if (!h || pool_usable_size(ptr) == 0)
        return loci__fail_null(LOCI_EINVAL, "loci_realloc(%p): not a live loci block", ptr);
    void *p = pool_realloc(ptr, size);
    if (p || errno != ENOMEM)
        return p;
    /* its heap is full: move it wherever its allocator's fallback allows */
    loci_allocator_t *owner = pool_heap_owner(h);
    if (!owner || !(p = loci_alloc(owner, size)))
        return NULL;
    size_t old = pool_usable_size(ptr);
    int rc = pool_copy(p, ptr, old < size ? old : size);
    if (rc != 0) {
        pool_free(p);
        errno = loci__errno_of(rc);
        return NULL;
    }
    pool_free(ptr);
    return p;
}

/* Shared arenas have an allocator of their own: looked up only while one
 * is attached in this process. */
void loci_free(void *ptr)
{
    if (LOCI_UNLIKELY(arena_shared_any()) && arena_shared_free(ptr))
        return;
    pool_free(ptr);
}

size_t loci_usable_size(const void *ptr)
{
    if (!ptr)
        return 0;
    size_t n = pool_usable_size(ptr);
    return n || !arena_shared_any() ? n : arena_shared_usable(ptr);
}

const loci_target_t *loci_ptr_target(const void *ptr)
{
    const loci_target_t *t = ptr ? pool_target_of(ptr) : NULL;
    loci_arena_t *ar = !t && ptr && arena_shared_any() ? arena_shared_of(ptr) : NULL;
    if (ar)
        t = loci_arena_target(ar);
    return t ? t : loci__fail_null(LOCI_ENOENT, "%p is not memory loci allocated", ptr);
}
