/* Messages on stderr, filtered like loci's own by LOCI_LOG (default warn). */
#include "shim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static atomic_int threshold = -1; /* -1: LOCI_LOG not read yet */

bool shim_log_on(int level)
{
    int t = atomic_load_explicit(&threshold, memory_order_relaxed);
    if (t < 0) {
        static const char *const names[] = {"error", "warn", "info", "debug"};
        const char *env = getenv("LOCI_LOG");
        t = SHIM_WARN;
        for (int i = 0; env && i < 4; i++)
            if (strcasecmp(env, names[i]) == 0)
                t = i;
        atomic_store_explicit(&threshold, t, memory_order_relaxed);
    }
    return level <= t;
}

void shim_log(int level, const char *fmt, ...)
{
    static const char *const labels[] = {"error", "warning", "info", "debug"};
    if (!shim_log_on(level))
        return;
    char line[1500];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "loci-omp: %s: %s\n", labels[level], line); /* one call: lines never interleave */
}
