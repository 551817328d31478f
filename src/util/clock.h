/* The monotonic clock, for timeouts, ages and durations (never wall time). */
#ifndef LOCI_UTIL_CLOCK_H
#define LOCI_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/** ns since an unspecified start (CLOCK_MONOTONIC). */
static inline uint64_t clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** The same in seconds, for durations printed or compared with timeouts in s. */
static inline double clock_mono_s(void) { return (double)clock_mono_ns() / 1e9; }

/** ms, from the clock the kernel updates once a tick (CLOCK_MONOTONIC_COARSE):
 *  a few ns to read where a free path asks for ages of a purge delay, whose
 *  precision is ms anyway. */
static inline uint64_t clock_coarse_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif
