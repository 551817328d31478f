#!/usr/bin/env python3
"""Plot the OpenSHMEM front-end benchmarks (bench/shmem/run.sh) into one PNG.

usage: plot.py RESULTS_DIR OUTPUT.png
Reads RESULTS_DIR/shmem-{alloc,put,bfs}.txt (the tables the benchmarks
print): ns/op of shmem_malloc vs shmemx_partition_malloc (and loci_alloc);
put bandwidth into the default heap vs a partition; BFS MTEPS per root.
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def table(path):
    """Rows whose first field is a size (8, 4K, 2M) or a root number, as lists of fields."""
    with open(path) as f:
        return [l.split() for l in f if re.match(r"\s*\d+[KM]?\s+\d", l)]


def nbytes(s):
    return int(s[:-1]) << {"K": 10, "M": 20}[s[-1]] if s[-1] in "KM" else int(s)


def main():
    res, png = sys.argv[1], sys.argv[2]
    fig, (alloc, put, bfs) = plt.subplots(1, 3, figsize=(16, 4.5))
    rows = table(f"{res}/shmem-alloc.txt")
    x = [nbytes(r[0]) for r in rows]
    for col, name, style in ((2, "shmem_malloc", "k-"), (3, "shmemx_partition_malloc", "C0-"), (4, "loci_alloc", "C7:")):
        alloc.plot(x, [float(r[col]) for r in rows], style, label=name)
    alloc.set(xscale="log", yscale="log", xlabel="block size (B)", ylabel="ns per operation (median)",
              title="SharP 6.1 allocation workload, 1 PE")
    rows = table(f"{res}/shmem-put.txt")
    x = [nbytes(r[0]) for r in rows]
    put.plot(x, [float(r[1]) for r in rows], "k-", label="default heap")
    put.plot(x, [float(r[2]) for r in rows], "C1--", label="partition near=nic")
    put.set(xscale="log", yscale="log", xlabel="message size (B)", ylabel="MB/s (median)",
            title="shmem_putmem PE 0 -> 1")
    rows = table(f"{res}/shmem-bfs.txt")
    bfs.plot([float(r[3]) for r in rows], [float(r[4]) for r in rows], "o", alpha=0.7, label="one root")
    top = max(max(float(r[3]), float(r[4])) for r in rows)
    bfs.plot([0, top], [0, top], "k:", linewidth=0.8, label="equal")
    bfs.set(xlabel="default heap MTEPS", ylabel="partition MTEPS", title="BFS scale 16, 2 PEs")
    for a in (alloc, put, bfs):
        a.legend(fontsize=8)
        a.grid(True, alpha=0.3)
    fig.suptitle("loci OpenSHMEM partitions vs Open MPI's symmetric heap (one NUMA node here)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
