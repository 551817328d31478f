/*
 * What the sources and heat.c share, below them all (as mm/damon/ops-common.c
 * is below DAMON's operations sets): finding the watched range that holds an
 * address, a refusal's reason, a thread's CPU time, a kernel file's line.
 * It calls no other file of src/heat, so no source calls up into heat.c.
 */
#include "heat/heat_internal.h"
#include "text_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int heat__refuse(char *why, size_t len, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return code;
}

double heat__thread_cpu_s(pthread_t thread)
{
    clockid_t clock;
    struct timespec ts;
    if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *heat__read_line(const char *path, char *buf, size_t len)
{
    text_first_line(path, buf, len);
    return buf;
}

size_t heat__range_index(const heat_t *h, uintptr_t addr)
{
    size_t lo = 0, hi = h->nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->ranges[mid]->base < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

heat_range_t *heat__range_of(const heat_t *h, uintptr_t addr)
{
    size_t i = heat__range_index(h, addr + 1); /* the first range starting after addr */
    if (i == 0)
        return NULL;
    heat_range_t *r = h->ranges[i - 1];
    return addr - r->base < r->size ? r : NULL;
}
