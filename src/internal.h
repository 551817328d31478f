/*
 * What crosses files inside libloci: error reporting, logging and lazy init.
 * Each layer has its own header beside its sources (topo/topo.h, ...).
 */
#ifndef LOCI_INTERNAL_H
#define LOCI_INTERNAL_H

#include "loci.h"

#include <stdarg.h>
#include <stdbool.h>

#define LOCI_HIDDEN __attribute__((visibility("hidden")))
#define LOCI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define LOCI_LIKELY(x) __builtin_expect(!!(x), 1)
#define LOCI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* --- errors (util/error.c) ---------------------------------------------- */

/** Record `code` and a message as the calling thread's last error, log it at
 *  debug level, and return `code` (so callers can `return loci__fail(...)`). */
LOCI_HIDDEN int loci__fail(int code, const char *fmt, ...) LOCI_PRINTF(2, 3);

/** Like loci__fail, then set errno from the code and return NULL. */
LOCI_HIDDEN void *loci__fail_null(int code, const char *fmt, ...) LOCI_PRINTF(2, 3);

/** errno value matching a LOCI_E* code. */
LOCI_HIDDEN int loci__errno_of(int code);
/** The LOCI_E* code of an errno value loci__errno_of gives (LOCI_EINVAL for
 *  any other): for callers handed NULL + errno by a pointer call of loci's. */
LOCI_HIDDEN int loci__code_of_errno(int e);

/* --- log (util/log.h: loci__log) ----------------------------------------- */

#include "log.h"

/* --- fork (util/fork.c, core/fork.c) ------------------------------------- */

/** What a layer does with its locks around fork(): take them all before
 *  (in the order it nests them, outer layers first), give them back in the
 *  parent, and make them usable again in the child, whose only thread is
 *  the one that forked. */
typedef enum { LOCI_FORK_PREPARE, LOCI_FORK_PARENT, LOCI_FORK_CHILD } loci_fork_phase_t;

#include <pthread.h>

LOCI_HIDDEN void loci__fork_mutex(pthread_mutex_t *m, loci_fork_phase_t phase);
/** A rwlock is taken for writing; the child gets a fresh one (initialised
 *  with attr, NULL for the defaults): an unlock there would not recognise
 *  the writer, whose thread id changed with the fork. */
LOCI_HIDDEN void loci__fork_rwlock(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr, loci_fork_phase_t phase);

#endif
