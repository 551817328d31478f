/*
 * The calls of loci.h that take any pointer loci handed out, whoever made
 * it: a block of an allocator (its heap in the pool), of a private arena
 * (its own heap, under the arena's max_bytes) or of a shared arena (its own
 * allocator in the segment every process maps), or any address of a
 * persistent region open here (src/region: mapped whole, closed, never freed).
 * This is the one place that knows them all, so that none of them has to
 * know the others.
 */
#include "alloc/allocator.h"
#include "arena/arena.h"
#include "region/region.h"
#include "pool/pool_internal.h"
#include "os/vm.h"

#include <errno.h>

/* A region's memory is not a block: say so rather than "not loci's".
 * LOCI_EINVAL when ptr is in an open region, else 0 and nothing said. */
static int refuse_region(const void *ptr, const char *op)
{
    char name[NVM_NAME_MAX + 1];
    const loci_target_t *t = nvm_region_may_hold(ptr) ? region_target(ptr, name) : NULL;
    return t ? loci__fail(LOCI_EINVAL, "%s(%p): memory of region \"%s\" on %s, not a block: a region is "
                                       "closed with loci_region_close, never freed or resized", op, ptr, name,
                          t->name)
             : 0;
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
    if (!h || pool_usable_size(ptr) == 0) {
        if (!refuse_region(ptr, "loci_realloc"))
            loci__fail(LOCI_EINVAL, "loci_realloc(%p): not a live loci block", ptr);
        errno = EINVAL;
        return NULL;
    }
    void *p = pool_realloc(ptr, size);
    if (p || errno != ENOMEM)
        return p;
    /* its heap is full: move it wherever its allocator's fallback allows */
    loci_allocator_t *owner = pool_heap_owner(h);
    if (!owner || !(p = loci_alloc(owner, size)))
        return NULL;
    size_t old = pool_usable_size(ptr);
    return pool_realloc_into(p, ptr, old < size ? old : size, pool_free);
}

/* A free of an address the pool never handed out: a shared arena's block
 * (they have an allocator of their own; looked up only while one is
 * attached in this process), a region's memory, or nothing of loci's. */
static int free_foreign(void *ptr)
{
    if (arena_shared_any() && arena_shared_free(ptr))
        return 0;
    pool__free_foreign(ptr);
    refuse_region(ptr, "loci_free"); /* else the pool's "not a pointer loci allocated" stands */
    loci__log(LOCI_LOG_WARN, "%s; ignored", loci_last_error());
    return LOCI_ENOENT;
}

/* The pool's fast path, inline: no call per block, and none of the other
 * kinds of memory looked at before the pool has said the address is not
 * its. */
void loci_free(void *ptr)
{
    pool__free_fast(ptr, free_foreign);
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
    loci_arena_t *ar = t ? arena_of_block(ptr) : NULL;
    if (ar && atomic_load_explicit(&ar->parted, memory_order_acquire)) { /* its page may be elsewhere */
        size_t page = vm_page_size();
        return arena_part_target(ar, (void *)((uintptr_t)ptr & ~(uintptr_t)(page - 1)), page);
    }
    ar = !t && ptr && arena_shared_any() ? arena_shared_of(ptr) : NULL;
    if (ar)
        t = loci_arena_target(ar);
    if (!t && ptr && nvm_region_may_hold(ptr))
        t = region_target(ptr, NULL);
    return t ? t : loci__fail_null(LOCI_ENOENT, "%p is not memory loci allocated, nor in a region open here", ptr);
}
