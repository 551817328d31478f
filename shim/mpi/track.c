/*
 * The live blocks of MPI_Alloc_mem that loci's allocators do not own, with
 * who does: the MPI library's, so that MPI_Free_mem can tell them from a
 * pointer freed already or never from MPI_Alloc_mem (Open MPI free()s
 * pointers it does not know, and a second free aborts the process), and
 * those alone in a tier=auto arena of their own, whose arena goes with
 * them. (Loci's allocator blocks need no record: loci knows its live
 * blocks.) An open-addressing hash map of addresses to owners (linear
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
typedef struct {
    uintptr_t addr; /* 0 = empty */
    shim_owner_t owner;
} entry_t;
static entry_t *slots;
static size_t mask, used; /* capacity - 1 (capacity: a power of two), live entries */

static size_t home(uintptr_t key) { return (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 20) & mask; }

static size_t find(uintptr_t key)
{
    size_t i = home(key);
    while (slots[i].addr && slots[i].addr != key)
        i = (i + 1) & mask;
    return i;
}

/* Double the table (or make the first one); false when out of memory. */
static bool grow(void)
{
    size_t old_cap = slots ? mask + 1 : 0, cap = old_cap ? 2 * old_cap : 1024;
    entry_t *old = slots, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return false;
    slots = fresh;
    mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].addr)
            slots[find(old[i].addr)] = old[i];
    free(old);
    return true;
}

bool shim_track_add(void *p, shim_owner_t owner)
{
    pthread_mutex_lock(&lock);
    bool ok = (slots && 2 * (used + 1) <= mask + 1) || grow();
    if (ok) {
        size_t i = find((uintptr_t)p);
        used += slots[i].addr == 0;
        slots[i] = (entry_t){(uintptr_t)p, owner};
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Empty slot i, shifting back later entries of its probe run so that
 * every entry stays reachable from its home slot. */
static void remove_at(size_t i)
{
    for (size_t j = i;;) {
        slots[i].addr = 0;
        size_t k;
        do {
            j = (j + 1) & mask;
            if (!slots[j].addr)
                return;
            k = home(slots[j].addr);
        } while (i <= j ? i < k && k <= j : i < k || k <= j); /* k in (i, j]: j stays */
        slots[i] = slots[j];
        i = j;
    }
}

shim_owner_t shim_track_take(void *p)
{
    shim_owner_t owner = SHIM_UNTRACKED;
    pthread_mutex_lock(&lock);
    if (slots) {
        size_t i = find((uintptr_t)p);
        if (slots[i].addr) {
            owner = slots[i].owner;
            remove_at(i);
            used--;
        }
    }
    pthread_mutex_unlock(&lock);
    return owner;
}
