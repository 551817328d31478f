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

    @property
    def gone(self):
        """What happened to this target if it went away at run time (its memory
        offlined, its device reconfigured or removed: nothing is placed there
        any more), else None. Asked now, not when the Target was made."""
        return _lib.text(lib.loci_target_gone(self._handle))

    def memory_tier(self):
        """The kernel memory tier of this target's NUMA node (Linux 6.1+; a
        larger number is slower memory) as (tier, nodes of that tier as a
        nodelist like "0-1", source "os"), or None where none is known (not a
        NUMA node, an older kernel, an injected LOCI_TOPOLOGY)."""
        nodes, source = ctypes.create_string_buffer(256), ctypes.c_char_p()
        tier = lib.loci_target_memory_tier(self._handle, nodes, len(nodes), ctypes.byref(source))
        if tier == _lib.ENOENT:
            return None
        _lib.check(tier, "loci_target_memory_tier")
        return tier, nodes.value.decode(), _lib.text(source.value)

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


def refresh():
    """Discover the machine again now and merge what changed (memory onlined
    or offlined since, a device reconfigured): new targets are appended, those
    that went away stay listed with .gone set. A live machine does this by
    itself within about 2 s; returns how many targets changed."""
    return _lib.check(lib.loci_topology_refresh(), "loci_topology_refresh")


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
