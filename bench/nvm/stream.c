/*
 * (b) STREAM triad A[i] = B[i] + 3 C[i] with each placement of the arrays
 * (NVMalloc Fig. 2): all in DRAM, and each non-empty subset of {A, B, C} on
 * the SSD tier, in mmap mode and in paged mode. Arrays are larger than the
 * paged cache. Each timed pass starts cold (the SSD arrays evicted from the
 * loci cache and the page cache) and ends when the result is on the SSD
 * (flush inside the timing: the kernel's write-behind would otherwise hide
 * mmap's writes). SSD arrays are persistent regions, so that the raw
 * sequential read bandwidth of the very same file (O_DIRECT) is measured
 * beside each run.
 *
 * On the aggregate store (--store) two rows only, paged: B and C on the
 * store (streaming reads), against the pool's sequential read bandwidth that
 * the --raw-read command prints just before each pass (rados bench seq);
 * and A alone there, a sequential paged write (bench/store/run.sh puts
 * `rados bench write` of the same cluster beside it).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    double *v;
    bool ssd;
    char name[64];
    size_t bytes;
} array_t;

static void make(array_t *a, const char *which, bool ssd, const char *intent, size_t bytes, double value)
{
    a->ssd = ssd;
    a->bytes = bytes;
    snprintf(a->name, sizeof a->name, "bench-stream-%s-%ld", which, (long)getpid());
    if (ssd)
        a->v = bench_check(loci_region_open(a->name, bytes, intent, LOCI_CREATE), a->name);
    else
        a->v = bench_check(loci_alloc(loci_allocator_create(""), bytes), "DRAM array");
    for (size_t i = 0; i < bytes / sizeof(double); i++)
        a->v[i] = value;
}

static void drop(array_t *a, const char *intent)
{
    if (!a->ssd) {
        loci_free(a->v);
        return;
    }
    loci_region_close(a->v);
    loci_region_remove(a->name, intent);
}

/* `on` is one of the comma-separated placements of list. */
static bool listed(const char *list, const char *on)
{
    size_t n = strlen(on);
    for (const char *p = list; *p; p += strcspn(p, ","), p += *p == ',')
        if (strncmp(p, on, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* Which rows run: on ssd0 every placement per mode (all in DRAM once); on
 * the store the paged rows "BC" (read) and "A" (write); --placements picks
 * some ("-": all in DRAM). */
static bool wanted(const bench_opts_t *o, int mode, const char *on, bool read, bool write)
{
    if (o->placements)
        return listed(o->placements, on) && (strcmp(on, "-") == 0 ? mode == 0 : !o->store || mode == 1) &&
               (o->store ? (strchr(on, 'A') ? write : read) : true);
    if (!o->store)
        return !(strcmp(on, "-") == 0 && mode == 1);
    return mode == 1 && ((read && strcmp(on, "BC") == 0) || (write && strcmp(on, "A") == 0));
}

/* The raw bandwidth a pass is compared with: O_DIRECT read of an SSD array's
 * file; on the store, the --raw-read command when B or C is there. */
static double raw_mbps(const bench_opts_t *o, const array_t *arr)
{
    if (o->store)
        return (arr[1].ssd || arr[2].ssd) && o->raw_read_cmd ? bench_cmd_number(o->raw_read_cmd) : 0;
    for (int k = 0; k < 3; k++)
        if (arr[k].ssd) {
            char path[600];
            bench_region_path(o, arr[k].name, path, sizeof path);
            return bench_raw_read_mbps(path);
        }
    return 0;
}

static void cold(array_t *arr)
{
    for (int k = 0; k < 3; k++)
        if (arr[k].ssd)
            loci_range_evict(arr[k].v, arr[k].bytes);
}

int bench_stream(const bench_opts_t *o, bool read, bool write)
{
    size_t bytes = o->quick ? 32 * MiB : 256 * MiB, cache = o->quick ? 8 * MiB : 64 * MiB, n = bytes / sizeof(double);
    char paged[128];
    if (o->store)
        snprintf(paged, sizeof paged, "target=%s,cache=%zu,chunk=256KiB%s", o->store, cache, o->object);
    else
        snprintf(paged, sizeof paged, "kind=ssd!,mode=paged!,cache=%zu,chunk=256KiB", cache);
    const char *modes[] = {"mmap", o->store ? "store" : "paged"}, *intents[] = {"kind=ssd!,mode=mmap", paged};
    const char *subsets[] = {"-", "A", "B", "C", "AB", "AC", "BC", "ABC"};
    printf("\n(b) STREAM triad, %zu MiB per array, paged cache %zu MiB; each pass cold and flushed; "
           "median of %d\n", bytes / MiB, cache / MiB, o->repeats);
    printf("  %-6s %-5s %12s %14s %14s %9s %14s %9s\n", "mode", "ssd", "triad MB/s", "ssd arrays MB/s",
           "raw read MB/s", "ssd/raw", "DRAM held", "CPU s/GB");
    for (int m = 0; m < 2; m++)
        for (int s = 0; s < 8; s++) {
            if (!wanted(o, m, subsets[s], read, write))
                continue;
            const char *on = subsets[s], *intent = intents[m];
            bench_progress("stream: %s, arrays on ssd: %s", s ? modes[m] : "dram", on);
            array_t arr[3];
            make(&arr[0], "A", strchr(on, 'A'), intent, bytes, 0.0);
            make(&arr[1], "B", strchr(on, 'B'), intent, bytes, 1.0);
            make(&arr[2], "C", strchr(on, 'C'), intent, bytes, 2.0);
            int nssd = arr[0].ssd + arr[1].ssd + arr[2].ssd;
            double t[16], raw[16], ratio[16], cpu[16];
            size_t held = 0;
            loci_cache_stats_t s0 = bench_nvm();
            for (int r = 0; r < o->repeats; r++) {
                cold(arr);
                raw[r] = raw_mbps(o, arr);
                double *A = arr[0].v, *B = arr[1].v, *C = arr[2].v;
                double t0 = clock_mono_s(), c0 = bench_cpu();
                for (size_t i = 0; i < n; i++)
                    A[i] = B[i] + 3.0 * C[i];
                size_t res = 0;
                for (int k = 0; k < 3; k++)
                    if (arr[k].ssd) {
                        res += bench_resident(arr[k].v, bytes);
                        loci_range_flush(arr[k].v, bytes);
                    }
                t[r] = clock_mono_s() - t0;
                cpu[r] = (bench_cpu() - c0) / (nssd ? nssd * (double)bytes / 1e9 : 1);
                ratio[r] = raw[r] > 0 ? nssd * (double)bytes / t[r] / 1e6 / raw[r] : 0;
                held = res > held ? res : held;
            }
            for (size_t i = 0; i < n; i += 4099)
                if (arr[0].v[i] != 7.0) {
                    fprintf(stderr, "bench_nvm: stream: A[%zu] = %g, not 7\n", i, arr[0].v[i]);
                    exit(1);
                }
            /* the ratio of each pass to the raw read just before it: drift of this
             * noisy machine hits both alike */
            double secs = bench_median(t, o->repeats), rawm = nssd ? bench_median(raw, o->repeats) : 0;
            double rel = bench_median(ratio, o->repeats), cpu_gb = bench_median(cpu, o->repeats);
            double triad = 3.0 * (double)bytes / secs / 1e6, ssd = nssd * (double)bytes / secs / 1e6;
            loci_cache_stats_t s1 = bench_nvm(), mine;
            /* DRAM held: paged, the peak of the arrays' cache; mmap, the page cache mapped at the end of a pass */
            double held_mb = (double)held * (double)sysconf(_SC_PAGESIZE) / 1e6;
            for (int k = 0; k < 3; k++)
                if (arr[k].ssd && loci_cache_stats(arr[k].v, &mine) == 0)
                    held_mb = (double)mine.resident_peak / 1e6;
            char label[8];
            snprintf(label, sizeof label, "%s", s ? on : "none");
            if (nssd)
                printf("  %-6s %-5s %12.0f %14.0f %14.0f %8.2fx %11.0f MB %9.2f\n", modes[m], label, triad, ssd, rawm,
                       rel, held_mb, cpu_gb);
            else
                printf("  %-6s %-5s %12.0f %14s %14s %9s %14s\n", "dram", label, triad, "-", "-", "-", "-");
            bench_json_row(o->json, "\"bench\": \"stream\", \"mode\": \"%s\", \"ssd\": \"%s\", \"array_bytes\": %zu, "
                           "\"cache\": %zu, \"seconds\": %.4f, \"triad_mbps\": %.1f, \"ssd_mbps\": %.1f, "
                           "\"raw_read_mbps\": %.1f, \"ssd_over_raw\": %.3f, \"dram_held_mb\": %.1f, \"cpu_s_per_gb\": %.3f, \"store_read\": %llu, "
                           "\"store_written\": %llu",
                           s ? modes[m] : "dram", label, bytes, cache, secs, triad, nssd ? ssd : 0, rawm, rel,
                           nssd ? held_mb : 0, nssd ? cpu_gb : 0, (unsigned long long)(s1.bytes_read - s0.bytes_read),
                           (unsigned long long)(s1.bytes_written - s0.bytes_written));
            for (int k = 0; k < 3; k++)
                drop(&arr[k], intent);
        }
    if (o->store)
        printf("  ssd arrays MB/s: bytes of the arrays on the store (8 per element each) per second; raw read: the "
               "--raw-read\n  command (rados bench seq of the pool) just before each pass; ssd/raw: median of the "
               "passes' ratios\n  (0: not measured, A alone is a write). CPU s/GB: CPU time of the process per GB of\n  store arrays. Goal for streaming reads: ssd/raw >= 0.8.\n");
    else
        printf("  ssd arrays MB/s: bytes of the SSD arrays (8 per element each) per second; raw read: O_DIRECT "
               "sequential\n  read of the same file (paged: of a flat file as large as the region's chunk files), "
               "1 MiB\n  requests, just before each pass; ssd/raw: median of the "
               "passes' ratios.\n  CPU s/GB: CPU time of the process (all threads) per GB of SSD arrays, median.\n  Goal for streaming (read) access: ssd/raw >= 0.8.\n");
    return 0;
}
