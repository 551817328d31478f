/*
 * Slabs: runs of slices holding blocks of one size class, and the slow
 * paths that move blocks between them and the thread caches.
 *
 *   refill:  class lock; from the slab this thread's cache owns (else it takes
 *            a partial slab, an empty one, or a new one: slices from a
 *            segment, a new segment if needed), claim the first run of
 *            consecutive free blocks — a whole fresh slab in one go — or,
 *            when the slab is fragmented, a batch for the cache's stack.
 *   flush:   class lock; blocks go back to their slabs' bitmaps; a slab whose
 *            blocks are all back (and that no cache owns) goes on the class's
 *            empty list, stamped: it is *retained*, resident and ready.
 *   retire:  retain.c: an empty slab leaves its class and the page map
 *            (class lock), then, with no class lock held, its pages are
 *            purged through the provider and its slices returned to the
 *            segment; a segment with no slab left is unmapped.
 *
 * The thread caches (tcache.c) call the refill and flush here. This file
 * calls retain.c (an empty slab, a failed charge, the decay clock) and the
 * files below it: segments, the page map, accounts.
 *
 * Lock order: registry → class → heap (→ account). No function here touches
 * the memory of a block.
 */
#include "pool/pool_internal.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --- slab lists (class lock held) -------------------------------------------- */

/* Take s off whatever list it is on. */
static void slab_unlist(hclass_t *hc, slab_t *s)
{
    if (s->where == SLAB_PARTIAL) {
        DLIST_UNLINK(hc->partial, s, next, prev);
    } else if (s->where == SLAB_EMPTY) {
        pool__slab_unretain(hc, s);
    }
    s->where = SLAB_FULL;
}

static void slab_make_empty(hclass_t *hc, slab_t *s, uint64_t now)
{
    slab_unlist(hc, s);
    pool__slab_retain(hc, s, now);
}

static void slab_make_partial(hclass_t *hc, slab_t *s)
{
    slab_unlist(hc, s);
    DLIST_PUSH(hc->partial, s, next, prev);
    s->where = SLAB_PARTIAL;
}

/* --- slab life (class lock held) ---------------------------------------------- */

static slab_t *slab_new(pool_heap_t *h, unsigned c)
{
    unsigned n = pool_class_slices[c];
    size_t bytes = (size_t)n * SLICE_SIZE;
    uint32_t bsize = pool_class_size[c];
    unsigned shift = (unsigned)__builtin_ctz(bsize);
    if (shift > PM_MAX_SHIFT) /* bigger blocks just skip units: still one byte per start */
        shift = PM_MAX_SHIFT;
    uint32_t nblocks = (uint32_t)(bytes / bsize), nwords = (nblocks + 63) / 64;
    size_t nunits = bytes >> shift;
    size_t state_bytes = (nunits + 7) & ~(size_t)7;
    /* a failed charge first gives back what the heap retains, then retries */
    if (pool__charge(h, bytes) != 0 && !(pool__reclaim(h, (int)c) && pool__charge(h, bytes) == 0))
        return NULL;
    /* Cache-line aligned, so that slabs of different threads share no line. */
    size_t meta = (sizeof(slab_t) + state_bytes + nwords * sizeof(uint64_t) + 63) & ~(size_t)63;
    slab_t *s = aligned_alloc(64, meta);
    if (s)
        memset(s, 0, meta);
    if (!s || (uintptr_t)s >> PM_ADDR_BITS) {
        free(s);
        pool__uncharge(h, bytes);
        return loci__fail_null(LOCI_ENOMEM, "out of memory for slab metadata");
    }
    unsigned first = 0;
    pthread_mutex_lock(&h->lock);
    segment_t *g = pool__slices_take(h, n, &first, NULL);
    pthread_mutex_unlock(&h->lock);
    if (!g && pool__reclaim(h, (int)c)) { /* the provider is full (a GPU): give back what we retain, retry */
        pthread_mutex_lock(&h->lock);
        g = pool__slices_take(h, n, &first, NULL);
        pthread_mutex_unlock(&h->lock);
    }
    if (!g) {
        free(s);
        pool__uncharge(h, bytes);
        return NULL;
    }
    s->heap = h;
    s->cls = (uint8_t)c;
    s->shift = (uint8_t)shift;
    s->nslices = (uint16_t)n;
    s->bsize = bsize;
    s->nblocks = nblocks;
    s->first = first;
    s->magic = (((uint64_t)1 << MAGIC_SHIFT) + bsize - 1) / bsize;
    s->base = g->base + first * SLICE_SIZE;
    s->seg = g;
    s->avail = (uint64_t *)((char *)s->state + state_bytes);
    s->navail = nblocks;
    s->where = SLAB_FULL;
    for (uint32_t w = 0; w < nwords; w++)
        s->avail[w] = ~0ull;
    if (nblocks % 64)
        s->avail[nwords - 1] = (1ull << (nblocks % 64)) - 1;
    int rc = 0;
    if (h->strict && h->ops->populate)
        rc = h->ops->populate((void *)s->base, bytes);
    if (rc == 0)
        rc = pool__pagemap_set(s->base, bytes, pm_slab_entry(s), pm_slab_step(s), (uintptr_t)h | c);
    if (rc != 0) {
        pool__slices_release(h, g, first, n, 0);
        free(s);
        pool__uncharge(h, bytes);
        errno = ENOMEM;
        return NULL;
    }
    g->slabs[first] = s;
    pool__committed_add(h, (int64_t)bytes);
    return s;
}

/* --- blocks in and out of slabs (class lock held) ------------------------------ */

static void bits_set(uint64_t *w, uint32_t from, uint32_t n)
{
    while (n) {
        uint32_t b = from % 64, k = 64 - b < n ? 64 - b : n;
        w[from / 64] |= (k == 64 ? ~0ull : ((1ull << k) - 1)) << b;
        from += k;
        n -= k;
    }
}

/* The first available block of s and the blocks after it that are
 * available too (at most max): taken out of the slab. */
static uint32_t slab_take_run(slab_t *s, uint32_t max, uint32_t *first)
{
    uint32_t nwords = (s->nblocks + 63) / 64, w = s->scan;
    while (!s->avail[w])
        w++; /* navail > 0, and words before scan are empty */
    uint32_t b = (uint32_t)__builtin_ctzll(s->avail[w]), start = w * 64 + b, n = 0;
    while (n < max && w < nwords) {
        uint64_t bits = s->avail[w] >> b;
        uint32_t ones = bits == ~0ull >> b ? 64 - b : (uint32_t)__builtin_ctzll(~bits);
        if (ones > max - n)
            ones = max - n;
        s->avail[w] &= ~((ones == 64 ? ~0ull : (1ull << ones) - 1) << b);
        n += ones;
        if (b + ones < 64)
            break;
        w++;
        b = 0;
    }
    s->navail -= n;
    while (s->scan < nwords && !s->avail[s->scan])
        s->scan++;
    if (s->scan == nwords)
        s->scan = 0;
    *first = start;
    return n;
}

/* Up to n blocks of s into out[], from the top down (out[n-1] first), so
 * the cache hands them out in address order. */
static unsigned slab_take(slab_t *s, tentry_t *out, unsigned n)
{
    unsigned got = 0, shift = s->shift;
    uint32_t nwords = (s->nblocks + 63) / 64, w = s->scan;
    uintptr_t bsize = s->bsize;
    while (got < n && s->navail > got) {
        uint64_t bits = s->avail[w];
        while (bits && got < n) {
            uintptr_t off = (uintptr_t)(w * 64 + (uint32_t)__builtin_ctzll(bits)) * bsize;
            bits &= bits - 1;
            out[n - 1 - got].p = (void *)(s->base + off);
            out[n - 1 - got].state = &s->state[off >> shift];
            got++;
        }
        s->avail[w] = bits;
        if (!bits)
            w = w + 1 == nwords ? 0 : w + 1;
    }
    s->navail -= got;
    s->scan = w;
    return got;
}

/* After blocks were taken from s: move it between lists. */
static void slab_taken(hclass_t *hc, slab_t *s)
{
    if (s->where == SLAB_OWNED)
        return;
    if (s->navail == 0)
        slab_unlist(hc, s);
    else if (s->where != SLAB_PARTIAL)
        slab_make_partial(hc, s);
}

/* A thread's cache gives up its slab: back on the list its blocks say. */
static void slab_disown(hclass_t *hc, slab_t *s, uint64_t *now)
{
    s->where = SLAB_FULL;
    if (s->navail == s->nblocks) {
        if (!*now)
            *now = clock_coarse_ms();
        slab_make_empty(hc, s, *now);
    } else if (s->navail > 0) {
        slab_make_partial(hc, s);
    }
}

/* A slab with available blocks: partial first (fill them up), then empty
 * ones (newest first), then a new one. */
static slab_t *class_slab(pool_heap_t *h, hclass_t *hc, unsigned c)
{
    slab_t *s = hc->partial ? hc->partial : hc->empty;
    return s ? s : slab_new(h, c);
}

/* Fill out[0..n) with up to n blocks of class c (from the top down; when
 * fewer come, they are moved to the bottom). */
static unsigned class_take(pool_heap_t *h, hclass_t *hc, unsigned c, tentry_t *out, unsigned n)
{
    unsigned got = 0;
    while (got < n) {
        slab_t *s = class_slab(h, hc, c);
        if (!s)
            break;
        got += slab_take(s, out, n - got);
        slab_taken(hc, s);
    }
    if (got && got < n)
        memmove(out, out + (n - got), got * sizeof *out);
    return got;
}

/* `added` blocks went back to s (their bits set): fix counts and lists. */
static void slab_returned(hclass_t *hc, slab_t *s, uint32_t added, uint32_t scan, uint64_t *now)
{
    uint32_t old = s->navail;
    s->navail = old + added;
    if (scan < s->scan)
        s->scan = scan;
    if (s->where == SLAB_OWNED) /* its owner will use the blocks */
        return;
    if (s->navail == s->nblocks) {
        if (!*now)
            *now = clock_coarse_ms();
        slab_make_empty(hc, s, *now);
    } else if (old == 0) {
        slab_make_partial(hc, s);
    }
}

void pool__flush_entries(pool_heap_t *h, tcache_t *tc, unsigned c, const tentry_t *e, unsigned n)
{
    hclass_t *hc = &h->cls[c];
    uint64_t now = 0;
    slab_t *s = NULL;
    uintptr_t base = 0, span = 0;
    uint32_t added = 0, scan = 0;
    pthread_mutex_lock(&hc->lock);
    for (unsigned i = 0; i < n; i++) {
        uintptr_t p = (uintptr_t)e[i].p;
        /* Neighbours in a cache are mostly from the same slab: count in
         * registers and settle the slab when the next one starts. */
        if (p - base >= span) {
            if (s)
                slab_returned(hc, s, added, scan, &now);
            s = pm_slab(pool__pagemap_entry(p));
            base = s->base;
            span = (size_t)s->nslices * SLICE_SIZE;
            added = 0;
            scan = UINT32_MAX;
        }
        uint32_t idx = pool__block_index(s, p);
        s->avail[idx / 64] |= 1ull << (idx % 64);
        if (idx / 64 < scan)
            scan = idx / 64;
        added++;
    }
    if (s)
        slab_returned(hc, s, added, scan, &now);
    pthread_mutex_unlock(&hc->lock);
    pool__held_add(h, tc, -(int64_t)n * pool_class_size[c], -(int64_t)n);
    if (now) /* slabs went empty */
        pool__retain_slabs_emptied(h, c);
}

void pool__bin_release(pool_heap_t *h, tcache_t *tc, unsigned c, tbin_t *b)
{
    uint32_t n = run_count(b);
    if (!n && !b->own)
        return;
    hclass_t *hc = &h->cls[c];
    uint64_t now = 0;
    pthread_mutex_lock(&hc->lock);
    if (n) {
        slab_t *s = pm_slab(pool__pagemap_entry(b->run_p));
        uint32_t idx = pool__block_index(s, b->run_p);
        bits_set(s->avail, idx, n);
        slab_returned(hc, s, n, idx / 64, &now);
    }
    if (b->own)
        slab_disown(hc, b->own, &now);
    b->own = NULL;
    pthread_mutex_unlock(&hc->lock);
    atomic_store_explicit(&b->run_n, 0, memory_order_relaxed);
    pool__held_add(h, tc, -(int64_t)n * pool_class_size[c], -(int64_t)n);
    if (now) /* slabs went empty */
        pool__retain_slabs_emptied(h, c);
}

/* --- blocks for a thread's cache (class lock taken here) ------------------------ */

/* Without a cache (thread exiting, no memory for one): one block, locked. */
void *pool__slab_alloc_one(pool_heap_t *h, unsigned c)
{
    tentry_t e;
    hclass_t *hc = &h->cls[c];
    pthread_mutex_lock(&hc->lock);
    unsigned got = class_take(h, hc, c, &e, 1);
    pthread_mutex_unlock(&hc->lock);
    if (!got)
        return NULL;
    pool__note_in_use(h);
    atomic_store_explicit(e.state, BLOCK_LIVE, memory_order_relaxed);
    pool__held_add(h, NULL, pool_class_size[c], 1);
    return e.p;
}

/* The stack and the run are empty: refill from the slab this cache owns
 * (taking a new one when it has nothing left): a run of consecutive blocks,
 * or, when the slab is too fragmented for one, a batch for the stack. */
void *pool__slab_refill(pool_heap_t *h, tcache_t *tc, tbin_t *b, unsigned c)
{
    hclass_t *hc = &h->cls[c];
    uint32_t got = 0;
    uint64_t now = clock_coarse_ms();
    bool fresh = false;
    pthread_mutex_lock(&hc->lock);
    atomic_store_explicit(&hc->refilled_ms, now, memory_order_relaxed);
    slab_t *s = b->own;
    if (!s || s->navail == 0) {
        if (s)
            slab_disown(hc, s, &now);
        b->own = s = class_slab(h, hc, c);
        if (s) {
            slab_unlist(hc, s);
            s->where = SLAB_OWNED;
            fresh = true;
        }
    }
    if (s) {
        /* a run worth having: 16 blocks, or half a slab or a stack if less */
        uint32_t first, min = 16;
        if (min > s->nblocks / 2)
            min = s->nblocks / 2;
        if (min > bin_cap(b) / 2)
            min = bin_cap(b) / 2;
        uint32_t n = slab_take_run(s, s->nblocks, &first);
        uintptr_t off = (uintptr_t)first * s->bsize;
        if (n >= min) {
            b->run_p = s->base + off;
            b->run_st = &s->state[off >> s->shift];
            b->run_step = s->bsize >> s->shift;
            atomic_store_explicit(&b->run_n, n, memory_order_relaxed);
            got = n;
        } else { /* a short run (n < cap / 2): onto the stack, with more of the slab */
            uint32_t want = bin_cap(b) / 2;
            tentry_t *slots = bin_slots(b);
            for (uint32_t i = 0; i < n; i++, off += s->bsize) {
                slots[want - 1 - i].p = (void *)(s->base + off);
                slots[want - 1 - i].state = &s->state[off >> s->shift];
            }
            uint32_t more = s->navail ? slab_take(s, slots, want - n) : 0;
            if (more < want - n) { /* close the gap */
                memmove(slots, slots + (want - n - more), more * sizeof *slots);
                memmove(slots + more, slots + (want - n), n * sizeof *slots);
            }
            got = more + n;
            bin_set_count(b, got);
        }
    }
    pthread_mutex_unlock(&hc->lock);
    if (!got)
        return NULL; /* the reason is in loci_last_error() */
    pool__held_add(h, tc, (int64_t)got * pool_class_size[c], got);
    if (fresh) /* an empty or new slab came into use */
        pool__note_in_use(h);
    pool__maybe_decay(h);
    if (!bin_count(b))
        pool__run_fill(b, c);
    return pool__bin_pop(b, bin_top(b));
}

void pool__run_fill(tbin_t *b, unsigned c)
{
    uint32_t r = run_count(b), n = pool_class_batch[c] < r ? pool_class_batch[c] : r;
    uintptr_t first = b->run_p, step = pool_class_size[c];
    /* {block, state byte} pairs, both advancing by a fixed step: one vector
     * add and one 16-byte store per entry. The stack pops from its top: the
     * lowest address goes there. */
    typedef uintptr_t pair_t __attribute__((vector_size(sizeof(tentry_t))));
    pair_t e = {first, (uintptr_t)b->run_st}, d = {step, b->run_step};
    tentry_t *slots = bin_slots(b);
    for (uint32_t i = n; i-- > 0; e += d)
        memcpy(&slots[i], &e, sizeof e);
    b->run_p = (uintptr_t)e[0];
    b->run_st = (_Atomic uint8_t *)e[1];
    for (uintptr_t a = first; a < b->run_p; a += step > 64 ? step : 64)
        __builtin_prefetch((const void *)a, 1);
    atomic_store_explicit(&b->run_n, r - n, memory_order_relaxed);
    bin_set_count(b, n);
}

/* --- heap destruction ------------------------------------------------------------ */

void pool__segments_release(pool_heap_t *h)
{
    segment_t *lists[2] = {h->segments, h->segs_full};
    for (int l = 0; l < 2; l++) {
        for (segment_t *g = lists[l]; g; g = g->next) {
            for (unsigned i = 0; i < SEG_SLICES; i++) {
                slab_t *s = g->slabs[i];
                if (!s)
                    continue;
                size_t bytes = (size_t)s->nslices * SLICE_SIZE;
                pool__pagemap_clear(s->base, bytes);
                pool__uncharge(h, bytes);
                pool__committed_add(h, -(int64_t)bytes);
                free(s);
            }
        }
    }
    pool__segments_unmap_all(h);
    for (unsigned c = 0; c < NCLASSES; c++) {
        h->cls[c].partial = h->cls[c].empty = h->cls[c].empty_tail = NULL;
        atomic_store(&h->cls[c].nempty, 0);
        atomic_store(&h->cls[c].oldest_ms, UINT64_MAX);
    }
    atomic_store(&h->retained, 0);
}
