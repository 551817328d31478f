/*
 * Errors the way MPI reports them: an error class through the handle's
 * error handler (fatal by default, MPI_ERRORS_RETURN to get it back), and
 * a message on stderr saying what was wrong — MPI's own strings cannot
 * name an intent term.
 */
#include "shim.h"

#include <loci.h>
#include <stdarg.h>
#include <stdio.h>

void shim_say(const char *fn, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "loci-mpi: %s: %s\n", fn, msg);
}

int shim_raise(MPI_Comm comm, int errclass)
{
    int up = 0, down = 0;
    PMPI_Initialized(&up);
    PMPI_Finalized(&down);
    if (up && !down)
        PMPI_Comm_call_errhandler(comm, errclass);
    return errclass;
}

int shim_class_of(int loci_code)
{
    switch (loci_code) {
    case LOCI_EINVAL:  /* malformed intent */
    case LOCI_ENOENT:  /* nothing on this machine satisfies it */
    case LOCI_ENOTSUP: /* it names memory a window cannot be bound to */
        return MPI_ERR_INFO_VALUE;
    case LOCI_ENOMEM:
    case LOCI_ENOSPC:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_OTHER;
    }
}
