#!/usr/bin/env bash
# ctest fixture of the store family: the cluster every check-*.sh uses.
#   cluster.sh start DIR   3 benefactor hosts (one OSD each), 2 replicas on different hosts,
#                          client hosts a and b; LOCI_CONFIG files for the checks:
#                            DIR/test.conf   agg0 (timeout 20 s: rides out a host's failover; lock_ttl 6 s)
#                            DIR/short.conf  agg0 with timeout 5 s (the unreachable checks)
#                            DIR/full.conf   agg0 on pool 'lfull', whose quota is 1 MiB
#   cluster.sh stop DIR
set -euo pipefail
cmd=$1 dir=$2
case $cmd in
start)
    [ "$(id -u)" -eq 0 ] || { echo "store family: needs root (network namespaces for the test hosts)" >&2; exit 1; }
    "$STORE_CLUSTER" stop "$dir" >/dev/null 2>&1 || true
    rm -rf "$dir"
    "$STORE_CLUSTER" start "$dir" --osds 3 --hosts 3 --replicas 2 --osd-size 3G 2>"$dir.start.log" ||
        { cat "$dir.start.log" >&2; exit 1; }
    "$STORE_CLUSTER" client "$dir" a >/dev/null
    "$STORE_CLUSTER" client "$dir" b >/dev/null
    ceph() { timeout 30 /usr/bin/ceph -c "$dir/ceph.conf" "$@"; }
    ceph osd pool create lfull 8 8 replicated >/dev/null 2>&1
    ceph osd pool set lfull size 1 --yes-i-really-mean-it >/dev/null 2>&1
    ceph osd pool set-quota lfull max_bytes 1048576 >/dev/null 2>&1
    ceph osd pool application enable lfull loci >/dev/null 2>&1 || true
    for i in $(seq 1 60); do # its placement groups active before any check uses it
        echo ok | timeout 10 rados -c "$dir/ceph.conf" -p lfull put .probe - 2>/dev/null && break
        sleep 0.5
    done
    timeout 10 rados -c "$dir/ceph.conf" -p lfull rm .probe 2>/dev/null || true
    base=$(grep -v '^#' "$dir/loci.conf")
    printf '%s\ntimeout = 20s\nlock_ttl = 6s\n' "$base" >"$dir/test.conf"
    printf '%s\ntimeout = 5s\nlock_ttl = 6s\n' "$base" >"$dir/short.conf"
    printf '%s\ntimeout = 10s\n' "$(echo "$base" | sed 's/^pool = .*/pool = lfull/')" >"$dir/full.conf"
    echo "store family: cluster up in $dir"
    ;;
stop)
    "$STORE_CLUSTER" stop "$dir"
    rm -rf "$dir"
    ;;
esac
