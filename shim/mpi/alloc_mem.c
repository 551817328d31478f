/*
 * MPI_Alloc_mem / MPI_Free_mem. A call whose info or environment asks for
 * placement gets loci memory from the allocator object of its intent
 * (loci caches them: a repeated intent costs a hash lookup, not SharP's
 * ~7 us re-resolution); any other call goes to the MPI library as it is.
 * MPI_Free_mem sends loci's live blocks to loci_free (loci knows them: no
 * list to walk, unlike SharP), the MPI library's recorded ones to
 * PMPI_Free_mem, and refuses anything else. Errors are raised on
 * MPI_COMM_WORLD, as both MPIs do for these calls.
 */
#include "shim.h"

#include <errno.h>
#include <loci.h>

static const char alloc_fn[] = "MPI_Alloc_mem", free_fn[] = "MPI_Free_mem";

/* The MPI library's own memory, remembered so that MPI_Free_mem can tell it apart. */
static int mpi_alloc(MPI_Aint size, MPI_Info info, void *baseptr)
{
    int rc = PMPI_Alloc_mem(size, info, baseptr);
    if (rc != MPI_SUCCESS || shim_track_add(*(void **)baseptr))
        return rc;
    PMPI_Free_mem(*(void **)baseptr);
    shim_say(alloc_fn, "out of memory recording the block");
    return shim_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
}

int shim_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    shim_check_abi();
    shim_request_t req;
    int rc = shim_request(alloc_fn, info, true, &req);
    if (rc != MPI_SUCCESS)
        return shim_raise(MPI_COMM_WORLD, rc);
    if (!req.intent && !req.align)
        return mpi_alloc(size, info, baseptr);
    if (size < 0) {
        shim_say(alloc_fn, "negative size %lld", (long long)size);
        return shim_raise(MPI_COMM_WORLD, MPI_ERR_ARG);
    }
    const char *intent = req.intent ? req.intent : ""; /* only an alignment asked: local DRAM */
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a) {
        int errclass = errno == ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INFO_VALUE; /* before stdio touches errno */
        shim_say(alloc_fn, "%s=\"%s\": %s", req.from, req.given, loci_last_error());
        return shim_raise(MPI_COMM_WORLD, errclass);
    }
    void *p = req.align ? loci_aligned_alloc(a, req.align, (size_t)size) : loci_alloc(a, (size_t)size);
    if (!p) {
        shim_say(alloc_fn, "%lld bytes by intent \"%s\": %s", (long long)size, intent, loci_last_error());
        return shim_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int shim_free_mem(void *base)
{
    shim_check_abi();
    if (!base)
        return PMPI_Free_mem(base); /* whatever the MPI does with NULL */
    if (loci_usable_size(base)) { /* a live loci block (its start: interior pointers give 0) */
        loci_free(base);
        return MPI_SUCCESS;
    }
    if (shim_track_take(base))
        return PMPI_Free_mem(base);
    shim_say(free_fn, "%p is not a live block from MPI_Alloc_mem (freed already, or memory from another "
                      "allocator): nothing freed", base);
    return shim_raise(MPI_COMM_WORLD, MPI_ERR_ARG);
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) { return shim_alloc_mem(size, info, baseptr); }

int MPI_Free_mem(void *base) { return shim_free_mem(base); }
