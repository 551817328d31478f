/*
 * MPI_Win_allocate / MPI_Win_allocate_shared (and MPI 4's _c variants):
 * the MPI library allocates the window as usual (so its flavour,
 * shared-memory fast paths, MPI_Win_free and every base, size and
 * displacement unit it reports stay the library's), then each process
 * binds its part by intent before anyone touches it; an empty part is
 * nothing to bind. A shared window's memory is a tmpfs segment: the
 * binding belongs to the memory, so it holds in every process of the node
 * that maps it.
 *
 * Both calls are collective: a process whose intent is refused must not
 * leave the others waiting inside MPI, so the processes agree first (and
 * again after placing) and all return the same error.
 */
#include "shim.h"

#include <loci.h>
#include <stdio.h>

/* Every process's verdict: the worst error class and whether any asked
 * for placement. false if the communicator itself is unusable. */
static bool agree(MPI_Comm comm, int *errclass, int *asked)
{
    int mine[2] = {*errclass, *asked}, all[2];
    if (PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return false;
    *errclass = all[0];
    *asked = all[1];
    return true;
}

static const char *const call_names[] = {"MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_allocate_c",
                                         "MPI_Win_allocate_shared_c"};

/* The MPI library's own call. disp_unit fits an int unless the call is an
 * MPI_Aint one (the library checks either way). */
static int mpi_allocate(unsigned call, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
#if MPI_VERSION >= 4
    if (call & SHIM_WIN_LARGE)
        return call & SHIM_WIN_SHARED ? PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win)
                                      : PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win);
#endif
    return call & SHIM_WIN_SHARED ? PMPI_Win_allocate_shared(size, (int)disp_unit, info, comm, baseptr, win)
                                  : PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
}

int shim_win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win,
                      unsigned call)
{
    shim_check_abi();
    const char *fn = call_names[call & (SHIM_WIN_SHARED | SHIM_WIN_LARGE)];
    if (comm == MPI_COMM_NULL) /* MPI reports it in its own way */
        return mpi_allocate(call, size, disp_unit, info, comm, baseptr, win);
    shim_request_t req;
    int err = shim_request(fn, info, false, &req);
    if (err == MPI_SUCCESS && req.intent && !loci_allocator_create(req.intent)) {
        shim_say(fn, "%s=\"%s\": %s", req.from, req.given, loci_last_error());
        err = MPI_ERR_INFO_VALUE;
    }
    int mine = err, asked = req.intent != NULL;
    if (!agree(comm, &err, &asked))
        return MPI_ERR_COMM; /* the allreduce raised it already */
    if (err != MPI_SUCCESS) {
        if (mine == MPI_SUCCESS)
            shim_say(fn, "another process's placement request was refused: no window created");
        return shim_raise(comm, err);
    }

    int rc = mpi_allocate(call, size, disp_unit, info, comm, baseptr, win);
    if (rc != MPI_SUCCESS || !asked)
        return rc;
    /* PMPI_*allocate* succeeded everywhere (it is collective), so all place or agree to fail together.
     * An empty part (base NULL in MPICH) is nothing to place; the base stays the MPI's. */
    int placed = req.intent ? loci_range_place(*(void **)baseptr, (size_t)size, req.intent) : 0;
    err = placed ? shim_class_of(placed) : MPI_SUCCESS;
    if (placed)
        shim_say(fn, "placing %lld bytes by %s=\"%s\": %s", (long long)size, req.from, req.given, loci_last_error());
    mine = err;
    if (!agree(comm, &err, &asked))
        return MPI_ERR_COMM;
    if (err == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (mine == MPI_SUCCESS)
        shim_say(fn, "another process could not place its part: window freed");
    PMPI_Win_free(win);
    return shim_raise(comm, err);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return shim_win_allocate(size, disp_unit, info, comm, baseptr, win, 0);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                            MPI_Win *win)
{
    return shim_win_allocate(size, disp_unit, info, comm, baseptr, win, SHIM_WIN_SHARED);
}

#if MPI_VERSION >= 4
int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return shim_win_allocate(size, disp_unit, info, comm, baseptr, win, SHIM_WIN_LARGE);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                              MPI_Win *win)
{
    return shim_win_allocate(size, disp_unit, info, comm, baseptr, win, SHIM_WIN_SHARED | SHIM_WIN_LARGE);
}
#endif
