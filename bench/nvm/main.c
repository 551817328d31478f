/*
 * bench_nvm [--quick] [--repeats N] [--only abcdmsw] [--json FILE] [--placements LIST] [--chunk SIZE] [--object SIZE]
 *           [--store [--osd-bytes CMD] [--raw-read CMD] [--writes N]
 *                    [--b-region NAME [--make-b | --order row|column]]]
 * The NVMalloc §IV evaluation on this machine's ssd0 tier (bench.h). The
 * default run takes a few minutes; --quick is a smoke run in seconds.
 * --store runs (a) and (b) on the aggregate store target of LOCI_CONFIG
 * instead (bench/store/run.sh): (a) also reports the bytes the OSDs received
 * (CMD prints their total), (b) puts B and C on the store and compares with
 * the pool's sequential read bandwidth (CMD prints MB/s), and w is a
 * sequential paged write (A alone on the store). Part m (--only m, on the
 * store only) is one client node's share of NVMalloc Fig. 4: a multiply
 * with B in store region NAME, opened read-only (--make-b: make that region).
 * Part s (--only s, ssd0 or the store) is a sequential writer and reader of
 * a region 16x its cache, MB/s and CPU s/GB (seqio.c), in chunks of 256 KiB
 * or --chunk SIZE. --object SIZE: the store's objects (object= of every
 * store intent; default: the store's, 4 MiB; 256KiB: one object per chunk,
 * the layout before issue 40).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

int main(int argc, char **argv)
{
    bench_opts_t o = {.repeats = 0, .chunk = "256KiB", .object = ""};
    char object[64];
    const char *only = NULL, *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            o.quick = true;
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            o.repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else if (strcmp(argv[i], "--store") == 0)
            o.store = "";
        else if (strcmp(argv[i], "--osd-bytes") == 0 && i + 1 < argc)
            o.osd_bytes_cmd = argv[++i];
        else if (strcmp(argv[i], "--raw-read") == 0 && i + 1 < argc)
            o.raw_read_cmd = argv[++i];
        else if (strcmp(argv[i], "--writes") == 0 && i + 1 < argc)
            o.writes = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--b-region") == 0 && i + 1 < argc)
            o.b_region = argv[++i];
        else if (strcmp(argv[i], "--make-b") == 0)
            o.make_b = true;
        else if (strcmp(argv[i], "--order") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "row") == 0 || strcmp(argv[i + 1], "column") == 0))
            o.order = argv[++i];
        else if (strcmp(argv[i], "--placements") == 0 && i + 1 < argc)
            o.placements = argv[++i];
        else if (strcmp(argv[i], "--chunk") == 0 && i + 1 < argc)
            o.chunk = argv[++i];
        else if (strcmp(argv[i], "--object") == 0 && i + 1 < argc && strlen(argv[i + 1]) < 32) {
            snprintf(object, sizeof object, ",object=%s", argv[++i]);
            o.object = object;
        } else {
            fprintf(stderr, "usage: %s [--quick] [--repeats N (1-16)] [--only abcdmsw] [--json FILE] [--placements "
                            "B,C,BC...] [--chunk SIZE] [--object SIZE] [--store [--osd-bytes CMD] [--raw-read CMD] [--writes N] "
                            "[--b-region NAME [--make-b | --order row|column]]]\n", argv[0]);
            return 2;
        }
    }
    if (o.store && !(o.store = bench_store_target())) {
        fprintf(stderr, "bench_nvm: --store: no reachable target of kind store; set LOCI_CONFIG to a file with a "
                        "[target NAME] kind = store section (scripts/store-cluster.sh start DIR writes DIR/loci.conf)\n");
        return 1;
    }
    if (!only)
        only = o.store ? "abw" : "abcd";
    if (o.store ? strpbrk(only, "cd") != NULL : strpbrk(only, "mw") != NULL) {
        fprintf(stderr, "bench_nvm: --only %s: parts c and d run on ssd0 only, parts m and w on the store only "
                        "(--store)\n", only);
        return 2;
    }
    if ((strchr(only, 'm') != NULL) != (o.b_region != NULL)) {
        fprintf(stderr, "bench_nvm: part m (--only m) needs --b-region NAME, and --b-region is for part m only\n");
        return 2;
    }
    if (o.repeats <= 0 || o.repeats > 16)
        o.repeats = o.quick ? 1 : 3;
    const loci_target_t *ssd = loci_target_by_name("ssd0");
    if (!ssd || !(o.tier = loci_target_path(ssd))) {
        fprintf(stderr, "bench_nvm: no ssd0 tier: %s\n", loci_last_error());
        return 1;
    }
    if (json && !(o.json = fopen(json, "w"))) {
        perror(json);
        return 1;
    }
    struct utsname u;
    uname(&u);
    const char *where = o.store ? o.store : o.tier;
    printf("bench_nvm%s: %s = %s, Linux %s, %d repeat(s) per cell\n", o.quick ? " --quick" : "",
           o.store ? "store" : "ssd0", where, u.release, o.repeats);
    if (o.json)
        fprintf(o.json, "{\"quick\": %s, \"kernel\": \"%s\", \"tier\": \"%s\", \"rows\": [", o.quick ? "true" : "false",
                u.release, where);
    int rc = 0;
    if (strchr(only, 'a'))
        rc |= bench_randwrite(&o);
    if (strchr(only, 'b') || strchr(only, 'w'))
        rc |= bench_stream(&o, strchr(only, 'b') != NULL, strchr(only, 'w') != NULL);
    if (strchr(only, 'c'))
        rc |= bench_matmul(&o);
    if (strchr(only, 'm'))
        rc |= bench_matmul_shared(&o);
    if (strchr(only, 'd'))
        rc |= bench_sort(&o);
    if (strchr(only, 's'))
        rc |= bench_seqio(&o);
    if (o.json) {
        fprintf(o.json, "\n]}\n");
        fclose(o.json);
    }
    loci_stats_print(stdout);
    return rc;
}
