/*
 * The benchmarks' pseudo-random numbers: splitmix64, so that every process
 * (and every allocator, every front end) draws the same sequence from a seed.
 */
#ifndef LOCI_BENCH_RANDOM_H
#define LOCI_BENCH_RANDOM_H

#include <stdint.h>

/* The next number of the sequence in *state. */
static inline uint64_t bench_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
