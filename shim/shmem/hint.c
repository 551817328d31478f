/*
 * Open MPI's shmemx_malloc_with_hint, placed for real: Open MPI 4.1 serves
 * the memory-kind hints from the ordinary symmetric heap (only its device
 * hints pick a segment of their own), so a program asking for
 * high-bandwidth memory gets whatever the heap has. These definitions
 * interpose on liboshmem's (weak symbols; linked before it, or preloaded)
 * and call its profiling entry points (pshmem_*): the block comes from the
 * heap as before, whole pages of its own, and its pages are bound by the
 * hint's intent before the program touches them. Hints are advice: a block
 * that cannot be placed is still returned, with a warning on stderr.
 * shmem_free and shmem_realloc know the placed blocks: freed pages go back
 * to the heap without the binding, a reallocated block stays placed.
 */
#include "shim.h"

#include <errno.h>
#include <loci.h>
#include <pshmem.h>
#include <pshmemx.h>
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Hints in the order their terms go into a combined intent (earlier terms weigh
 * more); `key` is the LOCI_CONFIG key in section [shmem] that overrides `intent`. */
static const struct {
    long bit;
    const char *key, *intent;
} hints[] = {
    {SHMEM_HINT_HIGH_BW_MEM, "high_bw", "bandwidth=high"},
    {SHMEM_HINT_LOW_LAT_MEM, "low_lat", "latency=low"},
    {SHMEM_HINT_NEAR_NIC_MEM, "near_nic", "near=nic"},
};
enum { NHINTS = sizeof hints / sizeof hints[0] };

static char intents[1 << NHINTS][512]; /* by combination of the hints above */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_intents(void)
{
    const char *term[NHINTS];
    for (int i = 0; i < NHINTS; i++) {
        term[i] = loci_config_intent("shmem", hints[i].key, NULL);
        if (!term[i] && errno != ENOENT)
            fprintf(stderr, "loci-shmem: %s; the hint keeps its default (%s)\n", loci_last_error(), hints[i].intent);
        if (!term[i])
            term[i] = hints[i].intent;
    }
    for (int combo = 1; combo < 1 << NHINTS; combo++) {
        size_t n = 0;
        for (int i = 0; i < NHINTS; i++)
            if (combo & (1 << i) && n < sizeof intents[combo])
                n += (size_t)snprintf(intents[combo] + n, sizeof intents[combo] - n, "%s%s", n ? "," : "", term[i]);
    }
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* Collective: whole pages of the heap bound by intent; NULL when the heap is full. */
static void *placed(const char *fn, size_t size, const char *intent)
{
    size_t page = page_size(), len = (size + page - 1) & ~(page - 1);
    void *p = pshmem_align(page, len); /* pages of its own: the binding must not catch a neighbour */
    if (!p)
        return NULL;
    shim_hinted_t b = {p, len, intent};
    if (loci_range_place(p, len, intent) != 0)
        fprintf(stderr, "loci-shmem: %s: intent \"%s\": %s: the block stays where the heap put it (a hint is "
                        "advice)\n", fn, intent, loci_last_error());
    else if (!shim_hinted_add(&b))
        fprintf(stderr, "loci-shmem: %s: out of memory recording a placed block: its pages keep their binding "
                        "after shmem_free\n", fn);
    return p;
}

void *shmemx_malloc_with_hint(size_t size, long hint)
{
    int combo = 0;
    for (int i = 0; i < NHINTS; i++)
        if (hint & hints[i].bit)
            combo |= 1 << i;
    /* device memory is Open MPI's business; nothing to place in 0 bytes */
    if (!combo || size == 0 || size > SIZE_MAX / 2 || (hint & (SHMEM_HINT_DEVICE_GPU_MEM | SHMEM_HINT_DEVICE_NIC_MEM)))
        return pshmemx_malloc_with_hint(size, hint);
    pthread_once(&once, build_intents);
    return placed("shmemx_malloc_with_hint", size, intents[combo]);
}

void shmem_free(void *ptr)
{
    shim_hinted_t b;
    if (ptr && shim_hinted_take(ptr, &b))
        shim_unbind(b.base, b.len);
    pshmem_free(ptr);
}

void *shmem_realloc(void *ptr, size_t size)
{
    shim_hinted_t b;
    if (!ptr || !shim_hinted_take(ptr, &b))
        return pshmem_realloc(ptr, size);
    void *fresh = size && size <= SIZE_MAX / 2 ? placed("shmem_realloc", size, b.intent) : NULL;
    if (size && !fresh) { /* as realloc: no room, the block stays */
        shim_hinted_add(&b);
        return NULL;
    }
    if (fresh) /* a placed block stays placed: a new one by the same intent */
        memcpy(fresh, ptr, size < b.len ? size : b.len);
    shim_unbind(b.base, b.len);
    pshmem_free(ptr);
    return fresh;
}
