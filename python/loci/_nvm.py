"""Persistent named regions as numpy arrays; prefetch/flush/evict of file-tier memory."""
import numpy as np

from . import _lib
from ._lib import lib
from ._memory import data_range, layout, new_array


def region(name, shape=None, dtype=np.uint8, intent=None, create=True, readonly=False, shared=False):
    """The persistent region `name` as an array of `dtype` and `shape`.

    create: make it (zero-filled) when it does not exist. shape None opens an
    existing region whole, as a 1-D array. intent picks the file tier and mode
    (None: "persist", the ssd0 tier; "mode=paged" for loci's chunk cache).
    The region is synced and closed when the last array over it is gone; its
    file stays (remove_region deletes it)."""
    flags = ((_lib.REGION_CREATE if create else 0) | (_lib.REGION_READONLY if readonly else 0)
             | (_lib.REGION_SHARED if shared else 0))
    if shape is None:
        shape_, dt, nbytes = layout(0, dtype)
    else:
        shape_, dt, nbytes = layout(shape, dtype)
    ptr = _lib.check_ptr(lib.loci_region_open(_lib.encode(name, "region name"), nbytes,
                                              _lib.encode(intent, "intent"), flags), "loci_region_open")
    if shape is None:
        size = lib.loci_region_size(ptr)
        shape_, nbytes = (size // dt.itemsize,), size // dt.itemsize * dt.itemsize
    return new_array(ptr, shape_, dt, nbytes, lib.loci_region_close, readonly=readonly)


def remove_region(name, intent=None):
    """Delete region `name` of the tier `intent` resolves to (BusyError while open)."""
    _lib.check(lib.loci_region_remove(_lib.encode(name, "region name"), _lib.encode(intent, "intent")),
               "loci_region_remove")


def sync(array):
    """Make the region under `array` durable: what was written survives a crash."""
    ptr, _ = data_range(array)
    _lib.check(lib.loci_region_sync(ptr), "loci_region_sync")


def _range_call(fn, array):
    ptr, n = data_range(array)
    _lib.check(fn(ptr, n), fn.__name__)


def prefetch(array):
    """Read the memory of `array` into DRAM now (file tiers; nothing for DRAM)."""
    _range_call(lib.loci_range_prefetch, array)


def flush(array):
    """Write what changed in `array` back to its tier and make it durable."""
    _range_call(lib.loci_range_flush, array)


def evict(array):
    """Write `array` back and drop it from DRAM: the next access reads the tier."""
    _range_call(lib.loci_range_evict, array)
