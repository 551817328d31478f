/*
 * Size classes: 8..128 B in steps of 8, then 8 classes per doubling up to
 * 256 KiB (a block is at most 12.5 % larger than the size asked above 128 B).
 * Each class has a slab size (runs of 64 KiB slices holding >= 32 blocks and,
 * from 256 B blocks up, >= 256 KiB; or 2 MiB with >= 8 blocks; with <= 12.5 %
 * left over at the end), a thread-cache capacity and how many fresh blocks
 * at a time a run puts on the cache's stack.
 */
#include "pool/pool_internal.h"

#include <unistd.h>

uint32_t pool_class_size[NCLASSES];
uint16_t pool_class_slices[NCLASSES];
uint16_t pool_class_cap[NCLASSES];
uint16_t pool_class_batch[NCLASSES];
size_t pool_page_size = 4096;

void pool__classes_init(void)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0)
        pool_page_size = (size_t)page;
    for (unsigned c = 0; c < NCLASSES; c++) {
        uint32_t size;
        if (c < 16) {
            size = 8 * (c + 1);
        } else {
            unsigned b = 7 + (c - 16) / 8, k = (c - 16) % 8;
            size = (9 + k) << (b - 3);
        }
        pool_class_size[c] = size;
        /* Slabs of at least 32 blocks (a thread refills from its own slab,
         * one lock per slab's worth), and of at least 256 KiB for blocks of
         * 256 B and up, so that a refill (a lock, the slab's metadata lines,
         * cold after other work) comes once per 256 KiB of fresh blocks; at
         * most 2 MiB (then >= 8 blocks). */
        unsigned n = 1;
        for (; n < SEG_SLICES / 2; n++) {
            size_t bytes = n * SLICE_SIZE;
            if (bytes >= 32 * (size_t)size && (size < 256 || n >= 4) && (bytes % size) * 8 <= bytes)
                break;
        }
        pool_class_slices[c] = (uint16_t)n;
        /* up to 128 blocks, up to 512 KiB, at least 8 blocks */
        uint32_t cap = (512u * 1024) / size;
        pool_class_cap[c] = (uint16_t)(cap > 128 ? 128 : cap < 8 ? 8 : cap);
        /* A run's batch: half a stack, at most 4 KiB (their first lines are
         * prefetched and must stay cached until handed out), at least 8
         * blocks (a call off the fast path per 8 blocks at most). */
        uint32_t batch = 4096 / size;
        batch = batch > pool_class_cap[c] / 2u ? pool_class_cap[c] / 2u : batch;
        pool_class_batch[c] = (uint16_t)(batch < 8 ? 8 : batch);
    }
}
