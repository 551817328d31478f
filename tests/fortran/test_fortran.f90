! The Fortran module against the real library: arrays placed by intent (pages
! on the node the kernel reports), arenas moved with their addresses, regions
! persisting, checkpoints restoring, bad input as C status codes, memory
! tiers as sysfs says and a refresh that finds nothing changed. Both
! spellings of the renamed calls (include/loci.h, "Names") are used on the
! same memory and must agree.
program test_fortran
  use loci
  use, intrinsic :: iso_c_binding
  implicit none
  interface  ! libnuma: with nodes NULL, move_pages only reports each page's node
     integer(c_long) function move_pages(pid, count, pages, nodes, status, flags) bind(c)
       import :: c_int, c_long, c_ptr
       integer(c_int), value :: pid, flags
       integer(c_long), value :: count
       type(c_ptr), intent(in) :: pages(*)
       type(c_ptr), value :: nodes
       integer(c_int), intent(out) :: status(*)
     end function move_pages
  end interface
  integer, parameter :: n = 64 * 1024
  integer :: failures = 0

  call placed_arrays()
  call arena_moves()
  call regions_persist()
  call checkpoints_restore()
  call bad_input()
  call topology_now()
  if (failures > 0) then
     print '(i0, a)', failures, " check(s) failed"
     error stop 1
  end if
  print '(a)', "test_fortran: all checks passed"

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
       print '(a, a, a, a)', "FAILED: ", what, "; loci_last_error: ", loci_last_error()
       failures = failures + 1
    end if
  end subroutine check

  ! the node of every page of the n 8-byte elements at p, or -1 when they differ
  ! (x86-64 pages: 4 KiB)
  integer function page_node(p) result(node)
    type(c_ptr), intent(in) :: p
    integer(c_intptr_t), parameter :: page = 4096
    integer(c_intptr_t) :: first, last
    type(c_ptr), allocatable :: pages(:)
    integer(c_int), allocatable :: status(:)
    integer :: i, count
    first = transfer(p, first)
    last = first + n * 8 - 1
    first = first - modulo(first, page)
    count = int((last - first) / page) + 1
    allocate(pages(count), status(count))
    do i = 1, count
       pages(i) = transfer(first + (i - 1) * page, p)
    end do
    node = -1
    if (move_pages(0, int(count, c_long), pages, c_null_ptr, status, 0) /= 0) return
    node = status(1)
    if (any(status /= node)) node = -1
  end function page_node

  subroutine placed_arrays()
    type(c_ptr) :: a, t, p
    type(loci_target_info_t) :: info
    integer(c_int64_t), pointer :: x(:)
    integer :: i
    do i = 0, loci_target_count() - 1
       t = loci_target_at(i)
       call check(loci_target_info(t, info) == LOCI_OK, "loci_target_info")
       if (info%numa_node < 0) cycle
       a = loci_allocator_create("target=" // loci_string(info%name) // "!")
       call check(c_associated(a), "allocator for a NUMA target")
       p = loci_alloc(a, int(n, c_size_t) * 8)
       call c_f_pointer(p, x, [n])
       x = [(int(i, c_int64_t), i = 1, n)]
       call check(sum(x) == int(n, c_int64_t) * (n + 1) / 2, "data in placed memory")
       call check(c_associated(loci_ptr_target(p), t), "loci_ptr_target is the intent's target")
       call check(page_node(p) == info%numa_node, "pages on the target's NUMA node (move_pages)")
       call check(loci_usable_size(p) >= int(n, c_size_t) * 8, "loci_usable_size")
       call loci_free(p)
       call loci_allocator_destroy(a)
    end do
  end subroutine placed_arrays

  subroutine arena_moves()
    type(c_ptr) :: ar, p, dram
    integer(c_int), pointer :: k(:)
    integer(c_int), target :: k_local(4)
    integer :: i
    ar = loci_arena_create("", 0_c_size_t)
    call check(c_associated(ar), "loci_arena_create")
    dram = loci_arena_target(ar)
    p = loci_arena_alloc(ar, int(n, c_size_t) * 4)
    call c_f_pointer(p, k, [n])
    k = [(i, i = 1, n)]
    call check(c_associated(loci_ptr_arena(p), ar), "loci_ptr_arena")
    call check(c_associated(loci_arena_of(p), ar), "loci_arena_of (older name)")
    call check(.not. c_associated(loci_ptr_arena(c_loc(k_local))), "loci_ptr_arena of memory of no arena")
    call check(.not. c_associated(loci_arena_of(c_loc(k_local))), "loci_arena_of of memory of no arena")
    call check(loci_arena_move(ar, loci_target_by_name("ssd0")) == LOCI_OK, "move to ssd0")
    call check(loci_target_name(loci_arena_target(ar)) == "ssd0", "arena on ssd0")
    call check(loci_arena_move(ar, dram) == LOCI_OK, "move back")
    call check(all(k == [(i, i = 1, n)]), "arena data intact at the same address after two moves")
    call loci_arena_destroy(ar)
  end subroutine arena_moves

  subroutine regions_persist()
    type(c_ptr) :: r
    integer(c_int64_t), pointer :: x(:)
    integer(c_size_t), parameter :: bytes = 8 * 1000
    r = loci_region_open("fortran-region", bytes, "", LOCI_REGION_CREATE)
    call check(c_associated(r), "loci_region_open create")
    call c_f_pointer(r, x, [1000])
    x = 42
    call check(loci_range_flush(r, bytes) == LOCI_OK, "loci_range_flush")
    call check(loci_nvm_flush(r, bytes) == LOCI_OK, "loci_nvm_flush (older name)")
    call check(loci_range_evict(r, bytes) == LOCI_OK, "loci_range_evict")
    call check(loci_nvm_evict(r, bytes) == LOCI_OK, "loci_nvm_evict (older name)")
    call check(loci_range_prefetch(r, bytes) == LOCI_OK, "loci_range_prefetch")
    call check(loci_nvm_prefetch(r, bytes) == LOCI_OK, "loci_nvm_prefetch (older name)")
    call check(all(x == 42), "region contents after evict and prefetch")
    call check(loci_region_sync(r) == LOCI_OK, "loci_region_sync")
    call check(loci_persist_sync(r) == LOCI_OK, "loci_persist_sync (older name)")
    call check(loci_region_remove("fortran-region", "") == LOCI_EBUSY, "loci_region_remove while open")
    call check(loci_persist_remove("fortran-region", "") == LOCI_EBUSY, "loci_persist_remove while open")
    call check(loci_region_close(r) == LOCI_OK, "loci_region_close")
    r = loci_persist_open("fortran-region", 0_c_size_t, "", 0)  ! the older names, same region
    call check(c_associated(r), "loci_persist_open existing")
    call check(loci_persist_size(r) >= bytes, "loci_persist_size")
    call check(loci_region_size(r) == loci_persist_size(r), "loci_region_size and loci_persist_size agree")
    call c_f_pointer(r, x, [1000])
    call check(all(x == 42), "region contents after reopening")
    call check(loci_persist_close(r) == LOCI_OK, "loci_persist_close")
    call check(loci_region_remove("fortran-region", "") == LOCI_OK, "loci_region_remove")
    call check(loci_persist_remove("fortran-region", "") == LOCI_ENOENT, "loci_persist_remove: gone")
  end subroutine regions_persist

  subroutine checkpoints_restore()
    integer(c_int64_t), allocatable, target :: state(:)
    allocate(state(5000))
    state = 7
    call check(loci_ckpt_register("fortran-state", c_loc(state), 8_c_size_t * 5000) == LOCI_OK, &
         "loci_ckpt_register")
    call check(loci_ckpt_save("fortran-ckpt") == LOCI_OK, "loci_ckpt_save")
    state = 0
    call check(loci_ckpt_restore("fortran-ckpt") == LOCI_OK, "loci_ckpt_restore")
    call check(all(state == 7), "state restored")
    call check(loci_ckpt_verify("fortran-ckpt") == LOCI_OK, "loci_ckpt_verify")
    call check(loci_ckpt_unregister("fortran-state") == LOCI_OK, "loci_ckpt_unregister")
    call check(loci_ckpt_remove("fortran-ckpt") == LOCI_OK, "loci_ckpt_remove")
  end subroutine checkpoints_restore

  subroutine bad_input()
    type(c_ptr) :: a
    a = loci_allocator_create("colour=blue")
    call check(.not. c_associated(a), "unknown intent refused")
    call check(index(loci_last_error(), "unknown key 'colour'") > 0, "message names the bad key")
    call check(loci_arena_move(c_null_ptr, c_null_ptr) == LOCI_EINVAL, "NULL arena: LOCI_EINVAL")
    call check(.not. c_associated(loci_target_by_name("hbm9")), "unknown target")
    call check(index(loci_last_error(), "dram0") > 0, "message lists the machine's targets")
    call check(loci_ckpt_restore("fortran-never-saved") == LOCI_ENOENT, "unknown checkpoint: LOCI_ENOENT")
    call check(loci_ckpt_save("bad/name") == LOCI_EINVAL, "bad checkpoint name: LOCI_EINVAL")
    call check(loci_strerror(LOCI_ENOENT) /= "", "loci_strerror")
    a = loci_allocator_create("")
    call check(.not. c_associated(loci_alloc(a, -1_c_size_t)), "a negative size is refused (ENOMEM)")
    call check(.not. c_associated(loci_persist_open("fortran-none", 10_c_size_t, "", 0)), &
         "missing region without LOCI_CREATE")
  end subroutine bad_input

  ! Each NUMA target's kernel memory tier is the one whose nodelist sysfs
  ! shows (where the kernel has tiers), others have none; a refresh of this
  ! machine finds the targets it had, each under its name, none gone, and
  ! counts no change but a capacity the machine itself changed (memory
  ! hot-added to a node, a file system grown: a shared machine does that).
  subroutine topology_now()
    character(:), allocatable :: nodes, source
    character(256) :: sysfs
    character(16), allocatable :: names(:)
    integer(c_int64_t), allocatable :: capacities(:)
    type(loci_target_info_t) :: info
    type(c_ptr) :: t
    integer :: i, tier, unit, ios, count, changes, resized
    logical :: tiers
    inquire(file="/sys/devices/virtual/memory_tiering/.", exist=tiers)
    count = loci_target_count()
    allocate(names(count), capacities(count))
    do i = 1, count
       call check(loci_target_info(loci_target_at(i - 1), info) == LOCI_OK, "loci_target_info")
       names(i) = loci_target_name(loci_target_at(i - 1))
       capacities(i) = info%capacity
    end do
    changes = loci_topology_refresh()
    call check(loci_target_count() == count, "loci_topology_refresh: no target appeared")
    resized = 0
    do i = 0, loci_target_count() - 1
       t = loci_target_at(i)
       call check(loci_target_info(t, info) == LOCI_OK, "loci_target_info")
       call check(loci_target_gone(t) == "", "no target gone")
       if (i < count) then
          call check(loci_target_name(t) == trim(names(i + 1)), "each target under its name")
          if (info%capacity /= capacities(i + 1)) then
             print '(a, a, i0, a, i0)', loci_target_name(t), ": capacity changed from ", capacities(i + 1), &
                  " to ", info%capacity
             resized = resized + 1
          end if
       end if
       tier = loci_target_memory_tier(t, nodes, source)
       if (info%numa_node < 0 .or. .not. tiers) then
          call check(tier == LOCI_ENOENT, "no memory tier: LOCI_ENOENT")
          cycle
       end if
       call check(tier >= 0 .and. source == "os", "a NUMA node's memory tier, from the OS")
       write (sysfs, '(a, i0, a)') "/sys/devices/virtual/memory_tiering/memory_tier", tier, "/nodelist"
       open (newunit=unit, file=trim(sysfs), action="read", iostat=ios)
       call check(ios == 0, "its tier's nodelist in sysfs")
       if (ios /= 0) cycle
       read (unit, '(a)') sysfs
       close (unit)
       call check(trim(sysfs) == nodes, "the tier's nodes as sysfs lists them")
    end do
    call check(changes == resized, "loci_topology_refresh: no change but the capacities the machine changed")
  end subroutine topology_now
end program test_fortran
