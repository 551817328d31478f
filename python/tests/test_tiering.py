"""Automatic tiering seen from Python (docs/PYTHON.md "Tiering"): NumPy
arrays in tier=auto arenas on a simulated KNL (hbm0 first for
bandwidth=high; its budget two arenas), each arena's tier stats and the
process's totals, the data intact; a plain arena has no tier stats."""
import os

import pytest

import loci
from conftest import run_python, topology

CHILD = r"""
import json, time
import numpy as np
import loci
arenas = [loci.Arena("bandwidth=high,tier=auto") for _ in range(3)]
arrays = [ar.zeros((512, 1024), "f8") for ar in arenas]   # 4 MiB each
for i, a in enumerate(arrays):
    a[:] = i + 0.5
time.sleep(0.5)                                           # intervals of 50 ms
stats = [ar.tier_stats() for ar in arenas]
tot = loci.tier_totals()
plain = loci.Arena("bandwidth=high")
try:
    plain.tier_stats()
    refused = ""
except loci.InvalidError as e:
    refused = str(e)
print(json.dumps({
    "targets": [s.target.name for s in stats], "bytes": [s.bytes for s in stats],
    "heat": [s.heat for s in stats], "moved": [s.bytes_moved for s in stats],
    "intact": [bool((a == i + 0.5).all()) for i, a in enumerate(arrays)],
    "totals": {"arenas": tot.arenas, "intervals": tot.intervals, "source": tot.source,
               "cpu": tot.cpu_seconds, "promoted": tot.bytes_promoted, "paused": tot.paused},
    "refused": refused}))
"""


def test_auto_arenas_of_numpy_arrays_report_their_tiering(tmp_path):
    cfg = tmp_path / "tier.ini"
    cfg.write_text("[tiering]\ninterval = 50ms\n[target hbm0]\nnuma_node = 1\ntiering_budget = 8MiB\n")
    out = run_python(CHILD, LOCI_TOPOLOGY=topology("knl-flat.xml"), LOCI_CONFIG=str(cfg))
    # they start hbm0, hbm0, dram0; measured heat may have swapped them since, never past the budget
    assert sorted(out["targets"]) == ["dram0", "hbm0", "hbm0"]
    assert all(b >= 4 << 20 for b in out["bytes"])
    assert all(0 <= h <= 1 for h in out["heat"])
    assert all(out["intact"])
    tot = out["totals"]
    assert tot["arenas"] == 3
    assert tot["source"] in ("perf", "damon", "faults", "none")
    if tot["source"] != "none":
        assert tot["intervals"] >= 2 and tot["cpu"] > 0 and not tot["paused"]
    assert "is not a tier=auto arena" in out["refused"]


def test_tier_stats_of_a_closed_arena_is_refused():
    ar = loci.Arena("tier=auto")
    ar.close()
    with pytest.raises(loci.InvalidError, match="closed"):
        ar.tier_stats()
