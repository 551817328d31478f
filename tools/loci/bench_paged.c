/*
 * `loci bench` on targets that are not NUMA nodes — file tiers and the
 * job's store — measured the way programs use them in mode=paged: through
 * loci's chunk cache (64 MiB), cold each time.
 *  - bandwidth: a sequential read of a region four times the cache, one
 *    thread (the cache's read-ahead in flight), bytes per second;
 *  - latency: the time of the first touch of a page of an uncached chunk
 *    (one chunk read), median over pages in scattered chunks.
 */
#include "commands.h"
#include "loci.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PAGED_RUNS = 3, LATENCY_SAMPLES = 32 };

int bench_paged_target(const char *name, size_t bytes, uint64_t *bandwidth_mbps, uint64_t *latency_ns)
{
    char intent[128];
    snprintf(intent, sizeof intent, "target=%s!,mode=paged!,cache=64MiB,fallback=null", name);
    loci_allocator_t *a = loci_allocator_create(intent);
    volatile unsigned char *p = a ? loci_alloc(a, bytes) : NULL;
    if (!p) {
        fprintf(stderr, "loci bench: %s: %s\n", name, loci_last_error());
        loci_allocator_destroy(a);
        return -1;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE), chunk = 256 << 10;
    memset((void *)p, 0x5a, bytes); /* data on the store, not holes */
    int rc = loci_range_flush((const void *)p, bytes);
    double rate[PAGED_RUNS], lat[LATENCY_SAMPLES];
    unsigned sum = 0;
    for (int r = 0; r < PAGED_RUNS && rc == 0; r++) {
        progress_text("loci bench: %-8s %-10s run %d/%d", name, "bandwidth", r + 1, PAGED_RUNS);
        rc = loci_range_evict((const void *)p, bytes);
        double t0 = bench_now_s();
        for (size_t off = 0; off < bytes; off += page)
            sum += p[off];
        rate[r] = (double)bytes / (bench_now_s() - t0) / 1e6;
    }
    if (rc == 0)
        rc = loci_range_evict((const void *)p, bytes);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    progress_text("loci bench: %-8s %-10s %d samples", name, "latency", LATENCY_SAMPLES);
    for (int s = 0; s < LATENCY_SAMPLES && rc == 0; s++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        size_t off = (size_t)(rng % (bytes / chunk)) * chunk + (size_t)(rng >> 40) % (chunk / page) * page;
        loci_range_evict((const void *)(p + off - off % chunk), chunk); /* its chunk is cold */
        double t0 = bench_now_s();
        sum += p[off];
        lat[s] = (bench_now_s() - t0) * 1e9;
    }
    (void)sum;
    if (rc != 0) {
        progress_clear();
        fprintf(stderr, "loci bench: %s: %s\n", name, loci_last_error());
    }
    loci_free((void *)p);
    loci_allocator_destroy(a);
    if (rc != 0)
        return -1;
    qsort(rate, PAGED_RUNS, sizeof *rate, bench_cmp_double);
    qsort(lat, LATENCY_SAMPLES, sizeof *lat, bench_cmp_double);
    *bandwidth_mbps = (uint64_t)rate[PAGED_RUNS / 2];
    *latency_ns = (uint64_t)((lat[LATENCY_SAMPLES / 2 - 1] + lat[LATENCY_SAMPLES / 2]) / 2 + 0.5);
    return 0;
}
