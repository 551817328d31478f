/*
 * (c) Out-of-core tiled matrix multiply (NVMalloc Tables IV and V): one
 * process's share of C = A x B, its r rows of A and C in DRAM, all of B
 * (n x n doubles) on the SSD tier in paged mode with a cache a quarter of
 * B's size. Tiles t x t, t = 16..128. Row-major: B's tiles are visited row
 * by row (the t rows in use stay cached while every column tile uses them);
 * column-major: column by column, so each column of tiles walks all of B
 * again. Each run starts with B out of the cache; the same multiply with B in
 * DRAM is timed beside it.
 *
 * (m) On the aggregate store (--store, NVMalloc Fig. 4): B is a store region
 * that several client nodes multiply with at the same time, either one region
 * opened LOCI_READONLY by all of them or a copy of its own per client.
 * bench/store/run.sh makes the regions (--make-b) and starts one process per
 * client node at once; each prints one line (and a JSON row): its time and
 * the bytes its cache read from the store. The OSDs' side (bytes they sent,
 * bytes they read from their disks) is measured by run.sh around the pair.
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void multiply(const double *A, const double *B, double *C, size_t r, size_t n, size_t t, bool by_column)
{
    memset(C, 0, r * n * sizeof *C);
    for (size_t outer = 0; outer < n; outer += t)
        for (size_t inner = 0; inner < n; inner += t) {
            size_t kk = by_column ? inner : outer, jj = by_column ? outer : inner;
            for (size_t i = 0; i < r; i++)
                for (size_t k = kk; k < kk + t; k++) {
                    double a = A[i * n + k], *c = C + i * n + jj;
                    const double *b = B + k * n + jj;
                    for (size_t j = 0; j < t; j++)
                        c[j] += a * b[j];
                }
        }
}

static double checksum(const double *C, size_t count)
{
    double s = 0;
    for (size_t i = 0; i < count; i++)
        s += C[i] * (double)(i % 7 + 1);
    return s;
}

static void fill_a(double *A, size_t count)
{
    for (size_t i = 0; i < count; i++)
        A[i] = (double)(i % 13) * 0.25;
}

static void fill_b(double *B, size_t count)
{
    for (size_t i = 0; i < count; i++)
        B[i] = (double)(i % 17) * 0.5;
}

int bench_matmul(const bench_opts_t *o)
{
    size_t n = o->quick ? 1024 : 2048, r = o->quick ? 16 : 64, bbytes = n * n * sizeof(double), cache = bbytes / 4;
    char intent[128];
    snprintf(intent, sizeof intent, "kind=ssd!,mode=paged!,cache=%zu,chunk=256KiB", cache);
    loci_allocator_t *dram = loci_allocator_create(""), *ssd = bench_check(loci_allocator_create(intent), intent);
    double *A = loci_alloc(dram, r * n * sizeof *A), *C = loci_alloc(dram, r * n * sizeof *C);
    double *Bd = loci_alloc(dram, bbytes), *Bs = bench_check(loci_alloc(ssd, bbytes), "B on the SSD");
    fill_a(A, r * n);
    fill_b(Bd, n * n);
    memcpy(Bs, Bd, bbytes);
    printf("\n(c) tiled matrix multiply (NVMalloc Tables IV-V): %zu x %zu rows of C, B %zu x %zu = %zu MiB on the "
           "SSD (paged), cache %zu MiB\n", r, n, n, n, bbytes / MiB, cache / MiB);
    printf("  %-8s %6s %12s %12s %8s %14s %10s\n", "B order", "tile", "paged s", "DRAM s", "ratio", "read from SSD",
           "x size B");
    const size_t tiles[] = {16, 32, 64, 128};
    for (int col = 0; col < 2; col++)
        for (int ti = 0; ti < 4; ti++) {
            size_t t = tiles[ti];
            bench_progress("matmul: %s-major, tile %zu", col ? "column" : "row", t);
            double ts[16], td[16];
            uint64_t rd = 0;
            double want = 0, got = 0;
            for (int rep = 0; rep < o->repeats; rep++) {
                double t0 = clock_mono_s();
                multiply(A, Bd, C, r, n, t, col);
                td[rep] = clock_mono_s() - t0;
                want = checksum(C, r * n);
                loci_range_evict(Bs, bbytes);
                loci_cache_stats_t s0 = bench_nvm();
                t0 = clock_mono_s();
                multiply(A, Bs, C, r, n, t, col);
                ts[rep] = clock_mono_s() - t0;
                got = checksum(C, r * n);
                rd = bench_nvm().bytes_read - s0.bytes_read;
            }
            if (fabs(got - want) > 1e-6 * fabs(want)) {
                fprintf(stderr, "bench_nvm: matmul: result differs with B on the SSD\n");
                exit(1);
            }
            double sp = bench_median(ts, o->repeats), sd = bench_median(td, o->repeats);
            printf("  %-8s %6zu %12.3f %12.3f %7.1fx %11.0f MB %9.1fx\n", col ? "column" : "row", t, sp, sd, sp / sd,
                   rd / 1e6, (double)rd / (double)bbytes);
            bench_json_row(o->json,
                           "\"bench\": \"matmul\", \"order\": \"%s\", \"tile\": %zu, \"n\": %zu, \"rows\": %zu, "
                           "\"cache\": %zu, \"paged_seconds\": %.4f, \"dram_seconds\": %.4f, \"store_read\": %llu",
                           col ? "column" : "row", t, n, r, cache, sp, sd, (unsigned long long)rd);
        }
    loci_free(A);
    loci_free(C);
    loci_free(Bd);
    loci_free(Bs);
    return 0;
}

/* (m): n x n doubles of B (32 MiB quick, 128 MiB full), r rows of A and C per
 * client, each client's cache a quarter of B; row-major with 128-tiles reads
 * B once per pass, column-major with n/8-tiles reads it 8 times. */
int bench_matmul_shared(const bench_opts_t *o)
{
    size_t n = o->quick ? 2048 : 4096, r = 16, bbytes = n * n * sizeof(double), cache = bbytes / 4;
    char intent[128];
    snprintf(intent, sizeof intent, "target=%s!,cache=%zu,chunk=256KiB%s", o->store, cache, o->object);
    if (o->make_b) { /* what a copy of B costs: written and synced */
        double t0 = clock_mono_s();
        double *B = bench_check(loci_region_open(o->b_region, bbytes, intent, LOCI_CREATE), o->b_region);
        fill_b(B, n * n);
        if (loci_region_sync(B) != 0 || loci_region_close(B) != 0)
            bench_check(NULL, "writing B to the store");
        double secs = clock_mono_s() - t0;
        printf("(m) B = region %s on %s: %zu x %zu doubles, %zu MiB, written and synced in %.3f s\n", o->b_region,
               o->store, n, n, bbytes / MiB, secs);
        bench_json_row(o->json, "\"bench\": \"matmul_make_b\", \"region\": \"%s\", \"n\": %zu, \"seconds\": %.4f",
                       o->b_region, n, secs);
        return 0;
    }
    bool column = o->order && strcmp(o->order, "column") == 0;
    size_t t = column ? n / 8 : 128;
    loci_allocator_t *dram = loci_allocator_create("");
    double *A = loci_alloc(dram, r * n * sizeof *A), *C = loci_alloc(dram, r * n * sizeof *C);
    bench_check(A && C ? A : NULL, "A and C in DRAM");
    fill_a(A, r * n);
    const double *B = bench_check(loci_region_open(o->b_region, 0, intent, LOCI_READONLY), o->b_region);
    loci_cache_stats_t s0 = bench_nvm();
    double t0 = clock_mono_s();
    multiply(A, B, C, r, n, t, column);
    double secs = clock_mono_s() - t0;
    uint64_t rd = bench_nvm().bytes_read - s0.bytes_read;
    double got = checksum(C, r * n);
    loci_region_close((void *)B);
    /* the same multiply with B in DRAM: the result to check, and the time without the store */
    double *Bd = bench_check(loci_alloc(dram, bbytes), "B in DRAM");
    fill_b(Bd, n * n);
    t0 = clock_mono_s();
    multiply(A, Bd, C, r, n, t, column);
    double dsecs = clock_mono_s() - t0;
    if (fabs(checksum(C, r * n) - got) > 1e-6 * fabs(got)) {
        fprintf(stderr, "bench_nvm: matmul: result differs with B in region %s\n", o->b_region);
        exit(1);
    }
    printf("(m) B %s (%zu MiB), %s-major, tile %zu, %zu rows: %.3f s, read from the store %llu B (%.1fx B); "
           "B in DRAM %.3f s\n", o->b_region, bbytes / MiB, column ? "column" : "row", t, r, secs,
           (unsigned long long)rd, (double)rd / (double)bbytes, dsecs);
    bench_json_row(o->json, "\"bench\": \"matmul_shared\", \"region\": \"%s\", \"order\": \"%s\", \"tile\": %zu, "
                   "\"n\": %zu, \"rows\": %zu, \"cache\": %zu, \"seconds\": %.4f, \"dram_seconds\": %.4f, "
                   "\"store_read\": %llu",
                   o->b_region, column ? "column" : "row", t, n, r, cache, secs, dsecs, (unsigned long long)rd);
    loci_free(A);
    loci_free(C);
    loci_free(Bd);
    return 0;
}
