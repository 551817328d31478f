/*
 * Per-target accounting: every byte a heap commits (slabs, dedicated extents)
 * is charged to its target first. A charge is refused on a target that went
 * away at run time (topo_refresh: LOCI_ENODEV, errno ENODEV), and when it
 * would pass
 *  - the target's capacity cap, when the administrator set one (capacity
 *    from the config file, SRC_CONFIG), or
 *  - on real NUMA nodes placed on one target (bind or preferred), the node's
 *    free memory less a safety margin: a bound fault on a full node wakes the
 *    OOM killer instead of failing, and a preferred one silently spills to
 *    another node while loci would record the first; saying no before mapping
 *    lets the intent's fallback choose, and keeps loci_ptr_target() true.
 * Free memory is read from the provider (sysfs) at most every 50 ms per
 * target, and at once when the estimate gets close to the margin.
 */
#include "pool/pool_internal.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>

static account_t *accounts; /* registry lock */
static _Atomic uint64_t node_margin;

void pool_set_node_margin(uint64_t bytes)
{
    atomic_store(&node_margin, bytes);
}

account_t *pool__account_find(const struct loci_target *t)
{
    for (account_t *a = accounts; a; a = a->next)
        if (a->target == t)
            return a;
    return NULL;
}

account_t *pool__account_get(const struct loci_target *t)
{
    if (!t)
        return NULL;
    account_t *a = pool__account_find(t);
    if (a)
        return a;
    a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->target = t;
    pthread_mutex_init(&a->lock, NULL);
    a->next = accounts;
    accounts = a;
    return a;
}

void pool__accounts_fork(loci_fork_phase_t phase)
{
    for (account_t *a = accounts; a; a = a->next)
        loci__fork_mutex(&a->lock, phase);
}

void pool__accounts_free(void)
{
    while (accounts) {
        account_t *a = accounts;
        accounts = a->next;
        pthread_mutex_destroy(&a->lock);
        free(a);
    }
}

uint64_t pool_node_margin(const struct loci_target *t)
{
    uint64_t m = atomic_load(&node_margin);
    if (m)
        return m;
    m = t->capacity.value / 64;
    if (m < (32ull << 20))
        m = 32ull << 20;
    if (m > (256ull << 20))
        m = 256ull << 20;
    return m;
}

/* Strict placement: is there room for `bytes` more on the nodes, `margin`
 * left over? */
static int check_node_free(account_t *a, const provider_ops_t *ops, const place_t *place, size_t bytes,
                           uint64_t margin)
{
    const struct loci_target *t = a->target;
    uint64_t now = clock_coarse_ms();
    pthread_mutex_lock(&a->lock);
    uint64_t charged = atomic_load(&a->charged) - bytes; /* before this request */
    uint64_t used_since = charged > a->charged_seen ? charged - a->charged_seen : 0;
    uint64_t est = a->free_seen > used_since ? a->free_seen - used_since : 0;
    if (a->seen_ms == 0 || now - a->seen_ms > 50 || est < bytes + 2 * margin) {
        uint64_t f;
        if (ops->available(place, &f) != 0) {
            pthread_mutex_unlock(&a->lock);
            return 0; /* unknown: the kernel will have to say */
        }
        a->free_seen = est = f;
        a->charged_seen = charged;
        a->seen_ms = now;
    }
    pthread_mutex_unlock(&a->lock);
    if (est >= bytes + margin)
        return 0;
    char want[32], have[32], mg[32], left[64] = "";
    units_format_size(bytes, want, sizeof want);
    units_format_size(est, have, sizeof have);
    if (margin)
        snprintf(left, sizeof left, "less than the %s safety margin of ", units_format_size(margin, mg, sizeof mg));
    return loci__fail(LOCI_ENOMEM,
                      "target %s (NUMA node %d): %s more would leave %sthe node's %s free above the kernel's "
                      "reserve; %s, so loci refuses (free memory on that node, allow fallback, or ask for less)",
                      t->name, t->numa_node, want, margin ? left : "nothing of ", have,
                      place_is_strict(place) ? "bound memory there would wake the OOM killer"
                                : "preferred memory would spill to another node unrecorded");
}

static int charge_to(account_t *a, const provider_ops_t *ops, const place_t *place, size_t bytes, bool moving)
{
    if (!a)
        return 0;
    const struct loci_target *t = a->target;
    const char *gone = topo_target_gone(t);
    if (LOCI_UNLIKELY(gone != NULL)) { /* nothing new is placed where memory went away */
        errno = ENODEV;
        return loci__fail(LOCI_ENODEV, "target %s went away at run time: %s", t->name, gone);
    }
    uint64_t cap = t->capacity.source == SRC_CONFIG ? t->capacity.value : 0;
    uint64_t cur = atomic_load_explicit(&a->charged, memory_order_relaxed);
    do {
        if (cap && (cur + bytes > cap || cur + bytes < cur)) {
            char want[32], c[32], used[32];
            units_format_size(bytes, want, sizeof want);
            units_format_size(cap, c, sizeof c);
            units_format_size(cur, used, sizeof used);
            errno = ENOMEM;
            return loci__fail(LOCI_ENOMEM,
                              "target %s: %s more would pass its capacity cap of %s (set in the config; %s "
                              "already in use by loci)",
                              t->name, want, c, used);
        }
    } while (!atomic_compare_exchange_weak_explicit(&a->charged, &cur, cur + bytes, memory_order_relaxed,
                                                    memory_order_relaxed));
    bool one_node = place->policy == PLACE_BIND || place->policy == PLACE_PREFERRED;
    if (one_node && t->numa_node >= 0) {
        int rc = check_node_free(a, ops, place, bytes, moving ? 0 : pool_node_margin(t));
        if (rc != 0) {
            atomic_fetch_sub_explicit(&a->charged, bytes, memory_order_relaxed);
            errno = ENOMEM;
            return rc;
        }
    }
    return 0;
}

int pool__charge(pool_heap_t *h, size_t bytes) { return charge_to(h->acct, h->ops, &h->place, bytes, false); }

int pool__charge_move(account_t *a, const provider_ops_t *ops, const place_t *place, size_t bytes)
{
    return charge_to(a, ops, place, bytes, true);
}

void pool__uncharge(pool_heap_t *h, size_t bytes)
{
    account_t *a = h->acct;
    if (a)
        atomic_fetch_sub_explicit(&a->charged, bytes, memory_order_relaxed);
}

void pool__held_add(pool_heap_t *h, tcache_t *tc, int64_t bytes, int64_t blocks)
{
    if (tc) { /* the owning thread's own counters: no shared cache line */
        counter_add(&tc->held_blocks, blocks);
        counter_add(&tc->held_bytes, bytes);
    } else {
        atomic_fetch_add_explicit(&h->held_blocks, (uint64_t)blocks, memory_order_relaxed);
        atomic_fetch_add_explicit(&h->held_bytes, (uint64_t)bytes, memory_order_relaxed);
    }
}

void pool__committed_add(pool_heap_t *h, int64_t bytes)
{
    uint64_t now = atomic_fetch_add_explicit(&h->committed, (uint64_t)bytes, memory_order_relaxed) + (uint64_t)bytes;
    if (bytes > 0) {
        pool__peak_raise(&h->peak, now);
        account_t *a = h->acct;
        if (a)
            pool__peak_raise(&a->peak, atomic_load_explicit(&a->charged, memory_order_relaxed));
    }
}

void pool__mapped_add(pool_heap_t *h, int64_t bytes, int extents)
{
    atomic_fetch_add_explicit(&h->mapped, (uint64_t)bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->nextents, (uint64_t)(int64_t)extents, memory_order_relaxed);
    if (extents > 0)
        atomic_fetch_add_explicit(&h->nextents_total, (uint64_t)extents, memory_order_relaxed);
    account_t *a = h->acct;
    if (a) {
        atomic_fetch_add_explicit(&a->mapped, (uint64_t)bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&a->nextents, (uint64_t)(int64_t)extents, memory_order_relaxed);
        if (extents > 0)
            atomic_fetch_add_explicit(&a->nextents_total, (uint64_t)extents, memory_order_relaxed);
    }
}

void pool__account_move(pool_heap_t *h, account_t *to, uint64_t committed)
{
    account_t *from = h->acct;
    if (from == to)
        return;
    uint64_t mapped = counter_get(&h->mapped), n = counter_get(&h->nextents);
    if (from) {
        atomic_fetch_sub_explicit(&from->charged, committed, memory_order_relaxed);
        atomic_fetch_sub_explicit(&from->mapped, mapped, memory_order_relaxed);
        atomic_fetch_sub_explicit(&from->nextents, n, memory_order_relaxed);
    }
    if (to) {
        atomic_fetch_add_explicit(&to->mapped, mapped, memory_order_relaxed);
        atomic_fetch_add_explicit(&to->nextents, n, memory_order_relaxed);
        pool__peak_raise(&to->peak, counter_get(&to->charged));
    }
    h->acct = to;
}
