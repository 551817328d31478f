"""Memory that comes and goes at run time (docs/PYTHON.md, docs/DISCOVERY.md):
loci.refresh() on an injected machine whose XML changes under the process,
Target.gone, and Target.memory_tier() against this machine's sysfs."""
import os
import shutil
import subprocess

import loci
from conftest import run_python, topology

CYCLE = r"""
import json, os, shutil, loci
machine = os.environ["LOCI_TOPOLOGY"]
cxl0 = loci.target("cxl0")
kept = loci.zeros(4096, "u1", intent="kind=cxl")
kept[:] = 7
out = {"before": cxl0.gone, "tier": cxl0.memory_tier(), "unchanged": loci.refresh()}
shutil.copy(os.environ["WITHOUT"], machine)       # its memory is offlined
out["changes"] = loci.refresh()
out["gone"] = cxl0.gone
out["flagged"] = bool(loci.target("cxl0").flags & (1 << 7))
out["ranked"] = [t.name for t in loci.resolve("capacity=large")]
try:
    loci.zeros(4096, "u1", intent="kind=cxl!")
except loci.LociError as e:
    out["refused"] = [e.code, e.message]
out["kept"] = int(kept.sum())
shutil.copy(os.environ["WITH"], machine)          # and onlined again
out["back"] = [loci.refresh(), cxl0.gone]
print(json.dumps(out))
"""


def test_refresh_follows_a_node_that_goes_and_comes_back(tmp_path):
    machine, without = tmp_path / "machine.xml", tmp_path / "without-cxl.xml"
    shutil.copy(topology("cxl-expander.xml"), machine)
    subprocess.run(["lstopo-no-graphics", "-i", str(machine), "--restrict", "nodeset=0x1", "--of", "xml",
                    str(without)], check=True)
    out = run_python(CYCLE, LOCI_TOPOLOGY=str(machine), WITHOUT=str(without), WITH=topology("cxl-expander.xml"))
    assert out["before"] is None
    assert out["tier"] is None  # an injected machine has no kernel memory tiers
    assert out["unchanged"] == 0
    assert out["changes"] == 1
    assert "NUMA node 1 has no memory online" in out["gone"]
    assert out["flagged"]
    assert "cxl0" not in out["ranked"]
    assert out["refused"][0] == -12  # LOCI_ENODEV
    assert "cxl0" in out["refused"][1] and "went away" in out["refused"][1]
    assert out["kept"] == 7 * 4096
    assert out["back"] == [1, None]


def test_memory_tier_is_what_sysfs_says():
    tiers = "/sys/devices/virtual/memory_tiering"
    for t in loci.targets():
        tier = t.memory_tier()
        if t.numa_node < 0 or t.simulated or not os.path.isdir(tiers):
            assert tier is None, t
            continue
        n, nodes, source = tier
        with open(f"{tiers}/memory_tier{n}/nodelist") as f:
            assert f.read().strip() == nodes
        assert source == "os"


def test_refresh_on_this_machine_changes_nothing():
    """A refresh finds the targets this machine had: none appeared or went away, each under its
    name. What it may count on a shared machine is a capacity the machine itself changed (memory
    hot-added to a node, a file system grown): every change it reports must be one of those."""
    def snapshot():
        return [(t.name, t.kind, t.numa_node, t.path, t.capacity) for t in loci.targets()]
    before = snapshot()
    changes = loci.refresh()
    after = snapshot()
    assert [t[:4] for t in after] == [t[:4] for t in before]
    assert all(t.gone is None for t in loci.targets())
    resized = [(b[0], b[4], a[4]) for b, a in zip(before, after) if a[4] != b[4]]
    assert changes == len(resized), f"refresh reported {changes} change(s); capacities that changed: {resized}"
