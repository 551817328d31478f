/*
 * `loci bench`: measure each NUMA target from the calling thread's initiator
 *  - bandwidth: a STREAM triad (a = b + s*c) by one thread per CPU of the
 *    initiator, arrays bound to the target; 24 bytes per element (STREAM's count);
 *  - latency: a dependent pointer chase over a random cycle of cache lines in a
 *    buffer far larger than the last-level cache, one thread.
 * File tiers and the job's store are measured through loci's chunk cache
 * (bench_paged.c). Each figure is the median of several runs. --save writes
 * them as a config file that discovery then trusts as source "measured".
 */
#include "commands.h"
#include "loci.h"
#include "owned_file.h"
#include "units.h"

#include <errno.h>
#include <hwloc.h>
#include <inttypes.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { RUNS = 5 };

typedef struct {
    size_t array_bytes, chase_bytes, chase_steps;
} bench_params_t;

typedef struct {
    double *a, *b, *c;
    size_t begin, end;
    int cpu;
    pthread_barrier_t *start, *done;
    int runs;
} triad_worker_t;

double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bench_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void *triad_worker(void *arg)
{
    triad_worker_t *w = arg;
    pin_to(w->cpu);
    for (size_t i = w->begin; i < w->end; i++) { /* first touch by the thread that uses it */
        w->a[i] = 0;
        w->b[i] = 1;
        w->c[i] = 2;
    }
    for (int r = 0; r < w->runs; r++) {
        pthread_barrier_wait(w->start);
        for (size_t i = w->begin; i < w->end; i++)
            w->a[i] = w->b[i] + 3.0 * w->c[i];
        pthread_barrier_wait(w->done);
    }
    return NULL;
}

/* Median triad bandwidth in MB/s, 0 on failure. */
static uint64_t measure_triad(int node, const int *cpus, int ncpus, const bench_params_t *p,
                              const char *name)
{
    size_t n = p->array_bytes / sizeof(double);
    double *a = numa_alloc_onnode(n * sizeof(double), node);
    double *b = numa_alloc_onnode(n * sizeof(double), node);
    double *c = numa_alloc_onnode(n * sizeof(double), node);
    triad_worker_t *w = calloc((size_t)ncpus, sizeof *w);
    pthread_t *tid = calloc((size_t)ncpus, sizeof *tid);
    uint64_t result = 0;
    if (a && b && c && w && tid) {
        pthread_barrier_t start, done;
        pthread_barrier_init(&start, NULL, (unsigned)ncpus + 1);
        pthread_barrier_init(&done, NULL, (unsigned)ncpus + 1);
        for (int i = 0; i < ncpus; i++) {
            w[i] = (triad_worker_t){a, b, c, n * (size_t)i / (size_t)ncpus,
                                    n * (size_t)(i + 1) / (size_t)ncpus, cpus[i], &start, &done, RUNS};
            pthread_create(&tid[i], NULL, triad_worker, &w[i]);
        }
        double rate[RUNS];
        for (int r = 0; r < RUNS; r++) {
            progress_text("loci bench: %-8s %-10s run %d/%d", name, "bandwidth", r + 1, RUNS);
            pthread_barrier_wait(&start);
            double t0 = bench_now_s();
            pthread_barrier_wait(&done);
            rate[r] = 3.0 * sizeof(double) * (double)n / (bench_now_s() - t0) / 1e6;
        }
        for (int i = 0; i < ncpus; i++)
            pthread_join(tid[i], NULL);
        pthread_barrier_destroy(&start);
        pthread_barrier_destroy(&done);
        result = (uint64_t)median(rate, RUNS);
    }
    free(w);
    free(tid);
    if (a)
        numa_free(a, n * sizeof(double));
    if (b)
        numa_free(b, n * sizeof(double));
    if (c)
        numa_free(c, n * sizeof(double));
    return result;
}

/* Median ns per dependent load, 0 on failure. */
static uint64_t measure_latency(int node, int cpu, const bench_params_t *p, const char *name)
{
    enum { LINE = 64 };
    size_t lines = p->chase_bytes / LINE;
    char *buf = numa_alloc_onnode(lines * LINE, node);
    size_t *order = malloc(lines * sizeof *order);
    uint64_t result = 0;
    if (buf && order) {
        pin_to(cpu);
        /* Sattolo's shuffle: one cycle through every line, so the chase
         * visits them all in an order the prefetchers cannot guess. */
        for (size_t i = 0; i < lines; i++)
            order[i] = i;
        uint64_t rng = 0x9e3779b97f4a7c15ull;
        for (size_t i = lines - 1; i > 0; i--) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            size_t j = rng % i, t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < lines; i++)
            *(void **)(buf + order[i] * LINE) = buf + order[(i + 1) % lines] * LINE;
        double ns[3];
        void *volatile sink;
        for (int r = 0; r < 3; r++) {
            progress_text("loci bench: %-8s %-10s run %d/%d", name, "latency", r + 1, 3);
            void **q = (void **)(buf + order[0] * LINE);
            double t0 = bench_now_s();
            for (size_t s = 0; s < p->chase_steps; s++)
                q = *q;
            ns[r] = (bench_now_s() - t0) * 1e9 / (double)p->chase_steps;
            sink = q;
        }
        (void)sink;
        result = (uint64_t)(median(ns, 3) + 0.5);
    }
    free(order);
    if (buf)
        numa_free(buf, lines * LINE);
    return result;
}

static int initiator_cpus(int initiator, int **out)
{
    char list[1024];
    char name[32];
    snprintf(name, sizeof name, "node:%d", initiator);
    if (loci_target_cpus(loci_target_by_name(name), list, sizeof list) != 0)
        return 0;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(set, list);
    int n = hwloc_bitmap_weight(set), k = 0;
    *out = calloc(n > 0 ? (size_t)n : 1, sizeof **out);
    unsigned cpu;
    hwloc_bitmap_foreach_begin(cpu, set) (*out)[k++] = (int)cpu;
    hwloc_bitmap_foreach_end();
    hwloc_bitmap_free(set);
    return k;
}

/* LOCI_BENCH_MB sizes each triad array (MiB, 1 to 1 TiB; default 64); the
 * chase buffer is 4x that. False, with a message, for anything else. */
static bool params_from_env(bench_params_t *out)
{
    const char *mb = getenv("LOCI_BENCH_MB"), *why;
    uint64_t array_mb = 64;
    if (mb && !units_parse_whole(mb, 1, 1u << 20, &array_mb, &why)) {
        fprintf(stderr, "loci bench: LOCI_BENCH_MB=%s: %s; expected MiB per array, 1 to %u\n", mb, why, 1u << 20);
        return false;
    }
    *out = (bench_params_t){(size_t)array_mb << 20, ((size_t)array_mb << 20) * 4, 1u << 22};
    return true;
}

int cmd_bench(int argc, char **argv)
{
    const char *only = NULL, *save = NULL;
    bench_params_t p;
    if (!params_from_env(&p))
        return 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--target") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save = argv[++i];
        else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
            int rc = tool_set_initiator(argv[++i]);
            if (rc)
                return rc;
        } else {
            fprintf(stderr, "usage: loci bench [--target NAME] [--save FILE] [--from NODE]\n");
            return 2;
        }
    }
    if (numa_available() < 0) {
        fprintf(stderr, "loci bench: libnuma reports no NUMA support on this kernel\n");
        return 1;
    }
    int initiator = loci_initiator();
    int *cpus = NULL, ncpus = initiator_cpus(initiator, &cpus);
    if (ncpus == 0) {
        fprintf(stderr, "loci bench: NUMA node %d has no CPUs to measure from\n", initiator);
        free(cpus);
        return 1;
    }
    /* the file is written whole at the end, only over nothing or a regular file of the caller's */
    char *text = NULL;
    size_t len = 0;
    FILE *out = NULL;
    if (save && !(out = open_memstream(&text, &len))) {
        fprintf(stderr, "loci bench: out of memory\n");
        free(cpus);
        return 1;
    }
    if (out)
        fprintf(out, "# Measured by `loci bench` from NUMA node %d (%d CPUs).\n"
                     "# Discovery reads this file through LOCI_MEASURED or ~/.config/loci/measured.conf.\n",
                initiator, ncpus);
    printf("%-8s %5s %14s %12s   (from NUMA node %d, %d threads, %zu MiB arrays)\n", "TARGET", "NODE",
           "TRIAD MB/s", "LATENCY ns", initiator, ncpus, p.array_bytes >> 20);
    int measured = 0, rc = 0;
    for (int i = 0; i < loci_target_count(); i++) {
        loci_target_info_t info;
        loci_target_info(loci_target_at(i), &info);
        if (only && strcmp(only, info.name) != 0)
            continue;
        bool paged = info.numa_node < 0 && (info.flags & LOCI_TARGET_PERSISTENT);
        if ((info.numa_node < 0 && !paged) || (info.flags & (LOCI_TARGET_SIMULATED | LOCI_TARGET_UNREACHABLE)) ||
            !(info.flags & LOCI_TARGET_CPU_ACCESSIBLE)) {
            fprintf(stderr, "loci bench: %s skipped: %s\n", info.name,
                    info.flags & LOCI_TARGET_SIMULATED      ? "simulated (LOCI_TOPOLOGY) targets cannot be measured"
                    : info.flags & LOCI_TARGET_UNREACHABLE ? loci_target_unreachable(loci_target_at(i))
                                                           : "not CPU-accessible memory");
            continue;
        }
        if (paged) {
            uint64_t bw = 0, lat = 0;
            if (bench_paged_target(info.name, 4 * p.array_bytes, &bw, &lat) != 0) {
                rc = 1;
                continue;
            }
            progress_clear();
            printf("%-8s %5s %14" PRIu64 " %12" PRIu64 "   (paged: sequential read, cold-chunk first touch)\n",
                   info.name, "-", bw, lat);
            measured++;
            if (out)
                fprintf(out, "\n[target %s]\ninitiator = %d\nbandwidth = %" PRIu64 "MB/s\nlatency = %" PRIu64 "ns\n",
                        info.name, initiator, bw, lat);
            continue;
        }
        if (info.available && info.available < 8 * p.array_bytes) {
            fprintf(stderr, "loci bench: %s skipped: %" PRIu64 " MiB free, need %zu MiB\n", info.name,
                    info.available >> 20, (8 * p.array_bytes) >> 20);
            continue;
        }
        uint64_t bw = measure_triad(info.numa_node, cpus, ncpus, &p, info.name);
        uint64_t lat = measure_latency(info.numa_node, cpus[0], &p, info.name);
        progress_clear();
        printf("%-8s %5d %14" PRIu64 " %12" PRIu64 "\n", info.name, info.numa_node, bw, lat);
        if (!bw || !lat) {
            fprintf(stderr, "loci bench: %s: allocation on node %d failed\n", info.name, info.numa_node);
            rc = 1;
            continue;
        }
        measured++;
        if (out)
            fprintf(out, "\n[target %s]\nnuma_node = %d\ninitiator = %d\nbandwidth = %" PRIu64
                         "MB/s\nlatency = %" PRIu64 "ns\n",
                    info.name, info.numa_node, initiator, bw, lat);
    }
    if (only && measured == 0 && rc == 0) {
        fprintf(stderr, "loci bench: no measurable target named '%s'\n", only);
        rc = 1;
    }
    if (out && fclose(out) != 0) {
        fprintf(stderr, "loci bench: out of memory writing %s\n", save);
        rc = 1;
    } else if (out && owned_file_replace(save, text, len, "loci bench --save") != 0) {
        fprintf(stderr, "loci bench: %s\n", loci_last_error());
        rc = 1;
    } else if (out)
        printf("saved to %s (use it with LOCI_MEASURED=%s)\n", save, save);
    free(text);
    free(cpus);
    return rc;
}
