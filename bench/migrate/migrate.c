/*
 * bench_migrate: SICM's Figure 1. How long moving an arena of 2^N bytes
 * between NUMA nodes takes (loci_arena_move: the pages migrate, addresses
 * stay), against memmove of the same bytes from a buffer on the source
 * node to one on the destination. Runs inside the VM (bench/migrate/run.sh):
 * under QEMU TCG absolute times mean nothing, the ratio does.
 *
 * For each pair of nodes and each size, every repeat measures five things
 * side by side: a fresh arena on the source, filled with blocks of 256 KiB
 * (or one block when smaller) and written, is moved the way loci chooses
 * (a copy remapped over the old addresses, where userfaultfd allows), and
 * another such arena with LOCI_ARENA_MOVE=migrate (the kernel migrates its
 * pages, mbind per extent); two fresh buffers,
 * both written first, are memmoved; and a plain buffer of the same size,
 * bound to the source and written, is migrated by one mbind(MPOL_MF_MOVE)
 * call: what the kernel alone costs, without loci; and fresh pages alone:
 * the same bytes of new memory made on the destination, which any move that
 * keeps addresses must get from the kernel. A cell is the median of
 * the repeats. ratio = memmove time / move time: the move's throughput as a
 * fraction of memmove's (1 = as fast); the same for the migrating move;
 * loci/kernel = move time / mbind time.
 *
 * Sizes stop where a node could not hold them: the largest power of two
 * below the smaller free memory of the two nodes, less 64 MiB.
 */
#include <loci.h>

#include "median.h"
#include "timing.h"

#include <errno.h>
#include <numaif.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_REPEATS = 64, MAX_PAIRS = 8, BLOCK = 256 << 10 };

static void die(const char *what)
{
    fprintf(stderr, "bench_migrate: %s: %s\n", what, loci_last_error());
    exit(2);
}

static const loci_target_t *node(int n, loci_target_info_t *info)
{
    char name[32];
    snprintf(name, sizeof name, "node:%d", n);
    const loci_target_t *t = loci_target_by_name(name);
    if (!t || loci_target_info(t, info) != 0)
        die(name);
    return t;
}

/* One timed arena move of `size` bytes from src to dst, LOCI_ARENA_MOVE=how. */
static double time_move(int src, const loci_target_t *dst, size_t size, const char *how)
{
    setenv("LOCI_ARENA_MOVE", how, 1);
    char intent[32];
    snprintf(intent, sizeof intent, "target=node:%d", src);
    loci_arena_t *ar = loci_arena_create(intent, 0);
    if (!ar)
        die(intent);
    for (size_t done = 0; done < size; done += BLOCK) {
        size_t n = size - done < BLOCK ? size - done : BLOCK;
        char *p = loci_arena_alloc(ar, n);
        if (!p)
            die("filling the arena");
        memset(p, (int)(done >> 12), n);
    }
    double t0 = clock_mono_s();
    if (loci_arena_move(ar, dst) != 0)
        die("loci_arena_move");
    double t = clock_mono_s() - t0;
    loci_arena_destroy(ar);
    return t;
}

/* `size` bytes of plain memory bound to `node` (not loci's: nothing kept after munmap). */
static char *bound(int node, size_t size)
{
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned long mask = 1ul << node;
    if (p == MAP_FAILED || mbind(p, size, MPOL_BIND, &mask, 64, 0) != 0) {
        perror("bench_migrate: a bound buffer");
        exit(2);
    }
    return p;
}

/* One timed memmove of `size` bytes from a buffer on src to one on dst. */
static double time_memmove(int src, int dst, size_t size)
{
    char *from = bound(src, size), *to = bound(dst, size);
    memset(from, 1, size);
    memset(to, 2, size); /* both faulted in: memmove measures the copy */
    double t0 = clock_mono_s();
    memmove(to, from, size);
    double t = clock_mono_s() - t0;
    if (to[size - 1] != 1)
        die("memmove check");
    munmap(from, size);
    munmap(to, size);
    return t;
}

/* Fresh pages alone: what the kernel takes to give `size` bytes of new
 * memory on node dst (MADV_POPULATE_WRITE: fault and zero), which any move
 * keeping addresses pays, by migration or by copy. */
static double time_fresh(int dst, size_t size)
{
    char *p = bound(dst, size);
    double t0 = clock_mono_s();
    if (madvise(p, size, 23 /* MADV_POPULATE_WRITE */) != 0) {
        perror("bench_migrate: madvise(MADV_POPULATE_WRITE)");
        exit(2);
    }
    double t = clock_mono_s() - t0;
    munmap(p, size);
    return t;
}

/* The kernel's own migration of `size` bytes, for reference: one mbind. */
static double time_mbind(int src, int dst, size_t size)
{
    char *p = bound(src, size);
    unsigned long to = 1ul << dst;
    memset(p, 3, size);
    double t0 = clock_mono_s();
    if (mbind(p, size, MPOL_BIND, &to, 64, MPOL_MF_MOVE | MPOL_MF_STRICT) != 0) {
        perror("bench_migrate: mbind(MPOL_MF_MOVE)");
        exit(2);
    }
    double t = clock_mono_s() - t0;
    munmap(p, size);
    return t;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_migrate [--pairs 0:1,1:2,2:0] [--min-log2 12] [--max-log2 30] [--repeats 5] "
                    "[--json] [--progress FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *pairs = "0:1,1:2,2:0";
    int lo = 12, hi = 30, repeats = 5, json = 0;
    FILE *progress = stderr; /* in the VM: /dev/console, which the host sees as it comes */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
            pairs = argv[++i];
        else if (!strcmp(argv[i], "--min-log2") && i + 1 < argc)
            lo = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-log2") && i + 1 < argc)
            hi = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--progress") && i + 1 < argc) {
            if (!(progress = fopen(argv[++i], "a")))
                usage();
            setvbuf(progress, NULL, _IOLBF, 0);
        }
        else
            usage();
    }
    if (lo < 12 || hi > 40 || lo > hi || repeats < 1 || repeats > MAX_REPEATS)
        usage();
    if (loci_init() != 0)
        die("loci_init");
    setvbuf(stdout, NULL, _IOLBF, 0);

    int from[MAX_PAIRS], to[MAX_PAIRS], npairs = 0;
    for (const char *p = pairs; *p && npairs < MAX_PAIRS;) {
        char *end;
        from[npairs] = (int)strtol(p, &end, 10);
        if (*end != ':')
            usage();
        to[npairs++] = (int)strtol(end + 1, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }

    char *js = NULL;
    size_t jlen = 0;
    FILE *jf = open_memstream(&js, &jlen);
    fprintf(jf, "{\"benchmark\": \"arena move vs memmove (SICM Fig. 1)\", \"repeats\": %d, "
                "\"block_bytes\": %d, \"rows\": [", repeats, BLOCK);
    printf("%-13s %11s %10s %10s %10s %10s %10s %9s %9s %9s %6s %6s %7s\n", "pair", "bytes", "move ms", "migrate ms",
           "memmove ms", "mbind ms", "fresh ms", "move MB/s", "migr MB/s", "mmove MB/s", "ratio", "r.migr", "loci/kernel");
    int rows = 0;
    for (int k = 0; k < npairs; k++) {
        loci_target_info_t si, di;
        node(from[k], &si);
        const loci_target_t *dst = node(to[k], &di);
        uint64_t room = si.available < di.available ? si.available : di.available;
        int top = hi;
        while (top >= lo && ((uint64_t)1 << top) + (64ull << 20) > room)
            top--;
        char pair[32];
        snprintf(pair, sizeof pair, "%s->%s", si.name, di.name);
        if (top < hi)
            printf("# %s: sizes capped at 2^%d: %s has %llu MiB free, %s %llu MiB\n", pair, top, si.name,
                   (unsigned long long)(si.available >> 20), di.name, (unsigned long long)(di.available >> 20));
        for (int e = lo; e <= top; e++) {
            size_t size = (size_t)1 << e;
            double mv[MAX_REPEATS], mg[MAX_REPEATS], mm[MAX_REPEATS], mb[MAX_REPEATS], fr[MAX_REPEATS];
            for (int r = 0; r < repeats; r++) {
                mv[r] = time_move(from[k], dst, size, "auto");
                mg[r] = time_move(from[k], dst, size, "migrate");
                mm[r] = time_memmove(from[k], to[k], size);
                mb[r] = time_mbind(from[k], to[k], size);
                fr[r] = time_fresh(to[k], size);
            }
            double m1 = bench_median_of(mv, repeats), m2 = bench_median_of(mm, repeats);
            double m3 = bench_median_of(mb, repeats), m4 = bench_median_of(mg, repeats);
            double m5 = bench_median_of(fr, repeats);
            fprintf(progress, "bench_migrate: %s 2^%d bytes: move %.3f ms, migrating move %.3f ms, memmove %.3f ms, "
                              "mbind %.3f ms, fresh pages %.3f ms\n", pair, e, m1 * 1e3, m4 * 1e3, m2 * 1e3, m3 * 1e3, m5 * 1e3);
            printf("%-13s %11zu %10.3f %10.3f %10.3f %10.3f %10.3f %9.1f %9.1f %9.1f %6.3f %6.3f %7.2f\n", pair,
                   size, m1 * 1e3, m4 * 1e3, m2 * 1e3, m3 * 1e3, m5 * 1e3, size / m1 / 1e6, size / m4 / 1e6, size / m2 / 1e6, m2 / m1,
                   m2 / m4, m1 / m3);
            fprintf(jf, "%s\n  {\"from\": \"%s\", \"to\": \"%s\", \"bytes\": %zu, \"move_median_s\": %.9f, "
                        "\"migrate_median_s\": %.9f, \"memmove_median_s\": %.9f, \"mbind_median_s\": %.9f, "
                        "\"fresh_median_s\": %.9f, "
                        "\"ratio\": %.4f, \"migrate_ratio\": %.4f, \"loci_over_kernel\": %.4f",
                    rows++ ? "," : "", si.name, di.name, size, m1, m4, m2, m3, m5, m2 / m1, m2 / m4, m1 / m3);
            const double *all[5] = {mv, mg, mm, mb, fr};
            static const char *key[5] = {"move_s", "migrate_s", "memmove_s", "mbind_s", "fresh_s"};
            for (int c = 0; c < 5; c++) {
                fprintf(jf, ", \"%s\": [", key[c]);
                for (int r = 0; r < repeats; r++)
                    fprintf(jf, "%s%.9f", r ? ", " : "", all[c][r]);
                fprintf(jf, "]");
            }
            fprintf(jf, "}");
        }
    }
    fprintf(jf, "\n]}\n");
    fclose(jf);
    if (json)
        printf("--- json ---\n%s", js);
    free(js);
    loci_fini();
    return 0;
}
