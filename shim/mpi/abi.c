/*
 * Open MPI and MPICH share an API, not an ABI (MPI_Info is a pointer in one,
 * an int in the other). A libloci-mpi.so preloaded into a program of the
 * other family would misread every handle, so each entry point checks once
 * which MPI the program really runs, and stops with a message otherwise.
 */
#include "shim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void check(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(version, &len); /* same signature in every ABI; callable before MPI_Init */
    bool open_mpi = strstr(version, "Open MPI") != NULL;
    if (open_mpi == (strcmp(LOCI_MPI_FLAVOUR, "openmpi") == 0))
        return;
    char *nl = strchr(version, '\n');
    if (nl)
        *nl = '\0';
    fprintf(stderr,
            "loci-mpi: this libloci-mpi.so was built for %s, but the program runs \"%s\": preload or link "
            "the one built for its MPI (lib/loci/%s/libloci-mpi.so)\n",
            open_mpi ? "the MPICH ABI" : "Open MPI", version, open_mpi ? "openmpi" : "mpich");
    abort();
}

void shim_check_abi(void) { pthread_once(&once, check); }
