/*
 * The blocks the MPI library handed out through MPI_Alloc_mem and still
 * live, so that MPI_Free_mem can tell them from a pointer freed already or
 * never from MPI_Alloc_mem: Open MPI free()s pointers it does not know, and
 * a second free aborts the process. (Loci's blocks need no record: loci
 * knows its live blocks.) An open-addressing hash set of addresses (linear
 * probing, backward-shift deletion) in malloc'd memory of its own.
 */
#include "shim.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* fork(): this table's lock held by another thread must not stay held in
 * the child; the child's only thread is the one that took it. */
static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }
static uintptr_t *slots;  /* 0 = empty */
static size_t mask, used; /* capacity - 1 (capacity: a power of two), live entries */

static size_t home(uintptr_t key) { return (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 20) & mask; }

static size_t find(uintptr_t key)
{
    size_t i = home(key);
    while (slots[i] && slots[i] != key)
        i = (i + 1) & mask;
    return i;
}

/* Double the table (or make the first one); false when out of memory. */
static bool grow(void)
{
    size_t old_cap = slots ? mask + 1 : 0, cap = old_cap ? 2 * old_cap : 1024;
    uintptr_t *old = slots, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return false;
    slots = fresh;
    mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            slots[find(old[i])] = old[i];
    free(old);
    return true;
}

bool shim_track_add(void *p)
{
    pthread_mutex_lock(&lock);
    bool ok = (slots && 2 * (used + 1) <= mask + 1) || grow();
    if (ok) {
        size_t i = find((uintptr_t)p);
        used += slots[i] == 0;
        slots[i] = (uintptr_t)p;
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Empty slot i, shifting back later entries of its probe run so that
 * every entry stays reachable from its home slot. */
static void remove_at(size_t i)
{
    for (size_t j = i;;) {
        slots[i] = 0;
        size_t k;
        do {
            j = (j + 1) & mask;
            if (!slots[j])
                return;
            k = home(slots[j]);
        } while (i <= j ? i < k && k <= j : i < k || k <= j); /* k in (i, j]: j stays */
        slots[i] = slots[j];
        i = j;
    }
}

bool shim_track_take(void *p)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    if (slots) {
        size_t i = find((uintptr_t)p);
        if ((found = slots[i] != 0)) {
            remove_at(i);
            used--;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}
