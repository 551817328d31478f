/*
 * memkind's malloc family: memkind_malloc, _calloc, _posix_memalign,
 * _realloc, _free, _malloc_usable_size, _defrag_reallocate. memkind's
 * documented results — errno untouched by a call that succeeds (loci's
 * lookups on the way set it), ENOMEM or EINVAL by one that fails — — size 0 gives NULL, NULL kind allowed where memkind
 * looks the kind up (free, realloc, usable size) — and loci's refusals where
 * memkind has undefined behaviour: a NULL, unknown or destroyed kind, a
 * pointer memkind did not make. loci finds the block of any of its pointers,
 * so freeing needs no kind.
 */
#include "memkind_shim.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

void *heap_alloc(struct memkind *k, size_t alignment, size_t size, bool zero)
{
    int saved = errno, why;
    const plan_t *p = plan_of(k, &why);
    if (!p) {
        errno = ENOMEM; /* memkind's answer when the kind has no memory to give */
        return NULL;
    }
    void *b = NULL;
    loci_arena_t *auto_arena = tiered_wanted(k) ? tiered_arena(k) : NULL;
    if (auto_arena) {
        b = alignment ? loci_arena_aligned_alloc(auto_arena, alignment, size) : loci_arena_alloc(auto_arena, size);
    } else if ((k->take & INTERLEAVED) && !nodes_overridden(k->nodes)) {
        loci_allocator_t *a = plan_interleaved(k);
        if (a) {
            atomic_store(&k->used, true);
            b = alignment ? loci_aligned_alloc(a, alignment, size) : loci_alloc(a, size);
        }
    } else {
        for (int i = 0; i < p->n && !b; i++) {
            loci_arena_t *a = plan_arena(k, p->target[i]);
            if (a)
                b = alignment ? loci_arena_aligned_alloc(a, alignment, size) : loci_arena_alloc(a, size);
        }
    }
    if (!b) {
        errno = ENOMEM;
        return NULL;
    }
    if (zero)
        memset(b, 0, size);
    errno = saved;
    return b;
}

MK_EXPORT void *memkind_malloc(memkind_t kind, size_t size)
{
    if (kind_check("memkind_malloc", kind) != MEMKIND_SUCCESS) {
        errno = EINVAL;
        return NULL;
    }
    return size ? heap_alloc(kind, 0, size, false) : NULL;
}

MK_EXPORT void *memkind_calloc(memkind_t kind, size_t num, size_t size)
{
    if (kind_check("memkind_calloc", kind) != MEMKIND_SUCCESS) {
        errno = EINVAL;
        return NULL;
    }
    if (!num || !size)
        return NULL;
    if (size > SIZE_MAX / num) {
        errno = ENOMEM;
        return NULL;
    }
    return heap_alloc(kind, 0, num * size, true);
}

MK_EXPORT int memkind_posix_memalign(memkind_t kind, void **memptr, size_t alignment, size_t size)
{
    if (!memptr || kind_check("memkind_posix_memalign", kind) != MEMKIND_SUCCESS)
        return EINVAL;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)))
        return EINVAL;
    if (!size) {
        *memptr = NULL;
        return 0;
    }
    void *b = heap_alloc(kind, alignment, size, false);
    if (!b)
        return ENOMEM;
    *memptr = b;
    return 0;
}

/* Whether ptr is a block loci made (memkind's blocks are loci's). */
static bool is_block(const char *fn, void *ptr)
{
    if (loci_usable_size(ptr))
        return true;
    mk_log(LOCI_LOG_WARN, "%s(%p): not a block memkind allocated (or already freed): ignored", fn, ptr);
    return false;
}

MK_EXPORT void memkind_free(memkind_t kind, void *ptr)
{
    int saved = errno;
    if (!ptr || (kind && kind_check("memkind_free", kind) != MEMKIND_SUCCESS))
        return;
    if (is_block("memkind_free", ptr))
        loci_free(ptr);
    errno = saved;
}

MK_EXPORT void *memkind_realloc(memkind_t kind, void *ptr, size_t size)
{
    if (kind && kind_check("memkind_realloc", kind) != MEMKIND_SUCCESS) {
        errno = EINVAL;
        return NULL;
    }
    if (!ptr) {
        if (!kind) {
            errno = EINVAL; /* memkind: no kind to allocate from */
            return NULL;
        }
        return size ? heap_alloc(kind, 0, size, false) : NULL;
    }
    if (!is_block("memkind_realloc", ptr)) {
        errno = EINVAL;
        return NULL;
    }
    int saved = errno;
    if (!size) {
        loci_free(ptr);
        errno = saved;
        return NULL;
    }
    void *b = loci_realloc(ptr, size); /* within the block's own arena */
    if (b)
        errno = saved;
    if (b || !kind)
        return b;
    /* its arena is full: the kind's other candidates, as memkind's would */
    if (!(b = heap_alloc(kind, 0, size, false)))
        return NULL;
    size_t old = loci_usable_size(ptr);
    memcpy(b, ptr, old < size ? old : size);
    loci_free(ptr);
    return b;
}

MK_EXPORT size_t memkind_malloc_usable_size(memkind_t kind, MEMKIND_MALLOC_USABLE_SIZE_CONST void *ptr)
{
    if (kind && kind_check("memkind_malloc_usable_size", kind) != MEMKIND_SUCCESS)
        return 0;
    int saved = errno;
    size_t size = ptr ? loci_usable_size(ptr) : 0;
    errno = saved;
    return size;
}

/* loci's blocks do not fragment a kind the way jemalloc's slabs can: there
 * is never a better place to move one to (memkind's answer then is NULL). */
MK_EXPORT void *memkind_defrag_reallocate(memkind_t kind, void *ptr) { return NULL; }
