"""Where loci puts numpy arrays: the node the kernel reports for each page,
and the ranking and recorded placement on injected reference machines."""
import numpy as np
import pytest

import loci
from conftest import PAGE, numa_targets, page_nodes, run_python, topology


@pytest.mark.parametrize("make", [loci.empty, loci.zeros])
def test_pages_land_on_the_numa_node_of_the_target(make):
    for t in numa_targets():
        a = make(64 * PAGE // 8, "f8", intent=f"target={t.name}!")
        a[:] = 1.5  # fault every page in
        assert loci.target_of(a) == t
        nodes = page_nodes(a)
        assert (nodes == t.numa_node).all(), f"{t.name}: pages on nodes {sorted(set(nodes))}"
        assert a.sum() == 1.5 * a.size


def test_every_view_names_its_target_and_its_bytes():
    dram = numa_targets()[0]
    a = loci.zeros((16, 32), "f8", intent=f"target={dram.name}")
    base, item, row = a.__array_interface__["data"][0], a.itemsize, a.strides[0]
    # (view, the bytes it spans); negative strides start below the view's data pointer
    views = [(a, (base, a.nbytes)), (a[::-1], (base, a.nbytes)), (a.T, (base, a.nbytes)),
             (a[::-1, ::-1], (base, a.nbytes)), (a[5:1:-1], (base + 2 * row, 4 * row)),
             (a[3, ::-2], (base + 3 * row + item, 31 * item)), (a[2:3, 4:5], (base + 2 * row + 4 * item, item)),
             (np.lib.stride_tricks.as_strided(a, (4, 8), (0, item)), (base, 8 * item)),
             (a[4:4], (a[4:4].__array_interface__["data"][0], 0))]
    for v, span in views:
        assert loci._memory.data_range(v) == span, (v.shape, v.strides)
        if v.size:
            assert loci.target_of(v) == dram


def test_arena_move_to_the_ssd_tier_and_back_keeps_addresses_and_bytes():
    dram = numa_targets()[0]
    with loci.Arena(f"target={dram.name}!") as ar:
        a = ar.empty((256, 1024), "i4")
        a[:] = np.arange(a.size, dtype="i4").reshape(a.shape)
        address = a.__array_interface__["data"][0]
        ar.move("ssd0")
        assert ar.target.name == "ssd0" and loci.target_of(a).name == "ssd0"
        ar.move(dram)
        assert loci.target_of(a) == dram
        assert a.__array_interface__["data"][0] == address
        assert (a == np.arange(a.size, dtype="i4").reshape(a.shape)).all()
        assert (page_nodes(a) == dram.numa_node).all()


def test_arena_moves_between_numa_nodes():
    ts = numa_targets()
    if len(ts) < 2:
        pytest.skip(f"this machine has {len(ts)} NUMA node(s): moving between nodes needs two "
                    "(tests/vm moves arenas between the nodes of a QEMU machine through the C API)")
    with loci.Arena(f"target={ts[0].name}!") as ar:
        a = ar.zeros(32 * PAGE, "u1")
        a[:] = 7
        ar.move(ts[1])
        assert (page_nodes(a) == ts[1].numa_node).all() and (a == 7).all()


# On an injected machine nothing is bound: the choice is recorded and the
# arrays are ordinary DRAM, so the same tests hold on any host.
SIMULATED = r'''
import json, loci
out = {"resolve": {}, "placed": {}}
for intent in ("bandwidth=high", "capacity=large,kind=cxl", "kind=hbm!", ""):
    try:
        out["resolve"][intent] = [t.name for t in loci.resolve(intent)]
    except loci.LociError as e:
        out["resolve"][intent] = str(e)
for intent in ("bandwidth=high", "kind=cxl!"):
    try:
        a = loci.zeros((1000,), "f8", intent=intent)
        a += 2
        t = loci.target_of(a)
        out["placed"][intent] = [t.name, t.kind, t.simulated, float(a.sum())]
    except loci.LociError as e:
        out["placed"][intent] = [type(e).__name__, e.message]
with loci.Arena("kind=hbm") as ar:
    b = ar.zeros(10, "i8")
    out["arena"] = [ar.target.name, loci.target_of(b).name]
print(json.dumps(out))
'''


def test_xeon_max_hbm_ranks_first_and_placement_is_recorded():
    out = run_python(SIMULATED, LOCI_TOPOLOGY=topology("xeonmax-2s.xml"))
    assert out["resolve"]["bandwidth=high"][0] == "hbm0"
    assert out["resolve"]["kind=hbm!"][0] == "hbm0"
    assert out["resolve"][""][0] == "dram0"
    assert out["placed"]["bandwidth=high"] == ["hbm0", "hbm", True, 2000.0]
    assert out["placed"]["kind=cxl!"][0] == "NotFoundError"
    assert "cxl" in out["placed"]["kind=cxl!"][1]
    assert out["arena"] == ["hbm0", "hbm0"]


def test_cxl_expander_large_capacity_goes_to_cxl():
    out = run_python(SIMULATED, LOCI_TOPOLOGY=topology("cxl-expander.xml"))
    assert out["resolve"]["capacity=large,kind=cxl"] == ["cxl0", "dram0"]
    assert out["placed"]["kind=cxl!"] == ["cxl0", "cxl", True, 2000.0]
    assert out["placed"]["bandwidth=high"][0] == "dram0"
    assert "hbm" in out["resolve"]["kind=hbm!"]  # an error message naming the missing kind


def test_targets_mirror_loci_info():
    ts = loci.targets()
    names = [t.name for t in ts]
    assert "ssd0" in names and any(t.kind == "dram" for t in ts)
    ssd = loci.target("ssd0")
    assert ssd.persistent and ssd.path and ssd.numa_node == -1
    for t in numa_targets():
        assert t.cpu_accessible and t.capacity > 0 and t.source
    assert loci.resolve("")[0].kind == "dram"
