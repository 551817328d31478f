/*
 * The malloc family, as the program calls it. A block of at least the
 * threshold goes to the arena of its site — the return address of the call
 * here and its size class — and everything else, or what a site arena
 * cannot take, to the allocator underneath. free, realloc and
 * malloc_usable_size ask loci whose block it is. reallocarray is here too:
 * glibc's would call its own realloc on our blocks.
 */
#include "tier.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALLER() __builtin_return_address(0)

static bool big(size_t size, const void *caller) { return size >= tier_threshold() && tier_may_place(caller); }

static bool power_of_two(size_t x) { return x && !(x & (x - 1)); }

static void *allocate(const void *caller, size_t size)
{
    void *p = big(size, caller) ? place_alloc(caller, 0, size, false) : NULL;
    return p ? p : libc_malloc(size);
}

static void *aligned(const void *caller, size_t alignment, size_t size)
{
    void *p = power_of_two(alignment) && big(size, caller) ? place_alloc(caller, alignment, size, false) : NULL;
    return p ? p : libc_memalign(alignment, size);
}

static void *resize(const void *caller, void *p, size_t size)
{
    if (!p)
        return allocate(caller, size);
    if (!tier_inside() && place_owns(p)) {
        if (size == 0) { /* as glibc: freed, NULL */
            place_free(p);
            return NULL;
        }
        return place_realloc(p, size);
    }
    void *q = size && big(size, caller) ? place_alloc(caller, 0, size, false) : NULL;
    if (!q) /* stays underneath */
        return libc_realloc(p, size);
    size_t old = libc_usable_size(p);
    memcpy(q, p, old < size ? old : size);
    libc_free(p);
    return q;
}

TIER_EXPORT void *malloc(size_t size) { return allocate(CALLER(), size); }

TIER_EXPORT void *calloc(size_t n, size_t size)
{
    size_t bytes;
    void *p = NULL;
    if (!__builtin_mul_overflow(n, size, &bytes) && big(bytes, CALLER()))
        p = place_alloc(CALLER(), 0, bytes, true);
    return p ? p : libc_calloc(n, size); /* which says ENOMEM on overflow */
}

TIER_EXPORT void *realloc(void *p, size_t size) { return resize(CALLER(), p, size); }

TIER_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return resize(CALLER(), p, bytes);
}

TIER_EXPORT void free(void *p)
{
    if (!tier_inside() && place_owns(p)) /* loci frees nothing of its own with free() */
        place_free(p);
    else
        libc_free(p);
}

TIER_EXPORT int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (!power_of_two(alignment) || alignment % sizeof(void *))
        return EINVAL;
    int saved = errno; /* posix_memalign leaves errno alone */
    void *p = aligned(CALLER(), alignment, size);
    int err = p ? 0 : errno ? errno : ENOMEM;
    errno = saved;
    if (p)
        *out = p;
    return err;
}

TIER_EXPORT void *aligned_alloc(size_t alignment, size_t size) { return aligned(CALLER(), alignment, size); }

TIER_EXPORT void *memalign(size_t alignment, size_t size) { return aligned(CALLER(), alignment, size); }

TIER_EXPORT void *valloc(size_t size) { return aligned(CALLER(), (size_t)sysconf(_SC_PAGESIZE), size); }

TIER_EXPORT void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page) {
        errno = ENOMEM;
        return NULL;
    }
    return aligned(CALLER(), page, size ? (size + page - 1) / page * page : page);
}

TIER_EXPORT size_t malloc_usable_size(void *p)
{
    return !tier_inside() && place_owns(p) ? place_usable(p) : libc_usable_size(p);
}
