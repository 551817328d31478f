/*
 * What the OpenSHMEM benchmarks share beyond bench/common (clock, medians,
 * size lists, command lines): the library's name for the tables' headers, where an intent's memory is, and
 * symmetric blocks by variant — the default heap or a partition.
 */
#ifndef LOCI_BENCH_SHMEM_H
#define LOCI_BENCH_SHMEM_H

#include "arguments.h"
#include "median.h"
#include "size_list.h"
#include "timing.h"

#include <loci.h>
#include <loci_shmem.h>
#include <shmem.h>
#include <stdio.h>

/* The name of the target an intent's memory goes to here, for the tables' headers. */
static inline const char *target_of(const char *intent)
{
    const loci_target_t *best[1];
    loci_target_info_t info;
    int n = loci_allocator_targets(loci_allocator_create(intent), best, 1);
    return n >= 1 && loci_target_info(best[0], &info) == 0 ? info.name : "?";
}

static inline const char *oshmem_version(void)
{
    static char v[64];
    snprintf(v, sizeof v, "Open MPI %d.%d.%d (OpenSHMEM %d.%d)", OSHMEM_MAJOR_VERSION, OSHMEM_MINOR_VERSION,
             OSHMEM_RELEASE_VERSION, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    return v;
}

/* Symmetric blocks start pages in both variants: the heap's own blocks sit
 * 16 bytes past a header and partition blocks wherever their offsets fall,
 * and a copy's speed depends on its alignment, which is not what is compared. */
#define SYM_ALIGN 4096

/* Collective: `bytes` of symmetric memory from partition `part`, or from the
 * default heap (shmem_align) when part < 0, starting a page. Stops the job
 * when refused. */
static inline void *sym_alloc(int part, size_t bytes)
{
    void *p = part < 0 ? shmem_align(SYM_ALIGN, bytes) : shmemx_partition_align(part, SYM_ALIGN, bytes);
    if (!p) {
        fprintf(stderr, "PE %d: %zu bytes from %s refused: %s\n", shmem_my_pe(), bytes,
                part < 0 ? "shmem_align" : "the partition",
                part < 0 ? "the symmetric heap is full (Open MPI: SMA_SYMMETRIC_SIZE)" : shmemx_hhm_last_error());
        shmem_global_exit(1);
    }
    return p;
}

static inline void sym_free(int part, void *p)
{
    if (part < 0)
        shmem_free(p);
    else
        shmemx_partition_free(part, p);
}

#endif
