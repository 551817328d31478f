/*
 * Helpers of the OpenSHMEM tests: CHECK that names the PE and line and
 * stops the whole job, the node an intent chooses here, and the kernel's
 * policy on a page (placement on this machine; the pages themselves are
 * checked in the VM, vm_shmem_place.c).
 */
#ifndef LOCI_SHMEM_CHECK_H
#define LOCI_SHMEM_CHECK_H

#include <loci.h>
#include <numaif.h>
#include <shmem.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                                                       \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                                      \
            fputc('\n', stderr);                                                                               \
            shmem_global_exit(1);                                                                              \
        }                                                                                                      \
    } while (0)

/* The NUMA node of the best target for intent on this machine. */
static inline int intent_node(const char *intent)
{
    const loci_target_t *t[1];
    loci_target_info_t ti;
    CHECK(loci_allocator_targets(loci_allocator_create(intent), t, 1) >= 1 && loci_target_info(t[0], &ti) == 0,
          "no target for \"%s\": %s", intent, loci_last_error());
    return ti.numa_node;
}

/* The kernel's policy for the page at p: one that names `node` — MPOL_BIND
 * for an intent with constraints, MPOL_PREFERRED(_MANY) for hints only — or
 * (node < 0) no policy of its own. */
static inline void check_policy(const char *what, const void *p, int node)
{
    int mode = -1;
    unsigned long mask[16] = {0};
    CHECK(get_mempolicy(&mode, mask, 16 * 8 * sizeof(unsigned long), (void *)p, MPOL_F_ADDR) == 0,
          "%s: get_mempolicy at %p", what, p);
    if (node < 0) {
        CHECK(mode == MPOL_DEFAULT, "%s: mode %d, expected MPOL_DEFAULT (the heap's own)", what, mode);
        return;
    }
    unsigned long bit = 1ul << (node % (8 * sizeof(unsigned long)));
    CHECK((mode == MPOL_BIND || mode == MPOL_PREFERRED || mode == MPOL_PREFERRED_MANY) &&
              (mask[node / (8 * sizeof(unsigned long))] & bit),
          "%s: mode %d mask %#lx, expected a policy (bind or preferred) on node %d", what, mode, mask[0], node);
}

#endif
