/*
 * bench_ckpt [--quick] [--repeats N] [--sizes GiB,GiB,...] [--dram MiB] [--chunk KiB] [--json FILE]
 * bench_ckpt --store table|loop|restart ...   (on the aggregate store: store.c)
 *
 * For each SSD size: a DRAM variable (default 256 MiB) registered, and a
 * mode=paged persistent region of that size (chunk layout, default 1 MiB chunks)
 * filled with data. Per repeat, from an empty checkpoint directory:
 *   first      loci_ckpt_save of everything
 *   unchanged  the same again, nothing changed (5 times per repeat)
 *   changed    after rewriting 1 % of the region's chunks (every 100th)
 *   restore    loci_ckpt_restore of "first"
 * and the baseline: a full copy of both variables into one file (write +
 * fsync: every checkpoint costs this), and its restore (read + sync of the
 * region). Reported: median time, bytes the checkpoint wrote and linked
 * (loci's counters) and bytes this process wrote to storage
 * (/proc/self/io). Before each timed step the region is synced (its own
 * write-back is no checkpoint cost) and before each restore the files read
 * are dropped from the page cache. Progress on stderr.
 */
#include "bench.h"
#include "loci.h"
#include "counters.h" /* bench/common: bench_io */
#include "median.h"
#include "report.h" /* bench_progress, bench_json_row */
#include "timing.h" /* clock_mono_s */

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

enum { FIRST, UNCHANGED, CHANGED, RESTORE, COPY, COPY_RESTORE, NOPS };
static const char *op_name[NOPS] = {"first save", "unchanged", "1% changed", "restore", "full copy", "copy restore"};

typedef struct {
    double seconds[16 * UNCHANGED_RUNS];
    int n; /* samples */
    uint64_t written, linked, dev_written, chunks_written, chunks_linked, chunks_shared;
} cell_t;

static uint64_t dev_written(void)
{
    uint64_t r, w;
    bench_io(&r, &w);
    return w;
}

static double median(const cell_t *c) { return bench_median_of(c->seconds, c->n); }

/* Drop the files of dir (and of its chunks/) from the page cache: restores read cold. */
static void drop_cached(const char *dir)
{
    char path[4200];
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int fd = e->d_name[0] == '.' ? -1 : open(path, O_RDONLY);
        if (fd >= 0) {
            posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
            close(fd);
        }
    }
    if (d)
        closedir(d);
}

/* One timed loci step: a save (name) or a restore (name, restore). */
static void loci_step(cell_t *c, const char *name, bool restore, const vars_t *v, const char *ckdir)
{
    check(loci_region_sync(v->ssd), "sync");
    if (restore)
        drop_cached(ckdir);
    uint64_t w0 = dev_written();
    double t = clock_mono_s();
    check(restore ? loci_ckpt_restore(name) : loci_ckpt_save(name), name);
    c->seconds[c->n++] = clock_mono_s() - t;
    c->dev_written = dev_written() - w0;
    loci_ckpt_stats_t st;
    if (!restore) {
        check(loci_ckpt_last_save(&st), "stats");
        c->written = st.bytes_written;
        c->linked = st.bytes_linked;
        c->chunks_written = st.chunks_written;
        c->chunks_linked = st.chunks_linked;
        c->chunks_shared = st.chunks_shared;
    }
}

static void copy_step(cell_t *c, bool restore, const vars_t *v, const char *path)
{
    check(loci_region_sync(v->ssd), "sync");
    if (restore) {
        int fd = open(path, O_RDONLY);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
    uint64_t w0 = dev_written();
    double t = clock_mono_s();
    (restore ? copy_restore : copy_save)(v, path);
    c->seconds[c->n++] = clock_mono_s() - t;
    c->dev_written = dev_written() - w0;
    c->written = restore ? 0 : v->dram_size + v->ssd_size;
}

static void human(uint64_t b, char *buf, size_t len)
{
    if (b >= GiB)
        snprintf(buf, len, "%.2f GiB", (double)b / (double)GiB);
    else if (b >= MiB)
        snprintf(buf, len, "%.1f MiB", (double)b / (double)MiB);
    else
        snprintf(buf, len, "%llu B", (unsigned long long)b);
}

int main(int argc, char **argv)
{
    bool quick = false;
    int repeats = 0;
    double sizes[8] = {0.5, 1, 2, 4};
    int nsizes = 4;
    size_t dram = 256 * MiB, chunk = MiB;
    const char *json_path = NULL;
    if (argc > 1 && strcmp(argv[1], "--store") == 0)
        return store_main(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dram") == 0 && i + 1 < argc)
            dram = (size_t)atoi(argv[++i]) * MiB;
        else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc)
            chunk = (size_t)atoi(argv[++i]) << 10;
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json_path = argv[++i];
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < 8; s = strtok(NULL, ","))
                sizes[nsizes++] = atof(s);
        } else {
            fprintf(stderr, "usage: %s [--quick] [--repeats N (1-16)] [--sizes GiB,...] [--dram MiB] [--chunk KiB] "
                            "[--json FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (quick) {
        dram = 8 * MiB;
        chunk = 64 << 10;
        nsizes = 2;
        sizes[0] = 4.0 / 1024, sizes[1] = 8.0 / 1024; /* 4 and 8 MiB */
    }
    if (repeats <= 0 || repeats > 16)
        repeats = quick ? 1 : 3;
    if (chunk < 4096 || chunk > 64 * MiB || (chunk & (chunk - 1))) {
        fprintf(stderr, "bench_ckpt: --chunk: a power of two from 4 KiB to 64 MiB\n");
        return 2;
    }
    char intent[128];
    snprintf(intent, sizeof intent, "persist,mode=paged,cache=%dMiB,chunk=%zuKiB", quick ? 4 : 256, chunk >> 10);
    check(loci_init(), "init");
    const char *tier = loci_target_path(loci_target_by_name("ssd0"));
    const char *env = getenv("LOCI_CKPT_DIR");
    char ckdir[4096], chunks[4200], copy_path[4200];
    snprintf(ckdir, sizeof ckdir, "%s", env && *env ? env : tier);
    if (!(env && *env))
        snprintf(ckdir, sizeof ckdir, "%s/ckpt", tier);
    snprintf(chunks, sizeof chunks, "%s/chunks", ckdir);
    snprintf(copy_path, sizeof copy_path, "%s/bench-ckpt-copy", tier);
    FILE *json = json_path ? fopen(json_path, "w") : NULL;
    if (json_path && !json) {
        perror(json_path);
        return 1;
    }
    struct utsname u;
    uname(&u);
    printf("bench_ckpt%s: ssd0 = %s, checkpoints in %s, Linux %s\nDRAM variable %zu MiB; SSD variable: one region, "
           "%s; %d repeat(s), median\n\n", quick ? " --quick" : "", tier, ckdir, u.release, dram / MiB, intent, repeats);
    printf("%-9s %-13s %9s %12s %12s %12s %9s %9s %9s\n", "SSD", "step", "seconds", "ckpt wrote", "ckpt linked",
           "device wrote", "written", "linked", "shared");
    if (json)
        fprintf(json, "{\"quick\": %s, \"kernel\": \"%s\", \"tier\": \"%s\", \"dram_bytes\": %zu, \"intent\": \"%s\", "
                      "\"repeats\": %d, \"rows\": [", quick ? "true" : "false", u.release, tier, dram, intent, repeats);
    vars_t v = {.dram = malloc(dram), .dram_size = dram};
    if (!v.dram)
        return 1;
    fill(v.dram, dram, 1);
    check(loci_ckpt_register("dram", v.dram, dram), "register");
    double unchanged_time[8] = {0};
    for (int s = 0; s < nsizes; s++) {
        v.ssd_size = (size_t)(sizes[s] * (double)GiB) & ~(MiB - 1);
        loci_region_remove("bench-ssd", intent);
        char label[32];
        human(v.ssd_size, label, sizeof label);
        bench_progress("SSD %s: creating and filling the region", label);
        v.ssd = loci_region_open("bench-ssd", v.ssd_size, intent, LOCI_CREATE);
        if (!v.ssd)
            check(-1, "open region");
        fill(v.ssd, v.ssd_size, 2);
        size_t nchunks = v.ssd_size / chunk;
        cell_t cells[NOPS] = {0};
        for (int r = 0; r < repeats; r++) {
            empty_checkpoints();
            bench_progress("SSD %s, repeat %d: loci first save", label, r + 1);
            loci_step(&cells[FIRST], "first", false, &v, ckdir);
            bench_progress("SSD %s, repeat %d: loci unchanged", label, r + 1);
            for (int k = 0; k < UNCHANGED_RUNS; k++)
                loci_step(&cells[UNCHANGED], "unchanged", false, &v, ckdir);
            for (size_t i = 0; i < nchunks; i += 100) /* 1 % of the chunks, rewritten whole */
                fill(v.ssd + i * chunk, chunk, 100 + (uint64_t)r);
            bench_progress("SSD %s, repeat %d: loci after 1%% changed", label, r + 1);
            loci_step(&cells[CHANGED], "changed", false, &v, ckdir);
            bench_progress("SSD %s, repeat %d: loci restore of the first", label, r + 1);
            loci_step(&cells[RESTORE], "first", true, &v, chunks);
            bench_progress("SSD %s, repeat %d: full copy", label, r + 1);
            copy_step(&cells[COPY], false, &v, copy_path);
            bench_progress("SSD %s, repeat %d: full copy restore", label, r + 1);
            copy_step(&cells[COPY_RESTORE], true, &v, copy_path);
        }
        unchanged_time[s] = median(&cells[UNCHANGED]);
        for (int op = 0; op < NOPS; op++) {
            const cell_t *c = &cells[op];
            char sz[32], w[32], l[32], d[32];
            human(v.ssd_size, sz, sizeof sz);
            human(c->written, w, sizeof w);
            human(c->linked, l, sizeof l);
            human(c->dev_written, d, sizeof d);
            bool ck = op <= CHANGED;
            printf("%-9s %-13s %9.3f %12s %12s %12s", op == 0 ? sz : "", op_name[op], median(c),
                   op == RESTORE || op == COPY_RESTORE ? "" : w, ck ? l : "", d);
            if (ck)
                printf(" %9llu %9llu %9llu", (unsigned long long)c->chunks_written,
                       (unsigned long long)c->chunks_linked, (unsigned long long)c->chunks_shared);
            printf("\n");
            char samples[sizeof c->seconds / sizeof *c->seconds * 16] = "";
            for (int r = 0, at = 0; r < c->n; r++)
                at += snprintf(samples + at, sizeof samples - (size_t)at, "%s%.6f", r ? ", " : "", c->seconds[r]);
            bench_json_row(json, "\"ssd_bytes\": %zu, \"step\": \"%s\", \"seconds\": %.6f, \"ckpt_written\": %llu, "
                                 "\"ckpt_linked\": %llu, \"device_written\": %llu, \"chunks_written\": %llu, "
                                 "\"chunks_linked\": %llu, \"chunks_shared\": %llu, \"samples\": [%s]",
                           v.ssd_size, op_name[op], median(c), (unsigned long long)c->written,
                           (unsigned long long)c->linked, (unsigned long long)c->dev_written,
                           (unsigned long long)c->chunks_written, (unsigned long long)c->chunks_linked,
                           (unsigned long long)c->chunks_shared, samples);
        }
        printf("%-9s %-13s %9s   changed chunks: %zu of %zu (%.2f %%)\n\n", "", "", "", (nchunks + 99) / 100, nchunks,
               100.0 * (double)((nchunks + 99) / 100) / (double)nchunks);
        fflush(stdout);
        check(loci_region_close(v.ssd), "close");
        check(loci_region_remove("bench-ssd", intent), "remove region");
        unlink(copy_path);
    }
    empty_checkpoints();
    if (nsizes > 1)
        printf("unchanged save, largest SSD / smallest SSD (%.0fx the data): %.2fx the time\n",
               sizes[nsizes - 1] / sizes[0], unchanged_time[nsizes - 1] / unchanged_time[0]);
    if (json) {
        fprintf(json, "\n]}\n");
        fclose(json);
    }
    check(loci_ckpt_unregister("dram"), "unregister");
    free(v.dram);
    return 0;
}
