#!/usr/bin/env python3
"""The plot of a bench/tiering run (run.sh: hot-set GUPS; redis.sh: Redis): per mode, the hot
set's residency on the fast node after each interval (GUPS: share of the hot arrays' pages;
Redis: access-weighted, the share of GETs whose value was on the fast node) and, for Redis, the
GETs per second — one line per run, the repeats of a mode in one colour.

    plot.py RESULTS.txt OUT.png
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def runs(path):
    """[(mode, [(interval, residency %, ops/s or None)])] in the file's order."""
    out, label = [], None
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] in ("alloc", "load"):
                label = w[1]
                out.append((label, []))
            elif w and w[0] == "interval" and out:
                kv = dict(zip(w[::1], w[1::1]))
                res = kv.get("residency_w", kv.get("residency", "0%")).rstrip("%")
                ops = kv.get("ops_per_s")
                out[-1][1].append((int(w[1]), float(res), float(ops) if ops else None))
    return [r for r in out if r[1]]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    data = runs(sys.argv[1])
    if not data:
        sys.exit(f"plot.py: no interval lines in {sys.argv[1]}")
    has_ops = any(p[2] is not None for _, pts in data for p in pts)
    fig, axes = plt.subplots(2 if has_ops else 1, 1, figsize=(10, 8 if has_ops else 5), sharex=True, squeeze=False)
    colours = {}
    for mode, pts in data:
        c = colours.setdefault(mode, f"C{len(colours) % 10}")
        first = sum(1 for m, _ in data[: data.index((mode, pts))] if m == mode) == 0
        x = [p[0] for p in pts]
        axes[0][0].plot(x, [p[1] for p in pts], color=c, lw=1.2, label=mode if first else None)
        if has_ops:
            axes[1][0].plot(x, [p[2] for p in pts], color=c, lw=1.2)
    axes[0][0].set_ylabel("hot set on the fast node (%)" if not has_ops else "GETs served from the fast node (%)")
    axes[0][0].set_ylim(-2, 102)
    axes[0][0].legend(fontsize=8, ncol=2)
    if has_ops:
        axes[1][0].set_ylabel("GETs per second")
    axes[-1][0].set_xlabel("interval (the popular set changes halfway)")
    axes[0][0].set_title(sys.argv[1].rsplit("/", 1)[-1])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
