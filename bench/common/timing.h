/*
 * The benchmarks' clocks: wall time (monotonic) and the CPU time of the
 * whole process. Header-only, like the rest of bench/common's headers,
 * because some benchmarks are one program per MPI flavour.
 */
#ifndef LOCI_BENCH_TIMING_H
#define LOCI_BENCH_TIMING_H

#include <stdint.h>
#include <time.h>

/* Monotonic clock in nanoseconds (the allocation workload's timed loops). */
static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Monotonic clock in seconds. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the process so far, all threads. */
static inline double bench_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
