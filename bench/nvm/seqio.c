/*
 * Part s of bench_nvm: one sequential writer and one sequential reader of a
 * region far larger than its paged cache (issue 30): MB/s and the CPU
 * seconds the whole process spends per GB (user + sys, all threads: the
 * fault handlers, readahead and write-behind threads, librados' own). On
 * the store a region: the writer's time runs until loci_region_sync
 * returned (the OSDs hold every byte), the reader opens it afresh,
 * read-only, so that nothing of it is cached. On ssd0 one array of
 * loci_alloc: written until loci_range_flush returned, read after
 * loci_range_evict. Rows: a writer dirtying 16x and 4x the cache, the reader of
 * the 16x region; the same writer's and reader's loops alone over resident
 * DRAM (the program's own CPU per GB, which no store or competitor spends:
 * what is left after it is loci's and librados'); on ssd0 also the raw
 * O_DIRECT file (1 MiB requests, one in flight) written and read in the same
 * run, the figure to compare with.
 * bench/store/seq.sh runs it beside `rados bench` on the store.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    double mbps, cpu_per_gb;
} figure_t;

/* Where the figures go: a region of the store (written by one opening, read
 * by a fresh read-only one: nothing cached) or, on ssd0, one array of
 * loci_alloc (read after loci_range_evict: nothing cached). */
typedef struct {
    const char *name, *intent;
    loci_allocator_t *alloc; /* the array's, or NULL: a region */
} target_t;

static void fill(uint64_t *v, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof *v; i++)
        v[i] = i * 0x9E3779B97F4A7C15ull;
}

static void check(const uint64_t *v, size_t bytes, const char *what)
{
    uint64_t bad = 0;
    for (size_t i = 0; i < bytes / sizeof *v; i++)
        bad += v[i] != i * 0x9E3779B97F4A7C15ull;
    if (bad) {
        fprintf(stderr, "bench_nvm: %s read back %llu wrong words\n", what, (unsigned long long)bad);
        exit(1);
    }
}

static figure_t figure(size_t bytes, double t0, double c0)
{
    return (figure_t){(double)bytes / (clock_mono_s() - t0) / 1e6, (bench_cpu() - c0) / ((double)bytes / 1e9)};
}

/* Write `bytes` sequentially (8-byte stores) until the store has them (sync or flush), then read
 * them back sequentially with nothing cached. */
static void write_then_read(const target_t *t, size_t bytes, figure_t *w, figure_t *r)
{
    double t0 = clock_mono_s(), c0 = bench_cpu();
    uint64_t *v = t->alloc ? loci_alloc(t->alloc, bytes) : loci_region_open(t->name, bytes, t->intent, LOCI_REGION_CREATE);
    bench_check(v, t->name);
    fill(v, bytes);
    int rc = t->alloc ? loci_range_flush(v, bytes) : loci_region_sync(v);
    if (rc == 0 && !t->alloc)
        rc = loci_region_close(v);
    if (rc != 0) {
        fprintf(stderr, "bench_nvm: writing %s: %s\n", t->name, loci_last_error());
        exit(1);
    }
    *w = figure(bytes, t0, c0);
    if (!r) {
        if (t->alloc)
            loci_free(v);
        else
            loci_region_remove(t->name, t->intent);
        return;
    }
    if (t->alloc)
        loci_range_evict(v, bytes);
    t0 = clock_mono_s(), c0 = bench_cpu();
    if (!t->alloc)
        v = bench_check(loci_region_open(t->name, 0, t->intent, LOCI_REGION_READONLY), t->name);
    check(v, bytes, t->name);
    if (!t->alloc)
        loci_region_close(v);
    *r = figure(bytes, t0, c0);
    if (t->alloc)
        loci_free(v);
    else
        loci_region_remove(t->name, t->intent);
}

/* The writer's and reader's loops alone: `bytes` through a resident DRAM
 * buffer of `room` bytes (faulted in before the clock starts), so that only
 * the stores and loads and the check are counted. */
static void loops_alone(size_t bytes, size_t room, figure_t *w, figure_t *r)
{
    uint64_t *v = bench_check(malloc(room), "the loops' DRAM buffer");
    memset(v, 0, room);
    double t0 = clock_mono_s(), c0 = bench_cpu();
    for (size_t done = 0; done < bytes; done += room)
        fill(v, room);
    *w = figure(bytes, t0, c0);
    t0 = clock_mono_s(), c0 = bench_cpu();
    for (size_t done = 0; done < bytes; done += room)
        check(v, room, "the loops' DRAM buffer");
    *r = figure(bytes, t0, c0);
    free(v);
}

/* The raw file at path, `bytes` written (then fdatasync) or read with O_DIRECT, 1 MiB at a time. */
static figure_t raw_file(const char *path, size_t bytes, bool write)
{
    size_t block = MiB;
    char *buf = aligned_alloc(4096, block);
    memset(buf, 0x5a, block);
    double t0 = clock_mono_s(), c0 = bench_cpu();
    int fd = open(path, (write ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY) | O_DIRECT | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EINVAL)
        fd = open(path, (write ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY) | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    for (size_t done = 0; done < bytes; done += block)
        if ((write ? pwrite(fd, buf, block, (off_t)done) : pread(fd, buf, block, (off_t)done)) != (ssize_t)block) {
            perror(path);
            exit(1);
        }
    if (write)
        fdatasync(fd);
    close(fd);
    free(buf);
    return figure(bytes, t0, c0);
}

int bench_seqio(const bench_opts_t *o)
{
    size_t cache = o->quick ? 16 * MiB : 64 * MiB, big = 16 * cache, small = 4 * cache;
    char intent[256], name[64], raw[4200];
    if (o->store)
        snprintf(intent, sizeof intent, "target=%s,cache=%zu,chunk=%s%s", o->store, cache, o->chunk, o->object);
    else
        snprintf(intent, sizeof intent, "kind=ssd!,mode=paged!,cache=%zu,chunk=%s", cache, o->chunk);
    snprintf(name, sizeof name, "bench-seq-%ld", (long)getpid());
    target_t t = {name, intent, o->store ? NULL : bench_check(loci_allocator_create(intent), intent)};
    snprintf(raw, sizeof raw, "%s/bench-seq-raw-%ld", o->tier, (long)getpid());
    enum { W16, W4, R16, LOOP_W, LOOP_R, RAW_W, RAW_R, ROWS };
    static const char *const labels[ROWS] = {"write 16x cache",    "write 4x cache",   "read 16x cache",
                                             "write loop alone",   "read loop alone",  "raw O_DIRECT write",
                                             "raw O_DIRECT read"};
    const size_t sizes[ROWS] = {big, small, big, big, big, big, big};
    int rows = o->store ? RAW_W : ROWS;
    double mbps[ROWS][16], cpu[ROWS][16];
    printf("\n(s) sequential writer and reader, %s, cache %zu MiB, chunk %s, %d repeat(s), medians\n",
           o->store ? "a region of the store" : "one array on ssd0, paged", cache / MiB, o->chunk, o->repeats);
    for (int r = 0; r < o->repeats; r++) { /* rows interleaved: a load change hits all of them */
        figure_t f[ROWS];
        bench_progress("(s) repeat %d/%d", r + 1, o->repeats);
        write_then_read(&t, big, &f[W16], &f[R16]);
        write_then_read(&t, small, &f[W4], NULL);
        loops_alone(big, cache, &f[LOOP_W], &f[LOOP_R]);
        if (!o->store) {
            f[RAW_W] = raw_file(raw, big, true);
            f[RAW_R] = raw_file(raw, big, false);
            unlink(raw);
        }
        for (int k = 0; k < rows; k++) {
            mbps[k][r] = f[k].mbps;
            cpu[k][r] = f[k].cpu_per_gb;
        }
    }
    loci_cache_stats_t st = bench_nvm();
    printf("  %-20s %10s %8s %10s\n", "", "MiB", "MB/s", "CPU s/GB");
    for (int k = 0; k < rows; k++) {
        double m = bench_median(mbps[k], o->repeats), c = bench_median(cpu[k], o->repeats);
        printf("  %-20s %10zu %8.1f %10.3f\n", labels[k], sizes[k] / MiB, m, c);
        bench_json_row(o->json, "\"bench\": \"seq\", \"row\": \"%s\", \"bytes\": %zu, \"cache\": %zu, \"mbps\": %.1f, "
                                "\"cpu_s_per_gb\": %.3f, \"repeats\": %d", labels[k], sizes[k], cache, m, c, o->repeats);
    }
    printf("  all paged caches: %.0f MiB written behind of %.0f MiB written, %llu write faults throttled\n",
           st.written_behind / (double)MiB, st.bytes_written / (double)MiB, (unsigned long long)st.throttled);
    return 0;
}
