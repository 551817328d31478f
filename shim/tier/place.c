/*
 * Blocks in site arenas: made, measured, resized and freed, with the
 * site's counters kept. Every call into loci runs with this thread marked
 * (tier_enter), so whatever loci allocates meanwhile stays underneath.
 * loci's own pointer lookup (loci_usable_size: one page-map read, 0 for
 * any address loci did not hand out) tells these blocks from libc's; a
 * bitmap of the 256 MiB granules that ever held a placed block spares most
 * of libc's frees even that (a small free costs a few nanoseconds more
 * than libc's own instead of a lookup).
 */
#include "tier.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#define GRANULE_SHIFT 28
#define GRANULES ((uintptr_t)1 << (48 - GRANULE_SHIFT)) /* a 48-bit address space: 128 KiB of bits */
static _Atomic uint64_t placed[GRANULES / 64];

/* [p, p + n) held a placed block: its granules may hold one from now on. */
static void mark(const void *p, size_t n)
{
    for (uintptr_t g = (uintptr_t)p >> GRANULE_SHIFT; g <= ((uintptr_t)p + n - 1) >> GRANULE_SHIFT && g < GRANULES;
         g++)
        if (!(atomic_load_explicit(&placed[g / 64], memory_order_relaxed) & (1ull << (g % 64))))
            atomic_fetch_or_explicit(&placed[g / 64], 1ull << (g % 64), memory_order_relaxed);
}

/* Whether p may be a placed block: false only where none ever was. */
static bool may_be_placed(const void *p)
{
    uintptr_t g = (uintptr_t)p >> GRANULE_SHIFT;
    return g >= GRANULES || (atomic_load_explicit(&placed[g / 64], memory_order_relaxed) & (1ull << (g % 64)));
}

#define MALLOC_ALIGN 16 /* what malloc guarantees on x86-64 and aarch64; every loci block of >= 4 KiB has it */

void *place_alloc(const void *caller, size_t alignment, size_t size, bool zero)
{
    if (!tier_started())
        return NULL;
    tier_context_t context;
    context_capture(caller, &context);
    tier_site_t *s = site_for(&context, caller, size);
    loci_arena_t *ar = site_arena(s);
    if (!ar)
        return NULL;
    tier_enter();
    void *p = alignment > MALLOC_ALIGN ? loci_arena_aligned_alloc(ar, alignment, size) : loci_arena_alloc(ar, size);
    size_t usable = p ? loci_usable_size(p) : 0;
    tier_leave();
    if (!p)
        return NULL; /* a full target: the block goes underneath, where malloc would have put it */
    mark(p, usable);
    site_count_alloc(s, usable);
    if (zero) /* the arena may hand out memory a freed block had */
        memset(p, 0, size);
    return p;
}

bool place_owns(const void *p)
{
    if (!p || !may_be_placed(p))
        return false;
    tier_enter();
    bool ours = loci_usable_size(p) != 0;
    tier_leave();
    return ours;
}

size_t place_usable(const void *p)
{
    tier_enter();
    size_t n = loci_usable_size(p);
    tier_leave();
    return n;
}

void place_free(void *p)
{
    tier_enter();
    size_t usable = loci_usable_size(p);
    tier_site_t *s = site_of_arena(loci_ptr_arena(p)); /* NULL: a loci block the program got elsewhere */
    loci_free(p);
    tier_leave();
    if (s)
        site_count_free(s, usable);
}

void *place_realloc(void *p, size_t size)
{
    if (size < tier_threshold()) { /* small now: underneath, as any small block */
        void *q = libc_malloc(size);
        if (q) {
            size_t old = place_usable(p);
            memcpy(q, p, old < size ? old : size);
            place_free(p);
        }
        return q;
    }
    tier_enter();
    size_t before = loci_usable_size(p);
    tier_site_t *s = site_of_arena(loci_ptr_arena(p));
    void *q = loci_realloc(p, size); /* stays in its arena: the site that made it */
    size_t after = q ? loci_usable_size(q) : 0;
    tier_leave();
    if (q)
        mark(q, after);
    if (q && s)
        site_count_resize(s, before, after);
    if (!q)
        errno = ENOMEM;
    return q;
}
