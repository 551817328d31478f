"""Memory targets (what `loci info` shows) and intent resolution."""
import ctypes

from . import _lib
from ._lib import lib
from ._memory import data_range


class Target:
    """A memory target: one NUMA node, file tier or GPU, as seen from the
    calling thread's initiator when it was looked up. Attributes mirror
    loci_target_info_t; `source` says where bandwidth/latency came from."""

    __slots__ = ("_handle", "name", "kind", "numa_node", "capacity", "available",
                 "bandwidth_mbps", "latency_ns", "source", "flags", "path", "cpus")

    def __init__(self, handle):
        info = _lib.TargetInfo()
        _lib.check(lib.loci_target_info(handle, ctypes.byref(info)), "loci_target_info")
        self._handle = handle
        self.name, self.kind = _lib.text(info.name), _lib.text(info.kind)
        self.numa_node, self.capacity, self.available = info.numa_node, info.capacity, info.available
        self.bandwidth_mbps, self.latency_ns = info.bandwidth_mbps, info.latency_ns
        self.source, self.flags = _lib.text(info.source), info.flags
        self.path = _lib.text(lib.loci_target_path(handle))
        buf = ctypes.create_string_buffer(1024)
        self.cpus = buf.value.decode() if lib.loci_target_cpus(handle, buf, len(buf)) >= 0 else ""

    persistent = property(lambda self: bool(self.flags & _lib.TARGET_PERSISTENT))
    shareable = property(lambda self: bool(self.flags & _lib.TARGET_SHAREABLE))
    cpu_accessible = property(lambda self: bool(self.flags & _lib.TARGET_CPU_ACCESSIBLE))
    gpu_accessible = property(lambda self: bool(self.flags & _lib.TARGET_GPU_ACCESSIBLE))
    simulated = property(lambda self: bool(self.flags & _lib.TARGET_SIMULATED),
                         doc="from an injected LOCI_TOPOLOGY: placement is recorded, not applied")

    def stats(self):
        """Counters of what loci placed here: bytes_in_use, bytes_peak, allocations, frees."""
        s = _lib.Stats()
        _lib.check(lib.loci_target_stats(self._handle, ctypes.byref(s)), "loci_target_stats")
        return {f: getattr(s, f) for f, _ in _lib.Stats._fields_}

    def __eq__(self, other):
        return isinstance(other, Target) and other._handle == self._handle

    def __hash__(self):
        return hash(self._handle)

    def __repr__(self):
        node = f" node {self.numa_node}" if self.numa_node >= 0 else ""
        return f"<loci.Target {self.name} ({self.kind}{node}, {self.capacity} bytes, {self.source})>"


def init():
    """Discover the machine now (every call does it lazily); raises for a bad
    LOCI_CONFIG or LOCI_TOPOLOGY with the file and line."""
    _lib.check(lib.loci_init(), "loci_init")


def targets():
    """Every memory target of this machine, in loci's order (NUMA nodes, file tiers, GPUs)."""
    n = _lib.check(lib.loci_target_count(), "loci_target_count")
    return [Target(_lib.check_ptr(lib.loci_target_at(i), "loci_target_at")) for i in range(n)]


def target(name):
    """The target called `name` ("dram0", "hbm1", "ssd0", "node:N"...); a Target is returned as is."""
    if isinstance(name, Target):
        return name
    return Target(_lib.check_ptr(lib.loci_target_by_name(_lib.encode(name, "target name")),
                                 "loci_target_by_name"))


def resolve(intent=None):
    """The targets `intent` resolves to from the calling thread, best first."""
    a = _lib.check_ptr(lib.loci_allocator_create(_lib.encode(intent, "intent")), "loci_allocator_create")
    try:
        n = _lib.check(lib.loci_allocator_targets(a, None, 0), "loci_allocator_targets")
        out = (ctypes.c_void_p * max(n, 1))()
        n = _lib.check(lib.loci_allocator_targets(a, out, n), "loci_allocator_targets")
        return [Target(out[i]) for i in range(n)]
    finally:
        lib.loci_allocator_destroy(a)


def initiator():
    """The NUMA node whose view of the machine the calling thread gets."""
    return _lib.check(lib.loci_initiator(), "loci_initiator")


def target_of(array):
    """The target the memory of `array` (any array or view of loci memory) lives on."""
    ptr, _ = data_range(array)
    return Target(_lib.check_ptr(lib.loci_ptr_target(ptr), "loci_ptr_target"))
