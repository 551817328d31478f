/*
 * The benchmarks' clocks: wall time is the library's own monotonic clock
 * (src/util/clock.h: clock_mono_ns, clock_mono_s), plus the CPU time of the
 * whole process. Header-only, like the rest of bench/common's headers,
 * because some benchmarks are one program per MPI flavour.
 */
#ifndef LOCI_BENCH_TIMING_H
#define LOCI_BENCH_TIMING_H

#include "clock.h"

#include <time.h>

/* CPU seconds of the process so far, all threads. */
static inline double bench_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
