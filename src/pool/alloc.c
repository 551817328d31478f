/*
 * Allocation: pool_alloc (its fast path, pool__alloc_fast, is inline in
 * pool_internal.h: size → class, pop from the thread's cache for the heap)
 * and what leaves it — refill, big blocks, failure — and alignment, calloc,
 * realloc.
 */
#include "pool/pool_internal.h"

#include <errno.h>
#include <string.h>

/* The heap could not serve the request: its failure hook may. */
static __attribute__((noinline)) void *failed(pool_heap_t *h, pool_req_kind_t kind, size_t n, size_t size,
                                              size_t align)
{
    pool_on_fail_fn fn = atomic_load_explicit(&h->on_fail, memory_order_acquire);
    if (!fn)
        return NULL;
    pool_request_t req = {kind, size, n, align};
    return fn(h, &req);
}

__attribute__((noinline)) void *pool__alloc_slow(pool_heap_t *h, size_t size)
{
    void *p = size <= POOL_SMALL_MAX ? pool__alloc_small_slow(h, pool_size_class(size))
                                     : pool__alloc_large(h, size, 0, false);
    return LOCI_LIKELY(p != NULL) ? p : failed(h, POOL_REQ_ALLOC, 1, size, 0);
}

void *pool_alloc(pool_heap_t *h, size_t size) { return pool__alloc_fast(h, size); }

void *pool_calloc(pool_heap_t *h, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return loci__fail_null(LOCI_ENOMEM, "calloc of %zu x %zu bytes overflows", n, size);
    void *p;
    if (total > POOL_SMALL_MAX) {
        p = pool__alloc_large(h, total, 0, true);
    } else if ((p = pool__alloc_class(h, pool_size_class(total)))) {
        int rc = pool__zero(h->ops, p, total);
        if (rc != 0) { /* a GPU whose driver failed: not "full", so no fallback */
            pool_free(p);
            errno = loci__errno_of(rc);
            return NULL;
        }
    }
    return p ? p : failed(h, POOL_REQ_CALLOC, n, size, 0);
}

/* Smallest size class >= size whose blocks are all aligned to align (slabs
 * start on 64 KiB boundaries), if it wastes at most half the block. */
static int aligned_class(size_t align, size_t size)
{
    if (size > POOL_SMALL_MAX || align > SLICE_SIZE)
        return -1;
    size_t need = size > align ? size : align;
    for (unsigned c = pool_size_class(size); c < NCLASSES; c++) {
        if ((pool_class_size[c] & (align - 1)) == 0)
            return pool_class_size[c] <= 2 * need ? (int)c : -1;
    }
    return -1;
}

void *pool_aligned_alloc(pool_heap_t *h, size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1)))
        return loci__fail_null(LOCI_EINVAL, "alignment %zu is not a power of two", align);
    if (align <= 8) /* every block is */
        return pool_alloc(h, size);
    int c = aligned_class(align, size);
    void *p = c >= 0 ? pool__alloc_class(h, (unsigned)c) : pool__alloc_large(h, size, align, false);
    return p ? p : failed(h, POOL_REQ_ALIGNED, 1, size, align);
}

void *pool_realloc(void *p, size_t size)
{
    if (!p)
        return loci__fail_null(LOCI_EINVAL, "pool_realloc needs a block (its heap)");
    size_t usable = pool_usable_size(p);
    if (!usable)
        return loci__fail_null(LOCI_EINVAL, "realloc of %p: not a live loci block", p);
    pool_heap_t *h = pool_heap_of(p);
    bool small = usable <= POOL_SMALL_MAX;
    if (size <= usable) {
        /* Stay when the block is still the right class, or when a big block
         * would give back little by moving. */
        if (small ? pool_size_class(size) == pool_size_class(usable) || (size > POOL_SMALL_MAX / 2)
                  : size > usable / 2)
            return p;
    }
    void *q = pool_alloc(h, size); /* the heap's failure hook applies */
    return q ? pool_realloc_into(q, p, size < usable ? size : usable, pool_free) : NULL;
}

void *pool_realloc_into(void *dst, void *src, size_t n, int (*release)(void *))
{
    int rc = pool_copy(dst, src, n);
    if (rc != 0) {
        release(dst);
        errno = loci__errno_of(rc);
        return NULL;
    }
    release(src);
    return dst;
}

int pool_copy(void *dst, const void *src, size_t n)
{
    const pool_heap_t *hd = pool_heap_of(dst), *hs = pool_heap_of(src);
    const provider_ops_t *via = hd && hd->ops->device ? hd->ops : hs && hs->ops->device ? hs->ops : NULL;
    if (!via) {
        memcpy(dst, src, n);
        return 0;
    }
    return via->device->copy(dst, src, n);
}
