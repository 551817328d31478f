/*
 * Allocation fast path: size → class, the thread's cache for the heap, pop.
 * No lock, no atomic read-modify-write, no look at the block's memory.
 * Everything else (refill, big blocks, alignment, calloc, realloc) calls out.
 */
#include "pool/pool_internal.h"

#include <errno.h>
#include <string.h>

void *pool_alloc(pool_heap_t *h, size_t size)
{
    if (LOCI_LIKELY(size <= POOL_SMALL_MAX))
        return pool__alloc_class(h, pool_size_class(size));
    return pool__alloc_large(h, size, 0);
}

void *pool_calloc(pool_heap_t *h, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return loci__fail_null(LOCI_ENOMEM, "calloc of %zu x %zu bytes overflows", n, size);
    if (total > POOL_SMALL_MAX)
        return pool__alloc_large(h, total, 0); /* fresh extents are zero-filled */
    void *p = pool__alloc_class(h, pool_size_class(total));
    if (p)
        memset(p, 0, total);
    return p;
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
    if (align <= 8)
        return pool_alloc(h, size);
    int c = aligned_class(align, size);
    if (c >= 0)
        return pool__alloc_class(h, (unsigned)c);
    return pool__alloc_large(h, size, align);
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
    void *q = pool_alloc(h, size);
    if (!q)
        return NULL;
    memcpy(q, p, size < usable ? size : usable);
    pool_free(p);
    return q;
}
