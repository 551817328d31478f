/*
 * Figures a benchmark reads from outside itself (counters.c): what this
 * process moved to and from storage, a number a command prints (the bytes
 * a store's OSDs received), and the store target of the configuration.
 */
#ifndef LOCI_BENCH_COUNTERS_H
#define LOCI_BENCH_COUNTERS_H

#include <stdint.h>

/** Bytes this process read from and wrote to storage (/proc/self/io). */
void bench_io(uint64_t *read_bytes, uint64_t *write_bytes);

/** The number a shell command prints (popen); exits when it fails or prints none. */
double bench_cmd_number(const char *cmd);

/** The first reachable target of kind "store" (the aggregate store), or NULL.
 *  (The program links loci; this library does not.) */
const char *bench_store_target(void);

#endif
