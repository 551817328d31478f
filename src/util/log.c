/* Diagnostics on stderr, filtered by LOCI_LOG=error|warn|info|debug (default warn). */
#include "internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static atomic_int log_threshold = -1; /* -1: not read from the environment yet */

static int threshold(void)
{
    int t = atomic_load_explicit(&log_threshold, memory_order_relaxed);
    if (t >= 0)
        return t;
    static const char *const names[] = {"error", "warn", "info", "debug"};
    const char *env = getenv("LOCI_LOG");
    t = LOCI_LOG_WARN;
    for (int i = 0; env && i < 4; i++)
        if (strcasecmp(env, names[i]) == 0)
            t = i;
    atomic_store_explicit(&log_threshold, t, memory_order_relaxed);
    return t;
}

void loci__log(enum loci_log_level level, const char *fmt, ...)
{
    static const char *const labels[] = {"error", "warning", "info", "debug"};
    if ((int)level > threshold())
        return;
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fprintf so lines from concurrent threads do not interleave. */
    fprintf(stderr, "loci: %s: %s\n", labels[level], line);
}
