/*
 * Fortran callers. Open MPI's Fortran bindings call PMPI_Alloc_mem and its
 * kin directly, past any MPI_ wrapper, so the shim defines the Fortran entry
 * points themselves, under gfortran's names (lower case, one '_'): those of
 * mpif.h and `use mpi` (and their TYPE(C_PTR) twins, *_cptr), and those of
 * `use mpi_f08` (*_f08, where ierror is optional: absent arrives as NULL).
 * Handles arrive as Fortran integers (an f08 handle is a type holding one).
 */
#include "shim.h"

#define ALIAS(name) __attribute__((alias(#name)))

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

/* baseptr: INTEGER(KIND=MPI_ADDRESS_KIND) or TYPE(C_PTR): an address either way */
void mpi_alloc_mem_(MPI_Aint *size, MPI_Fint *info, void *baseptr, MPI_Fint *ierr)
{
    set_ierr(ierr, shim_alloc_mem(*size, PMPI_Info_f2c(*info), baseptr,
                                  __builtin_extract_return_addr(__builtin_return_address(0))));
}
void mpi_alloc_mem_cptr_(MPI_Aint *size, MPI_Fint *info, void *baseptr, MPI_Fint *ierr) ALIAS(mpi_alloc_mem_);
void mpi_alloc_mem_f08_(MPI_Aint *size, MPI_Fint *info, void *baseptr, MPI_Fint *ierr) ALIAS(mpi_alloc_mem_);

/* base: the address of the choice buffer */
void mpi_free_mem_(void *base, MPI_Fint *ierr) { set_ierr(ierr, shim_free_mem(base)); }
void mpi_free_mem_f08_(void *base, MPI_Fint *ierr) ALIAS(mpi_free_mem_);

/* MPICH's mpi_f08 passes the assumed-rank buffer as a C descriptor (TS 29113),
 * whose first member is its address. */
void mpi_free_mem_f08ts_(void **descriptor, MPI_Fint *ierr) { set_ierr(ierr, shim_free_mem(*descriptor)); }

static void win_allocate(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                         MPI_Fint *win, MPI_Fint *ierr, bool shared)
{
    MPI_Win w = MPI_WIN_NULL;
    int rc = shim_win_allocate(*size, *disp_unit, PMPI_Info_f2c(*info), PMPI_Comm_f2c(*comm), baseptr, &w,
                               shared ? SHIM_WIN_SHARED : 0);
    if (rc == MPI_SUCCESS)
        *win = PMPI_Win_c2f(w);
    set_ierr(ierr, rc);
}

void mpi_win_allocate_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                       MPI_Fint *win, MPI_Fint *ierr)
{
    win_allocate(size, disp_unit, info, comm, baseptr, win, ierr, false);
}
void mpi_win_allocate_cptr_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                            MPI_Fint *win, MPI_Fint *ierr) ALIAS(mpi_win_allocate_);
void mpi_win_allocate_f08_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                           MPI_Fint *win, MPI_Fint *ierr) ALIAS(mpi_win_allocate_);

void mpi_win_allocate_shared_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm, void *baseptr,
                              MPI_Fint *win, MPI_Fint *ierr)
{
    win_allocate(size, disp_unit, info, comm, baseptr, win, ierr, true);
}
void mpi_win_allocate_shared_cptr_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                                   void *baseptr, MPI_Fint *win, MPI_Fint *ierr) ALIAS(mpi_win_allocate_shared_);
void mpi_win_allocate_shared_f08_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
                                  void *baseptr, MPI_Fint *win, MPI_Fint *ierr) ALIAS(mpi_win_allocate_shared_);
