/*
 * hbw_verify_memory_region: whether every page of [addr, addr+size) is on a
 * high-bandwidth node, as the kernel reports it (move_pages without moving),
 * with memkind's answers: 0 yes, -1 a page elsewhere or not backed yet,
 * EINVAL for bad arguments, EFAULT when the kernel cannot tell.
 */
#include "memkind_shim.h"

#include <errno.h>
#include <numaif.h>
#include <stdint.h>
#include <unistd.h>

#define BATCH 64
#define MAX_NODES 1024
#define WORD_BITS (8 * sizeof(unsigned long))

MK_EXPORT int hbw_verify_memory_region(void *addr, size_t size, int flags)
{
    if (!addr || !size || (flags & ~HBW_TOUCH_PAGES))
        return EINVAL;
    unsigned long hbw[MAX_NODES / WORD_BITS];
    if (nodes_of_class(NODES_HBW, hbw, MAX_NODES) != MEMKIND_SUCCESS)
        return -1; /* no page can be on high-bandwidth memory */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t at = (uintptr_t)addr & ~(page - 1), end = (uintptr_t)addr + size;
    while (at < end) {
        void *pages[BATCH];
        int nodes[BATCH], count = 0;
        for (; at < end && count < BATCH; at += page) {
            if (flags & HBW_TOUCH_PAGES) { /* fault it in: read and write back its first byte */
                volatile char *c = (volatile char *)at;
                *c = *c;
            }
            pages[count++] = (void *)at;
        }
        if (move_pages(0, (unsigned long)count, pages, NULL, nodes, 0) != 0)
            return EFAULT;
        for (int i = 0; i < count; i++)
            if (nodes[i] < 0 || nodes[i] >= MAX_NODES || !(hbw[nodes[i] / WORD_BITS] & (1ul << (nodes[i] % WORD_BITS))))
                return -1;
    }
    return 0;
}
