/*
 * Dedicated extents for big blocks (above POOL_SMALL_MAX, or alignments no
 * size class gives): one provider extent per block, page-rounded, aligned to
 * at least a slice, unmapped as soon as the block is freed.
 */
#include "pool/pool_internal.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>

static void large_link(pool_heap_t *h, large_t *d)
{
    d->prev = NULL;
    d->next = h->larges;
    if (h->larges)
        h->larges->prev = d;
    h->larges = d;
}

static void large_unlink(pool_heap_t *h, large_t *d)
{
    if (d->prev)
        d->prev->next = d->next;
    else
        h->larges = d->next;
    if (d->next)
        d->next->prev = d->prev;
}

void *pool__alloc_large(pool_heap_t *h, size_t size, size_t align)
{
    size_t page = pool_page_size;
    if (size > SIZE_MAX - page - SLICE_SIZE)
        return loci__fail_null(LOCI_ENOMEM, "allocation of %zu bytes: too large", size);
    size_t bytes = (size + page - 1) & ~(page - 1);
    if (bytes == 0)
        bytes = page;
    if (align < SLICE_SIZE)
        align = SLICE_SIZE;
    if (pool__charge(h, bytes) != 0)
        return NULL;
    void *p = h->ops->alloc(&h->place, bytes, align);
    if (!p) {
        pool__uncharge(h, bytes);
        return NULL;
    }
    large_t *d = calloc(1, sizeof *d);
    int rc = d ? 0 : loci__fail(LOCI_ENOMEM, "out of memory for block metadata");
    if (rc == 0 && h->strict && h->ops->populate)
        rc = h->ops->populate(p, bytes);
    if (rc == 0) {
        atomic_store_explicit(&d->live, 1, memory_order_relaxed);
        d->base = (uintptr_t)p;
        d->size = bytes;
        d->heap = h;
        rc = (uintptr_t)d >> PM_ADDR_BITS ? loci__fail(LOCI_ENOMEM, "block metadata beyond 48-bit addresses")
                                          : pool__pagemap_set(d->base, bytes, (uintptr_t)d | DESC_LARGE, 0, 0);
    }
    if (rc != 0) {
        free(d);
        h->ops->free(p, bytes);
        pool__uncharge(h, bytes);
        errno = loci__errno_of(rc);
        return NULL;
    }
    pthread_mutex_lock(&h->lock);
    large_link(h, d);
    pthread_mutex_unlock(&h->lock);
    pool__committed_add(h, (int64_t)bytes);
    pool__mapped_add(h, (int64_t)bytes, 1);
    pool__held_add(h, NULL, (int64_t)bytes, 1);
    return p;
}

int pool__free_large(large_t *d, void *p)
{
    pool_heap_t *h = d->heap;
    size_t bytes = d->size;
    pool__pagemap_clear(d->base, bytes);
    /* Unlinked and uncharged in one step, with the provider read there too:
     * pool_heap_rebase (under this lock) then sees the block either wholly
     * in the heap or wholly out of it. */
    pthread_mutex_lock(&h->lock);
    large_unlink(h, d);
    const provider_ops_t *ops = h->ops;
    pool__uncharge(h, bytes);
    pool__committed_add(h, -(int64_t)bytes);
    pool__mapped_add(h, -(int64_t)bytes, -1);
    pthread_mutex_unlock(&h->lock);
    int rc = ops->free(p, bytes);
    free(d);
    pool__held_add(h, NULL, -(int64_t)bytes, -1);
    atomic_fetch_add_explicit(&h->frees, 1, memory_order_relaxed);
    return rc;
}

void pool__larges_release(pool_heap_t *h)
{
    large_t *d = h->larges;
    h->larges = NULL;
    while (d) {
        large_t *next = d->next;
        pool__pagemap_clear(d->base, d->size);
        h->ops->free((void *)d->base, d->size);
        pool__uncharge(h, d->size);
        pool__mapped_add(h, -(int64_t)d->size, -1);
        pool__committed_add(h, -(int64_t)d->size);
        free(d);
        d = next;
    }
}
