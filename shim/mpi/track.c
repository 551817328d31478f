/*
 * The blocks MPI_Alloc_mem handed out and still live, with who made each
 * (loci or the MPI library): MPI_Free_mem routes by it, and a pointer it
 * does not hold — freed already, or never from MPI_Alloc_mem — is refused
 * with an error instead of reaching free() (Open MPI free()s pointers it
 * does not know; a second free aborts the process). SharP kept a list; this
 * is an open-addressing hash set (linear probing, backward-shift deletion),
 * in malloc'd memory of its own.
 */
#include "shim.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uintptr_t key; /* 0 = empty */
    shim_block_t who;
} slot_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot_t *slots;
static size_t mask, used; /* capacity - 1 (a power of two minus one), live entries */

static size_t home(uintptr_t key) { return (size_t)((key >> 4) * 0x9E3779B97F4A7C15ull >> 20) & mask; }

static size_t find(uintptr_t key)
{
    size_t i = home(key);
    while (slots[i].key && slots[i].key != key)
        i = (i + 1) & mask;
    return i;
}

/* Double the table (or make the first one); false when out of memory. */
static bool grow(void)
{
    size_t old_cap = slots ? mask + 1 : 0, cap = old_cap ? 2 * old_cap : 1024;
    slot_t *old = slots, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return false;
    slots = fresh;
    mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            slots[find(old[i].key)] = old[i];
    free(old);
    return true;
}

bool shim_track_add(void *p, shim_block_t who)
{
    pthread_mutex_lock(&lock);
    bool ok = (slots && 2 * (used + 1) <= mask + 1) || grow();
    if (ok) {
        size_t i = find((uintptr_t)p);
        used += slots[i].key == 0;
        slots[i] = (slot_t){(uintptr_t)p, who};
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Empty slot i, shifting back later entries of its probe run so that
 * every entry stays reachable from its home slot. */
static void remove_at(size_t i)
{
    for (size_t j = i;;) {
        slots[i].key = 0;
        size_t k;
        do {
            j = (j + 1) & mask;
            if (!slots[j].key)
                return;
            k = home(slots[j].key);
        } while (i <= j ? i < k && k <= j : i < k || k <= j); /* k in (i, j]: j stays */
        slots[i] = slots[j];
        i = j;
    }
}

shim_block_t shim_track_take(void *p)
{
    shim_block_t who = BLOCK_NONE;
    pthread_mutex_lock(&lock);
    if (slots) {
        size_t i = find((uintptr_t)p);
        if (slots[i].key) {
            who = slots[i].who;
            remove_at(i);
            used--;
        }
    }
    pthread_mutex_unlock(&lock);
    return who;
}
