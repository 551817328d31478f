/* How much of this process is locked in memory (VmLck of /proc/self/status), in KiB, or -1:
 * what omp_atk_pinned is checked against. */
#ifndef LOCI_TESTS_OMP_LOCKED_H
#define LOCI_TESTS_OMP_LOCKED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline long locked_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmLck:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

#endif
