#!/usr/bin/env bash
# Issue 30's store figures, one line: a sequential writer and reader of a store region far larger
# than its cache (bench_nvm --store --only s: 1 GiB region, 64 MiB cache, 256 KiB chunks; --quick
# 256 MiB / 16 MiB) beside `rados bench write` / `seq` with the same object size and the same
# number in flight as loci keeps (16: its write-behind threads; its readahead's 4 batches of 4),
# on one throw-away loopback cluster (scripts/store-cluster.sh), rounds interleaved, medians.
# CPU s/GB: loci's is its process' (getrusage, all threads); rados bench's is the child's user +
# sys as time(1) reports them, per GB it moved.
#   bench/store/seq.sh [--quick] [--osds N] [--rounds N] [--chunk 256KiB|2MiB...] [--baseline BENCH_NVM]
# --chunk: loci's chunk and rados bench's object size (256KiB).
# --baseline: another build's bench_nvm (before a change) runs in each round too, right before
# this build's, so that before and after meet the same cluster and load.
# Prints a table and writes bench/results/store-seq.{json,txt}. Needs root and Ceph; builds
# nothing (BUILD_DIR, default build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_nvm cluster=$root/scripts/store-cluster.sh
[[ -x $exe ]] || { echo "seq.sh: $exe not found; build with -DLOCI_BUILD_BENCH=ON first" >&2; exit 2; }
quick=() osds=3 rounds=3 secs=20 baseline= chunk=256KiB chunk_arg=() # (a --baseline from before --chunk takes none)
while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) quick=(--quick); rounds=1; secs=5; shift ;;
    --osds) osds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --chunk) chunk=$2; chunk_arg=(--chunk "$2"); shift 2 ;;
    --baseline) baseline=$2; shift 2
                [[ -x $baseline ]] || { echo "seq.sh: --baseline $baseline is not an executable" >&2; exit 2; } ;;
    *) echo "usage: $0 [--quick] [--osds N] [--rounds N] [--chunk SIZE] [--baseline BENCH_NVM]" >&2; exit 2 ;;
    esac
done
case $chunk in
*KiB) object=$(( ${chunk%KiB} << 10 )) ;;
*MiB) object=$(( ${chunk%MiB} << 20 )) ;;
*) echo "seq.sh: --chunk $chunk: give KiB or MiB, e.g. 256KiB or 2MiB" >&2; exit 2 ;;
esac
scratch=${SCRATCH:-/var/tmp/loci-bench-seq.$$}
mkdir -p "$scratch" "$root/bench/results"
chmod 700 "$scratch"
dir=$scratch/cluster running=
cleanup() { [[ -z $running ]] || "$cluster" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
say() { echo "seq.sh: $*" >&2; }

# rados bench MODE, 16 in flight (write: of chunk-sized objects, which seq reads), under time(1):
# "MB/s CPU_s_per_GB"
rados_bench() {
    local out cpu size=()
    [[ $1 != write ]] || size=(-b "$object")
    out=$(/usr/bin/time -f '%U %S' -o "$scratch/time" timeout 300 rados -c "$dir/ceph.conf" -p loci \
          bench "$secs" "$1" "${size[@]}" -t 16 "${@:2}" 2>&1) || { echo "$out" >&2; say "rados bench $1 failed"; exit 1; }
    cpu=$(awk '{ print $1 + $2 }' "$scratch/time")
    echo "$out" | awk -v cpu="$cpu" -v object="$object" '
        /^Total (writes|reads) made:/ { n = $4 }
        /^Bandwidth \(MB\/sec\)/ { mbps = $3 * 1.048576 }
        END { if (!n || !mbps) exit 1; printf "%.1f %.3f\n", mbps, cpu / (n * object / 1e9) }'
}

say "cluster with $osds OSD(s) (loopback, replicas 1)"
"$cluster" start "$dir" --osds "$osds" --replicas 1 --osd-size 12G
running=$dir
export LOCI_CONFIG=$dir/loci.conf LOCI_STORE_DIR=$scratch/ssd LOCI_TOPOLOGY= LOCI_MEASURED=
txt=$root/bench/results/store-seq.txt json=$root/bench/results/store-seq.json
: >"$txt"
rows=()
for r in $(seq 1 "$rounds"); do
    say "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))"
    w=$(rados_bench write --no-cleanup)
    s=$(rados_bench seq)
    timeout 300 rados -c "$dir/ceph.conf" -p loci cleanup >/dev/null
    before=null
    if [[ -n $baseline ]]; then
        "$baseline" --store "${quick[@]}" "${chunk_arg[@]}" --only s --repeats 1 --json "$scratch/b$r.json" >"$scratch/b$r.txt"
        grep -E '^  (write|read)' "$scratch/b$r.txt" | sed "s/^/round $r: baseline /" | tee -a "$txt"
        before=$(cat "$scratch/b$r.json")
    fi
    "$exe" --store "${quick[@]}" "${chunk_arg[@]}" --only s --repeats 1 --json "$scratch/s$r.json" >"$scratch/s$r.txt"
    grep -E '^\(s\)|^  (write|read)' "$scratch/s$r.txt" | sed "s/^/round $r: /" | tee -a "$txt"
    echo "round $r: rados bench write $w, seq $s (MB/s CPU-s/GB; $chunk objects, 16 in flight)" | tee -a "$txt"
    rows+=("{\"round\": $r, \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"rados_write\": [${w/ /, }], \"rados_seq\": [${s/ /, }], \"loci\": $(cat "$scratch/s$r.json"), \"baseline\": $before}")
done
{ echo "{\"osds\": $osds, \"quick\": $([[ ${#quick[@]} -gt 0 ]] && echo true || echo false), \"cpus\": $(nproc), \"rounds\": ["
  (IFS=,; echo "${rows[*]}")
  echo "]}"; } >"$json"
python3 - "$json" <<'EOF' | tee -a "$txt"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
med = lambda xs: statistics.median(xs)
def loci(row, key, which="loci"):
    return med([next(x[key] for x in r[which]["rows"] if x["row"] == row) for r in d["rounds"]])
rw = [r["rados_write"] for r in d["rounds"]]; rs = [r["rados_seq"] for r in d["rounds"]]
rwm, rwc = med([x[0] for x in rw]), med([x[1] for x in rw])
rsm, rsc = med([x[0] for x in rs]), med([x[1] for x in rs])
print(f"medians of {len(d['rounds'])} round(s), {d['osds']} OSD(s), {d['cpus']} CPUs:")
# "x rados CPU less loop": loci's CPU per GB less its program's own loop (the same stores or loads and
# check over resident DRAM, which rados bench never runs), over rados bench's: the store path's cost.
print(f"  {'':18} {'MB/s':>8} {'CPU s/GB':>9} {'x rados MB/s':>13} {'x rados CPU':>12} {'x rados CPU less loop':>22}")
print(f"  {'rados bench write':18} {rwm:8.1f} {rwc:9.3f}")
print(f"  {'rados bench seq':18} {rsm:8.1f} {rsc:9.3f}")
loop = {"write": loci("write loop alone", "cpu_s_per_gb"), "read": loci("read loop alone", "cpu_s_per_gb")}
print(f"  {'write loop alone':18} {'':8} {loop['write']:9.3f}")
print(f"  {'read loop alone':18} {'':8} {loop['read']:9.3f}")
for row, ref, refc in (("write 16x cache", rwm, rwc), ("write 4x cache", rwm, rwc), ("read 16x cache", rsm, rsc)):
    for label, which in (("loci " + row, "loci"), ("  baseline", "baseline")):
        if which == "baseline" and not d["rounds"][0].get("baseline"):
            continue
        m, c = loci(row, "mbps", which), loci(row, "cpu_s_per_gb", which)
        own = (c - loop[row.split()[0]]) / refc
        print(f"  {label:18} {m:8.1f} {c:9.3f} {m / ref:13.2f} {c / refc:12.2f} {own:22.2f}")
EOF
