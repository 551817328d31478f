#!/usr/bin/env python3
"""Plot the MPI front-end benchmarks (bench/run-mpi.sh) into one PNG.

usage: plot.py RESULTS_DIR OUTPUT.png
Reads RESULTS_DIR/mpi-{alloc,put,bfs}-{openmpi,mpich}.txt (the tables the
benchmarks print) and draws: ns/op of MPI_Alloc_mem plain vs with
loci_intent; put bandwidth near=pe vs near=nic; BFS MTEPS per root.
"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MPIS = ("openmpi", "mpich")
UNITS = {"K": 1 << 10, "M": 1 << 20}


def rows(path):
    """Table rows whose first field is a size (8, 4K, 2M) or a root number."""
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path):
        f = line.split()
        if f and re.fullmatch(r"\d+[KM]?", f[0]) and len(f) >= 5:
            out.append(f)
    return out


def size(s):
    return int(s[:-1]) * UNITS[s[-1]] if s[-1] in UNITS else int(s)


def main():
    res, png = sys.argv[1], sys.argv[2]
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
    for mpi, style in zip(MPIS, ("-", "--")):
        r = rows(f"{res}/mpi-alloc-{mpi}.txt")
        if r:
            x = [size(f[0]) for f in r]
            ax[0].plot(x, [float(f[1]) for f in r], "k" + style, label=f"{mpi} plain")
            ax[0].plot(x, [float(f[3]) for f in r], "C0" + style, label=f"{mpi} loci_intent")
        r = rows(f"{res}/mpi-put-{mpi}.txt")
        if r:
            x = [size(f[0]) for f in r]
            ax[1].plot(x, [float(f[1]) for f in r], "C1" + style, label=f"{mpi} near=pe")
            ax[1].plot(x, [float(f[2]) for f in r], "C2" + style, label=f"{mpi} near=nic")
        r = rows(f"{res}/mpi-bfs-{mpi}.txt")
        if r:
            ax[2].plot([float(f[3]) for f in r], [float(f[4]) for f in r], "o" if mpi == "openmpi" else "x",
                       label=mpi, alpha=0.7)
    ax[0].set(xscale="log", yscale="log", xlabel="block size (B)", ylabel="ns per operation (median)",
              title="MPI_Alloc_mem, SharP 6.1 workload")
    ax[1].set(xscale="log", yscale="log", xlabel="message size (B)", ylabel="MB/s (median)",
              title="MPI_Put bandwidth, 2 processes")
    lo, hi = ax[2].get_xlim()
    ax[2].plot([lo, hi], [lo, hi], "k:", linewidth=0.8)
    ax[2].set(xlabel="near=pe MTEPS", ylabel="near=nic MTEPS", title="BFS scale 16, one point per root")
    for a in ax:
        a.legend(fontsize=8)
        a.grid(True, alpha=0.3)
    fig.suptitle("loci MPI front end (one NUMA node: near=pe and near=nic are the same memory here)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
