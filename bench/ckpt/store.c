/*
 * bench_ckpt --store: checkpoints on the job's aggregate store (issue 14,
 * docs/BENCHMARKS.md "Checkpoints on the store"), run by bench/ckpt/run-store.sh
 * on a throw-away cluster:
 *
 *   table [--quick] [--sizes GiB,...] [--dram MiB] [--repeats N] [--osd-bytes CMD] [--json FILE]
 *       NVMalloc Table VIII on the store: a DRAM variable (registered) and a
 *       region on the store target of LOCI_CONFIG; per size and repeat a first
 *       save, 5 saves of unchanged data and a full copy of both variables into a
 *       fresh store region (written and synced), each with the bytes the OSDs
 *       received (CMD prints their total: op_w_in_bytes).
 *   loop off|l1|drain [--quick] [--dram MiB] [--iters N] [--every N] [--json FILE]
 *       an application loop: N iterations of compute over a DRAM state, and
 *       (l1, drain) loci_ckpt_save("loop") every --every iterations; drain is
 *       run with [checkpoint] drain = TARGET in LOCI_CONFIG, l1 without. Time of
 *       the loop, and (drain) of the wait for the last drain after it. Prints the
 *       checksum of the state at the last save.
 *   restart NAME --dram MiB [--json FILE]
 *       a new node's restart: the same variable registered, loci_ckpt_restore
 *       of NAME with no checkpoint directory here (level 2 only), timed.
 *
 * Progress on stderr, one result line per step on stdout.
 */
#include "bench.h"
#include "loci.h"
#include "counters.h" /* bench/common: bench_cmd_number, bench_store_target */
#include "median.h"
#include "report.h" /* bench_progress, bench_json_row */
#include "timing.h" /* clock_mono_s */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bool quick;
    int repeats, iters, every;
    size_t dram;
    double sizes[8];
    int nsizes;
    const char *osd_bytes, *json, *name;
} sopts_t;

static FILE *json;

static uint64_t osd_bytes(const sopts_t *o)
{
    return o->osd_bytes ? (uint64_t)bench_cmd_number(o->osd_bytes) : 0;
}

/* The store the benchmark is about: the first reachable one of LOCI_CONFIG. */
static const char *store_target(void)
{
    const char *t = bench_store_target();
    if (!t) {
        fprintf(stderr, "bench_ckpt --store: no reachable target of kind store in LOCI_CONFIG\n");
        exit(1);
    }
    return t;
}

/* A 64-bit digest of the state (restart checks it is the saved one). */
static uint64_t digest(const char *p, size_t len)
{
    const uint64_t *w = (const uint64_t *)p;
    uint64_t h = 0x84222325cbf29ce4ull;
    for (size_t i = 0; i < len / 8; i++)
        h = (h ^ w[i]) * 0x100000001b3ull;
    return h;
}

/* ---- Table VIII on the store ------------------------------------------------ */

typedef struct {
    double s[16 * UNCHANGED_RUNS];
    uint64_t osd[16 * UNCHANGED_RUNS], written[16 * UNCHANGED_RUNS];
    int n;
} samples_t;

static double med(const double *v, int n) { return bench_median_of(v, n); }

static uint64_t med_u(const uint64_t *v, int n)
{
    double c[16 * UNCHANGED_RUNS];
    for (int i = 0; i < n; i++)
        c[i] = (double)v[i];
    return (uint64_t)bench_median(c, n);
}

static void save_step(const sopts_t *o, samples_t *c, const char *name, void *region)
{
    check(loci_region_sync(region), "sync");
    uint64_t b0 = osd_bytes(o);
    double t = clock_mono_s();
    check(loci_ckpt_save(name), name);
    c->s[c->n] = clock_mono_s() - t;
    c->osd[c->n] = osd_bytes(o) - b0;
    loci_ckpt_stats_t st;
    check(loci_ckpt_last_save(&st), "stats");
    c->written[c->n++] = st.bytes_written;
}

/* The baseline: both variables copied into a fresh store region and synced. */
static void copy_step(const sopts_t *o, samples_t *c, const char *intent, const vars_t *v)
{
    const char *name = "bench-ckpt-copy";
    loci_region_remove(name, intent);
    char *to = loci_region_open(name, v->dram_size + v->ssd_size, intent, LOCI_CREATE);
    if (!to)
        check(-1, "open the copy region");
    uint64_t b0 = osd_bytes(o);
    double t = clock_mono_s();
    memcpy(to, v->dram, v->dram_size);
    memcpy(to + v->dram_size, v->ssd, v->ssd_size);
    check(loci_region_sync(to), "sync of the copy");
    c->s[c->n] = clock_mono_s() - t;
    c->osd[c->n] = osd_bytes(o) - b0;
    c->written[c->n++] = v->dram_size + v->ssd_size;
    check(loci_region_close(to), "close the copy");
    check(loci_region_remove(name, intent), "remove the copy");
}

static void report(const char *step, size_t ssd, const samples_t *c)
{
    double s = med(c->s, c->n);
    uint64_t osd = med_u(c->osd, c->n), w = med_u(c->written, c->n);
    printf("%8.2f GiB  %-11s %9.3f s %14llu %14llu\n", (double)ssd / (double)GiB, step, s, (unsigned long long)osd,
           (unsigned long long)w);
    fflush(stdout);
    char samples[16 * UNCHANGED_RUNS * 12] = "";
    for (int i = 0, at = 0; i < c->n; i++)
        at += snprintf(samples + at, sizeof samples - (size_t)at, "%s%.4f", i ? ", " : "", c->s[i]);
    bench_json_row(json,
                   "\"part\": \"table\", \"ssd_bytes\": %zu, \"step\": \"%s\", \"seconds\": %.6f, "
                   "\"osd_received\": %llu, \"written\": %llu, \"samples\": [%s]",
                   ssd, step, s, (unsigned long long)osd, (unsigned long long)w, samples);
}

static int table(const sopts_t *o)
{
    const char *target = store_target();
    char intent[128];
    snprintf(intent, sizeof intent, "target=%s!,cache=%dMiB,chunk=256KiB", target, o->quick ? 8 : 256);
    vars_t v = {.dram = malloc(o->dram), .dram_size = o->dram};
    if (!v.dram)
        return 1;
    fill(v.dram, v.dram_size, 1);
    check(loci_ckpt_register("dram", v.dram, v.dram_size), "register");
    printf("(T) Table VIII on %s: DRAM variable %zu MiB + store region (%s), %d repeat(s), median\n", target,
           o->dram / MiB, intent, o->repeats);
    printf("%13s  %-11s %11s %14s %14s\n", "store region", "step", "seconds", "OSDs received", "ckpt/copy wrote");
    double unchanged[8];
    for (int k = 0; k < o->nsizes; k++) {
        v.ssd_size = (size_t)(o->sizes[k] * (double)GiB) & ~(MiB - 1);
        loci_region_remove("bench-ckpt-ssd", intent);
        bench_progress("store region %.2f GiB: creating and filling", o->sizes[k]);
        if (!(v.ssd = loci_region_open("bench-ckpt-ssd", v.ssd_size, intent, LOCI_CREATE)))
            check(-1, "open the store region");
        fill(v.ssd, v.ssd_size, 2);
        samples_t first = {0}, same = {0}, copy = {0};
        for (int r = 0; r < o->repeats; r++) {
            empty_checkpoints();
            bench_progress("%.2f GiB, repeat %d: first save", o->sizes[k], r + 1);
            save_step(o, &first, "first", v.ssd);
            bench_progress("%.2f GiB, repeat %d: %d unchanged saves", o->sizes[k], r + 1, UNCHANGED_RUNS);
            for (int u = 0; u < UNCHANGED_RUNS; u++)
                save_step(o, &same, "unchanged", v.ssd);
            bench_progress("%.2f GiB, repeat %d: full copy to the store", o->sizes[k], r + 1);
            copy_step(o, &copy, intent, &v);
        }
        report("first save", v.ssd_size, &first);
        report("unchanged", v.ssd_size, &same);
        report("full copy", v.ssd_size, &copy);
        unchanged[k] = med(same.s, same.n);
        empty_checkpoints();
        check(loci_region_close(v.ssd), "close");
        check(loci_region_remove("bench-ckpt-ssd", intent), "remove the store region");
    }
    if (o->nsizes > 1)
        printf("unchanged save, largest / smallest store region (%.0fx the data): %.2fx the time (goal <= 1.1x)\n",
               o->sizes[o->nsizes - 1] / o->sizes[0], unchanged[o->nsizes - 1] / unchanged[0]);
    check(loci_ckpt_unregister("dram"), "unregister");
    free(v.dram);
    return 0;
}

/* ---- the application loop --------------------------------------------------- */

/* One iteration's compute: a few relaxation sweeps over the state, every byte changed. */
static void compute(double *x, size_t n)
{
    for (int sweep = 0; sweep < 4; sweep++)
        for (size_t i = 0; i + 1 < n; i++)
            x[i] = 0.5 * (x[i] + x[i + 1]) + sqrt(fabs(x[i]) + 1.0) * 1e-3;
}

static int loop(const sopts_t *o, const char *mode)
{
    bool save = strcmp(mode, "off") != 0, drain = strcmp(mode, "drain") == 0;
    const char *target = NULL, *origin;
    if (drain && !(target = loci_config_intent("checkpoint", "drain", &origin))) {
        fprintf(stderr, "bench_ckpt: loop drain: LOCI_CONFIG has no [checkpoint] drain = TARGET\n");
        return 2;
    }
    if (strcmp(mode, "l1") == 0 && loci_config_intent("checkpoint", "drain", &origin)) {
        fprintf(stderr, "bench_ckpt: loop l1: LOCI_CONFIG drains to the store; give one without [checkpoint]\n");
        return 2;
    }
    size_t n = o->dram / sizeof(double);
    double *x = malloc(o->dram);
    if (!x)
        return 1;
    fill((char *)x, o->dram, 3);
    for (size_t i = 0; i < n; i++) /* doubles of moderate size: the sweeps stay finite */
        x[i] = (double)(((uint64_t *)x)[i] >> 40);
    if (save) {
        empty_checkpoints();
        check(loci_ckpt_register("state", x, o->dram), "register");
    }
    double saves = 0, excluded = 0;
    uint64_t sum = 0;
    int nsaves = 0;
    double t0 = clock_mono_s();
    for (int it = 1; it <= o->iters; it++) {
        compute(x, n);
        if (save && it % o->every == 0 && it < o->iters) {
            double ts = clock_mono_s();
            check(loci_ckpt_save("loop"), "save");
            saves += clock_mono_s() - ts;
            nsaves++;
            ts = clock_mono_s(); /* the checksum for the restart check is no cost of the loop */
            sum = digest((const char *)x, o->dram);
            excluded += clock_mono_s() - ts;
            bench_progress("loop %s: iteration %d, checkpoint %d saved", mode, it, nsaves);
        }
    }
    double secs = clock_mono_s() - t0 - excluded, wait = 0;
    if (drain) {
        double tw = clock_mono_s();
        check(loci_ckpt_wait("loop"), "wait for the drain");
        wait = clock_mono_s() - tw;
    }
    printf("(L) loop %-5s %zu MiB state, %d iterations, %d checkpoint(s): %.3f s (saves %.3f s), then waiting for the "
           "last drain %.3f s; state at the last save %016llx\n", mode, o->dram / MiB, o->iters, nsaves, secs, saves,
           wait, (unsigned long long)sum);
    bench_json_row(json,
                   "\"part\": \"loop\", \"mode\": \"%s\", \"dram_bytes\": %zu, \"iters\": %d, \"every\": %d, "
                   "\"saves\": %d, \"seconds\": %.4f, \"save_seconds\": %.4f, \"wait_seconds\": %.4f, "
                   "\"digest\": \"%016llx\"",
                   mode, o->dram, o->iters, o->every, nsaves, secs, saves, wait, (unsigned long long)sum);
    if (save)
        check(loci_ckpt_unregister("state"), "unregister");
    free(x);
    return 0;
}

/* ---- restart on another node -------------------------------------------------- */

static int restart(const sopts_t *o)
{
    char *x = calloc(1, o->dram);
    if (!x)
        return 1;
    check(loci_ckpt_register("state", x, o->dram), "register");
    double t = clock_mono_s();
    check(loci_ckpt_restore(o->name), "restore");
    t = clock_mono_s() - t;
    uint64_t sum = digest(x, o->dram);
    printf("(R) restart of %s (%zu MiB) from level 2: %.3f s, %.0f MB/s; state %016llx\n", o->name, o->dram / MiB, t,
           (double)o->dram / t / 1e6, (unsigned long long)sum);
    bench_json_row(json, "\"part\": \"restart\", \"dram_bytes\": %zu, \"seconds\": %.4f, \"digest\": \"%016llx\"",
                   o->dram, t, (unsigned long long)sum);
    check(loci_ckpt_unregister("state"), "unregister");
    free(x);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_ckpt --store table [--quick] [--sizes GiB,...] [--dram MiB] [--repeats N] "
                    "[--osd-bytes CMD] [--json FILE]\n"
                    "       bench_ckpt --store loop off|l1|drain [--quick] [--dram MiB] [--iters N] [--every N] "
                    "[--json FILE]\n"
                    "       bench_ckpt --store restart NAME --dram MiB [--json FILE]\n");
    return 2;
}

int store_main(int argc, char **argv)
{
    sopts_t o = {.dram = 256 * MiB, .sizes = {0.5, 1, 2, 4}, .nsizes = 4, .iters = 40, .every = 10};
    const char *part = argc > 1 ? argv[1] : "", *mode = NULL;
    int i = 2;
    if ((strcmp(part, "loop") == 0 || strcmp(part, "restart") == 0) && argc > 2)
        (strcmp(part, "loop") == 0 ? (mode = argv[i++]) : (o.name = argv[i++]));
    else if (strcmp(part, "table") != 0)
        return usage();
    if (mode && strcmp(mode, "off") && strcmp(mode, "l1") && strcmp(mode, "drain"))
        return usage();
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            o.quick = true;
            o.dram = 8 * MiB;
            o.nsizes = 2;
            o.sizes[0] = 8.0 / 1024, o.sizes[1] = 16.0 / 1024;
            o.iters = 6, o.every = 2;
        } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            o.repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dram") == 0 && i + 1 < argc)
            o.dram = (size_t)atoi(argv[++i]) * MiB;
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            o.iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--every") == 0 && i + 1 < argc)
            o.every = atoi(argv[++i]);
        else if (strcmp(argv[i], "--osd-bytes") == 0 && i + 1 < argc)
            o.osd_bytes = argv[++i];
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            o.json = argv[++i];
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            o.nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && o.nsizes < 8; s = strtok(NULL, ","))
                o.sizes[o.nsizes++] = atof(s);
        } else
            return usage();
    }
    if (o.repeats <= 0 || o.repeats > 16)
        o.repeats = o.quick ? 1 : 3;
    if (o.dram < MiB || o.iters < 1 || o.every < 1 || o.nsizes < 1) {
        fprintf(stderr, "bench_ckpt --store: --dram >= 1 MiB, --iters and --every >= 1, --sizes not empty\n");
        return 2;
    }
    check(loci_init(), "init");
    if (o.json && !(json = fopen(o.json, "w"))) {
        perror(o.json);
        return 1;
    }
    if (json)
        fprintf(json, "{\"quick\": %s, \"rows\": [", o.quick ? "true" : "false");
    int rc = strcmp(part, "table") == 0 ? table(&o) : mode ? loop(&o, mode) : restart(&o);
    if (json) {
        fprintf(json, "\n]}\n");
        fclose(json);
    }
    loci_fini();
    return rc;
}
