/*
 * partition=blocked: "approximately the same size, at most one part per
 * storage resource" (OpenMP 5.1). loci places a block on one target or
 * interleaves it; blocking is done here, on a block that owns its pages
 * (page-aligned, whole pages: alloc.c asks for that): each part is given to
 * one NUMA target of the memory space, in rank order, with MPOL_PREFERRED so
 * that a full node spills instead of killing the program. Before the block
 * goes back to loci, its original policy and pages are restored, so loci
 * never reuses memory placed behind its back.
 */
#include "shim.h"

#include <errno.h>
#include <numaif.h>
#include <string.h>
#include <unistd.h>

#define MAX_PARTS 16
#define MASK_BITS (8 * sizeof(unsigned long))

void shim_partition_blocked(void *p, size_t size, loci_allocator_t *a, shim_undo_t *undo)
{
    undo->mode = -1;
    const loci_target_t *t[MAX_PARTS];
    int n = loci_allocator_targets(a, t, MAX_PARTS), nodes[MAX_PARTS], parts = 0;
    for (int i = 0; i < n && i < MAX_PARTS; i++) {
        loci_target_info_t info;
        if (loci_target_info(t[i], &info) == 0 && info.numa_node >= 0 && (size_t)info.numa_node < MASK_BITS)
            nodes[parts++] = info.numa_node;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = size / page;
    if (parts > (int)pages)
        parts = (int)pages;
    if (parts < 2)
        return; /* one storage resource: nothing to split */
    int mode;
    unsigned long mask = 0;
    if (get_mempolicy(&mode, &mask, MASK_BITS, p, MPOL_F_ADDR) != 0) {
        shim_log(LOCI_LOG_WARN, "partition=blocked: cannot read the policy of %p (%s); block not split", p,
                 strerror(errno));
        return;
    }
    *undo = (shim_undo_t){mode, mask};
    for (int i = 0; i < parts; i++) {
        size_t first = pages * (size_t)i / (size_t)parts, last = pages * (size_t)(i + 1) / (size_t)parts;
        unsigned long node = 1ul << nodes[i];
        if (mbind((char *)p + first * page, (last - first) * page, MPOL_PREFERRED, &node, MASK_BITS,
                  MPOL_MF_MOVE) != 0) {
            shim_log(LOCI_LOG_WARN, "partition=blocked: cannot place part %d of %p on node %d (%s); block not split",
                     i, p, nodes[i], strerror(errno));
            shim_partition_undo(p, size, undo);
            undo->mode = -1;
            return;
        }
    }
}

void shim_partition_undo(void *p, size_t size, const shim_undo_t *undo)
{
    if (undo->mode < 0)
        return;
    unsigned long mask = undo->nodes;
    if (mbind(p, size, (unsigned)undo->mode, undo->mode == MPOL_DEFAULT ? NULL : &mask, MASK_BITS,
              MPOL_MF_MOVE) != 0)
        shim_log(LOCI_LOG_WARN, "partition=blocked: cannot restore the policy of %p (%s)", p, strerror(errno));
}
