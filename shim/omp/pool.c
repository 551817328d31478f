/*
 * What a pool_size pool has in use. The shim counts it, not the arena under
 * it, so that omp_realloc inside a pool is charged "in use - old + new" as
 * libgomp does (the arena briefly holds both blocks while the bytes move),
 * and so that a block costs what it costs under libgomp 12: its bytes, a
 * 32-byte header and the padding its alignment needs. A program that fills
 * a pool then gets exactly as many blocks as without the shim.
 */
#include "shim.h"

#define HEADER 32 /* libgomp 12's struct omp_mem_header: ptr, size, allocator, pad */

size_t shim_pool_charge(size_t size, size_t alignment)
{
    size_t overhead = HEADER + (alignment > sizeof(void *) ? alignment - sizeof(void *) : 0), charge;
    return __builtin_add_overflow(size, overhead, &charge) ? 0 : charge;
}

bool shim_pool_take(shim_allocator_t *al, size_t give, size_t add)
{
    size_t used = atomic_load_explicit(&al->pool_used, memory_order_relaxed), next;
    do {
        next = used - give;
        if (add > al->traits.pool_size || next > al->traits.pool_size - add)
            return false;
        next += add;
    } while (!atomic_compare_exchange_weak_explicit(&al->pool_used, &used, next, memory_order_relaxed,
                                                    memory_order_relaxed));
    return true;
}

void shim_pool_give(shim_allocator_t *al, size_t charge)
{
    atomic_fetch_sub_explicit(&al->pool_used, charge, memory_order_relaxed);
}

void shim_pool_keep(shim_allocator_t *al, size_t charge)
{
    atomic_fetch_add_explicit(&al->pool_used, charge, memory_order_relaxed);
}
