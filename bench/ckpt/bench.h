/*
 * bench_ckpt — NVMalloc §III-E / Table VIII on this machine: checkpoints of a
 * DRAM variable and of SSD variables (mode=paged persistent regions in chunk
 * layout) with loci_ckpt_save, against a regular full copy of the same
 * variables into one file (write + fsync). main.c runs and reports and,
 * with --store, hands over to store.c; both prepare with variables.c; copy.c
 * is the full-copy baseline; clocks, medians, progress, JSON rows and I/O
 * counters come from bench/common.
 */
#ifndef BENCH_CKPT_H
#define BENCH_CKPT_H

#include <stddef.h>
#include <stdint.h>

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

#define UNCHANGED_RUNS 5 /* unchanged saves per repeat: quick, and the figure the goal is about */

/** The variables of a run: DRAM and one SSD region. */
typedef struct {
    char *dram;
    size_t dram_size;
    char *ssd;
    size_t ssd_size;
} vars_t;

/** Write both variables into `path` (created, truncated) and fsync it. */
void copy_save(const vars_t *v, const char *path);

/** Read both variables back from `path`, and sync the region. */
void copy_restore(const vars_t *v, const char *path);

/** variables.c: exit with loci's message when rc != 0. */
void check(int rc, const char *what);

/** len bytes of pseudo-random data from seed at p (len a multiple of 8). */
void fill(char *p, size_t len, uint64_t seed);

/** Remove every checkpoint of this node (level 1) and collect its chunks. */
void empty_checkpoints(void);

/** --store (store.c): the benchmarks of checkpoints on the aggregate store,
 *  run by bench/ckpt/run-store.sh; argv from after "--store". 0 or exit. */
int store_main(int argc, char **argv);

#endif
