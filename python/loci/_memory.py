"""Blocks of loci memory and the numpy arrays over them (zero-copy).

A Block owns one loci allocation (or one mapped persistent region). Arrays
are numpy views whose .base chain ends at the Block, so the memory is
released exactly when the last array or view referring to it is gone —
never while one can still reach it.
"""
import ctypes
import operator

import numpy as np

from . import _lib
from ._dlpack import DEVICE_CPU, check_device, data_type, export_dlpack

# numpy's own alignment for SIMD loads; loci blocks are at least this aligned.
ALIGNMENT = 64
_SIZE_MAX = ctypes.c_size_t(-1).value


def layout(shape, dtype):
    """Check a shape and dtype the way numpy would, but with loci's errors
    for what numpy would only report later: (shape tuple, dtype, byte count)."""
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"loci: dtype {dtype!r} is not a numpy dtype ({e})") from None
    if dt.hasobject:
        raise TypeError(f"loci: dtype {dt} holds Python objects; placed memory can only hold plain data")
    if dt.itemsize == 0:
        raise TypeError(f"loci: dtype {dt} has no size; give a sized dtype such as 'S8' or 'f8'")
    dims = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    out = []
    for d in dims:
        try:
            n = operator.index(d)
        except TypeError:
            raise TypeError(f"loci: shape {shape!r}: dimension {d!r} is a {type(d).__name__}, "
                            "not an integer") from None
        if n < 0:
            raise _lib.error(_lib.EINVAL, message=f"shape {shape!r}: dimension {n} is negative; "
                             "sizes must be >= 0")
        out.append(n)
    nbytes = dt.itemsize
    for n in out:
        nbytes *= n
    if nbytes > _SIZE_MAX or nbytes > np.iinfo(np.intp).max:
        raise _lib.error(_lib.ENOMEM, message=f"shape {shape!r} of {dt} needs {nbytes} bytes, more "
                         f"than an address space holds (at most {np.iinfo(np.intp).max})")
    return tuple(out), dt, nbytes


class Block:
    """One piece of loci memory. `release` is the C call that gives it back
    (loci_free, loci_region_close); `keep` is any object that must outlive
    it (the arena it was carved from)."""

    __slots__ = ("ptr", "nbytes", "shape", "dtype", "readonly", "_release", "_keep", "__weakref__")

    def __init__(self, ptr, nbytes, shape, dtype, release, keep=None, readonly=False):
        self.ptr, self.nbytes, self.shape, self.dtype = ptr, nbytes, shape, dtype
        self.readonly, self._release, self._keep = readonly, release, keep

    def __del__(self):
        if self.ptr:
            self._release(self.ptr)
            self.ptr = None

    @property
    def __array_interface__(self):
        return {"version": 3, "shape": (self.nbytes,), "typestr": "|u1",
                "data": (self.ptr, self.readonly)}

    def array(self):
        """The C-contiguous numpy array this block was made for (a new view each call)."""
        return np.asarray(self).view(self.dtype).reshape(self.shape)

    # DLPack: consumers (numpy.from_dlpack, torch, cupy, jax...) take the
    # block's array without a copy; the block lives until they release it.
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        dl_type = data_type(self.dtype)  # before any copy: an unsupported dtype costs nothing
        check_device(dl_device)
        if copy:
            # The consumer wants memory of its own (copy=True): a copy in ordinary
            # memory, flagged as one; copy=False or None shares the block.
            c = self.array().copy()
            return export_dlpack(c, c.ctypes.data, self.shape, dl_type, max_version, copied=True)
        return export_dlpack(self, self.ptr, self.shape, dl_type, max_version, readonly=self.readonly)

    def __dlpack_device__(self):
        return (DEVICE_CPU, 0)

    def __repr__(self):
        return f"<loci.Block {self.nbytes} bytes at {self.ptr:#x} as {self.dtype}{list(self.shape)}>"


def new_array(ptr, shape, dt, nbytes, release, keep=None, readonly=False):
    return Block(ptr, nbytes, shape, dt, release, keep, readonly).array()


def memory_of(obj):
    """`obj` as a numpy array over its own memory, never a copy: loci is asked
    about that memory's address, so a copy would answer for the wrong bytes.
    Takes numpy arrays, objects with the array interface or buffer protocol, and
    DLPack producers (torch or jax CPU tensors)."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__"):
        return np.asarray(obj)
    if hasattr(obj, "__dlpack__"):
        return np.from_dlpack(obj)
    try:
        memoryview(obj).release()
    except TypeError:
        raise TypeError(f"loci: a {type(obj).__name__} has no memory of its own that loci could name "
                        "(numpy would copy it); pass a numpy array, a buffer or a DLPack producer") from None
    return np.asarray(obj)


def data_range(array):
    """(address, length) of the bytes an array (or any buffer) spans, views
    with negative or zero strides included."""
    a = memory_of(array)
    lo = hi = a.__array_interface__["data"][0]
    if a.size == 0:
        return lo, 0
    for n, stride in zip(a.shape, a.strides):
        if stride < 0:
            lo += (n - 1) * stride
        else:
            hi += (n - 1) * stride
    return lo, hi + a.itemsize - lo


def block_of(array):
    """The loci Block an array or view refers to, or None."""
    obj = array
    while obj is not None:
        if isinstance(obj, Block):
            return obj
        obj = getattr(obj, "base", None)
    return None
