/* Diagnostics on stderr, filtered by LOCI_LOG=error|warn|info|debug (default warn). */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static atomic_int log_threshold = -1; /* -1: not read from the environment yet */

bool loci__log_on(enum loci_log_level level)
{
    int t = atomic_load_explicit(&log_threshold, memory_order_relaxed);
    if (t < 0) {
        static const char *const names[] = {"error", "warn", "info", "debug"};
        const char *env = getenv("LOCI_LOG");
        t = LOCI_LOG_WARN;
        for (int i = 0; env && i < 4; i++)
            if (strcasecmp(env, names[i]) == 0)
                t = i;
        atomic_store_explicit(&log_threshold, t, memory_order_relaxed);
    }
    return (int)level <= t;
}

void loci__log_as(const char *who, enum loci_log_level level, const char *fmt, ...)
{
    static const char *const labels[] = {"error", "warning", "info", "debug"};
    if (!loci__log_on(level))
        return;
    char line[1500];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One fprintf so lines from concurrent threads do not interleave. */
    fprintf(stderr, "%s: %s: %s\n", who, labels[level], line);
}
