/*
 * bench_nvm [--quick] [--repeats N] [--only abcd] [--json FILE]
 * The NVMalloc §IV evaluation on this machine's ssd0 tier (bench.h). The
 * default run takes a few minutes; --quick is a smoke run in seconds.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

int main(int argc, char **argv)
{
    bench_opts_t o = {.repeats = 0};
    const char *only = "abcd", *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            o.quick = true;
        else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc)
            o.repeats = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--repeats N (1-16)] [--only abcd] [--json FILE]\n", argv[0]);
            return 2;
        }
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
    printf("bench_nvm%s: ssd0 = %s, Linux %s, %d repeat(s) per cell\n", o.quick ? " --quick" : "", o.tier, u.release,
           o.repeats);
    if (o.json)
        fprintf(o.json, "{\"quick\": %s, \"kernel\": \"%s\", \"tier\": \"%s\", \"rows\": [", o.quick ? "true" : "false",
                u.release, o.tier);
    int rc = 0;
    if (strchr(only, 'a'))
        rc |= bench_randwrite(&o);
    if (strchr(only, 'b'))
        rc |= bench_stream(&o);
    if (strchr(only, 'c'))
        rc |= bench_matmul(&o);
    if (strchr(only, 'd'))
        rc |= bench_sort(&o);
    if (o.json) {
        fprintf(o.json, "\n]}\n");
        fclose(o.json);
    }
    loci_stats_print(stdout);
    return rc;
}
