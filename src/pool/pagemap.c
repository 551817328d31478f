/*
 * The page map: O(1) pointer → descriptor for every 64 KiB slice loci maps.
 * A static root of 4096 slots, each the offset of a leaf of 2^20 entries
 * (8 MiB of address space, one per 64 GiB of address range, created on
 * demand, never freed; their untouched pages cost nothing). An empty root
 * slot points at a shared all-zero leaf that is never written. Entries are
 * set before a slab or extent is handed out and cleared before its memory
 * goes back.
 */
#include "pool/pool_internal.h"

#include <stdlib.h>

pm_entry_t pool__pm_zero_leaf[(size_t)1 << PM_LEAF_BITS];
_Atomic uintptr_t pool__pm_root[(size_t)1 << PM_ROOT_BITS];
static pthread_mutex_t leaf_lock = PTHREAD_MUTEX_INITIALIZER;
/* The leaves as plain pointers too: the root holds offsets, which leak
 * checkers do not recognise as references. */
static pm_entry_t *leaves[(size_t)1 << PM_ROOT_BITS];

static pm_entry_t *leaf_at(uintptr_t off)
{
    return (pm_entry_t *)((uintptr_t)pool__pm_zero_leaf + off);
}

static pm_entry_t *leaf_for(uintptr_t a, bool create)
{
    _Atomic uintptr_t *slot = &pool__pm_root[a >> (SLICE_SHIFT + PM_LEAF_BITS)];
    uintptr_t off = atomic_load_explicit(slot, memory_order_acquire);
    if (off || !create)
        return off ? leaf_at(off) : NULL;
    pthread_mutex_lock(&leaf_lock);
    off = atomic_load_explicit(slot, memory_order_acquire);
    if (!off) {
        /* calloc of 8 MiB is a fresh zeroed mapping: untouched parts stay free. */
        pm_entry_t *leaf = calloc((size_t)1 << PM_LEAF_BITS, sizeof *leaf);
        if (leaf) {
            leaves[a >> (SLICE_SHIFT + PM_LEAF_BITS)] = leaf;
            off = (uintptr_t)leaf - (uintptr_t)pool__pm_zero_leaf;
            atomic_store_explicit(slot, off, memory_order_release);
        }
    }
    pthread_mutex_unlock(&leaf_lock);
    return off ? leaf_at(off) : NULL;
}

uintptr_t pool__pagemap_entry_slow(uintptr_t a)
{
    if (a >> PM_ADDR_BITS)
        return 0;
    uintptr_t key = a >> (SLICE_SHIFT + PM_LEAF_BITS);
    uintptr_t off = atomic_load_explicit(&pool__pm_root[key], memory_order_acquire);
    pm_entry_t *leaf = leaf_at(off);
    if (off) { /* a real leaf stays valid for ever: remember it */
        pool__tl.leaf = leaf;
        pool__tl.leaf_key = key + 1;
    }
    return atomic_load_explicit(&leaf[pm_index(a)], memory_order_acquire);
}

static size_t leaf_index(uintptr_t a)
{
    return (a >> SLICE_SHIFT) & (((uintptr_t)1 << PM_LEAF_BITS) - 1);
}

int pool__pagemap_set(uintptr_t base, size_t size, uintptr_t entry, uintptr_t step)
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
        atomic_store_explicit(&leaf[leaf_index(a)], entry, memory_order_release);
        entry += step;
    }
    return 0;
}

void pool__pagemap_clear(uintptr_t base, size_t size)
{
    for (uintptr_t a = base; a < base + size; a += SLICE_SIZE) {
        pm_entry_t *leaf = leaf_for(a, false);
        if (leaf)
            atomic_store_explicit(&leaf[leaf_index(a)], 0, memory_order_release);
    }
}
