/*
 * Kinds made at run time (memkind_create_pmem): MEMKIND_MAX_KIND slots
 * counting the static kinds, as memkind has. A destroyed kind keeps its slot
 * marked destroyed, so that a later call with the stale handle is refused
 * instead of touching freed memory; slots are reused oldest-destroyed first,
 * which keeps that true as long as possible.
 */
#include "memkind_shim.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SLOTS (MEMKIND_MAX_KIND - MEMKIND_NUM_BASE_KIND)

static struct memkind slots[SLOTS];
static unsigned long destroyed_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* fork(): the child must not inherit the lock held by a thread it lacks. */
static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

bool registry_holds(const struct memkind *k)
{
    uintptr_t p = (uintptr_t)k, first = (uintptr_t)slots;
    return p >= first && p < (uintptr_t)(slots + SLOTS) && (p - first) % sizeof *k == 0;
}

struct memkind *registry_take(void)
{
    pthread_mutex_lock(&lock);
    struct memkind *pick = NULL;
    for (int i = 0; i < SLOTS; i++) {
        int state = atomic_load(&slots[i].state);
        if (state == KIND_FREE) {
            pick = &slots[i];
            break;
        }
        if (state == KIND_DESTROYED && (!pick || slots[i].destroyed_seq < pick->destroyed_seq))
            pick = &slots[i];
    }
    if (pick) {
        /* plan_release emptied its plans and arenas when it was destroyed */
        pick->partition = MEMKIND_NUM_BASE_KIND + (unsigned)(pick - slots);
        snprintf(pick->name, sizeof pick->name, "pmem%08x", pick->partition);
        pick->intent[0] = '\0';
        pick->nodes = NODES_OWN;
        pick->take = 0;
        pick->max_bytes = 0;
        atomic_store(&pick->state, KIND_LIVE);
    }
    pthread_mutex_unlock(&lock);
    return pick;
}

void registry_give_back(struct memkind *k)
{
    pthread_mutex_lock(&lock);
    k->destroyed_seq = ++destroyed_count;
    atomic_store(&k->state, KIND_DESTROYED);
    pthread_mutex_unlock(&lock);
}

struct memkind *kinds_find(bool (*fn)(struct memkind *k, const void *arg), const void *arg)
{
    for (int i = 0; i < MEMKIND_NUM_BASE_KIND; i++)
        if (fn(&mk_static_kinds[i], arg))
            return &mk_static_kinds[i];
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slots[i].state) == KIND_LIVE && fn(&slots[i], arg))
            return &slots[i];
    return NULL;
}
