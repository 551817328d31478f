"""DLPack both ways, under whichever numpy runs the tests (Debian's 1.24 and
pip's 2.x, tests/CMakeLists.txt): loci blocks consumed by numpy.from_dlpack
(versioned capsules, read-only flags, copy=), and arrays that came through
DLPack, or DLPack producers themselves, taken by loci's functions."""
import ctypes
import gc

import numpy as np
import pytest

import loci
from conftest import numa_targets

NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
# numpy.from_dlpack(x, copy=...) passes copy= on to x.__dlpack__ from numpy 2.1 on
FROM_DLPACK_COPY = np.lib.NumpyVersion(np.__version__) >= "2.1.0"

_api = ctypes.PyDLL(None)  # its own prototypes: loci._dlpack declares those of ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Producer:
    """A DLPack producer and nothing else (no array interface, no buffer), as
    a torch or jax tensor is to numpy; passes the consumer's arguments on,
    with `copy` forced when given (numpy < 2.1 cannot ask for a copy)."""

    def __init__(self, block, copy=None):
        self.block, self.copy = block, copy

    def __dlpack__(self, **kwargs):
        if self.copy is not None:
            kwargs["copy"] = self.copy
        return self.block.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.block.__dlpack_device__()


def address(a):
    return a.__array_interface__["data"][0]


def in_use(t):
    return t.stats()["bytes_in_use"]


def test_capsule_versioned_when_the_consumer_asks_for_dlpack_1():
    exported = loci.dlpack_exported()
    block = loci.block_of(loci.zeros((2, 3), "f4"))
    legacy, old, versioned = (block.__dlpack__(), block.__dlpack__(max_version=(0, 8)),
                              block.__dlpack__(max_version=(1, 2)))
    assert _api.PyCapsule_IsValid(legacy, b"dltensor") and _api.PyCapsule_IsValid(old, b"dltensor")
    assert _api.PyCapsule_IsValid(versioned, b"dltensor_versioned")
    assert loci.dlpack_exported() == exported + 3
    del legacy, old, versioned  # unconsumed: each capsule releases its tensor
    assert loci.dlpack_exported() == exported


def test_numpy_imports_a_block_shared_and_writable_from_numpy_2():
    a = loci.zeros((3, 4), "i8")
    c = np.from_dlpack(loci.block_of(a))
    assert address(c) == address(a) and c.shape == (3, 4) and c.dtype == np.int64
    # numpy 1.x imports every DLPack tensor read-only; numpy 2 reads the
    # versioned capsule's flags, and a block that is not read-only is writable
    assert c.flags.writeable == NUMPY2
    a[1, 2] = 7
    assert c[1, 2] == 7
    if NUMPY2:
        c[2, 3] = 9
        assert a[2, 3] == 9


def test_a_read_only_region_stays_read_only_through_dlpack():
    w = loci.region("py-dlpack-ro", (64,), "u1", create=True)
    w[:] = np.arange(64, dtype="u1")
    loci.sync(w)
    del w
    gc.collect()
    r = loci.region("py-dlpack-ro", (64,), "u1", create=False, readonly=True)
    c = np.from_dlpack(loci.block_of(r))  # writable would let numpy fault on a read-only mapping
    assert not c.flags.writeable and (c == np.arange(64)).all()
    del r, c
    gc.collect()
    loci.remove_region("py-dlpack-ro")


@pytest.mark.parametrize("through", ["producer", "numpy"])
def test_copy_true_gives_the_consumer_memory_of_its_own(through):
    if through == "numpy" and not FROM_DLPACK_COPY:
        pytest.skip(f"numpy {np.__version__}: from_dlpack(copy=) needs numpy >= 2.1 "
                    "(the 'producer' case asks for the copy on every numpy)")
    dram = numa_targets()[0]
    before, exported = in_use(dram), loci.dlpack_exported()
    a = loci.empty((4, 5), "f8", intent=f"target={dram.name}")
    a[:] = np.arange(20.0).reshape(4, 5)
    block = loci.block_of(a)
    c = np.from_dlpack(Producer(block, copy=True)) if through == "producer" else np.from_dlpack(block, copy=True)
    assert address(c) != block.ptr and (c == a).all()
    a[0, 0] = -1
    assert c[0, 0] == 0  # its own bytes
    del a, block
    gc.collect()
    assert in_use(dram) == before  # the copy does not keep the loci block
    assert c.sum() == sum(range(20))
    del c
    gc.collect()
    assert loci.dlpack_exported() == exported


def test_copy_false_shares_the_block():
    a = loci.zeros(10, "u2")
    kwargs = {"copy": False} if FROM_DLPACK_COPY else {}
    c = np.from_dlpack(Producer(loci.block_of(a), copy=False), **kwargs)
    assert address(c) == address(a)


def test_a_device_other_than_the_cpu_or_a_dtype_dlpack_lacks_is_refused():
    block = loci.block_of(loci.zeros(4))
    assert block.__dlpack_device__() == (1, 0)
    assert block.__dlpack__(dl_device=(1, 0)) is not None  # the CPU: fine
    with pytest.raises(BufferError, match=r"device \(2, 0\)"):
        block.__dlpack__(dl_device=(2, 0))  # kDLCUDA
    strings = loci.block_of(loci.zeros(4, "S8"))
    for copy in (None, True):
        with pytest.raises(BufferError, match="no type for dtype"):
            strings.__dlpack__(copy=copy)


def test_loci_takes_arrays_that_came_through_dlpack_and_producers():
    dram = numa_targets()[0]
    a = loci.zeros((64, 8), "i4", intent=f"target={dram.name}")
    block = loci.block_of(a)
    imported = np.from_dlpack(block)
    assert loci.target_of(imported) == dram
    assert loci.target_of(Producer(block)) == dram  # a producer with no array interface
    assert loci._memory.data_range(Producer(block)) == (block.ptr, block.nbytes)
    a[:] = 5
    loci.checkpoint.register("py-dlpack-var", Producer(block))  # the block's own bytes
    loci.checkpoint.save("py-dlpack")
    a[:] = 0
    loci.checkpoint.restore("py-dlpack")
    assert (a == 5).all()
    loci.checkpoint.unregister("py-dlpack-var")
    loci.checkpoint.remove("py-dlpack")
