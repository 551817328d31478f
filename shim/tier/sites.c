/*
 * Allocation sites: (calling context, size class) → one arena each, as
 * SICM's per-site arenas and Jenga's contexts, so that loci's tiering can
 * keep one site's hot data apart from another's cold data. The table is
 * fixed (LOCI_TIER_MAX_SITES sites in twice as many slots, open
 * addressing, keyed by the context's hash and the class) and lock-free: a
 * slot's key is claimed with one compare-and-swap, the claiming thread
 * writes the context beside it and makes the site NEW, and its arena is
 * made by the thread that moves it from NEW to MAKING while others wait.
 * Once the table holds LOCI_TIER_MAX_SITES sites, new sites share one more
 * arena, the overflow site. A second table maps each arena back to its
 * site, for frees.
 *
 * fork: a child has only the forking thread, so a site another thread was
 * claiming or making stays so forever there; the child handler makes it
 * NEW (a claimed one's context may be half written: it loses its frames,
 * and its arena is made without a site name) and the child's first
 * allocation from it makes it again.
 */
#include "tier.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

enum { SITE_CLAIMED, SITE_NEW, SITE_MAKING, SITE_READY, SITE_FAILED };

struct tier_site { /* its key is site_keys[its index] */
    _Atomic int state;
    _Atomic(loci_arena_t *) arena;
    _Atomic uint64_t live, allocations, frees;
    tier_context_t context; /* written while CLAIMED, read once NEW */
    const void *caller;
    unsigned size_class;
};

#define SLOTS (2 * LOCI_TIER_MAX_SITES) /* a power of two: half full at most */
#define MAP_SLOTS (2 * SLOTS)

static _Atomic uintptr_t site_keys[SLOTS]; /* 0: a free slot */
static tier_site_t sites[SLOTS];
static tier_site_t overflow = {.state = SITE_NEW};
static atomic_int nsites;
static atomic_flag overflow_said = ATOMIC_FLAG_INIT, failure_said = ATOMIC_FLAG_INIT;

static _Atomic uintptr_t map_keys[MAP_SLOTS]; /* arena pointers */
static _Atomic(tier_site_t *) map_sites[MAP_SLOTS];

static size_t hash(uintptr_t key, size_t slots)
{
    return (size_t)(((key >> 4) * 0x9E3779B97F4A7C15ull) >> 32) & (slots - 1);
}

/* The slot holding key, claiming a free one when `claim`: its index, or
 * `slots` when key is absent (and not claimed). *claimed: this call took it. */
static size_t probe(_Atomic uintptr_t *keys, size_t slots, uintptr_t key, bool claim, bool *claimed)
{
    *claimed = false;
    for (size_t n = 0, i = hash(key, slots); n < slots; n++, i = (i + 1) & (slots - 1)) {
        uintptr_t k = atomic_load_explicit(&keys[i], memory_order_acquire);
        if (k == 0) {
            if (!claim)
                return slots;
            if (atomic_compare_exchange_strong(&keys[i], &k, key)) {
                *claimed = true;
                return i;
            }
        }
        if (k == key)
            return i;
    }
    return slots;
}

tier_site_t *site_for(const tier_context_t *context, const void *caller, size_t size)
{
    unsigned class = 63u - (unsigned)__builtin_clzll((unsigned long long)size);
    uintptr_t key = (uintptr_t)(context->key * 0x9E3779B97F4A7C15ull) ^ class;
    key |= 1; /* never 0, a free slot */
    bool claimed;
    size_t i = probe(site_keys, SLOTS, key,
                     atomic_load_explicit(&nsites, memory_order_relaxed) < LOCI_TIER_MAX_SITES, &claimed);
    if (claimed) {
        atomic_fetch_add_explicit(&nsites, 1, memory_order_relaxed);
        sites[i].context = *context;
        sites[i].caller = context->frames[0].pc ? context->frames[0].pc : caller; /* loci_tier_site_t's */
        sites[i].size_class = class;
        atomic_store_explicit(&sites[i].state, SITE_NEW, memory_order_release);
    }
    if (i < SLOTS)
        return &sites[i];
    if (!atomic_flag_test_and_set(&overflow_said))
        tier_log(LOCI_LOG_WARN, "more than %d allocation sites of blocks >= %zu bytes: from here on new sites "
                 "share one arena (placed as one); fewer frames of calling context make fewer sites "
                 "(LOCI_TIER_CONTEXT, now %d)", LOCI_TIER_MAX_SITES, tier_threshold(), tier_context_depth());
    return &overflow;
}

static void map_insert(loci_arena_t *ar, tier_site_t *s)
{
    bool claimed;
    size_t i = probe(map_keys, MAP_SLOTS, (uintptr_t)ar, true, &claimed);
    if (i < MAP_SLOTS) /* always: there are fewer arenas than slots */
        atomic_store_explicit(&map_sites[i], s, memory_order_release);
}

tier_site_t *site_of_arena(const loci_arena_t *ar)
{
    bool claimed;
    size_t i = ar ? probe(map_keys, MAP_SLOTS, (uintptr_t)ar, false, &claimed) : MAP_SLOTS;
    return i < MAP_SLOTS ? atomic_load_explicit(&map_sites[i], memory_order_acquire) : NULL;
}

/* Its context as loci names frames: native ones as they are, Python ones by
 * file and line (read now: the thread that captured them is still inside
 * the allocation that made the site, so are its frames). */
static int frames_of(const tier_site_t *s, loci_frame_t *out, char files[][256])
{
    for (int i = 0; i < s->context.n; i++) {
        const tier_frame_t *f = &s->context.frames[i];
        out[i] = (loci_frame_t){.pc = f->pc};
        if (!f->pc)
            out[i].file = python_describe(f, files[i], sizeof files[i], &out[i].line);
    }
    return s->context.n;
}

static void make(tier_site_t *s)
{
    tier_enter();
    loci_frame_t frames[LOCI_TIER_CONTEXT_MAX];
    char files[LOCI_TIER_CONTEXT_MAX][256];
    int n = s == &overflow ? 0 : frames_of(s, frames, files);
    /* the arena's site is the program's context (profiles), not this line */
    loci_arena_t *ar = n ? loci_arena_create_context(tier_intent(), 0, frames, n, s->size_class)
                         : loci_arena_create_site(tier_intent(), 0, NULL, s->size_class);
    int err = errno;
    if (ar) {
        map_insert(ar, s);
        atomic_store_explicit(&s->arena, ar, memory_order_release);
        atomic_store_explicit(&s->state, SITE_READY, memory_order_release);
        tier_leave();
        return;
    }
    /* A wrong or unsatisfiable intent fails the same way for every site. */
    bool intent = err == EINVAL || err == ENOENT || err == ENOTSUP;
    if (!atomic_flag_test_and_set(&failure_said))
        tier_log(LOCI_LOG_WARN, "no arena for intent \"%s\": %s; %s", tier_intent(), loci_last_error(),
                 intent ? "every allocation stays with libc" : "this site's blocks stay with libc");
    if (intent)
        tier_give_up();
    atomic_store_explicit(&s->state, SITE_FAILED, memory_order_release);
    tier_leave();
}

loci_arena_t *site_arena(tier_site_t *s)
{
    for (;;) {
        int state = atomic_load_explicit(&s->state, memory_order_acquire);
        if (state == SITE_READY)
            return atomic_load_explicit(&s->arena, memory_order_relaxed);
        if (state == SITE_FAILED)
            return NULL;
        if (state == SITE_NEW && atomic_compare_exchange_strong(&s->state, &state, SITE_MAKING))
            make(s);
        else if (state == SITE_MAKING || state == SITE_CLAIMED)
            sched_yield(); /* another thread is writing its context or making it: microseconds */
    }
}

void site_count_alloc(tier_site_t *s, size_t bytes)
{
    atomic_fetch_add_explicit(&s->live, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->allocations, 1, memory_order_relaxed);
}

void site_count_free(tier_site_t *s, size_t bytes)
{
    atomic_fetch_sub_explicit(&s->live, bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->frees, 1, memory_order_relaxed);
}

void site_count_resize(tier_site_t *s, size_t before, size_t after)
{
    atomic_fetch_add_explicit(&s->live, after - before, memory_order_relaxed); /* modulo 2^64: a shrink too */
}

static void describe(tier_site_t *s, loci_tier_site_t *out)
{
    *out = (loci_tier_site_t){
        .caller = s == &overflow ? NULL : s->caller,
        .size_class = s->size_class,
        .arena = atomic_load_explicit(&s->state, memory_order_acquire) == SITE_READY
                     ? atomic_load_explicit(&s->arena, memory_order_relaxed)
                     : NULL,
        .bytes_live = atomic_load_explicit(&s->live, memory_order_relaxed),
        .allocations = atomic_load_explicit(&s->allocations, memory_order_relaxed),
        .frees = atomic_load_explicit(&s->frees, memory_order_relaxed),
    };
}

int site_list(loci_tier_site_t *out, int max)
{
    int n = 0;
    for (size_t i = 0; i < SLOTS; i++)
        if (atomic_load_explicit(&site_keys[i], memory_order_acquire) != 0 &&
            atomic_load_explicit(&sites[i].state, memory_order_acquire) != SITE_CLAIMED && n++ < max)
            describe(&sites[i], &out[n - 1]);
    if (atomic_load_explicit(&overflow.state, memory_order_acquire) != SITE_NEW && n++ < max)
        describe(&overflow, &out[n - 1]);
    return n;
}

/* See the header comment: sites left CLAIMED or MAKING by threads the child lacks. */
static void child_after_fork(void)
{
    for (size_t i = 0; i <= SLOTS; i++) {
        tier_site_t *s = i < SLOTS ? &sites[i] : &overflow;
        int state = SITE_CLAIMED;
        if (i < SLOTS && atomic_load_explicit(&site_keys[i], memory_order_relaxed) &&
            atomic_compare_exchange_strong(&s->state, &state, SITE_NEW))
            s->context.n = 0;
        state = SITE_MAKING;
        atomic_compare_exchange_strong(&s->state, &state, SITE_NEW);
    }
}

/* After libloci's constructor registered loci's handlers (we depend on it):
 * in the child, loci is usable again when this runs. */
__attribute__((constructor)) static void watch_fork(void) { pthread_atfork(NULL, NULL, child_after_fork); }
