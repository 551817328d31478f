#!/usr/bin/env bash
# Checkpoints on the aggregate store (issue 14 §5, docs/BENCHMARKS.md "Checkpoints on the store"), one line:
#   bench/ckpt/run-store.sh [--quick] [--only table|loop]
# On a throw-away Ceph cluster (scripts/store-cluster.sh: 1 bluestore OSD on benefactor host h1,
# replicas 1, client node c1; under SCRATCH, default /var/tmp/loci-bench-ckpt-store.PID):
#   table    NVMalloc Table VIII on agg0: DRAM variable 256 MiB + store region 0.5, 1, 2, 4 GiB
#            (SIZES), first save, unchanged saves, full copy into a store region; the bytes the
#            OSDs received (op_w_in_bytes); `rados bench write` of the pool beside it;
#   loop     an application loop (60 iterations of compute over a 128 MiB DRAM state, about
#            0.3 s each unloaded, loci_ckpt_save after the 20th and the 40th) with checkpoints off, level 1 only, and level 1 + the drain
#            to agg0 ([checkpoint] drain = agg0), alternating, REPEATS times (default 3);
#   restart  the last drained checkpoint restored on client node c1 with no level 1 there.
# Results: bench/results/ckpt-store.{txt,png}, data ckpt-store-table.json and ckpt-store-loop.json
# (loop and restart); --only runs one part (the plot takes the other's JSON as it is). Needs root
# and Ceph (scripts/install-deps.sh); builds nothing (BUILD_DIR, default build). --quick: small
# sizes, one repeat, about a minute.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_ckpt cluster=$root/scripts/store-cluster.sh pool=$root/bench/store/pool.sh
[[ -x $exe ]] || { echo "run-store.sh: $exe not found; build first: cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2; exit 2; }
quick=() repeats=${REPEATS:-3} secs=5 loop_args=(--dram 128 --iters 60 --every 20) table_args=(--sizes "${SIZES:-0.5,1,2,4}")
only=
while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) quick=(--quick); repeats=${REPEATS:-1}; secs=2; loop_args=(); table_args=(); shift ;;
    --only) [[ ${2:-} = table || ${2:-} = loop ]] || { echo "run-store.sh: --only table|loop" >&2; exit 2; }
            only=$2; shift 2 ;;
    *) echo "usage: $0 [--quick] [--only table|loop]" >&2; exit 2 ;;
    esac
done
say() { echo "run-store.sh: $*" >&2; }
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import matplotlib' 2>/dev/null; then py=$cand; break; fi
done
[[ -n $py ]] || { say "*** no python3 with matplotlib (apt-get install python3-matplotlib): no plot"; exit 1; }
scratch=${SCRATCH:-/var/tmp/loci-bench-ckpt-store.$$}
dir=$scratch/cluster
mkdir -p "$scratch" "$root/bench/results"
chmod 700 "$scratch"
running=
cleanup() { [[ -z $running ]] || "$cluster" stop "$running" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
txt=$root/bench/results/ckpt-store${only:+-$only}.txt
: >"$txt"

say "cluster: 1 OSD on host h1, client node c1"
"$cluster" start "$dir" --osds 1 --replicas 1 --hosts 1 --osd-size 16G
running=$dir
ns=$("$cluster" client "$dir" c1)
export LOCI_CONFIG=$dir/loci.conf LOCI_STORE_DIR=$scratch/ssd LOCI_TOPOLOGY= LOCI_MEASURED= LOCI_CKPT_DIR=
drain_conf=$scratch/drain.conf
{ cat "$dir/loci.conf"; printf '\n[checkpoint]\ndrain = agg0\n'; } >"$drain_conf"
chmod 600 "$drain_conf"

results=$root/bench/results
header() { # the JSON object's start: the run's facts
    echo "{\"quick\": $([[ ${#quick[@]} -gt 0 ]] && echo true || echo false), \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"cpus\": $(nproc), $1\"parts\": ["
}

table_part() {
    local wmbps
    say "rados bench write ${secs} s (the pool's own write bandwidth)"
    wmbps=$("$pool" write "$dir" "$secs")
    "$pool" cleanup "$dir"
    echo "rados bench write (16 x 4 MiB in flight): $wmbps MB/s" | tee -a "$txt"
    say "table: ${table_args[*]:-quick sizes}, $repeats repeat(s)"
    "$exe" --store table "${quick[@]}" "${table_args[@]}" --repeats "$repeats" \
        --osd-bytes "$pool osd-bytes $dir" --json "$scratch/table.json" | tee -a "$txt"
    { header "\"rados_write_mbps\": $wmbps, "; cat "$scratch/table.json"; echo "]}"; } >"$results/ckpt-store-table.json"
}

loop_part() {
    local parts=() n=0 rep mode conf saved dram got
    for rep in $(seq 1 "$repeats"); do
        for mode in off l1 drain; do
            say "loop $mode, repeat $rep/$repeats"
            conf=$dir/loci.conf
            [[ $mode != drain ]] || conf=$drain_conf
            LOCI_CONFIG=$conf "$exe" --store loop "$mode" "${quick[@]}" "${loop_args[@]}" --json "$scratch/loop$n.json" |
                tee -a "$txt"
            parts+=("$(cat "$scratch/loop$n.json")")
            n=$((n + 1))
        done
    done
    saved=$(sed -n 's/.*"mode": "drain".*"digest": "\([0-9a-f]*\)".*/\1/p' "$scratch/loop$((n - 1)).json")
    dram=$(sed -n 's/.*"dram_bytes": \([0-9]*\).*/\1/p' "$scratch/loop$((n - 1)).json")
    for rep in $(seq 1 "$repeats"); do
        say "restart on client node c1 from level 2, $rep/$repeats"
        ip netns exec "$ns" env LOCI_CONFIG="$drain_conf" LOCI_STORE_DIR="$scratch/ssd-c1" \
            "$exe" --store restart loop --dram $((dram >> 20)) --json "$scratch/restart$rep.json" | tee -a "$txt"
        got=$(sed -n 's/.*"digest": "\([0-9a-f]*\)".*/\1/p' "$scratch/restart$rep.json")
        [[ $got = "$saved" ]] || { say "*** restart on c1 gave state $got, the last drained save was $saved"; exit 1; }
        parts+=("$(cat "$scratch/restart$rep.json")")
    done
    echo "restart on c1: the state restored is the one saved last (digest $saved)" | tee -a "$txt"
    { header ""; (IFS=,; echo "${parts[*]}"); echo "]}"; } >"$results/ckpt-store-loop.json"
}

[[ $only = loop ]] || table_part
[[ $only = table ]] || loop_part
"$cluster" stop "$dir"
running=
"$py" "$root/bench/ckpt/plot_store.py" "$results/ckpt-store-table.json" "$results/ckpt-store-loop.json" \
    "$results/ckpt-store.png" | tee -a "$txt"
