#!/usr/bin/env bash
# The aggregate store benchmarks (issue 13 §7, docs/BENCHMARKS.md "Aggregate store"), one line:
#   bench/store/run.sh [--quick] [--only rados|shared]
# On throw-away loopback Ceph clusters (scripts/store-cluster.sh, replicas 1) under a scratch
# directory (SCRATCH, default /var/tmp/loci-bench-store.PID), each fresh:
#   1 OSD:    bench_nvm --store parts a (random byte writes, bytes the OSDs received),
#             b (STREAM triad, B and C on agg0, vs rados bench seq) and w (sequential paged write),
#             beside rados bench write/seq (4 MiB objects, 16 in flight) and rados bench seq with
#             one 256 KiB object in flight (what one synchronous chunk reader can get);
#   2, 3 OSDs: part w beside rados bench write (scaling);
#   each: rados bench write with one 256 KiB object in flight (what one synchronous writer gets).
#   shared (NVMalloc Fig. 4), 1 OSD on a benefactor host and two client nodes (network
#             namespaces, --hosts 1): both clients multiply with B at once (bench_nvm --only m),
#             B one region opened read-only by both, or a copy per client; per pair the bytes
#             the OSDs sent and read from their disk (BlueStore's cache dropped first).
# Results: bench/results/store.{json,txt,png}, shared: store-shared.{json,txt,png}. --only picks
# one of the two. Needs root and Ceph (scripts/install-deps.sh); builds nothing (BUILD_DIR,
# default build). WRITES sets part a's writes (default 131072, --quick 4096); REPEATS the
# shared part's pairs per cell (default 3, --quick 1).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_nvm cluster=$root/scripts/store-cluster.sh pool=$root/bench/store/pool.sh
[[ -x $exe ]] || { echo "run.sh: $exe not found; build first: cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2; exit 2; }
quick=() osds=(1 2 3) secs=5 writes=${WRITES:-131072} repeats=${REPEATS:-3} only=
while [[ $# -gt 0 ]]; do
    case $1 in
    --quick) quick=(--quick); osds=(1 2); secs=2; writes=${WRITES:-4096}; repeats=${REPEATS:-1}; shift ;;
    --only) [[ ${2:-} = rados || ${2:-} = shared ]] || { echo "run.sh: --only rados|shared" >&2; exit 2; }
            only=$2; shift 2 ;;
    *) echo "usage: $0 [--quick] [--only rados|shared]" >&2; exit 2 ;;
    esac
done
scratch=${SCRATCH:-/var/tmp/loci-bench-store.$$}
mkdir -p "$scratch" "$root/bench/results"
chmod 700 "$scratch"
running=
cleanup() { [[ -z $running ]] || "$cluster" stop "$running" >/dev/null 2>&1 || true; rm -rf "$scratch"; }
trap cleanup EXIT
say() { echo "run.sh: $*" >&2; }
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import matplotlib' 2>/dev/null; then py=$cand; break; fi
done
[[ -n $py ]] || { say "*** no python3 with matplotlib (apt-get install python3-matplotlib): no plot"; exit 1; }

rados_part() {
    local txt dir n w seq seq1 parts w1 json runs=()
    txt=$root/bench/results/store.txt
    : >"$txt"
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
    "$py" "$root/bench/store/plot.py" "$json" "$root/bench/results/store.png" | tee -a "$txt"
}

# NVMalloc Fig. 4: B shared read-only by two client nodes at once vs a copy per client.
shared_part() {
    local dir=$scratch/shared txt=$root/bench/results/store-shared.txt json=$root/bench/results/store-shared.json
    local rows=() made=() order mode rep c
    say "shared: cluster with 1 OSD on host h1, clients c1 and c2 (network namespaces)"
    "$cluster" start "$dir" --osds 1 --replicas 1 --hosts 1 --osd-size 12G
    running=$dir
    export LOCI_CONFIG=$dir/loci.conf LOCI_STORE_DIR=$scratch/ssd LOCI_TOPOLOGY= LOCI_MEASURED=
    local ns1 ns2
    ns1=$("$cluster" client "$dir" c1)
    ns2=$("$cluster" client "$dir" c2)
    for b in fig4-shared fig4-c1 fig4-c2; do
        say "shared: writing B = $b"
        ip netns exec "$ns1" "$exe" --store "${quick[@]}" --only m --b-region "$b" --make-b \
            --json "$scratch/make.json" | grep '^(m)' | tee -a "$txt"
        made+=("$(sed -n 's/^  {\(.*\)}$/{\1}/p' "$scratch/make.json")")
    done
    for order in row column; do
        for mode in shared private; do
            for rep in $(seq 1 "$repeats"); do
                say "shared: $order-major, B $mode, pair $rep/$repeats"
                # BlueStore's cache starts empty: what one pair reads from the disk is its own
                timeout 60 ceph --admin-daemon "$dir/run/ceph-osd.0.asok" cache drop >/dev/null
                local sent0 disk0 t0 t1 pids=()
                sent0=$("$pool" osd-sent "$dir") disk0=$("$pool" osd-disk-read "$dir")
                t0=$(date +%s.%N)
                for c in c1 c2; do
                    local b=fig4-shared ns=$ns1
                    [[ $mode = shared ]] || b=fig4-$c
                    [[ $c = c1 ]] || ns=$ns2
                    ip netns exec "$ns" "$exe" --store "${quick[@]}" --only m --b-region "$b" --order "$order" \
                        --json "$scratch/m-$c.json" >"$scratch/m-$c.txt" 2>&1 & pids+=($!)
                done
                for p in "${pids[@]}"; do wait "$p" || { cat "$scratch"/m-c*.txt >&2; say "*** a client failed"; exit 1; }; done
                t1=$(date +%s.%N)
                local sent disk
                sent=$(( $("$pool" osd-sent "$dir") - sent0 )) disk=$(( $("$pool" osd-disk-read "$dir") - disk0 ))
                echo "$order $mode pair $rep: wall $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }") s, OSDs sent $sent B, read from disk $disk B" | tee -a "$txt"
                grep -h '^(m)' "$scratch"/m-c1.txt "$scratch"/m-c2.txt | sed 's/^/    /' | tee -a "$txt"
                rows+=("{\"order\": \"$order\", \"mode\": \"$mode\", \"pair\": $rep, \"wall_seconds\": $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }"), \"osd_sent\": $sent, \"osd_disk_read\": $disk, \"clients\": [$(sed -n 's/^  {\(.*\)}$/{\1}/p' "$scratch/m-c1.json"), $(sed -n 's/^  {\(.*\)}$/{\1}/p' "$scratch/m-c2.json")]}")
            done
        done
    done
    { echo "{\"quick\": $([[ ${#quick[@]} -gt 0 ]] && echo true || echo false), \"loadavg\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"cpus\": $(nproc), \"made\": [$(IFS=,; echo "${made[*]}")], \"pairs\": ["
      (IFS=,; echo "${rows[*]}")
      echo "]}"; } >"$json"
    "$cluster" stop "$dir"
    running=
    rm -rf "$dir"
    "$py" "$root/bench/store/plot_shared.py" "$json" "$root/bench/results/store-shared.png" | tee -a "$txt"
}

[[ $only = shared ]] || rados_part
if [[ $only != rados ]]; then
    : >"$root/bench/results/store-shared.txt"
    shared_part
fi
