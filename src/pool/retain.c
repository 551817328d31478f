/*
 * Retention: what freed memory a heap keeps resident, and when it goes back
 * to the kernel. Faulting pages in again costs far more than keeping them, so
 * empty slabs (and freed big blocks: dirty slices, segment.c, and cached
 * extents, extent_cache.c) stay resident, within limits:
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
 * What is retained: a class's empty slabs (their list is kept here: a slab
 * goes on it from slab.c, leaves it here when retired), the dirty slices of
 * freed carved blocks (kept or released here, purged in segment.c) and
 * cached extents (kept by large.c, purged in extent_cache.c). This file sits
 * above those three and below slab.c, large.c and the thread caches, which
 * call it on their slow paths.
 *
 * Lock order: registry → class → heap (→ account). No function here touches
 * the memory of a block.
 */
#include "pool/pool_internal.h"

#include <stdlib.h>

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

/* --- the empty slabs of a class (class lock held) ------------------------------ */

static void class_set_oldest(hclass_t *hc)
{
    atomic_store_explicit(&hc->oldest_ms, hc->empty_tail ? hc->empty_tail->empty_since : UINT64_MAX,
                          memory_order_relaxed);
}

/* s goes on its class's empty list, stamped: retained. */
void pool__slab_retain(hclass_t *hc, slab_t *s, uint64_t now)
{
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

/* s leaves its class's empty list (taken into use, or retired). */
void pool__slab_unretain(hclass_t *hc, slab_t *s)
{
    bool tail = hc->empty_tail == s;
    DLIST_UNLINK_T(hc->empty, hc->empty_tail, s, next, prev);
    if (tail)
        class_set_oldest(hc);
    atomic_fetch_sub_explicit(&hc->nempty, 1, memory_order_relaxed);
    pool__retained_add(s->heap, -(int64_t)((size_t)s->nslices * SLICE_SIZE));
}

/* --- retiring empty slabs -------------------------------------------------------- */

/* Retiring an empty slab, first step (class lock held): out of its class
 * and the page map. Its memory is still the heap's until slab_release. */
static void slab_detach(hclass_t *hc, slab_t *s)
{
    pool__slab_unretain(hc, s);
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
        pool__free_carved_kept(h, tc);
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

/* Slabs of class c went empty (class lock released): with no delay they go
 * at once; past the budget, the oldest retained things go (a few: the next
 * returns and checks do the rest). */
void pool__retain_slabs_emptied(pool_heap_t *h, unsigned c)
{
    if (atomic_load_explicit(&pool__purge_delay_ms, memory_order_relaxed) == 0)
        class_flush_empty(h, c, false);
    else if (over_budget(h))
        pool__retain_trim(h, RETAIN_STEP / 2);
}

/* --- freed carved blocks ----------------------------------------------------------- */

/* Its slices stay dirty within the budget, else go back at once. (Here, not
 * in large.c, because reclaim frees the carved blocks a thread keeps.) */
void pool__free_carved(pool_heap_t *h, large_t *d)
{
    size_t span = (size_t)d->nslices * SLICE_SIZE;
    unsigned delay = atomic_load_explicit(&pool__purge_delay_ms, memory_order_relaxed);
    pthread_mutex_lock(&h->lock);
    pool__large_unlink(h, d);
    bool keep = delay && span <= pool__retain_budget(h);
    if (keep)
        pool__slices_keep(h, d->seg, d->first, d->nslices, clock_coarse_ms());
    pthread_mutex_unlock(&h->lock);
    if (!keep)
        pool__slices_release(h, d->seg, d->first, d->nslices, span);
    free(d);
}

void pool__free_carved_kept(pool_heap_t *h, tcache_t *tc)
{
    uint32_t n = atomic_load_explicit(&tc->nbig, memory_order_relaxed);
    atomic_store_explicit(&tc->nbig, 0, memory_order_relaxed);
    atomic_store_explicit(&tc->big_bytes, 0, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++) {
        pool__held_add(h, tc, -(int64_t)tc->big[i]->size, -1);
        pool__free_carved(h, tc->big[i]);
    }
}
