! A Fortran program built against an installed loci: it must see the targets and place an array.
program consumer_fortran
  use loci
  implicit none
  type(c_ptr) :: a, p
  real(c_double), pointer :: x(:)
  a = loci_allocator_create("")
  p = loci_alloc(a, 8_c_size_t * 1000)
  if (loci_target_count() < 2 .or. .not. c_associated(p)) then
     print '(a, a)', "consumer_fortran: ", loci_last_error()
     error stop 1
  end if
  call c_f_pointer(p, x, [1000])
  x = 1
  if (loci_target_name(loci_ptr_target(p)) == "") error stop 2
  call loci_free(p)
end program consumer_fortran
