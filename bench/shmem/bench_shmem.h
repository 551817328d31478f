/*
 * What the OpenSHMEM benchmarks share beyond bench/mpi/common.h (clock,
 * medians, size lists): their options, the library's name for the tables'
 * headers, where an intent's memory is, and symmetric blocks by variant —
 * the default heap or a partition.
 */
#ifndef LOCI_BENCH_SHMEM_H
#define LOCI_BENCH_SHMEM_H

#include "common.h"

#include <loci.h>
#include <loci_shmem.h>
#include <shmem.h>

/* One "--name value" option: 's' a string, 'i' an int, 'u' a uint64_t, 'm' MiB into a size_t. */
typedef struct {
    const char *name;
    char type;
    void *value;
} bench_opt_t;

/* Parse argv: "--quick" runs quick() (smoke-run settings), the rest fills
 * opts. On anything else PE 0 prints usage and the job stops. */
static inline void bench_options(int argc, char **argv, const bench_opt_t *opts, void (*quick)(void),
                                 const char *usage)
{
    for (int i = 1; i < argc; i++) {
        const bench_opt_t *o = opts;
        if (!strcmp(argv[i], "--quick")) {
            quick();
            continue;
        }
        while (o->name && (strcmp(argv[i], o->name) || i + 1 >= argc))
            o++;
        if (!o->name) {
            if (shmem_my_pe() == 0)
                fprintf(stderr, "usage: %s\n", usage);
            shmem_global_exit(2);
        }
        const char *v = argv[++i];
        switch (o->type) {
        case 's': *(const char **)o->value = v; break;
        case 'i': *(int *)o->value = atoi(v); break;
        case 'u': *(uint64_t *)o->value = strtoull(v, NULL, 10); break;
        default: *(size_t *)o->value = (size_t)strtoull(v, NULL, 10) << 20; break;
        }
    }
}

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
