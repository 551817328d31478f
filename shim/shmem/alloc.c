/*
 * Blocks in a partition: shmemx_partition_malloc, _align, _realloc, _free.
 * Each returns partition base + an offset from the partition's heap, whose
 * offsets depend only on the calls made on it (heap.h): PEs that make the
 * same calls get the same addresses. No PE waits for another here — the
 * memory is there since shmemx_hhm_create — so a block is symmetric by
 * agreement of the calls, not by a barrier (docs/SHMEM.md).
 */
#include "shim.h"

#include <errno.h>
#include <loci_shmem.h>
#include <stdio.h>
#include <string.h>

/* What a failing call says after the partition's name. */
#define PART_FMT "partition %d (%zu bytes, intent \"%s\", on %s)"
#define PART_ARGS(p) (p)->id, (p)->size, (p)->intent, (p)->where

static void *fail_null(int err) /* pointer calls set errno as loci's do */
{
    errno = err;
    return NULL;
}

/* A size (or alignment) no block of p can have: say so. */
static void *too_big(const char *fn, const partition_t *p, size_t size, size_t align)
{
    char aligned[48] = "";
    if (align > HEAP_GRANULE)
        snprintf(aligned, sizeof aligned, " aligned to %zu", align);
    shim_fail(fn, "%zu bytes%s do not fit in " PART_FMT ": create a larger partition", size, aligned, PART_ARGS(p));
    return fail_null(ENOMEM);
}

static void *alloc_in(const char *fn, int id, size_t align, size_t size)
{
    partition_t *p = shim_partition(fn, id);
    if (!p)
        return fail_null(EINVAL);
    if (size == 0)
        return NULL; /* as shmem_malloc(0): no block, no error */
    if (size > p->size || align > p->size)
        return too_big(fn, p, size, align);
    shim_lock(&p->lock);
    size_t off = heap_alloc(p->heap, size, align);
    if (off != HEAP_NONE) {
        shim_unlock(&p->lock);
        return p->base + off;
    }
    size_t used, largest;
    heap_usage(p->heap, &used, &largest);
    shim_unlock(&p->lock);
    shim_fail(fn, "no room for %zu bytes (aligned to %zu) in " PART_FMT ": %zu bytes in blocks, the largest free "
                  "block holds %zu; free some or create a larger partition",
              size, align < HEAP_GRANULE ? HEAP_GRANULE : align, PART_ARGS(p), used, largest);
    return fail_null(ENOMEM);
}

/* ptr's offset in p, or HEAP_NONE when it is not inside p. */
static size_t offset_in(const partition_t *p, const void *ptr)
{
    const char *c = ptr;
    return c >= p->base && c < p->base + p->size ? (size_t)(c - p->base) : HEAP_NONE;
}

/* Say why ptr, given with partition p, is not a live block of it. */
static void not_a_block(const char *fn, const partition_t *p, const void *ptr)
{
    const partition_t *other = offset_in(p, ptr) != HEAP_NONE ? p : shim_partition_holding(ptr);
    if (other == p)
        shim_fail(fn, "%p is in " PART_FMT " but does not start a live block: freed already, or a pointer "
                      "into a block", ptr, PART_ARGS(p));
    else if (other)
        shim_fail(fn, "%p belongs to partition %d, not to partition %d: pass id %d", ptr, other->id, p->id,
                  other->id);
    else
        shim_fail(fn, "%p is in no partition: memory from shmem_malloc goes back with shmem_free, from malloc "
                      "with free", ptr);
}

void *shmemx_partition_malloc(int id, size_t size) { return alloc_in("shmemx_partition_malloc", id, 0, size); }

void *shmemx_partition_align(int id, size_t alignment, size_t size)
{
    static const char fn[] = "shmemx_partition_align";
    if (alignment == 0 || (alignment & (alignment - 1))) {
        shim_fail(fn, "alignment %zu is not a power of two (e.g. 64, 4096)", alignment);
        return fail_null(EINVAL);
    }
    return alloc_in(fn, id, alignment, size);
}

void shmemx_partition_free(int id, void *ptr)
{
    partition_t *p = shim_partition("shmemx_partition_free", id);
    if (!p || !ptr)
        return;
    size_t off = offset_in(p, ptr);
    shim_lock(&p->lock);
    bool freed = off != HEAP_NONE && heap_free(p->heap, off);
    shim_unlock(&p->lock);
    if (!freed)
        not_a_block("shmemx_partition_free", p, ptr);
}

void *shmemx_partition_realloc(int id, void *ptr, size_t size)
{
    static const char fn[] = "shmemx_partition_realloc";
    if (!ptr)
        return alloc_in(fn, id, 0, size);
    partition_t *p = shim_partition(fn, id);
    if (!p)
        return fail_null(EINVAL);
    if (size > p->size)
        return too_big(fn, p, size, 0); /* the block stays as it was */
    size_t off = offset_in(p, ptr);
    shim_lock(&p->lock);
    size_t old = off != HEAP_NONE ? heap_block_size(p->heap, off) : 0;
    if (!old) {
        shim_unlock(&p->lock);
        not_a_block(fn, p, ptr);
        return fail_null(EINVAL);
    }
    if (size == 0) { /* as shmem_realloc: the block is freed */
        heap_free(p->heap, off);
        shim_unlock(&p->lock);
        return NULL;
    }
    if (heap_resize(p->heap, off, size)) {
        shim_unlock(&p->lock);
        return ptr;
    }
    shim_unlock(&p->lock);
    char *fresh = alloc_in(fn, id, 0, size);
    if (!fresh)
        return NULL; /* the block stays as it was */
    memcpy(fresh, ptr, old < size ? old : size); /* unlocked: both blocks are this caller's */
    shim_lock(&p->lock);
    heap_free(p->heap, off);
    shim_unlock(&p->lock);
    return fresh;
}
