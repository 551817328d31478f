#!/usr/bin/env bash
# Measurements of a scripts/store-cluster.sh cluster for bench_nvm --store:
#   pool.sh osd-bytes DIR      bytes the OSDs received so far (sum of op_w_in_bytes, admin sockets)
#   pool.sh osd-sent DIR       bytes the OSDs sent to clients so far (op_r_out_bytes)
#   pool.sh osd-disk-read DIR  bytes the OSD processes read from storage so far (/proc/PID/io):
#                              what their caches (BlueStore's) did not serve
#   pool.sh write DIR SECONDS [ARGS]  `rados bench write` of the pool, 4 MiB objects kept for seq: MB/s
#   pool.sh seq DIR SECONDS [ARGS]    `rados bench seq` of those objects: MB/s
#   pool.sh cleanup DIR        removes the objects rados bench wrote
# MB/s are 10^6 bytes/s (rados bench prints MiB/s). POOL picks the pool (default loci).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 osd-bytes|osd-sent|osd-disk-read|write|seq|cleanup DIR [SECONDS]" >&2; exit 2; }
cmd=$1 dir=$2 pool=${POOL:-loci}
[ -f "$dir/ceph.conf" ] || { echo "pool.sh: $dir/ceph.conf not found: not a running store-cluster.sh cluster" >&2; exit 1; }
rados_bench() { # MODE SECONDS [ARGS]: the bandwidth line, in MB/s
    local out
    out=$(timeout 300 rados -c "$dir/ceph.conf" -p "$pool" bench "$2" "$1" "${@:3}" 2>&1) ||
        { echo "$out" >&2; echo "pool.sh: rados bench $1 failed" >&2; exit 1; }
    echo "$out" | awk '/^Bandwidth \(MB\/sec\)/ { printf "%.1f\n", $3 * 1.048576; found = 1 }
                       END { exit !found }' || { echo "$out" >&2; echo "pool.sh: no bandwidth in rados bench output" >&2; exit 1; }
}
osd_counter() { # NAME: its sum over the OSDs' perf counters
    local total=0 sock n
    for sock in "$dir"/run/ceph-osd.*.asok; do
        [ -S "$sock" ] || { echo "pool.sh: no OSD admin socket in $dir/run" >&2; exit 1; }
        n=$(timeout 30 ceph --admin-daemon "$sock" perf dump | sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" | head -1)
        [ -n "$n" ] || { echo "pool.sh: no $1 from $sock" >&2; exit 1; }
        total=$((total + n))
    done
    echo "$total"
}
case $cmd in
osd-bytes) osd_counter op_w_in_bytes ;;
osd-sent) osd_counter op_r_out_bytes ;;
osd-disk-read)
    total=0
    for f in "$dir"/run/osd.*.pid; do
        n=$(awk '/^read_bytes:/ { print $2 }' "/proc/$(cat "$f")/io" 2>/dev/null) ||
            { echo "pool.sh: cannot read the I/O counters of the OSD of $f" >&2; exit 1; }
        total=$((total + n))
    done
    echo "$total" ;;
write) rados_bench write "${3:-10}" --no-cleanup "${@:4}" ;;
seq) rados_bench seq "${3:-10}" "${@:4}" ;;
cleanup) timeout 300 rados -c "$dir/ceph.conf" -p "$pool" cleanup >/dev/null ;;
*) echo "pool.sh: unknown command '$cmd'; expected osd-bytes, osd-sent, osd-disk-read, write, seq or cleanup" >&2; exit 2 ;;
esac
