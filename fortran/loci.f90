! loci for Fortran: the C API of include/loci.h through iso_c_binding.
!
! The procedures keep the C names and meanings (include/loci.h is the manual;
! docs/FORTRAN.md shows the Fortran side). Differences, all for Fortran's sake:
!  - strings are ordinary Fortran character arguments (the wrappers add the
!    terminating NUL) and results (loci_last_error, loci_strerror, target names);
!  - handles and addresses are type(c_ptr): turn memory into arrays with
!    c_f_pointer; sizes are integer(c_size_t) byte counts;
!  - integer functions return 0 or a negative LOCI_E* status, as in C;
!    pointer functions return c_null_ptr on failure, with loci_last_error().
! Names are those of include/loci.h ("Names"); the older C names that header
! keeps as aliases are generic names here for the same procedures.
module loci
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: c_ptr, c_null_ptr, c_associated, c_f_pointer, c_loc, c_size_t, c_int, c_int64_t, c_double

  ! ---- status codes and flags (include/loci.h) ----
  integer(c_int), parameter, public :: LOCI_OK = 0, LOCI_EINVAL = -1, LOCI_ENOMEM = -2, &
       LOCI_ENOENT = -3, LOCI_ECONFIG = -4, LOCI_ETOPO = -5, LOCI_ENOTSUP = -6, LOCI_EPERM = -7, &
       LOCI_EIO = -8, LOCI_EEXIST = -9, LOCI_EBUSY = -10, LOCI_ENOSPC = -11, LOCI_ENODEV = -12
  integer(c_int), parameter, public :: LOCI_TARGET_PERSISTENT = 1, LOCI_TARGET_SHAREABLE = 2, &
       LOCI_TARGET_CPU_ACCESSIBLE = 4, LOCI_TARGET_GPU_ACCESSIBLE = 8, LOCI_TARGET_SIMULATED = 16
  ! (LOCI_TARGET_GONE would be the function loci_target_gone for Fortran, whose names ignore case:
  ! loci_target_gone(t) /= "" says it)
  integer(c_int), parameter, public :: LOCI_REGION_CREATE = 1, LOCI_REGION_READONLY = 2, LOCI_REGION_SHARED = 4
  integer(c_int), parameter, public :: LOCI_CREATE = LOCI_REGION_CREATE, LOCI_READONLY = LOCI_REGION_READONLY, &
       LOCI_SHARED = LOCI_REGION_SHARED  ! older names

  !> loci_target_info_t; name, kind and source are C strings: use loci_string().
  type, bind(c), public :: loci_target_info_t
     type(c_ptr) :: name, kind
     integer(c_int) :: numa_node
     integer(c_int64_t) :: capacity, available, bandwidth_mbps, latency_ns
     type(c_ptr) :: source
     integer(c_int) :: flags
  end type loci_target_info_t

  public :: loci_init, loci_fini, loci_last_error, loci_strerror, loci_string
  public :: loci_target_count, loci_target_at, loci_target_by_name, loci_target_info, loci_target_name
  public :: loci_allocator_create, loci_allocator_destroy, loci_alloc, loci_calloc, &
       loci_aligned_alloc, loci_free, loci_usable_size, loci_ptr_target
  public :: loci_arena_create, loci_arena_alloc, loci_arena_move, loci_ptr_arena, loci_arena_target, &
       loci_arena_destroy
  public :: loci_region_open, loci_region_sync, loci_region_close, loci_region_remove, &
       loci_region_size, loci_range_prefetch, loci_range_flush, loci_range_evict
  public :: loci_arena_of, loci_persist_open, loci_persist_sync, loci_persist_close, &
       loci_persist_remove, loci_persist_size, loci_nvm_prefetch, loci_nvm_flush, loci_nvm_evict  ! older names
  public :: loci_ckpt_register, loci_ckpt_unregister, loci_ckpt_save, loci_ckpt_restore, &
       loci_ckpt_verify, loci_ckpt_remove
  public :: loci_target_memory_tier, loci_topology_refresh, loci_target_gone

  ! ---- C functions taking no string: bound directly ----
  interface
     integer(c_int) function loci_init() bind(c, name="loci_init")
       import :: c_int
     end function loci_init
     subroutine loci_fini() bind(c, name="loci_fini")
     end subroutine loci_fini
     integer(c_int) function loci_target_count() bind(c, name="loci_target_count")
       import :: c_int
     end function loci_target_count
     type(c_ptr) function loci_target_at(index) bind(c, name="loci_target_at")
       import :: c_ptr, c_int
       integer(c_int), value :: index
     end function loci_target_at
     integer(c_int) function loci_target_info(t, out) bind(c, name="loci_target_info")
       import :: c_ptr, c_int, loci_target_info_t
       type(c_ptr), value :: t
       type(loci_target_info_t), intent(out) :: out
     end function loci_target_info
     subroutine loci_allocator_destroy(a) bind(c, name="loci_allocator_destroy")
       import :: c_ptr
       type(c_ptr), value :: a
     end subroutine loci_allocator_destroy
     type(c_ptr) function loci_alloc(a, size) bind(c, name="loci_alloc")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: a
       integer(c_size_t), value :: size
     end function loci_alloc
     type(c_ptr) function loci_calloc(a, n, size) bind(c, name="loci_calloc")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: a
       integer(c_size_t), value :: n, size
     end function loci_calloc
     type(c_ptr) function loci_aligned_alloc(a, alignment, size) bind(c, name="loci_aligned_alloc")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: a
       integer(c_size_t), value :: alignment, size
     end function loci_aligned_alloc
     subroutine loci_free(p) bind(c, name="loci_free")
       import :: c_ptr
       type(c_ptr), value :: p
     end subroutine loci_free
     integer(c_size_t) function loci_usable_size(p) bind(c, name="loci_usable_size")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: p
     end function loci_usable_size
     type(c_ptr) function loci_ptr_target(p) bind(c, name="loci_ptr_target")
       import :: c_ptr
       type(c_ptr), value :: p
     end function loci_ptr_target
     type(c_ptr) function loci_arena_alloc(ar, size) bind(c, name="loci_arena_alloc")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: ar
       integer(c_size_t), value :: size
     end function loci_arena_alloc
     integer(c_int) function loci_arena_move(ar, dst) bind(c, name="loci_arena_move")
       import :: c_ptr, c_int
       type(c_ptr), value :: ar, dst
     end function loci_arena_move
     type(c_ptr) function loci_ptr_arena(p) bind(c, name="loci_ptr_arena")
       import :: c_ptr
       type(c_ptr), value :: p
     end function loci_ptr_arena
     type(c_ptr) function loci_arena_target(ar) bind(c, name="loci_arena_target")
       import :: c_ptr
       type(c_ptr), value :: ar
     end function loci_arena_target
     subroutine loci_arena_destroy(ar) bind(c, name="loci_arena_destroy")
       import :: c_ptr
       type(c_ptr), value :: ar
     end subroutine loci_arena_destroy
     integer(c_int) function loci_region_sync(addr) bind(c, name="loci_region_sync")
       import :: c_ptr, c_int
       type(c_ptr), value :: addr
     end function loci_region_sync
     integer(c_int) function loci_region_close(addr) bind(c, name="loci_region_close")
       import :: c_ptr, c_int
       type(c_ptr), value :: addr
     end function loci_region_close
     integer(c_size_t) function loci_region_size(addr) bind(c, name="loci_region_size")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: addr
     end function loci_region_size
     integer(c_int) function loci_range_prefetch(addr, len) bind(c, name="loci_range_prefetch")
       import :: c_ptr, c_int, c_size_t
       type(c_ptr), value :: addr
       integer(c_size_t), value :: len
     end function loci_range_prefetch
     integer(c_int) function loci_range_flush(addr, len) bind(c, name="loci_range_flush")
       import :: c_ptr, c_int, c_size_t
       type(c_ptr), value :: addr
       integer(c_size_t), value :: len
     end function loci_range_flush
     integer(c_int) function loci_range_evict(addr, len) bind(c, name="loci_range_evict")
       import :: c_ptr, c_int, c_size_t
       type(c_ptr), value :: addr
       integer(c_size_t), value :: len
     end function loci_range_evict
     integer(c_int) function loci_topology_refresh() bind(c, name="loci_topology_refresh")
       import :: c_int
     end function loci_topology_refresh
  end interface

  ! ---- C functions taking or returning strings: wrapped below ----
  interface
     type(c_ptr) function c_last_error() bind(c, name="loci_last_error")
       import :: c_ptr
     end function c_last_error
     type(c_ptr) function c_strerror(code) bind(c, name="loci_strerror")
       import :: c_ptr, c_int
       integer(c_int), value :: code
     end function c_strerror
     integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
       import :: c_ptr, c_size_t
       type(c_ptr), value :: s
     end function c_strlen
     type(c_ptr) function c_target_by_name(name) bind(c, name="loci_target_by_name")
       import :: c_ptr, c_char
       character(kind=c_char), intent(in) :: name(*)
     end function c_target_by_name
     type(c_ptr) function c_allocator_create(intent) bind(c, name="loci_allocator_create")
       import :: c_ptr, c_char
       character(kind=c_char), intent(in) :: intent(*)
     end function c_allocator_create
     type(c_ptr) function c_arena_create(intent, max_bytes) bind(c, name="loci_arena_create")
       import :: c_ptr, c_char, c_size_t
       character(kind=c_char), intent(in) :: intent(*)
       integer(c_size_t), value :: max_bytes
     end function c_arena_create
     type(c_ptr) function c_region_open(name, size, intent, flags) bind(c, name="loci_region_open")
       import :: c_ptr, c_char, c_size_t, c_int
       character(kind=c_char), intent(in) :: name(*), intent(*)
       integer(c_size_t), value :: size
       integer(c_int), value :: flags
     end function c_region_open
     integer(c_int) function c_region_remove(name, intent) bind(c, name="loci_region_remove")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*), intent(*)
     end function c_region_remove
     integer(c_int) function c_ckpt_register(name, ptr, len) bind(c, name="loci_ckpt_register")
       import :: c_int, c_char, c_ptr, c_size_t
       character(kind=c_char), intent(in) :: name(*)
       type(c_ptr), value :: ptr
       integer(c_size_t), value :: len
     end function c_ckpt_register
     integer(c_int) function c_target_memory_tier(t, nodes, len, source) bind(c, name="loci_target_memory_tier")
       import :: c_int, c_ptr, c_char, c_size_t
       type(c_ptr), value :: t
       character(kind=c_char) :: nodes(*)
       integer(c_size_t), value :: len
       type(c_ptr) :: source
     end function c_target_memory_tier
     type(c_ptr) function c_target_gone(t) bind(c, name="loci_target_gone")
       import :: c_ptr
       type(c_ptr), value :: t
     end function c_target_gone
  end interface

  ! Checkpoint calls taking one name.
  interface
     integer(c_int) function c_ckpt_unregister(name) bind(c, name="loci_ckpt_unregister")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
     end function c_ckpt_unregister
     integer(c_int) function c_ckpt_save(name) bind(c, name="loci_ckpt_save")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
     end function c_ckpt_save
     integer(c_int) function c_ckpt_restore(name) bind(c, name="loci_ckpt_restore")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
     end function c_ckpt_restore
     integer(c_int) function c_ckpt_verify(name) bind(c, name="loci_ckpt_verify")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
     end function c_ckpt_verify
     integer(c_int) function c_ckpt_remove(name) bind(c, name="loci_ckpt_remove")
       import :: c_int, c_char
       character(kind=c_char), intent(in) :: name(*)
     end function c_ckpt_remove
  end interface

  ! ---- older names (include/loci.h, "Names"): generic names for the procedures above ----
  interface loci_arena_of
     procedure :: loci_ptr_arena
  end interface loci_arena_of
  interface loci_persist_open
     procedure :: loci_region_open
  end interface loci_persist_open
  interface loci_persist_sync
     procedure :: loci_region_sync
  end interface loci_persist_sync
  interface loci_persist_close
     procedure :: loci_region_close
  end interface loci_persist_close
  interface loci_persist_remove
     procedure :: loci_region_remove
  end interface loci_persist_remove
  interface loci_persist_size
     procedure :: loci_region_size
  end interface loci_persist_size
  interface loci_nvm_prefetch
     procedure :: loci_range_prefetch
  end interface loci_nvm_prefetch
  interface loci_nvm_flush
     procedure :: loci_range_flush
  end interface loci_nvm_flush
  interface loci_nvm_evict
     procedure :: loci_range_evict
  end interface loci_nvm_evict

contains

  !> A Fortran string argument as a NUL-terminated C string (trailing blanks dropped).
  pure function cstr(s) result(c)
    character(*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function cstr

  !> The C string at p as a Fortran string ("" for c_null_ptr).
  function loci_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
       s = ""
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function loci_string

  !> The calling thread's description of its last failure.
  function loci_last_error() result(s)
    character(:), allocatable :: s
    s = loci_string(c_last_error())
  end function loci_last_error

  function loci_strerror(code) result(s)
    integer(c_int), intent(in) :: code
    character(:), allocatable :: s
    s = loci_string(c_strerror(code))
  end function loci_strerror

  !> The stable name of target t ("dram0", "ssd0"...), "" for c_null_ptr.
  function loci_target_name(t) result(s)
    type(c_ptr), intent(in) :: t
    character(:), allocatable :: s
    type(loci_target_info_t) :: info
    s = ""
    if (loci_target_info(t, info) == LOCI_OK) s = loci_string(info%name)
  end function loci_target_name

  type(c_ptr) function loci_target_by_name(name)
    character(*), intent(in) :: name
    loci_target_by_name = c_target_by_name(cstr(name))
  end function loci_target_by_name

  !> An allocator for `intent` ("" = the calling thread's local DRAM).
  type(c_ptr) function loci_allocator_create(intent)
    character(*), intent(in) :: intent
    loci_allocator_create = c_allocator_create(cstr(intent))
  end function loci_allocator_create

  type(c_ptr) function loci_arena_create(intent, max_bytes)
    character(*), intent(in) :: intent
    integer(c_size_t), intent(in) :: max_bytes
    loci_arena_create = c_arena_create(cstr(intent), max_bytes)
  end function loci_arena_create

  !> Map persistent region `name`; intent "" = "persist" (the ssd0 tier).
  type(c_ptr) function loci_region_open(name, size, intent, flags)
    character(*), intent(in) :: name, intent
    integer(c_size_t), intent(in) :: size
    integer(c_int), intent(in) :: flags
    loci_region_open = c_region_open(cstr(name), size, cstr(intent), flags)
  end function loci_region_open

  integer(c_int) function loci_region_remove(name, intent)
    character(*), intent(in) :: name, intent
    loci_region_remove = c_region_remove(cstr(name), cstr(intent))
  end function loci_region_remove

  !> Register the `len` bytes at `ptr` (e.g. c_loc(array)) as checkpoint variable `name`.
  integer(c_int) function loci_ckpt_register(name, ptr, len)
    character(*), intent(in) :: name
    type(c_ptr), intent(in) :: ptr
    integer(c_size_t), intent(in) :: len
    loci_ckpt_register = c_ckpt_register(cstr(name), ptr, len)
  end function loci_ckpt_register

  integer(c_int) function loci_ckpt_unregister(name)
    character(*), intent(in) :: name
    loci_ckpt_unregister = c_ckpt_unregister(cstr(name))
  end function loci_ckpt_unregister

  integer(c_int) function loci_ckpt_save(ckpt)
    character(*), intent(in) :: ckpt
    loci_ckpt_save = c_ckpt_save(cstr(ckpt))
  end function loci_ckpt_save

  integer(c_int) function loci_ckpt_restore(ckpt)
    character(*), intent(in) :: ckpt
    loci_ckpt_restore = c_ckpt_restore(cstr(ckpt))
  end function loci_ckpt_restore

  integer(c_int) function loci_ckpt_verify(ckpt)
    character(*), intent(in) :: ckpt
    loci_ckpt_verify = c_ckpt_verify(cstr(ckpt))
  end function loci_ckpt_verify

  integer(c_int) function loci_ckpt_remove(ckpt)
    character(*), intent(in) :: ckpt
    loci_ckpt_remove = c_ckpt_remove(cstr(ckpt))
  end function loci_ckpt_remove

  !> The kernel memory tier of target t's NUMA node (Linux 6.1+; larger is
  !> slower) or LOCI_ENOENT where none is known; the tier's nodes as a
  !> nodelist ("0-1") and where that came from ("os") when asked for.
  integer(c_int) function loci_target_memory_tier(t, nodes, source)
    type(c_ptr), intent(in) :: t
    character(:), allocatable, intent(out), optional :: nodes, source
    character(kind=c_char), target :: buf(256)
    type(c_ptr) :: src
    src = c_null_ptr
    loci_target_memory_tier = c_target_memory_tier(t, buf, size(buf, kind=c_size_t), src)
    if (present(nodes)) nodes = ""
    if (present(source)) source = loci_string(src)
    if (loci_target_memory_tier >= 0 .and. present(nodes)) nodes = loci_string(c_loc(buf))
  end function loci_target_memory_tier

  !> What happened to target t if it went away at run time, "" while it is here.
  function loci_target_gone(t) result(s)
    type(c_ptr), intent(in) :: t
    character(:), allocatable :: s
    s = loci_string(c_target_gone(t))
  end function loci_target_gone

end module loci
