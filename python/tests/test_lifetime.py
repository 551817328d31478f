"""Memory lives exactly as long as something refers to it: arrays and views
outliving their creators stay valid, and nothing leaks once they are gone."""
import gc
import weakref

import numpy as np
import pytest

import loci
from conftest import numa_targets


def in_use(t):
    return t.stats()["bytes_in_use"]


@pytest.fixture
def dram():
    return numa_targets()[0]


def make_view(intent):
    a = loci.empty((100, 100), "f8", intent=intent)
    a[:] = np.arange(10000.0).reshape(100, 100)
    return a[10:20, ::3].T  # a strided view; `a` itself is gone on return


def test_views_outlive_the_array_that_made_them(dram):
    before = in_use(dram)
    v = make_view(f"target={dram.name}")
    gc.collect()
    assert in_use(dram) > before  # still allocated: v refers to it
    assert v[0, 0] == 1000.0 and v[33, 9] == 1999.0
    block = weakref.ref(loci.block_of(v))
    del v
    gc.collect()
    assert block() is None
    assert in_use(dram) == before


def test_no_leak_over_many_arrays(dram):
    before = in_use(dram)
    for i in range(2000):
        a = loci.zeros((i % 50 + 1, 7), "i2", intent=f"target={dram.name}")
        a[:] = i
        assert int(a[-1, -1]) == i
    del a
    assert in_use(dram) == before


def test_arena_arrays_outlive_the_arena(dram):
    before = in_use(dram)
    ar = loci.Arena(f"target={dram.name}!")
    x = ar.zeros(1 << 16, "u1")
    y = x[100:200]
    with ar:
        x[:] = 5
    del ar, x
    gc.collect()
    assert (y == 5).all()  # the arena's memory stays while y refers to it
    y[:] = 6
    assert (y == 6).all() and in_use(dram) > before
    del y
    gc.collect()
    assert in_use(dram) == before  # the arena went with its last array


def test_closed_arena_refuses_new_arrays_and_moves():
    ar = loci.Arena()
    ar.close()
    for use in (lambda: ar.empty(3), lambda: ar.zeros(3), lambda: ar.move("ssd0"), lambda: ar.target):
        with pytest.raises(loci.InvalidError, match="closed"):
            use()


def test_region_closes_with_its_last_array():
    a = loci.region("py-life", (1000,), "f4", create=True)
    a[:] = 2.5
    view = a[::10]
    del a
    with pytest.raises(loci.BusyError):  # still open through the view
        loci.remove_region("py-life")
    assert (view == 2.5).all()
    del view
    gc.collect()
    b = loci.region("py-life", (1000,), "f4", create=False)  # the data persisted
    assert (b == 2.5).all()
    del b
    loci.remove_region("py-life")
    with pytest.raises(loci.NotFoundError):
        loci.region("py-life", (1000,), "f4", create=False)


def test_dlpack_consumer_keeps_the_memory(dram):
    before = in_use(dram)
    exported = loci.dlpack_exported()
    a = loci.empty((3, 4), "i8", intent=f"target={dram.name}")
    a[:] = np.arange(12).reshape(3, 4)
    block = loci.block_of(a)
    assert block.__dlpack_device__() == (1, 0)
    c = np.from_dlpack(block)  # the block's own DLPack export
    n = np.from_dlpack(a)      # numpy's export of the array over the block
    assert c.__array_interface__["data"][0] == a.__array_interface__["data"][0] == block.ptr
    assert n.__array_interface__["data"][0] == block.ptr
    assert loci.dlpack_exported() == exported + 1
    a[2, 3] = 99  # one memory: the consumers see the store (numpy imports DLPack read-only)
    assert c[2, 3] == 99 and n[2, 3] == 99
    del a, block, n
    gc.collect()
    assert c.sum() == sum(range(11)) + 99 and in_use(dram) > before  # alive through the consumer
    del c
    gc.collect()
    assert loci.dlpack_exported() == exported and in_use(dram) == before


def test_unconsumed_dlpack_capsule_releases_its_tensor():
    exported = loci.dlpack_exported()
    block = loci.block_of(loci.zeros(10))
    capsule = block.__dlpack__()
    assert loci.dlpack_exported() == exported + 1
    del capsule
    assert loci.dlpack_exported() == exported


def test_checkpointed_array_is_kept_and_restored():
    a = loci.zeros(4096, "u8")
    a[:] = np.arange(4096)
    loci.checkpoint.register("py-life-a", a)
    ref = weakref.ref(loci.block_of(a))
    del a
    gc.collect()
    assert ref() is not None  # registered: kept alive
    loci.checkpoint.save("py-life")
    arr = ref().array()
    arr[:] = 0
    loci.checkpoint.restore("py-life")
    assert (arr == np.arange(4096)).all()
    loci.checkpoint.verify("py-life")
    assert "py-life" in [c.name for c in loci.checkpoint.list()]
    loci.checkpoint.unregister("py-life-a")
    loci.checkpoint.remove("py-life")
    loci.checkpoint.gc()
    del arr
    gc.collect()
    assert ref() is None
