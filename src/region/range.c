/*
 * Prefetch, flush and evict of any loci memory: a block from loci_alloc or a
 * persistent region. The range is widened to whole pages and handed to the
 * provider of the memory; memory with no file under it (DRAM) needs nothing.
 */
#include "region/region.h"
#include "pool/pool.h"

#include <stdint.h>
#include <unistd.h>

typedef int (*range_op_t)(void *addr, size_t size);

/* The file op `which` (an offset in provider_file_ops_t) of the provider of
 * the memory [addr, addr+len) applied to it; nothing for memory without a
 * file group. */
static int apply(const void *addr, size_t len, const char *name, size_t which)
{
    if (topo_ensure() != 0)
        return LOCI_EINVAL;
    if (!addr)
        return loci__fail(LOCI_EINVAL, "%s: NULL address", name);
    if (len == 0)
        return 0;
    void *base;
    size_t size;
    const provider_ops_t *ops;
    pool_heap_t *h;
    if (!region_of(addr, &base, &size, &ops)) {
        if (!(h = pool_heap_of(addr)) || !(base = pool_block_of(addr, &size)))
            return loci__fail(LOCI_EINVAL, "%s: %p is neither a live loci block nor in a persistent region", name, addr);
        ops = pool_heap_ops(h);
    }
    uintptr_t a = (uintptr_t)addr, b = (uintptr_t)base;
    if (len > size - (a - b))
        return loci__fail(LOCI_EINVAL, "%s: %zu bytes from %p run past the end of its block (%zu bytes at %p)", name,
                          len, addr, size, base);
    if (!ops->file)
        return 0;
    range_op_t op = *(const range_op_t *)((const char *)ops->file + which);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = a & ~(page - 1), to = (a + len + page - 1) & ~(page - 1);
    return op((void *)from, to - from);
}

int loci_range_prefetch(const void *addr, size_t len)
{
    return apply(addr, len, "loci_range_prefetch", offsetof(provider_file_ops_t, prefetch));
}

int loci_range_flush(const void *addr, size_t len)
{
    return apply(addr, len, "loci_range_flush", offsetof(provider_file_ops_t, flush));
}

int loci_range_evict(const void *addr, size_t len)
{
    return apply(addr, len, "loci_range_evict", offsetof(provider_file_ops_t, evict));
}
