/*
 * Blocks in site arenas: made, measured, resized and freed, with the
 * site's counters kept. Every call into loci runs with this thread marked
 * (tier_enter), so whatever loci allocates meanwhile stays underneath.
 * loci's own pointer lookup (loci_usable_size: one page-map read, 0 for
 * any address loci did not hand out) tells these blocks from libc's.
 */
#include "tier.h"

#include <errno.h>
#include <string.h>

#define MALLOC_ALIGN 16 /* what malloc guarantees on x86-64 and aarch64; every loci block of >= 4 KiB has it */

void *place_alloc(const void *caller, size_t alignment, size_t size, bool zero)
{
    if (!tier_started())
        return NULL;
    tier_site_t *s = site_for(caller, size);
    loci_arena_t *ar = site_arena(s);
    if (!ar)
        return NULL;
    tier_enter();
    void *p = alignment > MALLOC_ALIGN ? loci_arena_aligned_alloc(ar, alignment, size) : loci_arena_alloc(ar, size);
    size_t usable = p ? loci_usable_size(p) : 0;
    tier_leave();
    if (!p)
        return NULL; /* a full target: the block goes underneath, where malloc would have put it */
    tier_mark_placed();
    site_count_alloc(s, usable);
    if (zero) /* the arena may hand out memory a freed block had */
        memset(p, 0, size);
    return p;
}

bool place_owns(const void *p)
{
    if (!p || !tier_any_placed())
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
    if (q && s)
        site_count_resize(s, before, after);
    if (!q)
        errno = ENOMEM;
    return q;
}
