#!/usr/bin/env python3
"""Plot bench_nvm --json output in four panels: (a) bytes written to the store
per dirty-tracking mode against the pages dirtied; (b) STREAM: SSD-array
bandwidth per placement and mode against the raw read bandwidth of the same
file; (c) matrix multiply time and store reads per tile, row vs column order;
(d) sort time per placement.

usage: bench/nvm/plot.py RESULTS.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(d, bench):
    return [r for r in d["rows"] if r["bench"] == bench]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        d = json.load(f)
    fig, ax = plt.subplots(2, 2, figsize=(13, 9))
    fig.suptitle("loci NVM partition: NVMalloc §IV on ssd0%s (kernel %s)"
                 % (" --quick" if d["quick"] else "", d["kernel"]))

    a = ax[0][0]
    rw = rows(d, "randwrite")
    if rw:
        labels = [r["tracking"] for r in rw]
        page = 4096
        written = [r["bytes_written"] / 1e6 for r in rw]
        dirtied = [r["dirtied_pages"] * page / 1e6 for r in rw]
        x = range(len(rw))
        a.bar([i - 0.2 for i in x], written, 0.4, label="written to the store")
        a.bar([i + 0.2 for i in x], dirtied, 0.4, label="pages dirtied x 4 KiB")
        a.set_yscale("log")
        a.set_xticks(list(x), ["dirty %s" % t for t in labels])
        a.set_ylabel("MB")
        a.set_title("(a) %d random byte writes, %d MiB region, %d MiB cache"
                    % (rw[0]["writes"], rw[0]["region"] >> 20, rw[0]["cache"] >> 20))
        a.legend()

    b = ax[0][1]
    st = [r for r in rows(d, "stream") if r["mode"] != "dram"]
    if st:
        for mode, color in (("mmap", "#1f77b4"), ("paged", "#d62728")):
            sel = [r for r in st if r["mode"] == mode]
            b.plot([r["ssd"] for r in sel], [r["ssd_mbps"] for r in sel], "o-", color=color,
                   label="ssd-%s: SSD arrays" % mode)
            b.plot([r["ssd"] for r in sel], [r["raw_read_mbps"] for r in sel], "x:", color=color,
                   label="ssd-%s: raw O_DIRECT read of the file" % mode)
        b.set_ylabel("MB/s")
        b.set_xlabel("arrays on the SSD")
        b.set_title("(b) STREAM triad, %d MiB arrays, cache %d MiB"
                    % (st[0]["array_bytes"] >> 20, st[0]["cache"] >> 20))
        b.legend(fontsize=8)

    c = ax[1][0]
    mm = rows(d, "matmul")
    if mm:
        for order, color in (("row", "#2ca02c"), ("column", "#9467bd")):
            sel = [r for r in mm if r["order"] == order]
            c.plot([r["tile"] for r in sel], [r["paged_seconds"] for r in sel], "o-", color=color,
                   label="%s-major, B paged" % order)
            c.plot([r["tile"] for r in sel], [r["dram_seconds"] for r in sel], "x:", color=color,
                   label="%s-major, B in DRAM" % order)
        c.set_xscale("log", base=2)
        c.set_yscale("log")
        c.set_xlabel("tile")
        c.set_ylabel("seconds")
        c.set_title("(c) tiled multiply, B %d x %d on the SSD" % (mm[0]["n"], mm[0]["n"]))
        c.legend(fontsize=8)

    e = ax[1][1]
    so = rows(d, "sort")
    if so:
        e.bar([r["on"] for r in so], [r["seconds"] for r in so], color=["#444444", "#1f77b4", "#d62728"])
        e.set_ylabel("seconds")
        e.set_title("(d) quicksort of %d MiB (cache %d MiB)" % (so[0]["bytes"] >> 20, so[0]["cache"] >> 20))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
