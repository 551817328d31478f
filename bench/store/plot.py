#!/usr/bin/env python3
"""Summary and plot of bench/store/run.sh: plot.py store.json store.png.
Prints the goals of issue 13 section 7 with the measured figures."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

data = json.load(open(sys.argv[1]))
runs = data["runs"]
one = runs[0]
rows = one["bench"]["rows"]
rw = next(r for r in rows if r["bench"] == "randwrite")
page = 4096
loci_x = rw["bytes_written"] / (rw["dirtied_pages"] * page)
osd_x = rw["osd_bytes"] / (rw["dirtied_pages"] * page)
bc = next(r for r in rows if r["bench"] == "stream" and r["ssd"] == "BC")
print(f"\nsummary (load average {data['loadavg']} on {data['cpus']} CPUs)")
print(f"  (a) {rw['writes']} random byte writes, {rw['region'] >> 20} MiB region, {rw['cache'] >> 20} MiB cache: "
      f"{rw['dirtied_pages']} pages dirtied; loci wrote {loci_x:.3f}x, the OSDs received {osd_x:.3f}x "
      f"(goal <= 1.01x; NVMalloc 1.08x): {'met' if osd_x <= 1.01 else 'MISSED'}")
print(f"  (b) triad, B and C on agg0: {bc['ssd_mbps']:.0f} MB/s of store arrays vs rados bench seq "
      f"{bc['raw_read_mbps']:.0f} MB/s = {bc['ssd_over_raw']:.2f}x (goal >= 0.8x): "
      f"{'met' if bc['ssd_over_raw'] >= 0.8 else 'MISSED'}; one 256 KiB reader (rados bench -t 1): "
      f"{one['rados_seq_t1_256k_mbps']} MB/s")
osds, mine, rados, rados1 = [], [], [], []
for run in runs:
    w = next(r for r in run["bench"]["rows"] if r["bench"] == "stream" and r["ssd"] == "A")
    osds.append(run["osds"])
    mine.append(w["ssd_mbps"])
    rados.append(run["rados_write_mbps"])
    rados1.append(run["rados_write_t1_256k_mbps"])
print("  (w) sequential write, MB/s:  OSDs  loci paged (x of 1 OSD)  rados bench 16x4MiB (x)  rados bench 1x256KiB (x)")
for n, m, r, r1 in zip(osds, mine, rados, rados1):
    print(f"                              {n:6d} {m:11.0f} {m / mine[0]:10.2f}x {r:15.0f} {r / rados[0]:8.2f}x "
          f"{r1:16.0f} {r1 / rados1[0]:8.2f}x")
eff = mine[-1] / (mine[0] * osds[-1])
print(f"      scaling efficiency at {osds[-1]} OSDs (loci): {eff * 100:.0f} % of linear (goal >= 90 %): "
      f"{'met' if eff >= 0.9 else 'MISSED'}")

fig, ax = plt.subplots(1, 3, figsize=(14, 4.2))
ax[0].bar(["loci wrote", "OSDs received", "NVMalloc"], [loci_x, osd_x, 1.08], color=["C0", "C1", "grey"])
ax[0].axhline(1.01, color="red", ls="--", label="goal 1.01x")
ax[0].set_ylabel("bytes per page-dirty event / 4 KiB")
ax[0].set_title(f"(a) {rw['writes']} random byte writes on agg0")
ax[0].set_ylim(0.9, 1.12)
ax[0].legend()
labels = ["triad (B, C on agg0)", "rados seq\n16 x 4 MiB", "rados seq\n1 x 256 KiB"]
vals = [bc["ssd_mbps"], bc["raw_read_mbps"], one["rados_seq_t1_256k_mbps"] or 0]
ax[1].bar(labels, vals, color=["C0", "grey", "lightgrey"])
ax[1].axhline(0.8 * bc["raw_read_mbps"], color="red", ls="--", label="goal 0.8x rados seq")
ax[1].set_ylabel("MB/s read from the store")
ax[1].set_title("(b) STREAM triad vs rados bench, 1 OSD")
ax[1].legend()
ax[2].plot(osds, mine, "o-", label="loci sequential paged write")
ax[2].plot(osds, rados, "s-", color="grey", label="rados bench write, 16 x 4 MiB")
ax[2].plot(osds, rados1, "^-", color="lightgrey", label="rados bench write, 1 x 256 KiB")
ax[2].plot(osds, [mine[0] * n for n in osds], ":", color="C0", label="linear (loci)")
ax[2].set_xticks(osds)
ax[2].set_xlabel("OSDs (loopback, replicas 1, one disk, 2 cores)")
ax[2].set_ylabel("MB/s")
ax[2].set_title("(w) write bandwidth vs OSDs")
ax[2].legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
