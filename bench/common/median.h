/*
 * The one median every benchmark reports (header-only: the benchmarks are
 * separate programs, some built once per MPI flavour).
 */
#ifndef LOCI_BENCH_MEDIAN_H
#define LOCI_BENCH_MEDIAN_H

#include <stdlib.h>
#include <string.h>

/* qsort's order for doubles (NaN-free input). */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1], n >= 1: the middle one, or the mean of the two
 * middle ones. Sorts v. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The same of a copy: v is left as it is (at most 1024 samples are read). */
static inline double bench_median_of(const double *v, int n)
{
    double s[1024];
    if (n > 1024)
        n = 1024;
    memcpy(s, v, (size_t)n * sizeof *s);
    return bench_median(s, n);
}

#endif
