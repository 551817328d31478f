! OpenMP allocator conformance for Fortran (gfortran, use omp_lib): the
! allocator routines reach libgomp through its Fortran entry points
! (omp_init_allocator_, omp_init_allocator_8_, omp_destroy_allocator_,
! omp_set_default_allocator_, omp_get_default_allocator_), which the shim
! interposes. Run on libgomp alone and under the shim (tests/omp/CMakeLists.txt).
!
!   conformance_f              the checks; a pinned allocator may be refused
!   conformance_f pinned       ... and it must be granted, its blocks locked
!                              (libgomp 12 refuses pinned: only the shim grants it)
! Exit 0 ok, 1 a check failed.
program conformance_f
  use omp_lib
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: kib = 1024
  integer :: failures = 0, t, nthreads
  integer(omp_allocator_handle_kind) :: a, b, hbw
  type(omp_alloctrait) :: align64k(1), pin(2), fb(1)
  type(c_ptr) :: p
  logical :: same(0:3), aligned64k(0:3), want_locked, multi_node
  character(len=16) :: arg
  integer(8) :: one
  integer(c_size_t), parameter :: n24 = 24, n100 = 100, n10000 = 10000
  integer :: base, after

  want_locked = .false.
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    want_locked = trim(arg) == 'pinned'
  end if

  ! an allocator through omp_init_allocator_ (default integer ntraits)
  align64k(1) = omp_alloctrait(omp_atk_alignment, 64 * kib)
  a = omp_init_allocator(omp_default_mem_space, 1, align64k)
  call check(a /= omp_null_allocator, 'omp_init_allocator refused alignment=64 KiB')
  ! and through omp_init_allocator_8_ (integer(8) ntraits)
  one = 1
  b = omp_init_allocator(omp_default_mem_space, one, align64k)
  call check(b /= omp_null_allocator .and. b /= a, 'omp_init_allocator (8-byte ntraits)')
  p = omp_alloc(n24, b)
  call check(is_aligned(p, 64 * kib), 'a block of the 8-byte-ntraits allocator is not 64 KiB aligned')
  call omp_free(p, b)
  call omp_destroy_allocator(b)

  ! def-allocator-var: set in the master, inherited by the region's threads
  call omp_set_default_allocator(a)
  call check(omp_get_default_allocator() == a, 'omp_get_default_allocator after omp_set_default_allocator')
  same = .false.
  aligned64k = .false.
  nthreads = 0
  !$omp parallel num_threads(4) private(t, p) shared(same, aligned64k, nthreads)
  t = omp_get_thread_num()
  same(t) = omp_get_default_allocator() == a
  p = omp_alloc(n24, omp_null_allocator)
  aligned64k(t) = is_aligned(p, 64 * kib)
  call omp_free(p, omp_null_allocator)
  !$omp atomic
  nthreads = nthreads + 1
  !$omp end parallel
  call check(all(same(0:nthreads - 1)), 'a thread of the region did not inherit the default allocator')
  call check(all(aligned64k(0:nthreads - 1)), 'omp_alloc(null) in the region ignored the inherited default')
  call omp_set_default_allocator(omp_default_mem_alloc)
  call omp_destroy_allocator(a)

  ! high_bw on a DRAM-only machine: omp_null_allocator, as both runtimes answer
  inquire(file='/sys/devices/system/node/node1/.', exist=multi_node)
  fb(1) = omp_alloctrait(omp_atk_fallback, omp_atv_default_mem_fb)
  hbw = omp_init_allocator(omp_high_bw_mem_space, 1, fb)
  if (.not. multi_node) call check(hbw == omp_null_allocator, 'high_bw on a DRAM-only machine gave an allocator')
  if (hbw /= omp_null_allocator) call omp_destroy_allocator(hbw)

  ! pinned: refused, or each block's pages locked while it lives
  pin(1) = omp_alloctrait(omp_atk_pinned, omp_atv_true)
  pin(2) = omp_alloctrait(omp_atk_fallback, omp_atv_null_fb)
  a = omp_init_allocator(omp_default_mem_space, 2, pin)
  if (a == omp_null_allocator) then
    call check(.not. want_locked, 'the pinned allocator was refused')
    print '(a)', 'pinned=refused'
  else
    base = locked_kib()
    p = omp_alloc(n10000, a)
    after = locked_kib()
    call check(c_associated(p) .and. after - base == 12, 'a pinned block of 10000 bytes did not lock 3 pages')
    call omp_free(p, a)
    call check(locked_kib() == base, 'omp_free left pages locked')
    call omp_destroy_allocator(a)
    print '(a)', 'pinned=locked'
  end if

  if (failures == 0) then
    print '(a)', 'ok   fortran'
  else
    stop 1
  end if

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (0, '(2a)') 'conformance_f: ', what
      failures = failures + 1
    end if
  end subroutine

  logical function is_aligned(ptr, alignment)
    type(c_ptr), intent(in) :: ptr
    integer, intent(in) :: alignment
    is_aligned = c_associated(ptr) .and. modulo(transfer(ptr, 0_c_intptr_t), int(alignment, c_intptr_t)) == 0
  end function

  ! VmLck of /proc/self/status, in KiB
  integer function locked_kib()
    character(len=256) :: line
    integer :: u, ios
    locked_kib = -1
    open (newunit=u, file='/proc/self/status', action='read', iostat=ios)
    if (ios /= 0) return
    do
      read (u, '(a)', iostat=ios) line
      if (ios /= 0) exit
      if (line(1:6) == 'VmLck:') read (line(7:), *) locked_kib
    end do
    close (u)
  end function
end program
