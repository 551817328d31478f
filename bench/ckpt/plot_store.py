#!/usr/bin/env python3
"""Summary and plot of bench/ckpt/run-store.sh:
plot_store.py ckpt-store-table.json ckpt-store-loop.json ckpt-store.png.
Prints the goals of issue 14 section 5 with the measured figures (medians)."""
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

data, loop_data = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = [r for d in (data, loop_data) for part in d["parts"] for r in part["rows"]]
table = [r for r in rows if r["part"] == "table"]
loops = [r for r in rows if r["part"] == "loop"]
restarts = [r for r in rows if r["part"] == "restart"]
sizes = sorted({r["ssd_bytes"] for r in table})
dram = next(r for r in loops if r["mode"] == "off")["dram_bytes"]
GiB, MB = 1 << 30, 1e6


def step(size, name):
    return next(r for r in table if r["ssd_bytes"] == size and r["step"] == name)


print(f"\nsummary (load average at the end of the parts: table {data['loadavg']}, loop {loop_data['loadavg']}; "
      f"{data['cpus']} CPUs)")
print("  Table VIII on agg0 (a DRAM variable + a store region):")
print(f"  {'region':>9s} {'first s':>8s} {'unchanged s':>12s} {'OSDs received':>14s} {'full copy s':>12s} "
      f"{'copy received':>14s} {'rados bench s':>14s} {'unchanged/copy':>15s}")
same_t, same_b, copy_t, ideal_t = [], [], [], []
for s in sizes:
    f, u, c = step(s, "first save"), step(s, "unchanged"), step(s, "full copy")
    ideal = c["written"] / (data["rados_write_mbps"] * MB)
    same_t.append(u["seconds"])
    same_b.append(u["osd_received"])
    copy_t.append(c["seconds"])
    ideal_t.append(ideal)
    print(f"  {s / GiB:8.2f}G {f['seconds']:8.3f} {u['seconds']:12.3f} {u['osd_received']:14d} {c['seconds']:12.3f} "
          f"{c['osd_received']:14d} {ideal:14.3f} {u['seconds'] / c['seconds']:14.4f}x")
flat = same_t[-1] / same_t[0]
worst = max(b / step(s, "full copy")["written"] for b, s in zip(same_b, sizes))
print(f"  unchanged save: OSDs received at most {max(same_b)} B ({worst * 100:.3f} % of a full copy; the manifest, "
      f"no chunk data): goal ~0: {'met' if worst < 1e-3 else 'MISSED'}")
if len(sizes) > 1:
    print(f"  unchanged save time, largest / smallest region ({sizes[-1] / sizes[0]:.0f}x the data): {flat:.2f}x "
          f"(goal <= 1.1x): {'met' if flat <= 1.1 else 'MISSED'}")


def med(mode, key):
    return statistics.median(r[key] for r in loops if r["mode"] == mode)


off, l1, dr = med("off", "seconds"), med("l1", "seconds"), med("drain", "seconds")
drw = med("drain", "wait_seconds")
ex = next(r for r in loops if r["mode"] == "drain")
print(f"  loop ({dram >> 20} MiB state, {ex['iters']} iterations, {ex['saves']} checkpoints): off {off:.2f} s, "
      f"level 1 {l1:.2f} s (+{(l1 / off - 1) * 100:.1f} %), level 1 + drain {dr:.2f} s "
      f"(+{(dr / off - 1) * 100:.1f} %; goal <= 5 %: {'met' if dr / off <= 1.05 else 'MISSED'}), "
      f"then the last drain's wait {drw:.2f} s")
print(f"  the saves themselves (inside the loop): level 1 {med('l1', 'save_seconds'):.2f} s "
      f"({med('l1', 'save_seconds') / off * 100:.1f} % of off), with the drain {med('drain', 'save_seconds'):.2f} s "
      f"({med('drain', 'save_seconds') / off * 100:.1f} %)")
rs = statistics.median(r["seconds"] for r in restarts)
print(f"  restart on another node from level 2 only: {rs:.2f} s for {dram >> 20} MiB "
      f"({dram / rs / MB:.0f} MB/s), bit-exact")

fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
gib = [s / GiB for s in sizes]
ax[0].plot(gib, same_t, "o-", label="loci, unchanged data")
ax[0].plot(gib, [step(s, "first save")["seconds"] for s in sizes], "s-", label="loci, first save")
ax[0].plot(gib, copy_t, "^-", color="grey", label="full copy into a store region")
ax[0].plot(gib, ideal_t, ":", color="grey", label="full copy at rados bench write speed")
ax[0].set_xscale("log", base=2)
ax[0].set_yscale("log")
ax[0].set_xlabel(f"store region, GiB (+ {(step(sizes[0], 'full copy')['written'] - sizes[0]) >> 20} MiB DRAM variable)")
ax[0].set_ylabel("seconds")
ax[0].set_title("Table VIII on agg0: checkpoint time")
ax[0].legend(fontsize=8)
ax[1].bar([f"{g:g}" for g in gib], [b / 1024 for b in same_b], label="unchanged save")
ax[1].set_xlabel("store region, GiB")
ax[1].set_ylabel("KiB the OSD received (the manifest)")
ax[1].set_title("Second checkpoint of unchanged data")
for x, s in enumerate(sizes):
    ax[1].annotate(f"copy: {step(s, 'full copy')['osd_received'] / GiB:.2f} GiB", (x, 0), ha="center",
                   va="bottom", fontsize=7, rotation=90, xytext=(0, 4), textcoords="offset points")
ax[2].bar(["off", "level 1", "level 1\n+ drain"], [off, l1, dr], color=["grey", "C0", "C1"])
ax[2].bar(["level 1\n+ drain"], [drw], bottom=[dr], color="C1", alpha=0.4, label="waiting for the last drain")
ax[2].axhline(off * 1.05, color="red", ls="--", label="goal: off + 5 %")
ax[2].set_ylabel("seconds (median)")
ax[2].set_title(f"Application loop, {ex['saves']} checkpoints")
ax[2].legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[3], dpi=100)
