/*
 * What the MPI benchmarks share: sizes lists, medians (../median.h), a clock, progress on
 * stderr. Header-only: each benchmark is one program per MPI flavour.
 */
#ifndef LOCI_BENCH_MPI_COMMON_H
#define LOCI_BENCH_MPI_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../median.h"

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "8-2M": powers of two from 8 to 2 MiB; or a list "8,64,4K". Returns the count. */
static inline int parse_sizes(const char *s, size_t *out, int max)
{
    char *end;
    int n = 0;
    const char *dash = strchr(s, '-');
    unsigned long long lo = strtoull(s, &end, 10);
    for (;;) {
        unsigned long long mult = *end == 'K' ? 1ull << 10 : *end == 'M' ? 1ull << 20 : 1;
        lo *= mult;
        if (mult > 1)
            end++;
        if (dash && end == dash) {
            unsigned long long hi = strtoull(dash + 1, &end, 10);
            hi *= *end == 'K' ? 1ull << 10 : *end == 'M' ? 1ull << 20 : 1;
            for (unsigned long long v = lo; v <= hi && n < max; v *= 2)
                out[n++] = (size_t)v;
            return n;
        }
        if (n < max)
            out[n++] = (size_t)lo;
        if (*end != ',')
            return n;
        lo = strtoull(end + 1, &end, 10);
    }
}

/* "4.0K", "2.0M": a size for tables. */
static inline const char *size_str(size_t v, char *buf, size_t len)
{
    if (v >= 1u << 20 && v % (1u << 20) == 0)
        snprintf(buf, len, "%zuM", v >> 20);
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%zuK", v >> 10);
    else
        snprintf(buf, len, "%zu", v);
    return buf;
}

/* The options every MPI benchmark takes. */
typedef struct {
    const char *sizes; /* as parse_sizes reads them */
    int ops, repeats;
} bench_opts_t;

/* Take argv[*i] (and its value) when it is one of --quick (sets *quick),
 * --sizes, --ops, --repeats; false when it is none of them. */
static inline bool bench_common_option(int argc, char **argv, int *i, bench_opts_t *o, const bench_opts_t *quick)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--quick")) {
        *o = *quick;
        return true;
    }
    if (*i + 1 >= argc)
        return false;
    if (!strcmp(a, "--sizes"))
        o->sizes = argv[++*i];
    else if (!strcmp(a, "--ops"))
        o->ops = atoi(argv[++*i]);
    else if (!strcmp(a, "--repeats"))
        o->repeats = atoi(argv[++*i]);
    else
        return false;
    return true;
}

#endif
