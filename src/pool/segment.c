/*
 * Segments: 4 MiB provider extents cut into 64 slices of 64 KiB. Slabs
 * (slab.c) and big blocks up to POOL_CARVE_MAX (large.c) are runs of slices,
 * so both cost one mmap (and one mbind) per segment, not one per block.
 *
 * A slice is used (a slab's or a block's), free, or free and *dirty*: a
 * freed big block's slices stay resident and charged, retained like an
 * empty slab (retain.c), so the next block carved there neither maps nor
 * faults. Carving prefers a run of dirty slices, then any free run, then a
 * new segment. Dirty slices go back to the kernel (purged; a segment with
 * nothing left is unmapped) by the retention policy: past the heap's budget
 * the oldest go first, the dirty slices of a segment not freed into for the
 * purge delay go, and collect or a failed charge purges them all.
 *
 * Lists (heap lock): h->segments has the segments with a free slice,
 * h->segs_full those with none (carving never walks full segments: a heap
 * of big blocks has thousands), h->dirty those with dirty slices, the one
 * freed into last at the head. A purge runs without the lock, its slices
 * marked used meanwhile (h->npurging lets pool_heap_rebase wait for it).
 */
#include "pool/pool_internal.h"

#include <stdlib.h>

#define DIRTY_LOOK 16u /* segments searched for a dirty run at most */

/* First run of n clear bits in used, or -1. */
static int find_run(uint64_t used, unsigned n)
{
    uint64_t m = n >= 64 ? ~0ull : (1ull << n) - 1;
    for (unsigned i = 0; i + n <= 64;) {
        uint64_t w = used & (m << i);
        if (!w)
            return (int)i;
        i = 64u - (unsigned)__builtin_clzll(w);
    }
    return -1;
}

static uint64_t run_mask(unsigned first, unsigned n)
{
    return (n >= 64 ? ~0ull : (1ull << n) - 1) << first;
}

static size_t slices_bytes(uint64_t mask)
{
    return (size_t)__builtin_popcountll(mask) * SLICE_SIZE;
}

/* --- lists (heap lock held) ------------------------------------------------- */

static void seg_push(segment_t **head, segment_t *g) { DLIST_PUSH(*head, g, next, prev); }

static void seg_pull(segment_t **head, segment_t *g) { DLIST_UNLINK(*head, g, next, prev); }

/* After g->used changed: on the list its free slices say. */
static void seg_file(pool_heap_t *h, segment_t *g)
{
    bool full = g->used == ~0ull;
    if (full == g->full)
        return;
    seg_pull(g->full ? &h->segs_full : &h->segments, g);
    seg_push(full ? &h->segs_full : &h->segments, g);
    g->full = full;
}

static void dirty_unlink(pool_heap_t *h, segment_t *g)
{
    DLIST_UNLINK_T(h->dirty, h->dirty_tail, g, dnext, dprev);
    atomic_fetch_sub_explicit(&h->ndirty, 1, memory_order_relaxed);
}

static void dirty_push(pool_heap_t *h, segment_t *g)
{
    DLIST_PUSH_T(h->dirty, h->dirty_tail, g, dnext, dprev);
    atomic_fetch_add_explicit(&h->ndirty, 1, memory_order_relaxed);
}

/* Out of the lists and the books (g holds nothing); the caller unmaps it. */
static void seg_forget(pool_heap_t *h, segment_t *g)
{
    seg_pull(g->full ? &h->segs_full : &h->segments, g);
    pool__mapped_add(h, -(int64_t)POOL_SEGMENT_SIZE, -1);
}

static void seg_unmap(const provider_ops_t *ops, segment_t *g)
{
    ops->free((void *)g->base, POOL_SEGMENT_SIZE);
    free(g);
}

/* --- taking and giving back slices ---------------------------------------- */

segment_t *pool__slices_take(pool_heap_t *h, unsigned n, unsigned *first, unsigned *ndirty)
{
    segment_t *any = NULL;
    int at = -1;
    /* a dirty run (resident already: no fault, nothing new to charge), in
     * the segments freed into last; then the first free run */
    unsigned seen = 0;
    for (segment_t *g = h->dirty; g && seen < DIRTY_LOOK; g = g->dnext, seen++) {
        if ((at = find_run(g->used | ~g->dirty, n)) >= 0) {
            any = g;
            break;
        }
    }
    for (segment_t *g = h->segments; g && !any; g = g->next) {
        if ((unsigned)__builtin_popcountll(~g->used) >= n && (at = find_run(g->used, n)) >= 0)
            any = g;
    }
    if (any) {
        uint64_t mask = run_mask((unsigned)at, n), was = any->dirty & mask;
        any->used |= mask;
        if (was) {
            /* the caller charges the whole run: these bytes were charged while dirty */
            any->dirty &= ~mask;
            if (!any->dirty)
                dirty_unlink(h, any);
            pool__retained_add(h, -(int64_t)slices_bytes(was));
            pool__uncharge(h, slices_bytes(was));
            pool__committed_add(h, -(int64_t)slices_bytes(was));
        }
        seg_file(h, any);
        *first = (unsigned)at;
        if (ndirty)
            *ndirty = (unsigned)__builtin_popcountll(was);
        return any;
    }
    void *base = h->ops->alloc(&h->place, POOL_SEGMENT_SIZE, pool__extent_align(h, SLICE_SIZE));
    if (!base)
        return NULL;
    segment_t *g = calloc(1, sizeof *g);
    if (!g) {
        h->ops->free(base, POOL_SEGMENT_SIZE);
        return loci__fail_null(LOCI_ENOMEM, "out of memory for segment metadata");
    }
    g->base = (uintptr_t)base;
    g->used = run_mask(0, n);
    g->full = false;
    seg_push(&h->segments, g);
    seg_file(h, g);
    pool__mapped_add(h, POOL_SEGMENT_SIZE, 1);
    *first = 0;
    if (ndirty)
        *ndirty = 0;
    return g;
}

void pool__slices_release(pool_heap_t *h, segment_t *g, unsigned first, unsigned n, size_t charged)
{
    uint64_t mask = run_mask(first, n);
    const provider_ops_t *purge = NULL;
    pthread_mutex_lock(&h->lock);
    /* the pages go first, while the slices are still ours, so that no new
     * slab or block there can lose data to the purge; a segment about to be
     * unmapped needs none */
    if (((g->used & ~mask) != 0 || g->dirty) && h->purgeable) {
        purge = h->ops;
        atomic_fetch_add_explicit(&h->npurging, 1, memory_order_relaxed);
    }
    if (purge) {
        pthread_mutex_unlock(&h->lock);
        purge->purge((void *)(g->base + first * SLICE_SIZE), (size_t)n * SLICE_SIZE);
        atomic_fetch_sub_explicit(&h->npurging, 1, memory_order_release);
        pthread_mutex_lock(&h->lock);
    }
    g->used &= ~mask;
    if (charged) { /* under the heap lock: pool_heap_rebase sees it wholly in the heap or out */
        pool__uncharge(h, charged);
        pool__committed_add(h, -(int64_t)charged);
    }
    bool gone = g->used == 0 && g->dirty == 0;
    const provider_ops_t *ops = h->ops;
    if (gone)
        seg_forget(h, g);
    else
        seg_file(h, g);
    pthread_mutex_unlock(&h->lock);
    if (gone)
        seg_unmap(ops, g);
}

void pool__slices_keep(pool_heap_t *h, segment_t *g, unsigned first, unsigned n, uint64_t now)
{
    uint64_t mask = run_mask(first, n);
    if (h->dirty != g) { /* to the head: freed into last */
        if (g->dirty)
            dirty_unlink(h, g);
        dirty_push(h, g);
    }
    g->used &= ~mask;
    g->dirty |= mask;
    g->dirty_ms = now;
    pool__retained_add(h, (int64_t)slices_bytes(mask));
    seg_file(h, g);
}

/* --- giving dirty slices back ---------------------------------------------- */

/* The dirty slices of g go back (heap lock held on entry and on return,
 * dropped meanwhile): purged, or with the segment when nothing else is in
 * it; a heap that cannot purge (pinned) just stops retaining them. */
static void dirty_release_locked(pool_heap_t *h, segment_t *g)
{
    uint64_t mask = g->dirty;
    size_t bytes = slices_bytes(mask);
    dirty_unlink(h, g);
    g->dirty = 0;
    pool__retained_add(h, -(int64_t)bytes);
    pool__uncharge(h, bytes);
    pool__committed_add(h, -(int64_t)bytes);
    atomic_fetch_add_explicit(&h->purges, 1, memory_order_relaxed);
    account_t *a = atomic_load_explicit(&h->acct, memory_order_relaxed);
    if (a)
        atomic_fetch_add_explicit(&a->purges, 1, memory_order_relaxed);
    const provider_ops_t *ops = h->ops;
    if (g->used != 0 && h->purgeable) {
        g->used |= mask; /* nobody carves them while their pages go */
        seg_file(h, g);
        atomic_fetch_add_explicit(&h->npurging, 1, memory_order_relaxed);
        pthread_mutex_unlock(&h->lock);
        for (unsigned i = 0; i < 64;) {
            uint64_t rest = mask >> i;
            if (!rest)
                break;
            i += (unsigned)__builtin_ctzll(rest);
            uint64_t ones = ~(mask >> i);
            unsigned k = ones ? (unsigned)__builtin_ctzll(ones) : 64 - i;
            ops->purge((void *)(g->base + (uintptr_t)i * SLICE_SIZE), (size_t)k * SLICE_SIZE);
            i += k;
        }
        atomic_fetch_sub_explicit(&h->npurging, 1, memory_order_release);
        pthread_mutex_lock(&h->lock);
        g->used &= ~mask;
    }
    if (g->used == 0 && g->dirty == 0) {
        seg_forget(h, g);
        pthread_mutex_unlock(&h->lock);
        seg_unmap(ops, g);
        pthread_mutex_lock(&h->lock);
    } else {
        seg_file(h, g);
    }
}

unsigned pool__dirty_purge_oldest(pool_heap_t *h, uint64_t before)
{
    if (!atomic_load_explicit(&h->ndirty, memory_order_relaxed))
        return 0;
    unsigned n = 0;
    pthread_mutex_lock(&h->lock);
    segment_t *g = h->dirty_tail;
    if (g && g->dirty_ms <= before) {
        dirty_release_locked(h, g);
        n = 1;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

unsigned pool__dirty_decay(pool_heap_t *h, uint64_t now, uint64_t delay, unsigned max)
{
    if (!atomic_load_explicit(&h->ndirty, memory_order_relaxed))
        return 0;
    unsigned n = 0;
    segment_t *g;
    pthread_mutex_lock(&h->lock);
    while (n < max && (g = h->dirty_tail) && now > g->dirty_ms && now - g->dirty_ms >= delay) {
        dirty_release_locked(h, g);
        n++;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

unsigned pool__dirty_drop(pool_heap_t *h)
{
    if (!atomic_load_explicit(&h->ndirty, memory_order_relaxed))
        return 0;
    unsigned n = 0;
    pthread_mutex_lock(&h->lock);
    while (h->dirty_tail) {
        dirty_release_locked(h, h->dirty_tail);
        n++;
    }
    pthread_mutex_unlock(&h->lock);
    return n;
}

void pool__segments_unmap_all(pool_heap_t *h)
{
    segment_t *lists[2] = {h->segments, h->segs_full};
    for (int i = 0; i < 2; i++) {
        for (segment_t *g = lists[i], *next; g; g = next) {
            next = g->next;
            if (g->dirty) { /* charged while retained */
                pool__uncharge(h, slices_bytes(g->dirty));
                pool__committed_add(h, -(int64_t)slices_bytes(g->dirty));
            }
            pool__mapped_add(h, -(int64_t)POOL_SEGMENT_SIZE, -1);
            seg_unmap(h->ops, g);
        }
    }
    h->segments = h->segs_full = h->dirty = h->dirty_tail = NULL;
    atomic_store_explicit(&h->ndirty, 0, memory_order_relaxed);
}
