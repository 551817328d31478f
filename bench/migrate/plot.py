#!/usr/bin/env python3
"""Plot bench_migrate --json output: per pair of nodes, (top) MB/s per thread
against the size for loci's move (copy and remap), loci's migrating move
(LOCI_ARENA_MOVE=migrate), memmove, one plain mbind(MPOL_MF_MOVE), and fresh
pages alone on the destination; (bottom) each one's throughput as a fraction
of memmove's, with the issue's goal of 0.5.

usage: bench/migrate/plot.py RESULTS.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [  # (key of the median, label, style)
    ("move_median_s", "loci move (copy + mremap)", "o-"),
    ("migrate_median_s", "loci move, LOCI_ARENA_MOVE=migrate", "s-"),
    ("memmove_median_s", "memmove", "k--"),
    ("mbind_median_s", "one plain mbind(MF_MOVE)", "^:"),
    ("fresh_median_s", "fresh pages alone (MADV_POPULATE_WRITE)", "x:"),
]


def label_size(b):
    return "%d GiB" % (b >> 30) if b >= 1 << 30 else "%d MiB" % (b >> 20) if b >= 1 << 20 else "%d KiB" % (b >> 10)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        d = json.load(f)
    pairs = []
    for r in d["rows"]:
        if (r["from"], r["to"]) not in pairs:
            pairs.append((r["from"], r["to"]))
    fig, ax = plt.subplots(2, len(pairs), figsize=(5 * len(pairs), 8), squeeze=False, sharex="col")
    fig.suptitle("loci arena moves in the tiers3 VM (QEMU TCG), medians of %d repeats" % d["repeats"])
    for c, (src, dst) in enumerate(pairs):
        rows = [r for r in d["rows"] if (r["from"], r["to"]) == (src, dst)]
        sizes = [r["bytes"] for r in rows]
        top, bottom = ax[0][c], ax[1][c]
        for key, label, style in SERIES:
            if key in rows[0]:
                top.plot(sizes, [r["bytes"] / r[key] / 1e6 for r in rows], style, label=label)
        top.set_title("%s → %s" % (src, dst))
        top.set_ylabel("MB/s per thread")
        top.set_xscale("log", base=2)
        top.set_yscale("log")
        top.grid(True, which="both", alpha=0.3)
        bottom.plot(sizes, [r["ratio"] for r in rows], "o-", label="loci move / memmove")
        if "migrate_ratio" in rows[0]:
            bottom.plot(sizes, [r["migrate_ratio"] for r in rows], "s-", label="migrating move / memmove")
        bottom.plot(sizes, [r["memmove_median_s"] / r["mbind_median_s"] for r in rows], "^:",
                    label="plain mbind / memmove")
        if "fresh_median_s" in rows[0]:
            bottom.plot(sizes, [r["memmove_median_s"] / r["fresh_median_s"] for r in rows], "x:",
                        label="fresh pages alone / memmove (the floor)")
        bottom.axhline(0.5, color="r", linestyle="--", label="goal (0.5)")
        bottom.set_ylabel("throughput / memmove's")
        bottom.set_xticks(sizes)
        bottom.set_xticklabels([label_size(s) for s in sizes], rotation=45)
        bottom.grid(True, alpha=0.3)
    ax[0][0].legend(fontsize=8)
    ax[1][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
