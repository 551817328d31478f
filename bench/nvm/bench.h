/*
 * bench_nvm — NVMalloc §IV on loci's SSD partition (DESIGN.md §7): random
 * byte writes (Table VII), STREAM triad per placement (Fig. 2), out-of-core
 * tiled matrix multiply (Tables IV-V) and a sort twice the cache's size
 * (Table VI). Each part prints a table on stdout and adds rows to the JSON.
 */
#ifndef BENCH_NVM_H
#define BENCH_NVM_H

#include "loci.h"
#include "counters.h" /* bench/common: bench_io, bench_cmd_number, bench_store_target */
#include "median.h"
#include "report.h"   /* bench_progress, bench_json_row */
#include "timing.h"   /* clock_mono_s, bench_cpu */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

typedef struct {
    bool quick;       /* a smoke run: small sizes, one repeat */
    int repeats;      /* timed repeats per cell (median) */
    FILE *json;       /* rows go there (a JSON array), or NULL */
    const char *tier; /* ssd0's directory */
    /* --store: the parts run on the aggregate store target of LOCI_CONFIG */
    const char *store;         /* its name (e.g. "agg0"), or NULL: ssd0 */
    const char *osd_bytes_cmd; /* prints the bytes the OSDs received so far (or NULL) */
    const char *raw_read_cmd;  /* prints the pool's sequential read MB/s (or NULL) */
    unsigned writes;           /* (a): random writes, 0 = the default */
    const char *placements;    /* (b): the placements to run ("B,C,BC"), NULL: all (the store: BC and A) */
    /* (m): the store region holding B, made with make_b, or multiplied with in order */
    const char *b_region;
    bool make_b;
    const char *order; /* "row" or "column" */
    const char *object; /* the store's intents: ",object=SIZE" (--object SIZE), or "" (the store's default) */
    const char *chunk; /* (s): the paged chunk ("256KiB"; "2MiB": where shared memory comes in huge pages, the
                        * cache fills it in place) */
} bench_opts_t;

/** Sequential O_DIRECT read of the whole file at path in 1 MiB requests: MB/s. A region
 *  directory (chunk layout): of a flat file as large as its chunks, beside it. */
double bench_raw_read_mbps(const char *path);

/** The file (mode=mmap) or directory (mode=paged) of a persistent region of ssd0: "<tier>/<name>.region". */
void bench_region_path(const bench_opts_t *o, const char *name, char *buf, size_t len);

/** All paged caches' counters now (loci_cache_stats(NULL)). */
loci_cache_stats_t bench_nvm(void);

/** Pages of [p, p+len) resident in DRAM (mincore). */
size_t bench_resident(const void *p, size_t len);

/** Exit with a message when a loci call failed. */
void *bench_check(void *p, const char *what);

int bench_randwrite(const bench_opts_t *o);
/** read: the triad per placement (on the store: B and C there); write: on the
 *  store only, A alone there (a sequential paged write). */
int bench_stream(const bench_opts_t *o, bool read, bool write);
int bench_matmul(const bench_opts_t *o);
/** (m) NVMalloc Fig. 4 on the store: one client node's multiply with B in
 *  region o->b_region, opened LOCI_READONLY (or, make_b, that region made). */
int bench_matmul_shared(const bench_opts_t *o);
int bench_sort(const bench_opts_t *o);
/** (s) one sequential writer (16x and 4x the cache) and reader (16x) of a paged region: MB/s
 *  and CPU s/GB of the process; on ssd0 beside the raw O_DIRECT file. */
int bench_seqio(const bench_opts_t *o);

#endif
