/*
 * Placing memory loci did not map (loci_range_place): an MPI window, a
 * shared segment. The policy goes on the pages the range touches; for
 * shared tmpfs/SysV/memfd mappings the kernel keeps it with the memory
 * itself, so every process mapping it faults pages in on the same nodes.
 * Pages that exist already are moved: mbind moves only pages in the
 * caller's page tables, so pages of a shared mapping that another process
 * faulted in (an MPI library's own bookkeeping beside a window) are mapped
 * here first; moving pages other processes also map needs CAP_SYS_NICE,
 * without it they stay where they are.
 */
#include "os/vm.h"

#include <numaif.h>
#include <stdint.h>
#include <sys/mman.h>

/* Read one byte of every page of [start, start + n pages) that is in memory
 * (mincore: for a shared mapping, in the page cache) so that it is in this
 * process's page tables. Every page holds bytes of the caller's readable range. */
static void map_resident(uintptr_t start, size_t n, size_t page)
{
    enum { BATCH = 512 };
    unsigned char resident[BATCH];
    for (size_t i = 0; i < n; i += BATCH) {
        size_t k = n - i < BATCH ? n - i : BATCH;
        if (mincore((void *)(start + i * page), k * page, resident) != 0)
            return; /* then only the pages mapped here move */
        for (size_t j = 0; j < k; j++)
            if (resident[j] & 1)
                (void)*(volatile const char *)(start + (i + j) * page);
    }
}

int vm_place_range(void *addr, size_t size, const place_t *place)
{
    if (place->simulated || place->policy == PLACE_LOCAL)
        return 0;
    size_t page = vm_page_size();
    uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
    uintptr_t end = ((uintptr_t)addr + size + page - 1) & ~(uintptr_t)(page - 1);
    map_resident(start, (end - start) / page, page);
    /* MOVE_ALL moves shared pages too but needs CAP_SYS_NICE (EPERM at once
     * otherwise); MOVE without STRICT leaves the pages it cannot move */
    int rc = vm_apply_policy((void *)start, end - start, place, MPOL_MF_MOVE | MPOL_MF_MOVE_ALL);
    if (rc == LOCI_EPERM)
        rc = vm_apply_policy((void *)start, end - start, place, MPOL_MF_MOVE);
    if (rc == 0 && place->pinned)
        rc = vm_pin((void *)start, end - start);
    return rc;
}
