! Fortran arrays in memory placed by intent (docs/FORTRAN.md):
!   place_arrays ["intent"]
! allocates a 1000x1000 field per the intent (default "bandwidth=high"), a
! pair of arrays in an arena, computes on them, and says where they live.
program place_arrays
  use loci
  implicit none
  integer, parameter :: n = 1000
  type(c_ptr) :: fast, ar, p, q
  real(8), pointer :: field(:, :), u(:), v(:)
  character(256) :: intent
  integer :: rc

  intent = "bandwidth=high"
  if (command_argument_count() > 0) call get_command_argument(1, intent)

  fast = loci_allocator_create(trim(intent))
  if (.not. c_associated(fast)) call fail("loci_allocator_create")
  p = loci_alloc(fast, int(n, c_size_t) * n * 8)
  if (.not. c_associated(p)) call fail("loci_alloc")
  call c_f_pointer(p, field, [n, n])
  field = 1.0d0
  print '(a, a, a, a, f12.1)', trim(intent), ": field on ", loci_target_name(loci_ptr_target(p)), &
       ", sum ", sum(field)

  ! data that travels together: an arena, moved as a whole, addresses kept
  ar = loci_arena_create("", 0_c_size_t)
  if (.not. c_associated(ar)) call fail("loci_arena_create")
  p = loci_arena_alloc(ar, int(n, c_size_t) * 8)
  q = loci_arena_alloc(ar, int(n, c_size_t) * 8)
  call c_f_pointer(p, u, [n])
  call c_f_pointer(q, v, [n])
  u = 2.0d0
  v = 3.0d0
  rc = loci_arena_move(ar, loci_target_by_name("ssd0"))
  if (rc /= LOCI_OK) call fail("loci_arena_move")
  print '(a, a, a, f10.1)', "arena moved to ", loci_target_name(loci_arena_target(ar)), &
       ", dot ", dot_product(u, v)
  call loci_arena_destroy(ar)
  call loci_free(c_loc(field))
  call loci_allocator_destroy(fast)

contains

  subroutine fail(call)
    character(*), intent(in) :: call
    print '(a, a, a)', call, ": ", loci_last_error()
    error stop 1
  end subroutine fail
end program place_arrays
