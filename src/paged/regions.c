/*
 * The region table: the paged regions of this process by address, under one
 * lock. The fault and readahead threads look a region up here and hold it
 * while they use it (users); a region leaving waits for them. It sits below
 * the cache and the threads, which only look regions up, and below paged.c,
 * which makes and frees them.
 */
#include "paged/paged_internal.h"
#include "addr_table.h"

#include <pthread.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t region_idle = PTHREAD_COND_INITIALIZER; /* a region lost its last user */
static addr_table_t regions; /* sorted by base */

/* A child of fork() has none of the regions (MADV_DONTFORK): it starts with
 * an empty table (the parent's is left, unreachable). */
static void reset_in_child(void)
{
    pthread_mutex_init(&table_lock, NULL);
    pthread_cond_init(&region_idle, NULL);
    regions = (addr_table_t)ADDR_TABLE_INIT;
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

static paged_region_t *find(uintptr_t addr) { return addr_table_find(&regions, addr); }

paged_region_t *paged_region_get(uintptr_t addr)
{
    pthread_mutex_lock(&table_lock);
    paged_region_t *r = find(addr);
    if (r)
        atomic_fetch_add(&r->users, 1);
    pthread_mutex_unlock(&table_lock);
    return r;
}

void paged_region_hold(paged_region_t *r) { atomic_fetch_add(&r->users, 1); }

void paged_region_put(paged_region_t *r)
{
    if (atomic_fetch_sub(&r->users, 1) > 1)
        return;
    pthread_mutex_lock(&table_lock); /* paged_region_remove() may be waiting for this */
    pthread_cond_broadcast(&region_idle);
    pthread_mutex_unlock(&table_lock);
}

paged_region_t *paged_region_find(uintptr_t addr)
{
    pthread_mutex_lock(&table_lock);
    paged_region_t *r = find(addr);
    pthread_mutex_unlock(&table_lock);
    return r;
}

int paged_region_add(paged_region_t *r)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    pthread_mutex_lock(&table_lock);
    bool added = addr_table_add(&regions, r->base, r->size, r);
    pthread_mutex_unlock(&table_lock);
    return added ? 0 : loci__fail(LOCI_ENOMEM, "out of memory recording a paged region");
}

paged_region_t *paged_region_remove(uintptr_t base)
{
    pthread_mutex_lock(&table_lock);
    paged_region_t *r = find(base);
    if (r && r->base == base) {
        addr_table_remove(&regions, base);
        atomic_store(&r->leaving, true);
        while (atomic_load(&r->users) > 0)
            pthread_cond_wait(&region_idle, &table_lock);
    } else {
        r = NULL;
    }
    pthread_mutex_unlock(&table_lock);
    return r;
}
