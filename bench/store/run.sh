#!/usr/bin/env bash
# The aggregate store benchmarks (issue 13 §7, docs/BENCHMARKS.md "Aggregate store"), one line:
#   bench/store/run.sh [--quick]
# On throw-away loopback Ceph clusters (scripts/store-cluster.sh, replicas 1) under a scratch
# directory (SCRATCH, default /var/tmp/loci-bench-store.PID), each fresh:
#   1 OSD:    bench_nvm --store parts a (random byte writes, bytes the OSDs received),
#             b (STREAM triad, B and C on agg0, vs rados bench seq) and w (sequential paged write),
#             beside rados bench write/seq (4 MiB objects, 16 in flight) and rados bench seq with
#             one 256 KiB object in flight (what one synchronous chunk reader can get);
#   2, 3 OSDs: part w beside rados bench write (scaling);
#   each: rados bench write with one 256 KiB object in flight (what one synchronous writer gets).
# Results: bench/results/store.{json,txt,png}. Needs root and Ceph (scripts/install-deps.sh);
# builds nothing (BUILD_DIR, default build). WRITES sets part a's writes (default 131072, --quick 4096).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_nvm cluster=$root/scripts/store-cluster.sh pool=$root/bench/store/pool.sh
[[ -x $exe ]] || { echo "run.sh: $exe not found; build first: cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2; exit 2; }
quick=() osds=(1 2 3) secs=5 writes=${WRITES:-131072}
if [[ ${1:-} = --quick ]]; then quick=(--quick); osds=(1 2); secs=2; writes=${WRITES:-4096}; fi
scratch=${SCRATCH:-/var/tmp/loci-bench-store.$$}
mkdir -p "$scratch" "$root/bench/results"
chmod 700 "$scratch"
running=
cleanup() { [[ -z $running ]] || "$cluster" stop "$running" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
txt=$root/bench/results/store.txt
: >"$txt"
say() { echo "run.sh: $*" >&2; }
runs=()
for n in "${osds[@]}"; do
    dir=$scratch/osd$n
    say "cluster with $n OSD(s) (loopback, replicas 1)"
    "$cluster" start "$dir" --osds "$n" --replicas 1 --osd-size 12G
    running=$dir
    export LOCI_CONFIG=$dir/loci.conf LOCI_STORE_DIR=$scratch/ssd LOCI_TOPOLOGY= LOCI_MEASURED=
    say "rados bench write ${secs} s ($n OSDs)"
    w=$("$pool" write "$dir" "$secs")
    seq=null seq1=null parts=w
    if [[ $n = 1 ]]; then
        say "rados bench seq ${secs} s"
        seq=$("$pool" seq "$dir" "$secs")
        parts=abw
    fi
    say "bench_nvm --store --only $parts ($n OSDs)"
    { echo; echo "=== $n OSD(s): rados bench write $w MB/s, seq $seq MB/s (4 MiB objects, 16 in flight)"; } | tee -a "$txt"
    "$exe" --store "${quick[@]}" --only "$parts" --writes "$writes" --json "$scratch/bench$n.json" \
        --osd-bytes "$pool osd-bytes $dir" --raw-read "$pool seq $dir 3" | tee -a "$txt"
    # One synchronous 256 KiB writer (reader): what the chunk cache's write-backs (fills) are.
    say "rados bench with one 256 KiB object in flight ($n OSDs)"
    "$pool" cleanup "$dir"
    w1=$("$pool" write "$dir" "$secs" -b 262144 -t 1)
    [[ $n != 1 ]] || seq1=$("$pool" seq "$dir" "$secs" -t 1)
    echo "=== $n OSD(s), one 256 KiB object in flight: rados bench write $w1 MB/s, seq $seq1 MB/s" | tee -a "$txt"
    runs+=("{\"osds\": $n, \"rados_write_mbps\": $w, \"rados_seq_mbps\": $seq, \"rados_write_t1_256k_mbps\": $w1, \"rados_seq_t1_256k_mbps\": $seq1, \"bench\": $(cat "$scratch/bench$n.json")}")
    "$cluster" stop "$dir"
    running=
    rm -rf "$dir"
done
json=$root/bench/results/store.json
{ echo "{\"quick\": $([[ ${#quick[@]} -gt 0 ]] && echo true || echo false), \"writes\": $writes, \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"cpus\": $(nproc), \"runs\": ["
  (IFS=,; echo "${runs[*]}")
  echo "]}"; } >"$json"
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import matplotlib' 2>/dev/null; then py=$cand; break; fi
done
[[ -n $py ]] || { say "*** no python3 with matplotlib (apt-get install python3-matplotlib): no plot"; exit 1; }
"$py" "$root/bench/store/plot.py" "$json" "$root/bench/results/store.png" | tee -a "$txt"
