"""numpy arrays in memory placed by intent, and arenas of them."""
import ctypes

from . import _lib, _tier
from ._lib import lib
from ._memory import ALIGNMENT, layout, new_array
from ._targets import Target, target


def _refuse_unless_cpu_accessible(ptr):
    """numpy dereferences its data: memory only a GPU reaches (a device's own
    memory, not a NUMA node) would crash the first access, so it is refused."""
    info = _lib.TargetInfo()
    t = lib.loci_ptr_target(ptr)
    if not t or lib.loci_target_info(t, ctypes.byref(info)) != 0 or info.flags & _lib.TARGET_CPU_ACCESSIBLE:
        return
    lib.loci_free(ptr)
    raise _lib.error(_lib.ENOTSUP, "loci.empty",
                     f"the intent resolved to {_lib.text(info.name)} ({_lib.text(info.kind)} memory), which "
                     "the CPU cannot access, so it cannot back a numpy array; add use=cpu to the intent")


def _alloc_block(alloc, handle, shape, dtype, zero, keep=None):
    shape, dt, nbytes = layout(shape, dtype)
    ptr = _lib.check_ptr(alloc(handle, max(ALIGNMENT, dt.alignment), nbytes), alloc.__name__)
    _refuse_unless_cpu_accessible(ptr)
    a = new_array(ptr, shape, dt, nbytes, lib.loci_free, keep)
    if zero and nbytes:
        ctypes.memset(ptr, 0, nbytes)  # a foreign call: the GIL is released meanwhile
    return a


def _allocate(shape, dtype, intent, zero):
    a = _lib.check_ptr(lib.loci_allocator_create(_lib.encode(intent, "intent")), "loci_allocator_create")
    try:
        return _alloc_block(lib.loci_aligned_alloc, a, shape, dtype, zero)
    finally:
        lib.loci_allocator_destroy(a)  # the handle only: its memory stays valid


def empty(shape, dtype=float, intent=None):
    """A new uninitialised C-contiguous array placed per `intent` (None or "":
    the calling thread's local DRAM). Its memory is loci's and is freed when
    the last array or view referring to it is gone."""
    return _allocate(shape, dtype, intent, zero=False)


def zeros(shape, dtype=float, intent=None):
    """As empty(), filled with zeros."""
    return _allocate(shape, dtype, intent, zero=True)


class _ArenaHandle:
    """Owns a loci_arena_t; destroyed when the Arena is closed and no array
    carved from it is left (each array's Block keeps this alive)."""

    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            lib.loci_arena_destroy(self.ptr)
            self.ptr = None


class Arena:
    """An arena (SICM): data that travels together, on one target at a time,
    moved as a whole with its addresses (so its arrays stay valid).

    close() (or leaving a `with` block) ends the arena for new arrays and
    moves; its memory is released when the last of its arrays is gone, so an
    array never refers to freed memory."""

    def __init__(self, intent=None, max_bytes=0):
        if not isinstance(max_bytes, int) or max_bytes < 0:
            raise _lib.error(_lib.EINVAL, "Arena",
                             f"max_bytes must be an int >= 0 (0 = unbounded), not {max_bytes!r}")
        ptr = _lib.check_ptr(lib.loci_arena_create(_lib.encode(intent, "intent"), max_bytes),
                             "loci_arena_create")
        self.intent = intent
        self._handle = _ArenaHandle(ptr)

    def _live(self, what):
        if self._handle is None:
            raise _lib.error(_lib.EINVAL, f"Arena.{what}",
                             f"the arena for intent {self.intent!r} is closed; create a new Arena")
        return self._handle

    def empty(self, shape, dtype=float):
        """A new uninitialised array in this arena (LociError when max_bytes would be passed)."""
        h = self._live("empty")
        return _alloc_block(lib.loci_arena_aligned_alloc, h.ptr, shape, dtype, False, h)

    def zeros(self, shape, dtype=float):
        h = self._live("zeros")
        return _alloc_block(lib.loci_arena_aligned_alloc, h.ptr, shape, dtype, True, h)

    def move(self, dst):
        """Move every page of the arena to target `dst` (a Target or a name),
        keeping addresses: its arrays see the same data, now on dst."""
        h = self._live("move")
        _lib.check(lib.loci_arena_move(h.ptr, target(dst)._handle), "loci_arena_move")

    @property
    def target(self):
        """The target the arena lives on now."""
        return Target(_lib.check_ptr(lib.loci_arena_target(self._live("target").ptr), "loci_arena_target"))

    @property
    def bytes_in_use(self):
        s = _lib.Stats()
        _lib.check(lib.loci_arena_stats(self._live("bytes_in_use").ptr, ctypes.byref(s)), "loci_arena_stats")
        return s.bytes_in_use

    def tier_stats(self):
        """What tiering knows of this arena (made with tier=auto in its intent;
        InvalidError otherwise): a TierStats of its bytes, heat, target and
        bytes moved."""
        return _tier.arena_stats(self._live("tier_stats").ptr)

    @property
    def closed(self):
        return self._handle is None

    def close(self):
        self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else f"on {self.target.name}"
        return f"<loci.Arena {self.intent!r} {state}>"
