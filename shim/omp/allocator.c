/*
 * Allocator objects and their handles. The predefined allocators are 1-8, as
 * in both runtimes. Those loci creates are SHIM_HANDLE_FIRST + slot + SLOTS *
 * generation, all below SHIM_HANDLE_END: a handle used after
 * omp_destroy_allocator is caught until its slot has been reused 15 times.
 *
 * An allocator's intent is its memory space's plus what loci does for its
 * traits: partition=nearest puts "near=pe" first, interleaved adds
 * "partition=interleave" (pinned is the shim's: alloc.c locks each block's
 * own pages). Where the space has an "otherwise" (large_cap: local DRAM when
 * nothing is bigger), a second intent is composed the same way and serves
 * when the first has no target. pool_size makes a loci arena on the intent's
 * target; the shim counts the pool's bytes (pool.c).
 */
#include "shim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SLOTS 4096
#define GENERATIONS ((SHIM_HANDLE_END - SHIM_HANDLE_FIRST) / SLOTS)
#define SHIM_ABSENT ((uintptr_t)1) /* resolved[]: the memory space is absent from that node */

static _Atomic(shim_allocator_t *) slots[SLOTS];
static unsigned char generation[SLOTS]; /* under lock */
static int next_slot;                   /* under lock: where to look first */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* fork(): registered after libloci's handlers (loaded first), so this lock,
 * held around calls into loci, is taken before loci's; the child's only
 * thread is the one that took it. */
static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

/* OpenMP 5.1 Table 2.10. omp_default_mem_alloc falls back to nothing: it is
 * where default_mem_fb goes. */
static const struct {
    const char *name;
    omp_handle_t memspace;
    uintptr_t access, fallback;
} predefined_spec[OMP_PREDEFINED_ALLOCATORS + 1] = {
    [OMP_DEFAULT_MEM_ALLOC] = {"omp_default_mem_alloc", OMP_DEFAULT_MEM_SPACE, OMP_ATV_ALL, OMP_ATV_NULL_FB},
    [OMP_LARGE_CAP_MEM_ALLOC] = {"omp_large_cap_mem_alloc", OMP_LARGE_CAP_MEM_SPACE, OMP_ATV_ALL,
                                 OMP_ATV_DEFAULT_MEM_FB},
    [OMP_CONST_MEM_ALLOC] = {"omp_const_mem_alloc", OMP_CONST_MEM_SPACE, OMP_ATV_ALL, OMP_ATV_DEFAULT_MEM_FB},
    [OMP_HIGH_BW_MEM_ALLOC] = {"omp_high_bw_mem_alloc", OMP_HIGH_BW_MEM_SPACE, OMP_ATV_ALL,
                               OMP_ATV_DEFAULT_MEM_FB},
    [OMP_LOW_LAT_MEM_ALLOC] = {"omp_low_lat_mem_alloc", OMP_LOW_LAT_MEM_SPACE, OMP_ATV_ALL,
                               OMP_ATV_DEFAULT_MEM_FB},
    [OMP_CGROUP_MEM_ALLOC] = {"omp_cgroup_mem_alloc", OMP_DEFAULT_MEM_SPACE, OMP_ATV_CGROUP,
                              OMP_ATV_DEFAULT_MEM_FB},
    [OMP_PTEAM_MEM_ALLOC] = {"omp_pteam_mem_alloc", OMP_DEFAULT_MEM_SPACE, OMP_ATV_PTEAM, OMP_ATV_DEFAULT_MEM_FB},
    [OMP_THREAD_MEM_ALLOC] = {"omp_thread_mem_alloc", OMP_DEFAULT_MEM_SPACE, OMP_ATV_THREAD,
                              OMP_ATV_DEFAULT_MEM_FB},
};
static shim_allocator_t predefined[OMP_PREDEFINED_ALLOCATORS + 1];
static pthread_once_t predefined_once = PTHREAD_ONCE_INIT;

/* ---- intents --------------------------------------------------------------- */

static void add_term(char *buf, size_t len, const char *term)
{
    size_t used = strlen(buf);
    if (*term)
        snprintf(buf + used, len - used, "%s%s", used ? "," : "", term);
}

/* Whether a comma-separated intent has a term with this key. */
static bool has_key(const char *intent, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = intent; p; p = strchr(p, ',')) {
        p += *p == ',';
        p += strspn(p, " \t");
        if (strncasecmp(p, key, n) == 0 && strchr("=! \t,", p[n]))
            return true;
    }
    return false;
}

static void compose_one(const shim_allocator_t *al, const char *place, char *out, size_t len)
{
    const shim_traits_t *t = &al->traits;
    out[0] = '\0';
    if (t->partition == OMP_ATV_NEAREST && *place && !has_key(place, "near"))
        add_term(out, len, "near=pe"); /* locality first, then the memory space */
    add_term(out, len, place);
    if (t->partition == OMP_ATV_INTERLEAVED && t->pool_size == SHIM_NO_POOL)
        add_term(out, len, "partition=interleave");
}

static void compose(shim_allocator_t *al)
{
    const shim_memspace_t *ms = shim_memspace(al->memspace);
    compose_one(al, ms->intent, al->intent, sizeof al->intent);
    al->has_otherwise = ms->otherwise != NULL;
    if (ms->otherwise)
        compose_one(al, ms->otherwise, al->otherwise, sizeof al->otherwise);
}

loci_allocator_t *shim_resolve(shim_allocator_t *al)
{
    int node = loci_initiator();
    _Atomic(uintptr_t) *memo = node >= 0 && node < SHIM_MAX_INITIATORS ? &al->resolved[node] : NULL;
    uintptr_t r = memo ? atomic_load_explicit(memo, memory_order_acquire) : 0;
    if (r == SHIM_ABSENT) {
        errno = ENOENT;
        return NULL;
    }
    if (r)
        return (loci_allocator_t *)r;
    loci_allocator_t *a = loci_allocator_create(al->intent); /* loci caches it per initiator */
    if (!a && errno == ENOENT && al->has_otherwise)
        a = loci_allocator_create(al->otherwise);
    if (memo && (a || errno == ENOENT))
        atomic_store_explicit(memo, a ? (uintptr_t)a : SHIM_ABSENT, memory_order_release);
    return a;
}

/* ---- predefined allocators ------------------------------------------------- */

static void make_predefined(void)
{
    for (int h = 1; h <= OMP_PREDEFINED_ALLOCATORS; h++) {
        shim_allocator_t *al = &predefined[h];
        shim_traits_default(&al->traits);
        al->traits.access = predefined_spec[h].access;
        al->traits.fallback = predefined_spec[h].fallback;
        al->handle = (omp_handle_t)h;
        al->memspace = predefined_spec[h].memspace;
        compose(al);
    }
}

omp_handle_t shim_predefined_by_name(const char *name)
{
    for (int h = 1; h <= OMP_PREDEFINED_ALLOCATORS; h++)
        if (strcasecmp(name, predefined_spec[h].name) == 0)
            return (omp_handle_t)h;
    return OMP_NULL_ALLOCATOR;
}

/* ---- handles --------------------------------------------------------------- */

shim_allocator_t *shim_allocator(omp_handle_t a)
{
    if (a >= 1 && a <= OMP_PREDEFINED_ALLOCATORS) {
        pthread_once(&predefined_once, make_predefined);
        return &predefined[a];
    }
    if (a < SHIM_HANDLE_FIRST || a >= SHIM_HANDLE_FIRST + (omp_handle_t)SLOTS * GENERATIONS)
        return NULL;
    shim_allocator_t *al = atomic_load_explicit(&slots[(a - SHIM_HANDLE_FIRST) % SLOTS], memory_order_acquire);
    return al && al->handle == a ? al : NULL;
}

const char *shim_handle_name(omp_handle_t a, char *buf, size_t len)
{
    if (a == OMP_NULL_ALLOCATOR)
        snprintf(buf, len, "omp_null_allocator");
    else if (a <= OMP_PREDEFINED_ALLOCATORS)
        snprintf(buf, len, "%s", predefined_spec[a].name);
    else if (a >= SHIM_HANDLE_FIRST && a < SHIM_HANDLE_END)
        snprintf(buf, len, "allocator %lu", (unsigned long)a);
    else
        snprintf(buf, len, "allocator %#lx", (unsigned long)a);
    return buf;
}

static bool is_allocator(omp_handle_t a)
{
    return shim_allocator(a) || shim_runtime_allocator(a);
}

/* ---- creation -------------------------------------------------------------- */

/* The memory space is not on this machine (seen from here): no allocator, as
 * both runtimes answer ("if an allocator based on the requirements cannot be
 * created then the special omp_null_allocator handle is returned"). */
static omp_handle_t report_absent(shim_allocator_t *al, const char *fn)
{
    const shim_memspace_t *ms = shim_memspace(al->memspace);
    loci_allocator_create(al->intent); /* loci_last_error(): why it is absent */
    shim_log(LOCI_LOG_INFO, "%s: %s (\"%s\", %s) is absent here: %s; returning omp_null_allocator", fn, ms->name,
             ms->intent, ms->origin, loci_last_error());
    loci_arena_destroy(al->pool);
    free(al);
    return OMP_NULL_ALLOCATOR;
}

/* The pool: an arena on the space's target, its bytes counted by the shim
 * (pool.c), so the arena itself has no cap. false: no pool; absent says
 * whether that is because the space is absent from here. */
static bool make_pool(shim_allocator_t *al, bool *absent, const char *fn)
{
    const shim_memspace_t *ms = shim_memspace(al->memspace);
    al->pool = loci_arena_create(al->intent, 0);
    if (!al->pool && errno == ENOENT && al->has_otherwise)
        al->pool = loci_arena_create(al->otherwise, 0);
    *absent = !al->pool && errno == ENOENT;
    if (*absent)
        return false;
    if (!al->pool) {
        shim_log(LOCI_LOG_WARN, "%s: no pool of %lu bytes on %s (\"%s\"): %s; returning omp_null_allocator", fn,
                 (unsigned long)al->traits.pool_size, ms->name, al->intent, loci_last_error());
        return false;
    }
    uintptr_t part = al->traits.partition;
    if (part == OMP_ATV_BLOCKED || part == OMP_ATV_INTERLEAVED) {
        loci_target_info_t info = {.name = "its target"};
        loci_target_info(loci_arena_target(al->pool), &info);
        shim_log(LOCI_LOG_WARN, "%s: a pool lives on one target (%s): partition=%s does not spread it", fn,
                 info.name, shim_trait_value_name(part));
    }
    return true;
}

omp_handle_t shim_allocator_create(omp_handle_t m, const shim_traits_t *t, const char *fn)
{
    char name[64];
    if (t->fallback == OMP_ATV_ALLOCATOR_FB && t->fb_data && !is_allocator(t->fb_data)) {
        shim_log(LOCI_LOG_WARN, "%s: fb_data = %s is not an allocator; returning omp_null_allocator", fn,
                 shim_handle_name(t->fb_data, name, sizeof name));
        return OMP_NULL_ALLOCATOR;
    }
    shim_allocator_t *al = calloc(1, sizeof *al);
    if (!al) {
        shim_log(LOCI_LOG_WARN, "%s: out of memory; returning omp_null_allocator", fn);
        return OMP_NULL_ALLOCATOR;
    }
    al->memspace = m;
    al->traits = *t;
    compose(al);
    bool absent = false, placed; /* absent from here, seen from the calling thread */
    if (t->pool_size != SHIM_NO_POOL) {
        placed = make_pool(al, &absent, fn);
    } else {
        placed = shim_resolve(al) != NULL;
        absent = !placed && errno == ENOENT;
        if (!placed && !absent)
            shim_log(LOCI_LOG_WARN, "%s: cannot place \"%s\": %s; returning omp_null_allocator", fn, al->intent,
                     loci_last_error());
    }
    if (absent)
        return report_absent(al, fn);
    if (!placed) {
        free(al);
        return OMP_NULL_ALLOCATOR;
    }

    pthread_mutex_lock(&lock);
    int slot = -1;
    for (int i = 0; i < SLOTS && slot < 0; i++)
        if (!atomic_load_explicit(&slots[(next_slot + i) % SLOTS], memory_order_relaxed))
            slot = (next_slot + i) % SLOTS;
    if (slot >= 0) {
        al->handle = SHIM_HANDLE_FIRST + (omp_handle_t)slot + (omp_handle_t)SLOTS * generation[slot];
        atomic_store_explicit(&slots[slot], al, memory_order_release);
        next_slot = (slot + 1) % SLOTS;
    }
    pthread_mutex_unlock(&lock);
    if (slot < 0) {
        shim_log(LOCI_LOG_WARN, "%s: %d allocators exist already; destroy some; returning omp_null_allocator", fn,
                 SLOTS);
        loci_arena_destroy(al->pool);
        free(al);
        return OMP_NULL_ALLOCATOR;
    }
    return al->handle;
}

void shim_allocator_destroy(omp_handle_t a, const char *fn)
{
    char name[64];
    shim_allocator_t *al = NULL;
    pthread_mutex_lock(&lock);
    if (a >= SHIM_HANDLE_FIRST && a < SHIM_HANDLE_END) {
        int slot = (int)((a - SHIM_HANDLE_FIRST) % SLOTS);
        al = atomic_load_explicit(&slots[slot], memory_order_relaxed);
        if (al && al->handle == a) {
            atomic_store_explicit(&slots[slot], NULL, memory_order_release);
            generation[slot] = (unsigned char)((generation[slot] + 1) % GENERATIONS);
        } else {
            al = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!al) {
        shim_log(LOCI_LOG_WARN, "%s(%s): %s; ignored", fn, shim_handle_name(a, name, sizeof name),
                 a >= 1 && a <= OMP_PREDEFINED_ALLOCATORS ? "a predefined allocator cannot be destroyed"
                                                          : "not a live allocator (destroyed already?)");
        return;
    }
    if (al->pool) { /* its blocks go with it (OpenMP: using them after this is undefined) */
        shim_blocks_forget(a);
        loci_arena_destroy(al->pool);
    }
    free(al);
}
