/*
 * The live blocks shmemx_malloc_with_hint placed, so that shmem_free and
 * shmem_realloc know them: their pages must not keep the binding once the
 * heap hands them to someone else. Hinted allocations are collective and
 * few: a sorted array, binary search, under a mutex; a count read without
 * the lock keeps shmem_free of ordinary blocks at one load when there are none.
 */
#include "shim.h"
#include "grow.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* fork(): registered after libloci's handlers (loaded first), so this lock
 * is taken before loci's; the child's only thread is the one that took it. */
static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }
static shim_hinted_t *blocks; /* sorted by address */
static size_t cap;
static atomic_size_t count;

/* Index of the first block at or after p. */
static size_t lower_bound(const void *p, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((const char *)blocks[mid].base < (const char *)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool shim_hinted_add(const shim_hinted_t *b)
{
    pthread_mutex_lock(&lock);
    size_t n = atomic_load(&count);
    bool ok = true;
    shim_hinted_t *grown = grow_for_one(blocks, n, &cap, sizeof *grown, 64);
    if ((ok = grown != NULL))
        blocks = grown;
    if (ok) {
        size_t i = lower_bound(b->base, n);
        memmove(&blocks[i + 1], &blocks[i], (n - i) * sizeof *blocks);
        blocks[i] = *b;
        atomic_store(&count, n + 1);
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

bool shim_hinted_take(const void *p, shim_hinted_t *out)
{
    if (atomic_load_explicit(&count, memory_order_relaxed) == 0)
        return false;
    pthread_mutex_lock(&lock);
    size_t n = atomic_load(&count), i = lower_bound(p, n);
    bool found = i < n && blocks[i].base == p;
    if (found) {
        *out = blocks[i];
        memmove(&blocks[i], &blocks[i + 1], (n - i - 1) * sizeof *blocks);
        atomic_store(&count, n - 1);
    }
    pthread_mutex_unlock(&lock);
    return found;
}
