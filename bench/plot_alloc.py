#!/usr/bin/env python3
"""Plot bench_alloc --json output: ns/op vs size (log x), one line per allocator,
one panel per thread count; below, loci's ratio to glibc and to mimalloc with
the goal lines (<= 1.0x glibc, <= 1.3x mimalloc, sizes up to 32 KiB).

usage: bench/plot_alloc.py RESULTS.json OUT.png
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "glibc": dict(color="#444444", marker="o"),
    "jemalloc": dict(color="#1f77b4", marker="s"),
    "mimalloc": dict(color="#2ca02c", marker="^"),
    "memkind": dict(color="#9467bd", marker="v"),
    "loci": dict(color="#d62728", marker="D", linewidth=2.2),
    "loci-bw": dict(color="#ff7f0e", marker="d", linestyle="--"),
    "glibc-aa": dict(color="#aaaaaa", marker=".", linestyle=":", linewidth=1),
}


def size_label(s):
    if s >= 1 << 20 and s % (1 << 20) == 0:
        return f"{s >> 20}M"
    if s >= 1024 and s % 1024 == 0:
        return f"{s >> 10}K"
    return str(s)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        d = json.load(f)
    cfg = d["config"]
    sizes, threads = cfg["sizes"], cfg["threads"]
    goal = cfg["goal"]
    status = {a["name"]: a["status"] for a in d["allocators"]}
    med = {}
    for r in d["results"]:
        med[(r["allocator"], r["threads"], r["size"])] = r["median_ns"]
    ratios = {(r["allocator"], r["threads"], r["size"]): r for r in d["ratios"]}

    fig, axes = plt.subplots(2, len(threads), figsize=(6.5 * len(threads), 9),
                             squeeze=False, sharex=True,
                             gridspec_kw=dict(height_ratios=[3, 2]))
    for col, t in enumerate(threads):
        ax = axes[0][col]
        for name, st in status.items():
            ys = [med.get((name, t, s)) for s in sizes]
            label = name if st == "ok" else f"{name} ({st.upper()})"
            if all(y is None for y in ys):
                ax.plot([], [], label=label, **STYLE.get(name, {}))
                continue
            ax.plot(sizes, [math.nan if y is None else y for y in ys], label=label,
                    **STYLE.get(name, {}))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{t} thread{'s' if t > 1 else ''} (each runs its own workload)")
        ax.set_ylabel("ns per operation (median)")
        ax.axvline(goal["max_size"], color="#999999", linestyle=":", linewidth=1)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)

        ax = axes[1][col]
        for name in ("loci", "loci-bw"):
            if name not in status:
                continue
            for key, other, ls in (("vs_glibc", "glibc", "-"), ("vs_mimalloc", "mimalloc", "--")):
                ys = [ratios.get((name, t, s), {}).get(key) for s in sizes]
                if all(y is None for y in ys):
                    continue
                ax.plot(sizes, [math.nan if y is None else y for y in ys],
                        label=f"{name} / {other}", color=STYLE[name]["color"],
                        marker=STYLE[name]["marker"], linestyle=ls,
                        alpha=1.0 if name == "loci" else 0.6)
        ys = [ratios.get(("glibc-aa", t, s), {}).get("vs_glibc") for s in sizes]
        if any(y is not None for y in ys):
            ax.plot(sizes, [math.nan if y is None else y for y in ys],
                    label="glibc-aa / glibc (A/A noise)", **STYLE["glibc-aa"])
        ax.axhline(goal["loci_vs_glibc_max"], color="#444444", linewidth=1,
                   label=f"goal: {goal['loci_vs_glibc_max']:g}x glibc")
        ax.axhline(goal["loci_vs_mimalloc_max"], color="#2ca02c", linewidth=1, linestyle="--",
                   label=f"goal: {goal['loci_vs_mimalloc_max']:g}x mimalloc")
        ax.axvline(goal["max_size"], color="#999999", linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([size_label(s) for s in sizes], rotation=45, fontsize=8)
        ax.set_xlabel("allocation size (bytes)")
        ax.set_ylabel("ratio of medians (lower is better)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)

    fig.suptitle(f"SharP 6.1 allocation workload: {cfg['ops']} ops/size/thread, "
                 f"{cfg['alloc_percent']}% alloc, touch={cfg['touch']}, "
                 f"median of {cfg['repeats']}\n{d['machine']['cpu_model']}, "
                 f"{d['machine']['nproc']} CPUs, kernel {d['machine']['kernel']}; "
                 f"goal region (dotted) up to {size_label(goal['max_size'])}B", fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)
    print(f"plot_alloc.py: wrote {sys.argv[2]}", file=sys.stderr)


if __name__ == "__main__":
    main()
