#!/usr/bin/env bash
# The store at the store's best (issues 30, 40), one line: a sequential writer and reader of a
# store region far larger than its cache (bench_nvm --store --only s: 1 GiB region, 64 MiB cache,
# 256 KiB chunks in the store's objects, 4 MiB by default; --quick 256 MiB / 16 MiB) beside
# `rados bench write` / `seq` at rados bench's own default (4 MiB objects, 16 in flight) and, as a
# second column, with objects of loci's chunk size (the baseline before issue 40), on one
# throw-away loopback cluster (scripts/store-cluster.sh), rounds interleaved, medians.
# CPU s/GB: loci's is its process' (getrusage, all threads); rados bench's is the child's user +
# sys as time(1) reports them, per GB it moved. Then, on the same cluster, the byte counts
# beside it (not with --quick or --no-bytes): NVMalloc's Table VII on the store (bench_nvm --store
# --only a: bytes the OSDs received per page dirtied; WRITES=N for fewer than 131072 writes), and
# what an unchanged checkpoint of a 128 MiB store region sends to the OSDs (bench_ckpt --store
# table --sizes 0.125).
#   bench/store/seq.sh [--quick] [--osds N] [--rounds N] [--chunk 256KiB|2MiB...] [--object SIZE]
#                      [--baseline BENCH_NVM] [--no-bytes]
# --chunk: loci's chunk (256KiB). --object: loci's objects (default: the store's, 4 MiB).
# --baseline: another build's bench_nvm (before a change) runs in each round too, right before
# this build's, so that before and after meet the same cluster and load.
# Prints a table and writes bench/results/store-seq.{json,txt}. Needs root and Ceph; builds
# nothing (BUILD_DIR, default build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_nvm ckpt=$build/bench/bench_ckpt cluster=$root/scripts/store-cluster.sh
[[ -x $exe ]] || { echo "seq.sh: $exe not found; build with -DLOCI_BUILD_BENCH=ON first" >&2; exit 2; }
quick=() osds=3 rounds=3 secs=20 baseline= chunk=256KiB chunk_arg=() object_arg=() bytes=1 # (a --baseline from before --chunk takes none)
while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) quick=(--quick); rounds=1; secs=5; bytes=; shift ;;
    --no-bytes) bytes=; shift ;;
    --object) object_arg=(--object "$2"); shift 2 ;;
    --osds) osds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --chunk) chunk=$2; chunk_arg=(--chunk "$2"); shift 2 ;;
    --baseline) baseline=$2; shift 2
                [[ -x $baseline ]] || { echo "seq.sh: --baseline $baseline is not an executable" >&2; exit 2; } ;;
    *) echo "usage: $0 [--quick] [--osds N] [--rounds N] [--chunk SIZE] [--object SIZE] [--baseline BENCH_NVM] [--no-bytes]" >&2; exit 2 ;;
    esac
done
case $chunk in
*KiB) chunk_bytes=$(( ${chunk%KiB} << 10 )) ;;
*MiB) chunk_bytes=$(( ${chunk%MiB} << 20 )) ;;
*) echo "seq.sh: --chunk $chunk: give KiB or MiB, e.g. 256KiB or 2MiB" >&2; exit 2 ;;
esac
[[ -z $bytes || -x $ckpt ]] || { echo "seq.sh: $ckpt not found (the unchanged checkpoint's bytes); --no-bytes skips it" >&2; exit 2; }
scratch=${SCRATCH:-/var/tmp/loci-bench-seq.$$}
mkdir -p "$scratch" "$root/bench/results"
chmod 700 "$scratch"
dir=$scratch/cluster running=
cleanup() { [[ -z $running ]] || "$cluster" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
say() { echo "seq.sh: $*" >&2; }

# rados bench MODE OBJECT_BYTES, 16 in flight (write: of objects of that size, which seq reads), under
# time(1): "MB/s CPU_s_per_GB"
rados_bench() {
    local out cpu size=() object=$2
    [[ $1 != write ]] || size=(-b "$object")
    out=$(/usr/bin/time -f '%U %S' -o "$scratch/time" timeout 300 rados -c "$dir/ceph.conf" -p loci \
          bench "$secs" "$1" "${size[@]}" -t 16 "${@:3}" 2>&1) || { echo "$out" >&2; say "rados bench $1 failed"; exit 1; }
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
    w=$(rados_bench write $((4 << 20)) --no-cleanup) # rados bench's default object
    s=$(rados_bench seq $((4 << 20)))
    timeout 300 rados -c "$dir/ceph.conf" -p loci cleanup >/dev/null
    wc=$(rados_bench write "$chunk_bytes" --no-cleanup) # objects of loci's chunk size
    sc=$(rados_bench seq "$chunk_bytes")
    timeout 300 rados -c "$dir/ceph.conf" -p loci cleanup >/dev/null
    before=null
    if [[ -n $baseline ]]; then
        "$baseline" --store "${quick[@]}" "${chunk_arg[@]}" --only s --repeats 1 --json "$scratch/b$r.json" >"$scratch/b$r.txt"
        grep -E '^  (write|read)' "$scratch/b$r.txt" | sed "s/^/round $r: baseline /" | tee -a "$txt"
        before=$(cat "$scratch/b$r.json")
    fi
    "$exe" --store "${quick[@]}" "${chunk_arg[@]}" "${object_arg[@]}" --only s --repeats 1 --json "$scratch/s$r.json" >"$scratch/s$r.txt"
    grep -E '^\(s\)|^  (write|read)' "$scratch/s$r.txt" | sed "s/^/round $r: /" | tee -a "$txt"
    echo "round $r: rados bench write $w, seq $s (MB/s CPU-s/GB; 4 MiB objects, 16 in flight)" | tee -a "$txt"
    echo "round $r: rados bench write $wc, seq $sc (MB/s CPU-s/GB; $chunk objects, 16 in flight)" | tee -a "$txt"
    rows+=("{\"round\": $r, \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"rados_write\": [${w/ /, }], \"rados_seq\": [${s/ /, }], \"rados_write_chunk\": [${wc/ /, }], \"rados_seq_chunk\": [${sc/ /, }], \"loci\": $(cat "$scratch/s$r.json"), \"baseline\": $before}")
done
bytes_json=null
if [[ -n $bytes ]]; then
    say "Table VII on the store: ${WRITES:-131072} random byte writes (load $(cut -d' ' -f1-3 /proc/loadavg))"
    "$exe" --store "${object_arg[@]}" --only a --writes "${WRITES:-131072}" --osd-bytes "$root/bench/store/pool.sh osd-bytes $dir" \
        --json "$scratch/a.json" >"$scratch/a.txt"
    grep -E '^\(a\)|^  (pages|  received)' "$scratch/a.txt" | tee -a "$txt"
    say "an unchanged checkpoint of a 128 MiB store region (load $(cut -d' ' -f1-3 /proc/loadavg))"
    mkdir -p -m 700 "$scratch/ckpt"
    LOCI_CKPT_DIR=$scratch/ckpt "$ckpt" --store table --sizes 0.125 --dram 8 --repeats 1 \
        --osd-bytes "$root/bench/store/pool.sh osd-bytes $dir" --json "$scratch/c.json" >"$scratch/c.txt"
    grep -E 'first save|unchanged' "$scratch/c.txt" | tee -a "$txt"
    bytes_json="{\"table_vii\": $(cat "$scratch/a.json"), \"unchanged_checkpoint\": $(cat "$scratch/c.json")}"
fi
{ echo "{\"osds\": $osds, \"quick\": $([[ ${#quick[@]} -gt 0 ]] && echo true || echo false), \"cpus\": $(nproc), \"chunk\": \"$chunk\", \"bytes\": $bytes_json, \"rounds\": ["
  (IFS=,; echo "${rows[*]}")
  echo "]}"; } >"$json"
python3 - "$json" <<'EOF' | tee -a "$txt"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
med = lambda xs: statistics.median(xs)
def loci(row, key, which="loci"):
    return med([next(x[key] for x in r[which]["rows"] if x["row"] == row) for r in d["rounds"]])
def rados(key):
    return med([r[key][0] for r in d["rounds"]]), med([r[key][1] for r in d["rounds"]])
rw, rs = rados("rados_write"), rados("rados_seq")            # 4 MiB objects: rados bench's default
cw, cs = rados("rados_write_chunk"), rados("rados_seq_chunk")  # objects of loci's chunk size
print(f"medians of {len(d['rounds'])} round(s), {d['osds']} OSD(s), {d['cpus']} CPUs; x rados: against rados bench's "
      f"default (4 MiB objects, 16 in flight); x {d['chunk']}: against objects of loci's chunk size")
# "less loop": loci's CPU per GB less its program's own loop (the same stores or loads and check
# over resident DRAM, which rados bench never runs), over rados bench's: the store path's cost.
print(f"  {'':22} {'MB/s':>8} {'CPU s/GB':>9} {'x rados MB/s':>13} {'x rados CPU':>12} {'less loop':>10} "
      f"{'x ' + d['chunk'] + ' MB/s':>15} {'CPU':>6}")
print(f"  {'rados bench write':22} {rw[0]:8.1f} {rw[1]:9.3f}")
print(f"  {'rados bench seq':22} {rs[0]:8.1f} {rs[1]:9.3f}")
print(f"  {'  ' + d['chunk'] + ' objects: write':22} {cw[0]:8.1f} {cw[1]:9.3f}")
print(f"  {'  ' + d['chunk'] + ' objects: seq':22} {cs[0]:8.1f} {cs[1]:9.3f}")
loop = {"write": loci("write loop alone", "cpu_s_per_gb"), "read": loci("read loop alone", "cpu_s_per_gb")}
print(f"  {'write loop alone':22} {'':8} {loop['write']:9.3f}")
print(f"  {'read loop alone':22} {'':8} {loop['read']:9.3f}")
for row, ref, chunk_ref in (("write 16x cache", rw, cw), ("write 4x cache", rw, cw), ("read 16x cache", rs, cs)):
    for label, which in (("loci " + row, "loci"), ("  baseline", "baseline")):
        if which == "baseline" and not d["rounds"][0].get("baseline"):
            continue
        m, c = loci(row, "mbps", which), loci(row, "cpu_s_per_gb", which)
        own = (c - loop[row.split()[0]]) / ref[1]
        print(f"  {label:22} {m:8.1f} {c:9.3f} {m / ref[0]:13.2f} {c / ref[1]:12.2f} {own:10.2f} "
              f"{m / chunk_ref[0]:15.2f} {c / chunk_ref[1]:6.2f}")
b = d.get("bytes")
if b:
    a = next(x for x in b["table_vii"]["rows"] if x.get("bench") == "randwrite")
    dirtied = a["dirtied_pages"] * 4096
    print(f"  Table VII on the store: {a['writes']} random byte writes, {a['dirtied_pages']} pages dirtied: loci wrote "
          f"{a['bytes_written'] / dirtied:.3f}x, the OSDs received {a['osd_bytes'] / dirtied:.3f}x the dirtied pages "
          f"(goal <= 1.01x)")
    for x in b["unchanged_checkpoint"]["rows"]:
        if x.get("step") == "unchanged":
            print(f"  unchanged checkpoint of a {x['ssd_bytes'] / 2**20:.0f} MiB store region: the OSDs received "
                  f"{x['osd_received']} B, the checkpoint wrote {x['written']} B (its manifest)")
EOF
