/*
 * Partitions (SharP §5.2, made symmetric): shmemx_hhm_create carves a block
 * out of the symmetric heap with shmem_align — collective, so it is at the
 * same address on every PE — and binds its pages by intent before anyone
 * touches them (loci_range_place, which also moves pages the OpenSHMEM
 * library touched already). Ids are the lowest free slot, so the same
 * collective calls give the same ids everywhere; the PEs check that they
 * agree before anything collective happens in the OpenSHMEM library.
 */
#include "shim.h"

#include <loci.h>
#include <loci_shmem.h>
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Lookups by id (every allocation) read without a lock; create and destroy,
 * collective and rare, hold `registry`. */
static partition_t *_Atomic table[SHIM_MAX_PARTITIONS];
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;

/* fork(): registered after libloci's handlers (loaded first), so this lock,
 * held around calls into loci, is taken before loci's. */
static void fork_lock(void) { pthread_mutex_lock(&registry); }
static void fork_unlock(void) { pthread_mutex_unlock(&registry); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

/* "0, 3, 5" (or "none"): the live ids, for messages. */
static const char *live_ids(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < SHIM_MAX_PARTITIONS && n < len; i++)
        if (atomic_load_explicit(&table[i], memory_order_acquire))
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? ", " : "", i);
    return n ? buf : "none";
}

partition_t *shim_partition(const char *fn, int id)
{
    partition_t *p = id >= 0 && id < SHIM_MAX_PARTITIONS ? atomic_load_explicit(&table[id], memory_order_acquire)
                                                         : NULL;
    if (!p) {
        char ids[256];
        shim_fail(fn, "partition id %d does not exist (live partitions: %s): use an id shmemx_hhm_create returned "
                      "and shmemx_hhm_destroy has not destroyed", id, live_ids(ids, sizeof ids));
    }
    return p;
}

partition_t *shim_partition_holding(const void *ptr)
{
    const char *c = ptr;
    for (int i = 0; i < SHIM_MAX_PARTITIONS; i++) {
        partition_t *p = atomic_load_explicit(&table[i], memory_order_acquire);
        if (p && c >= p->base && c < p->base + p->size)
            return p;
    }
    return NULL;
}

/* What this PE can say alone about a create call: the intent's normalised
 * text (what messages show) with the name of its target in where, or NULL
 * after shim_fail. */
static const char *check_create(const char *fn, const char *intent, size_t size, int id, char *where, size_t wlen)
{
    if (!intent) {
        shim_fail(fn, "intent is NULL: pass an intent such as \"bandwidth=high\" (\"\" for local DRAM)");
        return NULL;
    }
    if (size == 0 || size > HEAP_MAX_SIZE) {
        shim_fail(fn, "size %zu: a partition holds 1 to 2^47 bytes", size);
        return NULL;
    }
    if (id < 0) {
        shim_fail(fn, "%d partitions exist already, the most there can be: destroy one first",
                  SHIM_MAX_PARTITIONS);
        return NULL;
    }
    const loci_allocator_t *a = loci_allocator_create(intent); /* cached by loci: no destroy */
    const loci_target_t *t[1];
    loci_target_info_t ti;
    if (!a || loci_allocator_targets(a, t, 1) < 1 || loci_target_info(t[0], &ti) != 0) {
        shim_fail(fn, "%s", loci_last_error()); /* loci's message names the intent */
        return NULL;
    }
    if (ti.numa_node < 0) {
        shim_fail(fn, "intent \"%s\" resolves to %s (%s): a partition lives in the symmetric heap, which only "
                      "NUMA memory can hold (ask for CPU memory: no persist, kind=ssd or use=gpu)",
                  intent, ti.name, ti.kind);
        return NULL;
    }
    snprintf(where, wlen, "%s", ti.name);
    return loci_allocator_intent(a);
}

static int lowest_free_id(void)
{
    for (int i = 0; i < SHIM_MAX_PARTITIONS; i++)
        if (!atomic_load_explicit(&table[i], memory_order_relaxed))
            return i;
    return -1;
}

static void partition_delete(partition_t *p)
{
    if (p) {
        heap_destroy(p->heap);
        free(p->intent);
        free(p);
    }
}

/* The partition's bookkeeping for a placed block; NULL after shim_fail. */
static partition_t *partition_new(const char *fn, int id, const char *intent, const char *where, char *base,
                                  size_t len)
{
    partition_t *p = calloc(1, sizeof *p);
    if (p && (p->intent = strdup(intent)) && (p->heap = heap_create(len, (uintptr_t)base))) {
        p->id = id;
        p->base = base;
        p->size = len;
        snprintf(p->where, sizeof p->where, "%s", where);
        return p;
    }
    partition_delete(p);
    shim_fail(fn, "out of memory for a partition's bookkeeping");
    return NULL;
}

int shmemx_hhm_create(const char *intent, size_t size)
{
    static const char fn[] = "shmemx_hhm_create";
    pthread_mutex_lock(&registry);
    int id = lowest_free_id();
    char where[64] = "";
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (size + page - 1) & ~(page - 1);
    const char *normal = check_create(fn, intent, size, id, where, sizeof where);
    shim_vote_t vote = {.ok = normal != NULL, .id = id, .size = (long)size, .hash = shim_intent_hash(intent)};
    if (shim_agree(fn, &vote) != 0) {
        pthread_mutex_unlock(&registry);
        return -1;
    }
    /* whole pages of their own: binding rounds out to pages, and must not catch a neighbour */
    char *base = shmem_align(page, len);
    partition_t *p = NULL;
    if (!base)
        shim_fail(fn, "shmem_align(%zu, %zu) failed: the symmetric heap has no room (make it larger: Open MPI "
                      "reads SMA_SYMMETRIC_SIZE, e.g. SMA_SYMMETRIC_SIZE=4G; default 256M)", page, len);
    else if (loci_range_place(base, len, intent) != 0)
        shim_fail(fn, "placing %zu bytes by intent \"%s\": %s", len, intent, loci_last_error());
    else
        p = partition_new(fn, id, normal, where, base, len);
    vote.ok = p != NULL;
    if (shim_agree(fn, &vote) != 0) {
        partition_delete(p);
        if (base)
            shim_unbind(base, len);
        shmem_free(base); /* collective: every PE, NULL or not */
        pthread_mutex_unlock(&registry);
        return -1;
    }
    atomic_store_explicit(&table[id], p, memory_order_release);
    pthread_mutex_unlock(&registry);
    return id;
}

int shmemx_hhm_destroy(int id)
{
    static const char fn[] = "shmemx_hhm_destroy";
    pthread_mutex_lock(&registry);
    partition_t *p = shim_partition(fn, id);
    shim_vote_t vote = {.ok = p != NULL, .id = id};
    /* also the barrier after which no PE touches the partition any more */
    if (shim_agree(fn, &vote) != 0) {
        pthread_mutex_unlock(&registry);
        return -1;
    }
    atomic_store_explicit(&table[id], NULL, memory_order_release);
    shim_unbind(p->base, p->size);
    shmem_free(p->base);
    partition_delete(p);
    pthread_mutex_unlock(&registry);
    return 0;
}
