#!/usr/bin/env python3
"""Summary and plot of bench/store/run.sh's shared part (NVMalloc Fig. 4 on agg0):
plot_shared.py store-shared.json store-shared.png. Medians over the pairs (and both clients)."""
import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

data = json.load(open(sys.argv[1]))
pairs = data["pairs"]
orders = [o for o in ("row", "column") if any(p["order"] == o for p in pairs)]
modes = ("shared", "private")


def cell(order, mode):
    ps = [p for p in pairs if p["order"] == order and p["mode"] == mode]
    clients = [c for p in ps for c in p["clients"]]
    b = clients[0]["n"] ** 2 * 8
    return {
        "client_s": statistics.median(c["seconds"] for c in clients),
        "dram_s": statistics.median(c["dram_seconds"] for c in clients),
        "wall_s": statistics.median(p["wall_seconds"] for p in ps),
        "read_x": statistics.median(c["store_read"] for c in clients) / b,
        "sent_x": statistics.median(p["osd_sent"] for p in ps) / b,
        "disk_x": statistics.median(p["osd_disk_read"] for p in ps) / b,
        "b_mib": b >> 20,
        "tile": clients[0]["tile"],
        "pairs": len(ps),
    }


cells = {(o, m): cell(o, m) for o in orders for m in modes}
print(f"\nsummary (load average {data['loadavg']} on {data['cpus']} CPUs): two client nodes at once, "
      f"B {cells[(orders[0], modes[0])]['b_mib']} MiB; medians of {cells[(orders[0], modes[0])]['pairs']} pair(s)")
print(f"  {'order':7s} {'B':8s} {'tile':>5s} {'client s':>9s} {'pair s':>8s} {'DRAM s':>7s} "
      f"{'client read':>12s} {'OSDs sent':>10s} {'OSD disk read':>14s}  (x size of B)")
for (o, m), c in cells.items():
    print(f"  {o:7s} {m:8s} {c['tile']:5d} {c['client_s']:9.3f} {c['wall_s']:8.3f} {c['dram_s']:7.3f} "
          f"{c['read_x']:11.2f}x {c['sent_x']:9.2f}x {c['disk_x']:13.2f}x")
made = {m["region"]: m["seconds"] for m in data["made"]}
copies = [made[r] for r in made if r != "fig4-shared"]
print(f"  B in the store: shared, one region written in {made['fig4-shared']:.2f} s; private, {len(copies)} regions "
      f"({len(copies)}x the space) written in {sum(copies):.2f} s")
for o in orders:
    s, p = cells[(o, "shared")], cells[(o, "private")]
    print(f"  {o}-major: shared / private time {s['client_s'] / p['client_s']:.2f}x, OSD disk reads "
          f"{s['disk_x']:.2f}x vs {p['disk_x']:.2f}x of B")

fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
w = 0.38
for k, m in enumerate(modes):
    xs = [i + (k - 0.5) * w for i in range(len(orders))]
    ax[0].bar(xs, [cells[(o, m)]["client_s"] for o in orders], w, label=f"B {m}")
    ax[1].bar(xs, [cells[(o, m)]["sent_x"] for o in orders], w, label=f"OSDs sent, B {m}", color=f"C{k}")
    ax[1].bar(xs, [cells[(o, m)]["disk_x"] for o in orders], w * 0.5, label=f"OSD disk read, B {m}",
              color=f"C{k}", edgecolor="black", hatch="//")
labels = [f"{o}-major, tile {cells[(o, 'shared')]['tile']}" for o in orders]
for a in ax:
    a.set_xticks(range(len(orders)))
    a.set_xticklabels(labels)
    a.legend(fontsize=8)
ax[0].set_ylabel("seconds per client (median)")
ax[0].set_title("Tiled multiply, 2 client nodes at once (NVMalloc Fig. 4)")
ax[1].set_ylabel("bytes per pair / size of B")
ax[1].set_title("What the OSD served and read from its disk")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
