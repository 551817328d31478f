/*
 * The page map: O(1) pointer → descriptor for every 64 KiB slice loci maps.
 * A static root of 16384 slots, each the offset of a leaf of 2^18 entries
 * (16 GiB of address space each, created on demand, never freed; their
 * untouched pages cost nothing). An empty root slot points at a shared
 * all-zero leaf that is never written. Entries are set before a slab or
 * extent is handed out and cleared before its memory goes back.
 */
#include "pool/pool_internal.h"

#include <stdlib.h>

pm_entry_t pool__pm_zero_leaf[(size_t)1 << PM_LEAF_BITS];
_Atomic uintptr_t pool__pm_root[(size_t)1 << PM_ROOT_BITS];
static pthread_mutex_t leaf_lock = PTHREAD_MUTEX_INITIALIZER;
/* The leaves as plain pointers too: the root holds offsets, which leak
 * checkers do not recognise as references. Never read, so not static: the
 * compiler dropped a static one's stores, and LSan then reported a leaf
 * whose only other reference, a thread's cached pointer, had gone. */
pm_entry_t *pool__pm_leaves[(size_t)1 << PM_ROOT_BITS];

void pool__pagemap_fork(loci_fork_phase_t phase) { loci__fork_mutex(&leaf_lock, phase); }

static pm_entry_t *leaf_at(uintptr_t off)
{
    return (pm_entry_t *)((uintptr_t)pool__pm_zero_leaf + off);
}

static pm_entry_t *leaf_for(uintptr_t a, bool create)
{
    size_t key = a >> (SLICE_SHIFT + PM_LEAF_BITS);
    _Atomic uintptr_t *slot = &pool__pm_root[key];
    uintptr_t off = atomic_load_explicit(slot, memory_order_acquire);
    if (off || !create)
        return off ? leaf_at(off) : NULL;
    pthread_mutex_lock(&leaf_lock);
    off = atomic_load_explicit(slot, memory_order_acquire);
    if (!off) {
        /* calloc of 4 MiB is a fresh zeroed mapping: untouched parts stay free. */
        pm_entry_t *leaf = calloc((size_t)1 << PM_LEAF_BITS, sizeof *leaf);
        if (leaf) {
            pool__pm_leaves[key] = leaf;
            off = (uintptr_t)leaf - (uintptr_t)pool__pm_zero_leaf;
            atomic_store_explicit(slot, off, memory_order_release);
        }
    }
    pthread_mutex_unlock(&leaf_lock);
    return off ? leaf_at(off) : NULL;
}

const pm_entry_t *pool__pagemap_slot_slow(uintptr_t a)
{
    if (a >> PM_ADDR_BITS)
        return &pool__pm_zero_leaf[0];
    uintptr_t key = a >> (SLICE_SHIFT + PM_LEAF_BITS);
    uintptr_t off = atomic_load_explicit(&pool__pm_root[key], memory_order_acquire);
    pm_entry_t *leaf = leaf_at(off);
    if (off) { /* a real leaf stays valid for ever: remember it */
        pool__tl.leaf = leaf;
        pool__tl.leaf_key = key;
    }
    return &leaf[pm_index(a)];
}

int pool__pagemap_set(uintptr_t base, size_t size, uintptr_t e, uintptr_t step, uintptr_t aux)
{
    uintptr_t end = base + size;
    if (end < base || (end - 1) >> PM_ADDR_BITS)
        return loci__fail(LOCI_ENOMEM, "address %p lies beyond the 48-bit page map", (void *)base);
    for (uintptr_t a = base; a < end; a += SLICE_SIZE) {
        pm_entry_t *leaf = leaf_for(a, true);
        if (!leaf) {
            pool__pagemap_clear(base, a - base);
            return loci__fail(LOCI_ENOMEM, "out of memory for the page map");
        }
        pm_entry_t *x = &leaf[pm_index(a)];
        atomic_store_explicit(&x->aux, aux, memory_order_relaxed);
        atomic_store_explicit(&x->e, e, memory_order_release);
        e += step;
    }
    return 0;
}

void pool__pagemap_clear(uintptr_t base, size_t size)
{
    for (uintptr_t a = base; a < base + size; a += SLICE_SIZE) {
        pm_entry_t *leaf = leaf_for(a, false);
        if (leaf) {
            pm_entry_t *x = &leaf[pm_index(a)];
            atomic_store_explicit(&x->e, 0, memory_order_release);
            atomic_store_explicit(&x->aux, 0, memory_order_relaxed);
        }
    }
}
