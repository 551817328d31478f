"""Arrays on the SSD partition: flushed, evicted and read back from the tier, prefetched; regions' arrays name their target."""
import numpy as np
import pytest

import loci


@pytest.mark.parametrize("mode", ["mode=mmap", "mode=paged!,cache=512K,chunk=64K"])
def test_ssd_array_survives_flush_and_evict(mode):
    a = loci.zeros((1 << 20,), "u1", intent=f"target=ssd0!,{mode}")
    assert loci.target_of(a).name == "ssd0"
    expected = (np.arange(a.size) % 251).astype("u1")
    a[:] = expected
    loci.flush(a)
    loci.evict(a)          # out of DRAM: reading it again goes to the tier
    loci.prefetch(a[4096:65536])
    assert (a == expected).all()


def test_region_flush_and_sync_then_reopen_paged():
    r = loci.region("py-nvm", (1 << 18,), "i4", intent="mode=paged,chunk=64K", create=True)
    r[:] = np.arange(r.size, dtype="i4")
    loci.flush(r[1000:2000])
    loci.sync(r)
    del r
    again = loci.region("py-nvm", None, "i4", intent="mode=paged", create=False)
    assert again.size == 1 << 18 and (again == np.arange(1 << 18, dtype="i4")).all()
    del again
    loci.remove_region("py-nvm", "mode=paged")



@pytest.mark.parametrize("layout", ["mmap", "paged"])
def test_region_array_names_its_target(layout):
    name, mode = f"py-named-{layout}", f"mode={layout}"
    r = loci.region(name, (1 << 16,), "u8", intent=mode, create=True)
    try:
        assert loci.target_of(r).name == "ssd0"
        assert loci.target_of(r[1000:2000]).name == "ssd0"   # a view inside it
    finally:
        del r
        loci.remove_region(name, mode)
