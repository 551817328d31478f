/*
 * Random 64-bit ids: names no other process or host will pick (checkpoint
 * pool files, anonymous store regions, lock cookies), and the starts of
 * version counters. The one way loci makes one.
 */
#ifndef LOCI_UTIL_RANDOM_ID_H
#define LOCI_UTIL_RANDOM_ID_H

#include <stdint.h>

/** 64 random bits from the kernel (getrandom, never blocking); where it has
 *  none to give yet (early boot), the clock, the process id and an address,
 *  mixed — unique enough for a name that is also checked for a clash. */
uint64_t random_id(void);

#endif
