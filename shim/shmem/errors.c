/*
 * Errors of the partition calls: OpenSHMEM has no error handlers, so a
 * refused call returns -1 or NULL, keeps its message for the calling thread
 * (shmemx_hhm_last_error) and says it on stderr — a NULL alone cannot tell
 * a full partition from a wrong id.
 */
#include "shim.h"

#include <loci_shmem.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last[2048];

void shim_fail(const char *fn, const char *fmt, ...)
{
    int n = snprintf(last, sizeof last, "%s: ", fn);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last + n, sizeof last - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "loci-shmem: %s\n", last);
}

const char *shmemx_hhm_last_error(void) { return last; }
