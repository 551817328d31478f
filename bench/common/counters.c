/* Figures from outside the benchmark: /proc/self/io, a command's number, the store target (counters.h). */
#include "counters.h"
#include "loci.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_io(uint64_t *read_bytes, uint64_t *write_bytes)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    unsigned long long v;
    *read_bytes = *write_bytes = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "read_bytes: %llu", &v) == 1)
            *read_bytes = v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
            *write_bytes = v;
    }
    if (f)
        fclose(f);
}

double bench_cmd_number(const char *cmd)
{
    FILE *f = popen(cmd, "r");
    double v = -1;
    if (!f || fscanf(f, "%lf", &v) != 1)
        v = -1;
    if (f && pclose(f) != 0)
        v = -1;
    if (v < 0) { /* a figure asked for and not measured: no row without it */
        fprintf(stderr, "bench_nvm: '%s' failed or printed no number\n", cmd);
        exit(1);
    }
    return v;
}

const char *bench_store_target(void)
{
    for (int i = 0; i < loci_target_count(); i++) {
        loci_target_info_t info;
        if (loci_target_info(loci_target_at(i), &info) == 0 && strcmp(info.kind, "store") == 0 &&
            !(info.flags & LOCI_TARGET_UNREACHABLE))
            return info.name;
    }
    return NULL;
}
