/*
 * Diagnostics on stderr, filtered by LOCI_LOG=error|warn|info|debug (default
 * warn). libloci's own and its front ends' (shim/omp compiles util/log.c in:
 * its messages start with its own name, and it filters them the same way).
 */
#ifndef LOCI_UTIL_LOG_H
#define LOCI_UTIL_LOG_H

#include <stdbool.h>

enum loci_log_level { LOCI_LOG_ERROR = 0, LOCI_LOG_WARN, LOCI_LOG_INFO, LOCI_LOG_DEBUG };

/** Whether messages of `level` are printed (LOCI_LOG is read once). */
__attribute__((visibility("hidden"))) bool loci__log_on(enum loci_log_level level);

/** Print "<who>: <level>: message" on stderr when loci__log_on(level). */
__attribute__((visibility("hidden"))) void loci__log_as(const char *who, enum loci_log_level level, const char *fmt,
                                                        ...) __attribute__((format(printf, 3, 4)));

/** "loci: <level>: message": loci__log_as for libloci itself. */
#define loci__log(level, ...) loci__log_as("loci", level, __VA_ARGS__)

#endif
