/*
 * (d) Sorting a dataset twice the cache's size in the paged tier (NVMalloc
 * Table VI, on one node): 64-bit keys, an in-place quicksort (glibc's qsort
 * would copy the data into a DRAM buffer). The same data sorted in DRAM and
 * in mmap mode beside it; the store traffic of each SSD run, and the DRAM it
 * held: the paged cache's peak, or the page cache mapped at the end (mmap).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void swap(uint64_t *a, uint64_t *b)
{
    uint64_t t = *a;
    *a = *b;
    *b = t;
}

/* Hoare partitioning around a median of three; insertion sort below 16;
 * recursion on the smaller side only. */
static void quicksort(uint64_t *v, size_t n)
{
    while (n > 16) {
        size_t m = n / 2;
        if (v[m] < v[0])
            swap(&v[m], &v[0]);
        if (v[n - 1] < v[0])
            swap(&v[n - 1], &v[0]);
        if (v[n - 1] < v[m])
            swap(&v[n - 1], &v[m]);
        uint64_t pivot = v[m];
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i >= j)
                break;
            swap(&v[i++], &v[j--]);
        }
        size_t left = j + 1;
        if (left < n - left) {
            quicksort(v, left);
            v += left;
            n -= left;
        } else {
            quicksort(v + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--)
            swap(&v[j], &v[j - 1]);
}

int bench_sort(const bench_opts_t *o)
{
    size_t cache = o->quick ? 8 * MiB : 64 * MiB, bytes = 2 * cache, n = bytes / sizeof(uint64_t);
    char paged[128];
    snprintf(paged, sizeof paged, "kind=ssd!,mode=paged!,cache=%zu,chunk=256KiB", cache);
    const char *names[] = {"dram", "ssd-mmap", "ssd-paged"}, *intents[] = {"", "kind=ssd!,mode=mmap", paged};
    printf("\n(d) in-place quicksort of %zu MiB of 64-bit keys, twice the paged cache (%zu MiB)\n", bytes / MiB,
           cache / MiB);
    printf("  %-10s %10s %14s %14s %14s\n", "data on", "seconds", "store read", "store written", "DRAM held");
    for (int m = 0; m < 3; m++) {
        bench_progress("sort: %s", names[m]);
        double t[16], held = 0;
        uint64_t rd = 0, wr = 0;
        for (int rep = 0; rep < o->repeats; rep++) {
            uint64_t *v = bench_check(loci_alloc(loci_allocator_create(intents[m]), bytes), names[m]);
            uint64_t x = 88172645463325252ull, sum = 0;
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                v[i] = x;
                sum += x;
            }
            loci_range_evict(v, bytes); /* start cold */
            loci_cache_stats_t s0 = bench_nvm();
            uint64_t r0, w0, r1, w1;
            bench_io(&r0, &w0);
            double t0 = clock_mono_s();
            quicksort(v, n);
            loci_range_flush(v, bytes);
            t[rep] = clock_mono_s() - t0;
            bench_io(&r1, &w1);
            loci_cache_stats_t s1 = bench_nvm(), mine;
            held = (double)bench_resident(v, bytes) * (double)sysconf(_SC_PAGESIZE);
            if (m == 2 && loci_cache_stats(v, &mine) == 0)
                held = (double)mine.resident_peak;
            rd = m == 2 ? s1.bytes_read - s0.bytes_read : r1 - r0;
            wr = m == 2 ? s1.bytes_written - s0.bytes_written : w1 - w0;
            for (size_t i = 1; i < n; i++)
                if (v[i - 1] > v[i]) {
                    fprintf(stderr, "bench_nvm: sort: not sorted at %zu\n", i);
                    exit(1);
                }
            for (size_t i = 0; i < n; i++)
                sum -= v[i];
            if (sum != 0) {
                fprintf(stderr, "bench_nvm: sort: keys lost\n");
                exit(1);
            }
            loci_free(v);
        }
        double secs = bench_median(t, o->repeats);
        if (m == 0)
            printf("  %-10s %10.2f %14s %14s %14s\n", names[m], secs, "-", "-", "-");
        else
            printf("  %-10s %10.2f %11.0f MB %11.0f MB %11.0f MB\n", names[m], secs, rd / 1e6, wr / 1e6, held / 1e6);
        bench_json_row(o->json,
                       "\"bench\": \"sort\", \"on\": \"%s\", \"bytes\": %zu, \"cache\": %zu, \"seconds\": %.3f, "
                       "\"store_read\": %llu, \"store_written\": %llu, \"dram_held\": %.0f",
                       names[m], bytes, cache, secs, (unsigned long long)rd, (unsigned long long)wr, held);
    }
    printf("  mmap: store traffic from /proc/self/io (the kernel's own I/O for this process); paged: loci's counters.\n");
    return 0;
}
