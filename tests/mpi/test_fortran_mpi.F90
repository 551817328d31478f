! libloci-mpi from Fortran through `use mpi` (TYPE(C_PTR) base addresses: the *_cptr entry points),
! or, built with -DLOCI_MPIF_H, through mpif.h (integer base addresses; Open MPI's Fortran calls
! PMPI_* directly: the shim's own Fortran entry points must catch these calls).
#ifdef LOCI_MPIF_H
#define AS_CPTR(address) transfer(address, c_null_ptr)
#else
#define AS_CPTR(address) address
#endif
! Loci memory by info key, a refused intent, a double free, a window by intent, windows with
! empty parts.
program test_fortran_mpi
#ifndef LOCI_MPIF_H
  use mpi
#endif
  use iso_c_binding
  implicit none
#ifdef LOCI_MPIF_H
  include 'mpif.h'
#endif
  interface
    type(c_ptr) function loci_ptr_target(p) bind(C)
      import :: c_ptr
      type(c_ptr), value :: p
    end function
  end interface
  integer :: ierr, info, bad, rank, nprocs, win, right
  integer(kind=MPI_ADDRESS_KIND) :: size, disp
#ifdef LOCI_MPIF_H
  integer(kind=MPI_ADDRESS_KIND) :: base
  character(*), parameter :: binding = 'mpif'
#else
  type(c_ptr) :: base
  character(*), parameter :: binding = 'mpi'
#endif
  integer, pointer :: a(:)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_INFO_CREATE(info, ierr)
  call MPI_INFO_SET(info, 'loci_intent', 'near=pe', ierr)
  call MPI_INFO_CREATE(bad, ierr)
  call MPI_INFO_SET(bad, 'loci_intent', 'bandwith=high', ierr)
  size = 4096

  call MPI_ALLOC_MEM(size, info, base, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_ALLOC_MEM')
  call check(c_associated(loci_ptr_target(AS_CPTR(base))), 'MPI_ALLOC_MEM: not loci memory')
  call c_f_pointer(AS_CPTR(base), a, [1024])
  a = rank
  call MPI_FREE_MEM(a, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FREE_MEM')
  call MPI_FREE_MEM(a, ierr)
  call check(ierr == MPI_ERR_ARG, 'MPI_FREE_MEM twice: not MPI_ERR_ARG')
  call MPI_ALLOC_MEM(size, bad, base, ierr)
  call check(ierr == MPI_ERR_INFO_VALUE, 'MPI_ALLOC_MEM, malformed intent: not MPI_ERR_INFO_VALUE')

  call MPI_WIN_ALLOCATE(size, 4, bad, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_ERR_INFO_VALUE, 'MPI_WIN_ALLOCATE, malformed intent: not MPI_ERR_INFO_VALUE')
  call MPI_WIN_ALLOCATE_SHARED(size, 4, bad, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_ERR_INFO_VALUE, 'MPI_WIN_ALLOCATE_SHARED, malformed intent: not MPI_ERR_INFO_VALUE')
  call MPI_WIN_ALLOCATE(size, 4, info, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_ALLOCATE')
  call c_f_pointer(AS_CPTR(base), a, [1024])
  a = -1
  right = mod(rank + 1, nprocs)
  disp = 5
  call MPI_WIN_FENCE(0, win, ierr)
  call MPI_PUT(rank, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_WIN_FENCE(0, win, ierr)
  call check(a(6) == mod(rank + nprocs - 1, nprocs), 'MPI_PUT into the window')
  call MPI_WIN_FREE(win, ierr)

  ! Windows where only process 0 has memory: the empty parts are nothing to place
  disp = 0
  if (rank == 0) disp = size
  call MPI_WIN_ALLOCATE(disp, 4, info, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_ALLOCATE, empty parts but on process 0')
  call MPI_WIN_FREE(win, ierr)
  call MPI_WIN_ALLOCATE_SHARED(disp, 4, info, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WIN_ALLOCATE_SHARED, empty parts but on process 0')
  call MPI_WIN_FREE(win, ierr)

  call MPI_INFO_FREE(info, ierr)
  call MPI_INFO_FREE(bad, ierr)
  if (rank == 0) print '(3a)', 'test_fortran_', binding, ': passed'
  call MPI_FINALIZE(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'rank ', rank, ': check failed: ', what
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program
