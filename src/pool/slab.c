/*
 * Slabs and segments: the slow paths between thread caches and memory, and
 * the retention policy that decides when memory goes back to the kernel.
 *
 *   refill:  class lock; from the slab this thread's cache owns (else it takes
 *            a partial slab, an empty one, or a new one: slices from a
 *            segment, a new segment if needed), claim the first run of
 *            consecutive free blocks — a whole fresh slab in one go — or,
 *            when the slab is fragmented, a batch for the cache's stack.
 *   flush:   class lock; blocks go back to their slabs' bitmaps; a slab whose
 *            blocks are all back (and that no cache owns) goes on the class's
 *            empty list, stamped: it is *retained*, resident and ready.
 *   retire:  an empty slab leaves its class and the page map (class lock),
 *            then, with no class lock held, its pages are purged through the
 *            provider and its slices returned to the segment; a segment with
 *            no slab left is unmapped.
 *
 * Retention. Faulting pages in again costs far more than keeping them, so
 * empty slabs (and freed big blocks: dirty slices, segment.c, and cached
 * extents, large.c) stay resident, within limits:
 *  - budget: a heap retains at most max(64 MiB, twice its recent peak of
 *    bytes in use), in use = committed - retained, the peak taken over the
 *    current and the previous window of one purge delay. Twice, because
 *    free memory here is split by size class: a program that moves between
 *    sizes and comes back needs each size's memory again, and the sum of
 *    those footprints exceeds the peak in use at any one moment (cycling
 *    through the 13 sizes of 8 B ... 32 KiB of bench/alloc takes ~2x). Past
 *    the budget the oldest retained things go first (slabs and cached
 *    extents alike), right where a slab goes empty or an extent is cached:
 *    memory a program moved away from goes back at once.
 *  - age: an empty slab that stayed unused for the purge delay (default 10 s,
 *    pool_set_purge_delay_ms) is retired, once its class has not refilled
 *    for that long either; a class still refilling keeps its empty slabs up
 *    to ten delays. So memory freed for good goes back within seconds, while
 *    a workload that comes back to a size finds its slabs still resident.
 *  - delay 0: nothing is retained; slabs are retired as they go empty.
 *  - pool_heap_collect: everything retained goes back at once; a failed
 *    charge (capacity cap, node free memory) does the same and retries.
 *  - pinned heaps retire slabs but never purge pages (locked memory).
 * The fast paths never look at any of this. The age and budget checks run on
 * slow paths (a refill, a full cache, a big block), the clock read on one in
 * 8 of them, the heap's decay check then due every delay / 8 (at most 1 s;
 * every ms while it has more to release), and each check or budget trim
 * releases a bounded number of slabs or extents (RETAIN_STEP): a burst of
 * expiries is spread over many slow paths instead of stalling one of them
 * for tens of ms. Purges, unmaps and their system calls run with no class
 * lock held, so other threads keep allocating meanwhile.
 *
 * Lock order: registry → class → heap (→ account). No function here touches
 * the memory of a block.
 */
#include "pool/pool_internal.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Atomic unsigned pool__purge_delay_ms = 10000;

#define RETAIN_FLOOR ((uint64_t)64 << 20) /* a heap may always retain this much */
#define RETAIN_PEAKS 2                    /* ... or this many times its recent peak in use */
#define RETAIN_STEP 4u                    /* slabs or extents released per check at most */

/* ms from t to now, 0 when t is later (clocks read on other threads) */
static inline uint64_t age_ms(uint64_t now, uint64_t t)
{
    return now > t ? now - t : 0;
}

unsigned pool_set_purge_delay_ms(unsigned ms)
{
    return atomic_exchange(&pool__purge_delay_ms, ms);
}

/* --- slab lists (class lock held) -------------------------------------------- */

static void class_set_oldest(hclass_t *hc)
{
    atomic_store_explicit(&hc->oldest_ms, hc->empty_tail ? hc->empty_tail->empty_since : UINT64_MAX,
                          memory_order_relaxed);
}

/* Take s off whatever list it is on. */
static void slab_unlist(hclass_t *hc, slab_t *s)
{
    if (s->where == SLAB_PARTIAL) {
        DLIST_UNLINK(hc->partial, s, next, prev);
    } else if (s->where == SLAB_EMPTY) {
        bool tail = hc->empty_tail == s;
        DLIST_UNLINK_T(hc->empty, hc->empty_tail, s, next, prev);
        if (tail)
            class_set_oldest(hc);
        atomic_fetch_sub_explicit(&hc->nempty, 1, memory_order_relaxed);
        pool__retained_add(s->heap, -(int64_t)((size_t)s->nslices * SLICE_SIZE));
    }
    s->where = SLAB_FULL;
}

static void slab_make_empty(hclass_t *hc, slab_t *s, uint64_t now)
{
    slab_unlist(hc, s);
    DLIST_PUSH(hc->empty, s, next, prev);
    s->where = SLAB_EMPTY;
    s->empty_since = now;
    if (!hc->empty_tail) {
        hc->empty_tail = s;
        class_set_oldest(hc);
    }
    atomic_fetch_add_explicit(&hc->nempty, 1, memory_order_relaxed);
    pool__retained_add(s->heap, (int64_t)((size_t)s->nslices * SLICE_SIZE));
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

/* Retiring an empty slab, first step (class lock held): out of its class
 * and the page map. Its memory is still the heap's until slab_release. */
static void slab_detach(hclass_t *hc, slab_t *s)
{
    slab_unlist(hc, s);
    pool__pagemap_clear(s->base, (size_t)s->nslices * SLICE_SIZE);
    s->seg->slabs[s->first] = NULL;
}

/* Second step, with no class lock held: pages purged, slices returned. */
static void slab_release(pool_heap_t *h, slab_t *s)
{
    pool__slices_release(h, s->seg, s->first, s->nslices, (size_t)s->nslices * SLICE_SIZE);
    free(s);
    atomic_fetch_add_explicit(&h->purges, 1, memory_order_relaxed);
    account_t *a = atomic_load_explicit(&h->acct, memory_order_relaxed);
    if (a)
        atomic_fetch_add_explicit(&a->purges, 1, memory_order_relaxed);
}

/* Class lock held: detach the class's empty slabs that have been unused for
 * `delay` (all of them with delay 0), oldest first, at most max, into out[].
 * A class still in use (refilled within the delay) keeps its empty slabs ten
 * times longer: a workload that pauses and resumes, or frees and allocates
 * in waves, finds its memory still there, while memory freed for good still
 * goes back. */
static unsigned class_expire(hclass_t *hc, uint64_t now, uint64_t delay, slab_t **out, unsigned max)
{
    unsigned n = 0;
    if (delay && age_ms(now, atomic_load_explicit(&hc->refilled_ms, memory_order_relaxed)) < delay)
        delay *= 10;
    while (n < max && hc->empty_tail && age_ms(now, hc->empty_tail->empty_since) >= delay) {
        out[n] = hc->empty_tail;
        slab_detach(hc, out[n++]);
    }
    return n;
}

/* Retire every empty slab of class c (the caller holds its lock when held). */
static unsigned class_flush_empty(pool_heap_t *h, unsigned c, bool held)
{
    hclass_t *hc = &h->cls[c];
    slab_t *out[RETAIN_STEP];
    unsigned total = 0, n;
    do {
        if (!held)
            pthread_mutex_lock(&hc->lock);
        n = class_expire(hc, 0, 0, out, RETAIN_STEP);
        if (!held)
            pthread_mutex_unlock(&hc->lock);
        for (unsigned i = 0; i < n; i++)
            slab_release(h, out[i]);
        total += n;
    } while (n == RETAIN_STEP);
    return total;
}

/* --- retention: budget and age ----------------------------------------------- */

uint64_t pool__retain_budget(pool_heap_t *h)
{
    uint64_t a = atomic_load_explicit(&h->peak_cur, memory_order_relaxed);
    uint64_t b = atomic_load_explicit(&h->peak_prev, memory_order_relaxed);
    uint64_t peak = a > b ? a : b;
    return peak * RETAIN_PEAKS > RETAIN_FLOOR ? peak * RETAIN_PEAKS : RETAIN_FLOOR;
}

static uint64_t in_use(pool_heap_t *h)
{
    uint64_t c = counter_get(&h->committed), r = atomic_load_explicit(&h->retained, memory_order_relaxed);
    return c > r ? c - r : 0;
}

void pool__note_in_use(pool_heap_t *h)
{
    pool__peak_raise(&h->peak_cur, in_use(h));
}

static bool over_budget(pool_heap_t *h)
{
    return atomic_load_explicit(&h->retained, memory_order_relaxed) > pool__retain_budget(h);
}

void pool__retain_trim(pool_heap_t *h, unsigned max)
{
    for (unsigned i = 0; i < max && over_budget(h); i++) {
        /* the oldest retained thing: a class's oldest empty slab, or the
         * cache's oldest resident extent */
        unsigned best = NCLASSES;
        uint64_t t = UINT64_MAX;
        for (unsigned c = 0; c < NCLASSES; c++) {
            uint64_t o = atomic_load_explicit(&h->cls[c].oldest_ms, memory_order_relaxed);
            if (o < t) {
                t = o;
                best = c;
            }
        }
        if (pool__lcache_purge_oldest(h, t) || pool__dirty_purge_oldest(h, t))
            continue;
        if (best == NCLASSES)
            break;
        hclass_t *hc = &h->cls[best];
        pthread_mutex_lock(&hc->lock);
        slab_t *s = hc->empty_tail;
        if (s)
            slab_detach(hc, s);
        pthread_mutex_unlock(&hc->lock);
        if (s)
            slab_release(h, s);
    }
}

bool pool__reclaim(pool_heap_t *h, int held)
{
    tcache_t *tc = pool__tcache_mine(h);
    unsigned n = tc ? atomic_load_explicit(&tc->nbig, memory_order_relaxed) : 0;
    if (n) /* the big blocks this thread keeps become dirty slices, dropped next */
        pool__tcache_big_flush(h, tc);
    n += pool__lcache_drop(h) + pool__dirty_drop(h);
    for (unsigned c = 0; c < NCLASSES; c++) {
        if (!atomic_load_explicit(&h->cls[c].nempty, memory_order_relaxed))
            continue;
        if ((int)c == held) {
            n += class_flush_empty(h, c, true);
        } else if (held < 0) {
            n += class_flush_empty(h, c, false);
        } else if (pthread_mutex_trylock(&h->cls[c].lock) == 0) {
            /* another class's lock while holding ours: only if free (no deadlock) */
            n += class_flush_empty(h, c, true);
            pthread_mutex_unlock(&h->cls[c].lock);
        }
    }
    return n > 0;
}

void pool__collect(pool_heap_t *h)
{
    for (unsigned c = 0; c < NCLASSES; c++)
        if (atomic_load_explicit(&h->cls[c].nempty, memory_order_relaxed))
            class_flush_empty(h, c, false);
    pool__lcache_drop(h);
    pool__dirty_drop(h);
}

/* One decay check: a new peak window when one delay has passed, then what
 * has been unused too long, then what exceeds the budget; at most
 * RETAIN_STEP slabs or extents in all. Returns how many went. */
static unsigned decay_step(pool_heap_t *h, uint64_t now, uint64_t delay)
{
    uint64_t w = atomic_load_explicit(&h->window_ms, memory_order_relaxed);
    if (age_ms(now, w) >= (delay ? delay : 1) && atomic_compare_exchange_strong(&h->window_ms, &w, now)) {
        atomic_store_explicit(&h->peak_prev, atomic_load_explicit(&h->peak_cur, memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&h->peak_cur, in_use(h), memory_order_relaxed);
    }
    unsigned done = 0;
    slab_t *out[RETAIN_STEP];
    for (unsigned c = 0; c < NCLASSES && done < RETAIN_STEP; c++) {
        hclass_t *hc = &h->cls[c];
        if (!atomic_load_explicit(&hc->nempty, memory_order_relaxed) ||
            age_ms(now, atomic_load_explicit(&hc->oldest_ms, memory_order_relaxed)) < delay)
            continue;
        pthread_mutex_lock(&hc->lock);
        unsigned n = class_expire(hc, now, delay, out, RETAIN_STEP - done);
        pthread_mutex_unlock(&hc->lock);
        for (unsigned i = 0; i < n; i++)
            slab_release(h, out[i]);
        done += n;
    }
    if (done < RETAIN_STEP && atomic_load_explicit(&h->lc_count, memory_order_relaxed))
        done += pool__lcache_decay(h, now, delay, RETAIN_STEP - done);
    if (done < RETAIN_STEP)
        done += pool__dirty_decay(h, now, delay, RETAIN_STEP - done);
    if (done < RETAIN_STEP && over_budget(h)) {
        pool__retain_trim(h, RETAIN_STEP - done);
        done = RETAIN_STEP; /* look again soon */
    }
    return done;
}

void pool__maybe_decay(pool_heap_t *h)
{
    /* Look at the clock on one slow path in 8 of each thread. */
    if (++pool__tl.ticks & 7)
        return;
    uint64_t now = clock_coarse_ms();
    uint64_t next = atomic_load_explicit(&h->next_decay_ms, memory_order_relaxed);
    if (now < next)
        return;
    uint64_t delay = atomic_load_explicit(&pool__purge_delay_ms, memory_order_relaxed);
    uint64_t period = delay / 8;
    period = period < 1 ? 1 : period > 1000 ? 1000 : period;
    if (!atomic_compare_exchange_strong(&h->next_decay_ms, &next, now + period))
        return;
    if (decay_step(h, now, delay) >= RETAIN_STEP && period > 1) /* more to release: again in a ms */
        atomic_store_explicit(&h->next_decay_ms, now + 1, memory_order_relaxed);
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

/* After a return that left slabs of class c empty (now set), class lock
 * released: with no delay they go at once; past the budget, the oldest
 * retained things go (a few: the next returns and checks do the rest). */
static void after_return(pool_heap_t *h, unsigned c, uint64_t now)
{
    if (!now)
        return;
    if (atomic_load_explicit(&pool__purge_delay_ms, memory_order_relaxed) == 0)
        class_flush_empty(h, c, false);
    else if (over_budget(h))
        pool__retain_trim(h, RETAIN_STEP / 2);
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
    after_return(h, c, now);
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
    after_return(h, c, now);
}

/* --- the slow paths of pool_alloc / pool_free ----------------------------------- */

static bool bin_ready(tbin_t *b, unsigned c)
{
    if (b->slots)
        return true;
    b->slots = malloc(pool_class_cap[c] * sizeof *b->slots);
    if (!b->slots)
        return false;
    b->cap = pool_class_cap[c];
    return true;
}

/* Without a cache (thread exiting, no memory for one): one block, locked. */
static void *alloc_direct(pool_heap_t *h, unsigned c)
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
static void *refill(pool_heap_t *h, tcache_t *tc, tbin_t *b, unsigned c)
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
        if (min > b->cap / 2)
            min = b->cap / 2;
        uint32_t n = slab_take_run(s, s->nblocks, &first);
        uintptr_t off = (uintptr_t)first * s->bsize;
        if (n >= min) {
            b->run_p = s->base + off;
            b->run_st = &s->state[off >> s->shift];
            b->run_bsize = s->bsize;
            b->run_step = s->bsize >> s->shift;
            atomic_store_explicit(&b->run_n, n, memory_order_relaxed);
            got = n;
        } else { /* a short run (n < cap / 2): onto the stack, with more of the slab */
            uint32_t want = b->cap / 2;
            for (uint32_t i = 0; i < n; i++, off += s->bsize) {
                b->slots[want - 1 - i].p = (void *)(s->base + off);
                b->slots[want - 1 - i].state = &s->state[off >> s->shift];
            }
            uint32_t more = s->navail ? slab_take(s, b->slots, want - n) : 0;
            if (more < want - n) { /* close the gap */
                memmove(b->slots, b->slots + (want - n - more), more * sizeof *b->slots);
                memmove(b->slots + more, b->slots + (want - n), n * sizeof *b->slots);
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
    uint32_t n = bin_count(b);
    return n ? pool__bin_pop(b, n) : pool__run_take(b, run_count(b));
}

void *pool__alloc_small_slow(pool_heap_t *h, unsigned c)
{
    tcache_t *tc = pool__tcache_of(h);
    tbin_t *b = tc ? &tc->bins[c] : NULL;
    if (!b || !bin_ready(b, c))
        return alloc_direct(h, c);
    uint32_t n = bin_count(b), r = run_count(b);
    if (n) /* the cache was not the thread's last one */
        return pool__bin_pop(b, n);
    if (r)
        return pool__run_take(b, r);
    return refill(h, tc, b, c);
}

int pool__free_small_slow(uintptr_t aux, void *p, _Atomic uint8_t *state)
{
    pool_heap_t *h = (pool_heap_t *)(aux & ~PM_CLS_MASK);
    unsigned c = (unsigned)(aux & PM_CLS_MASK);
    tcache_t *tc = pool__tcache_of(h);
    tbin_t *b = tc ? &tc->bins[c] : NULL;
    if (!b || !bin_ready(b, c)) {
        tentry_t e = {p, state};
        pool__flush_entries(h, NULL, c, &e, 1);
        atomic_fetch_add_explicit(&h->frees, 1, memory_order_relaxed);
        return 0;
    }
    uint32_t count = bin_count(b);
    if (count == b->cap) { /* full: the older half goes back to the slabs */
        unsigned n = b->cap / 2 ? b->cap / 2 : 1;
        pool__flush_entries(h, tc, c, b->slots, n);
        memmove(b->slots, b->slots + n, (count - n) * sizeof *b->slots);
        count -= n;
        pool__maybe_decay(h);
    }
    b->slots[count] = (tentry_t){p, state};
    bin_set_count(b, count + 1);
    counter_inc(&b->nfree);
    return 0;
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
