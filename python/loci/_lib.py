"""libloci.so through ctypes: loading, prototypes, and errors as exceptions.

ctypes releases the GIL around every call into a CDLL, so a long loci call
(an arena move, a checkpoint save, a flush) never stops other Python threads.
"""
import ctypes
import ctypes.util
import errno
import os

# ---------------------------------------------------------------- loading --


def _load():
    """LOCI_LIBRARY names the library explicitly (tests, uninstalled builds);
    otherwise the dynamic linker finds the installed libloci.so.0."""
    path = os.environ.get("LOCI_LIBRARY")
    candidates = [path] if path else [ctypes.util.find_library("loci"), "libloci.so.0", "libloci.so"]
    tried = []
    for name in candidates:
        if not name:
            continue
        try:
            return ctypes.CDLL(name, use_errno=True)
        except OSError as e:
            tried.append(f"{name}: {e}")
    raise ImportError(
        "loci: cannot load libloci ("
        + "; ".join(tried or ["not found"])
        + "). Install loci (cmake --install build) so the dynamic linker finds "
        "libloci.so.0, or set LOCI_LIBRARY=/path/to/libloci.so"
    )


lib = _load()

c_size = ctypes.c_size_t
c_ptr = ctypes.c_void_p
c_str = ctypes.c_char_p
c_int = ctypes.c_int
c_u64 = ctypes.c_uint64


class TargetInfo(ctypes.Structure):
    _fields_ = [
        ("name", c_str), ("kind", c_str), ("numa_node", c_int),
        ("capacity", c_u64), ("available", c_u64),
        ("bandwidth_mbps", c_u64), ("latency_ns", c_u64),
        ("source", c_str), ("flags", ctypes.c_uint),
    ]


class CkptInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 129), ("seq", c_u64), ("saved", ctypes.c_int64),
        ("vars", c_u64), ("bytes", c_u64), ("chunks", c_u64),
        ("levels", ctypes.c_uint), ("drain_pending", ctypes.c_int),
        ("store_bytes", c_u64), ("drained_bytes", c_u64),
    ]


class CkptGc(ctypes.Structure):
    _fields_ = [("chunks_kept", c_u64), ("chunks_removed", c_u64),
                ("bytes_removed", c_u64), ("temps_removed", c_u64),
                ("snaps_kept", c_u64), ("snaps_removed", c_u64),
                ("store_chunks_kept", c_u64), ("store_chunks_removed", c_u64)]


class Stats(ctypes.Structure):
    _fields_ = [("bytes_in_use", c_u64), ("bytes_peak", c_u64),
                ("allocations", c_u64), ("frees", c_u64)]


class TierStats(ctypes.Structure):
    _fields_ = [("bytes", c_u64), ("heat", ctypes.c_double), ("target", c_ptr),
                ("bytes_moved", c_u64), ("moves", c_u64)]


class TierTotals(ctypes.Structure):
    _fields_ = [("arenas", c_u64), ("bytes_promoted", c_u64), ("bytes_demoted", c_u64),
                ("bytes_pingpong", c_u64), ("moves", c_u64), ("intervals", c_u64),
                ("cpu_seconds", ctypes.c_double), ("source", c_str), ("paused", c_int)]


_PROTOTYPES = {
    # name: (restype, argtypes); the consistent names of include/loci.h ("Names")
    "loci_strerror": (c_str, [c_int]),
    "loci_last_error": (c_str, []),
    "loci_init": (c_int, []),
    "loci_target_count": (c_int, []),
    "loci_target_at": (c_ptr, [c_int]),
    "loci_target_by_name": (c_ptr, [c_str]),
    "loci_target_info": (c_int, [c_ptr, ctypes.POINTER(TargetInfo)]),
    "loci_target_path": (c_str, [c_ptr]),
    "loci_target_cpus": (c_int, [c_ptr, ctypes.c_char_p, c_size]),
    "loci_target_stats": (c_int, [c_ptr, ctypes.POINTER(Stats)]),
    "loci_target_memory_tier": (c_int, [c_ptr, ctypes.c_char_p, c_size, ctypes.POINTER(c_str)]),
    "loci_target_gone": (c_str, [c_ptr]),
    "loci_topology_refresh": (c_int, []),
    "loci_initiator": (c_int, []),
    "loci_allocator_create": (c_ptr, [c_str]),
    "loci_allocator_destroy": (None, [c_ptr]),
    "loci_allocator_targets": (c_int, [c_ptr, ctypes.POINTER(c_ptr), c_int]),
    "loci_allocator_intent": (c_str, [c_ptr]),
    "loci_aligned_alloc": (c_ptr, [c_ptr, c_size, c_size]),
    "loci_free": (None, [c_ptr]),
    "loci_usable_size": (c_size, [c_ptr]),
    "loci_ptr_target": (c_ptr, [c_ptr]),
    "loci_arena_create": (c_ptr, [c_str, c_size]),
    "loci_arena_aligned_alloc": (c_ptr, [c_ptr, c_size, c_size]),
    "loci_arena_move": (c_int, [c_ptr, c_ptr]),
    "loci_ptr_arena": (c_ptr, [c_ptr]),
    "loci_arena_target": (c_ptr, [c_ptr]),
    "loci_arena_stats": (c_int, [c_ptr, ctypes.POINTER(Stats)]),
    "loci_arena_destroy": (None, [c_ptr]),
    "loci_region_open": (c_ptr, [c_str, c_size, c_str, ctypes.c_uint]),
    "loci_region_sync": (c_int, [c_ptr]),
    "loci_region_close": (c_int, [c_ptr]),
    "loci_region_remove": (c_int, [c_str, c_str]),
    "loci_region_size": (c_size, [c_ptr]),
    "loci_range_prefetch": (c_int, [c_ptr, c_size]),
    "loci_range_flush": (c_int, [c_ptr, c_size]),
    "loci_range_evict": (c_int, [c_ptr, c_size]),
    "loci_ckpt_register": (c_int, [c_str, c_ptr, c_size]),
    "loci_ckpt_unregister": (c_int, [c_str]),
    "loci_ckpt_save": (c_int, [c_str]),
    "loci_ckpt_restore": (c_int, [c_str]),
    "loci_ckpt_verify": (c_int, [c_str]),
    "loci_ckpt_list": (c_int, [ctypes.POINTER(CkptInfo), c_int]),
    "loci_ckpt_remove": (c_int, [c_str]),
    "loci_ckpt_gc": (c_int, [ctypes.POINTER(CkptGc)]),
    "loci_tier_stats": (c_int, [c_ptr, ctypes.POINTER(TierStats)]),
    "loci_tier_totals": (c_int, [ctypes.POINTER(TierTotals)]),
}
for _name, (_res, _args) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype, _fn.argtypes = _res, _args

# Flags and codes of include/loci.h.
TARGET_PERSISTENT, TARGET_SHAREABLE, TARGET_CPU_ACCESSIBLE, TARGET_GPU_ACCESSIBLE, TARGET_SIMULATED = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4)
TARGET_GONE = 1 << 7
REGION_CREATE, REGION_READONLY, REGION_SHARED = 1 << 0, 1 << 1, 1 << 2
EINVAL, ENOMEM, ENOENT, ECONFIG, ETOPO, ENOTSUP, EPERM, EIO, EEXIST, EBUSY, ENOSPC, ENODEV = range(-1, -13, -1)

# errno set by pointer-returning functions -> LOCI_E* code
_FROM_ERRNO = {
    errno.EINVAL: EINVAL, errno.ENOMEM: ENOMEM, errno.ENOENT: ENOENT, errno.ENOTSUP: ENOTSUP,
    errno.EPERM: EPERM, errno.EIO: EIO, errno.EEXIST: EEXIST, errno.EBUSY: EBUSY,
    errno.ENOSPC: ENOSPC, errno.ENODEV: ENODEV,
}


def text(b):
    return b.decode() if b is not None else None


def encode(s, what):
    """A Python str argument as a C string; None stays NULL."""
    if s is None:
        return None
    if not isinstance(s, str):
        raise TypeError(f"loci: {what} must be a str, not {type(s).__name__}")
    if "\0" in s:
        raise ValueError(f"loci: {what} must not contain NUL characters: {s!r}")
    return s.encode()


# ----------------------------------------------------------------- errors --


class LociError(Exception):
    """A failed loci call: .code is the LOCI_E* code (negative), .message
    loci_last_error() — what was asked, what the machine has, what to change."""

    def __init__(self, code, message, call=None):
        self.code = code
        self.message = message
        self.call = call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{message} [{text(lib.loci_strerror(code))}]")


# Each also derives from the builtin exception Python code expects for it.
class InvalidError(LociError, ValueError):
    pass


class NoMemoryError(LociError, MemoryError):
    pass


class NotFoundError(LociError, LookupError):
    pass


class BusyError(LociError, BlockingIOError):
    pass


class ExistsError(LociError, FileExistsError):
    pass


_CLASSES = {EINVAL: InvalidError, ENOMEM: NoMemoryError, ENOENT: NotFoundError,
            EBUSY: BusyError, EEXIST: ExistsError}


def error(code, call=None, message=None):
    """The exception for LOCI_E* `code`, with loci_last_error() unless a message is given."""
    if message is None:
        message = text(lib.loci_last_error()) or text(lib.loci_strerror(code))
    return _CLASSES.get(code, LociError)(code, message, call)


def check(rc, call):
    """Raise for a negative int result, else return it."""
    if rc < 0:
        raise error(rc, call)
    return rc


def check_ptr(p, call):
    """Raise for a NULL pointer result (the code comes from errno)."""
    if not p:
        raise error(_FROM_ERRNO.get(ctypes.get_errno(), EINVAL), call)
    return p
