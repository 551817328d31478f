! libloci-mpi from Fortran through `use mpi_f08` (handles as types, ierror
! optional: absent arrives as NULL). Loci memory by info key, a refused
! intent, a double free, a window by intent, windows with empty parts.
program test_fortran_f08
  use mpi_f08
  use iso_c_binding
  implicit none
  interface
    type(c_ptr) function loci_ptr_target(p) bind(C)
      import :: c_ptr
      type(c_ptr), value :: p
    end function
  end interface
  integer :: ierr, rank, nprocs, right
  type(MPI_Info) :: info, bad
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: size, disp
  type(c_ptr) :: base
  integer, pointer :: a(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'loci_intent', 'near=pe')
  call MPI_Info_create(bad)
  call MPI_Info_set(bad, 'loci_intent', 'bandwith=high')
  size = 4096

  call MPI_Alloc_mem(size, info, base)                    ! no ierror
  call check(c_associated(loci_ptr_target(base)), 'MPI_Alloc_mem: not loci memory')
  call c_f_pointer(base, a, [1024])
  a = rank
  call MPI_Free_mem(a, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Free_mem')
  call MPI_Free_mem(a, ierr)
  call check(ierr == MPI_ERR_ARG, 'MPI_Free_mem twice: not MPI_ERR_ARG')
  call MPI_Alloc_mem(size, bad, base, ierr)
  call check(ierr == MPI_ERR_INFO_VALUE, 'MPI_Alloc_mem, malformed intent: not MPI_ERR_INFO_VALUE')

  call MPI_Win_allocate(size, 4, bad, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_ERR_INFO_VALUE, 'MPI_Win_allocate, malformed intent: not MPI_ERR_INFO_VALUE')
  call MPI_Win_allocate_shared(size, 4, bad, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_ERR_INFO_VALUE, 'MPI_Win_allocate_shared, malformed intent: not MPI_ERR_INFO_VALUE')
  call MPI_Win_allocate(size, 4, info, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate')
  call c_f_pointer(base, a, [1024])
  a = -1
  right = mod(rank + 1, nprocs)
  disp = 5
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, right, disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call check(a(6) == mod(rank + nprocs - 1, nprocs), 'MPI_Put into the window')
  call MPI_Win_free(win)

  ! Windows where only process 0 has memory: the empty parts are nothing to place
  disp = 0
  if (rank == 0) disp = size
  call MPI_Win_allocate(disp, 4, info, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate, empty parts but on process 0')
  call MPI_Win_free(win)
  call MPI_Win_allocate_shared(disp, 4, info, MPI_COMM_WORLD, base, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate_shared, empty parts but on process 0')
  call MPI_Win_free(win)

  call MPI_Info_free(info)
  call MPI_Info_free(bad)
  if (rank == 0) print '(a)', 'test_fortran_f08: passed'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'rank ', rank, ': check failed: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
