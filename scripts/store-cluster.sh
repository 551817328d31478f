#!/usr/bin/env bash
# A throw-away Ceph cluster for loci's aggregate store (kind=store, docs/STORE.md):
# one MON and N bluestore OSDs on sparse files under DIR, no systemd, no mgr,
# auth none, every path under DIR, addresses on loopback or on test hosts
# (network namespaces) this script makes.
#
#   store-cluster.sh start DIR [--osds N] [--replicas R] [--hosts H] [--osd-size SIZE] [--pool NAME]
#   store-cluster.sh client DIR NAME     a "client node": a network namespace on the cluster's
#                                        bridge (needs --hosts); run programs in it with
#                                        `ip netns exec $(store-cluster.sh netns DIR NAME) prog`
#   store-cluster.sh netns DIR HOST      the namespace name of host HOST (h1.. or a client)
#   store-cluster.sh down|up DIR HOST    take a host's network down / bring it back
#   store-cluster.sh kill-osd DIR ID     SIGKILL one OSD (a benefactor node dying)
#   store-cluster.sh start-osd DIR ID    start it again (on its host)
#   store-cluster.sh status DIR          daemons and pool usage
#   store-cluster.sh stop DIR            stops exactly the daemons it started, removes its
#                                        namespaces and bridge; DIR stays (rm -rf it after)
#
# start writes DIR/ceph.conf (for librados and the ceph tools) and DIR/loci.conf (a LOCI_CONFIG
# file with a [target agg0] section for this cluster). Without --hosts everything listens on
# 127.0.0.1; with --hosts H the MON sits on a bridge of the root namespace and OSD i runs in
# host namespace h((i % H) + 1), each host its own CRUSH host bucket, so that replicas land on
# different hosts.
set -euo pipefail

die() { echo "store-cluster: $*" >&2; exit 1; }
log() { echo "store-cluster: $*" >&2; }

[ $# -ge 2 ] || die "usage: $0 start|stop|status|client|netns|down|up|kill-osd DIR [options] (see the header of this script)"
cmd=$1 dir=$2
shift 2
[ "$(id -u)" -eq 0 ] || die "run as root (ceph daemons here use network namespaces and /dev/shm-free paths under DIR)"

ceph_cmd() { timeout 60 ceph -c "$dir/ceph.conf" --connect-timeout 20 "$@"; }

# Names of the namespaces and bridge: derived from DIR so that two clusters never collide.
tag() { printf '%s' "$(readlink -f "$dir")" | cksum | awk '{ printf "%x", $1 % 1048576 }'; }
netns_of() { echo "lc$(tag)-$1"; }
bridge() { echo "lcbr$(tag)"; }
# One /24 per cluster in 10.213.0.0/16, from the same tag: only addresses this script makes.
subnet() { echo "10.213.$(( 0x$(tag) % 250 + 1 ))"; }

# What an earlier cluster in this same DIR left behind when it was killed before its stop (its
# DIR since removed): daemons still reading DIR/ceph.conf, namespaces and a bridge of this DIR's
# names. Those names are this cluster's own, so they are cleared instead of failing on "File exists".
clear_leftovers() {
    local ns
    pkill -KILL -f -- "-c $dir/ceph.conf" 2>/dev/null || true
    for ns in $(ip netns list 2>/dev/null | awk -v p="$(netns_of '')" 'index($1, p) == 1 { print $1 }'); do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
        echo "store-cluster: removed namespace $ns left by an earlier cluster in $dir" >&2
    done
    if ip link show "$(bridge)" >/dev/null 2>&1; then
        ip link del "$(bridge)" 2>/dev/null || true
        echo "store-cluster: removed bridge $(bridge) left by an earlier cluster in $dir" >&2
    fi
}

host_ip() { # HOST: h1.. are 11.., clients from DIR/clients
    case $1 in
    h[0-9]*) echo "$(subnet).$(( 10 + ${1#h} ))" ;;
    *) local n; n=$(grep -n "^$1\$" "$dir/clients" 2>/dev/null | cut -d: -f1) || true
       [ -n "$n" ] || die "no host '$1' in $dir (h1..hH or a client made with 'client')"
       echo "$(subnet).$(( 100 + n ))" ;;
    esac
}

make_host() { # NAME IP: a namespace joined to the bridge through a veth pair
    local ns; ns=$(netns_of "$1")
    ip netns add "$ns"
    local vh="v$(tag)$1" # host side; at most 15 characters
    vh=${vh:0:15}
    ip link add "$vh" type veth peer name eth0 netns "$ns"
    ip link set "$vh" master "$(bridge)" up
    ip -n "$ns" addr add "$2/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    echo "$ns" >>"$dir/netns"
}

start_osd() { # ID: on the host recorded at start
    local id=$1 h; h=$(cat "$dir/osd$id/host.loci")
    if [ "$h" = local ]; then
        ceph-osd -c "$dir/ceph.conf" -i "$id" --public-addr 127.0.0.1 --crush-location "root=default host=loci-local"
    else
        ip netns exec "$(netns_of "$h")" ceph-osd -c "$dir/ceph.conf" -i "$id" --public-addr "$(host_ip "$h")" \
            --cluster-addr "$(host_ip "$h")" --crush-location "root=default host=loci-$h"
    fi || die "ceph-osd $id did not start: see $dir/log/osd.$id.log"
}

pid_alive() { # PIDFILE NAME: the pid in it runs a process called NAME (a zombie is dead:
    # daemons are re-parented to whatever reaps orphans here, which may be slow to)
    local pid; pid=$(cat "$1" 2>/dev/null) || return 1
    [ -n "$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$2" ] &&
        [ "$(awk '{ print $3 }' /proc/"$pid"/stat 2>/dev/null)" != Z ]
}

start() {
    local osds=3 replicas=1 hosts=0 osd_size=4G pool=loci
    while [ $# -gt 0 ]; do
        case $1 in
        --osds) osds=$2; shift 2 ;;
        --replicas) replicas=$2; shift 2 ;;
        --hosts) hosts=$2; shift 2 ;;
        --osd-size) osd_size=$2; shift 2 ;;
        --pool) pool=$2; shift 2 ;;
        *) die "start: unknown option '$1'; expected --osds N, --replicas R, --hosts H, --osd-size SIZE, --pool NAME" ;;
        esac
    done
    [[ $osds =~ ^[1-9][0-9]?$ ]] || die "--osds $osds: expected 1 to 99"
    [[ $replicas =~ ^[1-9]$ ]] && [ "$replicas" -le "$osds" ] || die "--replicas $replicas: expected 1 to --osds ($osds)"
    [[ $hosts =~ ^[0-9]$ ]] || die "--hosts $hosts: expected 0 (loopback) to 9"
    [ "$hosts" -eq 0 ] || [ "$replicas" -le "$hosts" ] || die "--replicas $replicas needs at least as many --hosts (have $hosts): replicas go to different hosts"
    for tool in ceph-mon ceph-mgr ceph-osd ceph monmaptool; do
        command -v $tool >/dev/null || die "$tool not found: run scripts/install-deps.sh"
    done
    [ ! -e "$dir/ceph.conf" ] || die "$dir already holds a cluster: '$0 stop $dir' and remove it first"
    mkdir -p "$dir"
    chmod 700 "$dir"
    dir=$(readlink -f "$dir")
    clear_leftovers

    local mon_ip=127.0.0.1 port
    port=$(( 20000 + 0x$(tag) % 20000 ))
    if [ "$hosts" -gt 0 ]; then
        mon_ip="$(subnet).1"
        ip link add "$(bridge)" type bridge
        ip addr add "$mon_ip/24" dev "$(bridge)"
        ip link set "$(bridge)" up
        echo "$(bridge)" >"$dir/bridge"
        : >"$dir/netns"
        : >"$dir/clients"
        for h in $(seq 1 "$hosts"); do make_host "h$h" "$(host_ip "h$h")"; done
    fi
    local chooseleaf=1
    [ "$hosts" -gt 0 ] || chooseleaf=0 # one host: replicas on different OSDs
    cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon_host = [v2:$mon_ip:$port]
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
run_dir = $dir/run
admin_socket = $dir/run/\$cluster-\$name.asok
pid_file = $dir/run/\$name.pid
log_file = $dir/log/\$name.log
crash_dir = $dir/crash
mon_cluster_log_file = $dir/log/cluster.log
mon_data = $dir/mon
mgr_data = $dir/mgr
mgr_initial_modules =
osd_data = $dir/osd\$id
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = $(numfmt --from=iec "$osd_size")
bluestore_cache_autotune = false
bluestore_cache_size = 134217728
osd_memory_target = 939524096
mon_allow_pool_size_one = true
mon_allow_pool_delete = true
mon_data_avail_warn = 2
mon_data_avail_crit = 1
osd_crush_chooseleaf_type = $chooseleaf
osd_pool_default_size = $replicas
osd_pool_default_min_size = 1
osd_pool_default_pg_autoscale_mode = off
paxos_propose_interval = 0.01
# the clones of removed snapshots (checkpoints collected) are trimmed at once, not 5 s per
# batch as for rotational disks (a throw-away cluster on files counts as one)
osd_snap_trim_sleep_hdd = 0
osd_snap_trim_sleep_hybrid = 0
osd_heartbeat_interval = 1
osd_heartbeat_grace = 5
mon_osd_min_down_reporters = 1
mon_osd_down_out_interval = 0
osd_op_thread_timeout = 30
client_mount_timeout = 15
rados_mon_op_timeout = 15
rados_osd_op_timeout = 30
ms_bind_ipv4 = true
ms_bind_ipv6 = false
ms_bind_msgr1 = false
[mon]
public_addr = $mon_ip
EOF
    chmod 600 "$dir/ceph.conf"
    mkdir -p "$dir/run" "$dir/log" "$dir/crash" "$dir/mon"
    monmaptool --create --addv a "[v2:$mon_ip:$port]" --fsid "$(awk '/^fsid/ { print $3 }' "$dir/ceph.conf")" \
        "$dir/monmap" >/dev/null
    ceph-mon -c "$dir/ceph.conf" -i a --mkfs --monmap "$dir/monmap" >"$dir/log/mon-mkfs.log" 2>&1 ||
        { cat "$dir/log/mon-mkfs.log" >&2; die "ceph-mon --mkfs failed (log above)"; }
    ceph-mon -c "$dir/ceph.conf" -i a || die "ceph-mon did not start: see $dir/log/mon.a.log"
    # The manager reports usage (capacity and free space for loci info); data I/O needs none.
    mkdir -p "$dir/mgr"
    ceph-mgr -c "$dir/ceph.conf" -i a || die "ceph-mgr did not start: see $dir/log/mgr.a.log"

    local ids=() i
    for i in $(seq 0 $((osds - 1))); do
        local uuid; uuid=$(cat /proc/sys/kernel/random/uuid)
        local id; id=$(ceph_cmd osd new "$uuid") || die "'ceph osd new' failed: is the MON up? see $dir/log/mon.a.log"
        mkdir -p "$dir/osd$id"
        echo "$uuid" >"$dir/osd$id/uuid.loci"
        ids+=("$id")
    done
    # mkfs is fsync-bound: all OSDs at once.
    local pids=()
    for id in "${ids[@]}"; do
        ceph-osd -c "$dir/ceph.conf" -i "$id" --mkfs --osd-uuid "$(cat "$dir/osd$id/uuid.loci")" \
            >"$dir/log/osd$id-mkfs.log" 2>&1 & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || die "ceph-osd --mkfs failed: see $dir/log/osd*-mkfs.log"; done
    for id in "${ids[@]}"; do
        if [ "$hosts" -gt 0 ]; then echo "h$(( id % hosts + 1 ))"; else echo local; fi >"$dir/osd$id/host.loci"
        start_osd "$id"
    done
    local up=0 t
    for t in $(seq 1 120); do
        up=$(ceph_cmd osd stat -f json 2>/dev/null | sed -n 's/.*"num_up_osds":\([0-9]*\).*/\1/p')
        [ "${up:-0}" -ge "$osds" ] && break
        sleep 0.5
    done
    [ "${up:-0}" -ge "$osds" ] || die "only ${up:-0} of $osds OSDs came up within 60 s: see $dir/log/osd.*.log"
    ceph_cmd osd pool create "$pool" 32 32 replicated >/dev/null 2>&1 || die "creating pool $pool failed"
    if [ "$replicas" -eq 1 ]; then
        ceph_cmd osd pool set "$pool" size 1 --yes-i-really-mean-it >/dev/null 2>&1
    else
        ceph_cmd osd pool set "$pool" size "$replicas" >/dev/null 2>&1
    fi
    ceph_cmd osd pool set "$pool" min_size 1 >/dev/null 2>&1
    ceph_cmd osd pool application enable "$pool" loci >/dev/null 2>&1 || true
    # Wait until a write goes through (PGs peered).
    local ok=0
    for t in $(seq 1 60); do
        if echo ok | timeout 10 rados -c "$dir/ceph.conf" -p "$pool" put .loci-probe - 2>/dev/null; then ok=1; break; fi
        sleep 0.5
    done
    [ "$ok" -eq 1 ] || die "pool $pool does not take writes within 30 s: see $dir/log/"
    timeout 10 rados -c "$dir/ceph.conf" -p "$pool" rm .loci-probe 2>/dev/null || true
    cat >"$dir/loci.conf" <<EOF
# loci's view of the cluster in $dir (made by scripts/store-cluster.sh)
[target agg0]
kind = store
store = rados
conf = $dir/ceph.conf
pool = $pool
EOF
    chmod 600 "$dir/loci.conf"
    log "up: MON $mon_ip:$port, $osds OSDs ($([ "$hosts" -gt 0 ] && echo "on $hosts hosts" || echo loopback)), pool '$pool' x$replicas; LOCI_CONFIG=$dir/loci.conf"
}

stop() {
    [ -d "$dir" ] || die "$dir: no such directory"
    dir=$(readlink -f "$dir")
    local f name pids=()
    for f in "$dir"/run/*.pid; do
        [ -e "$f" ] || continue
        name=$(basename "$f" .pid)
        case $name in mon.*) comm=ceph-mon ;; mgr.*) comm=ceph-mgr ;; osd.*) comm=ceph-osd ;; *) continue ;; esac
        if pid_alive "$f" "$comm"; then
            kill -TERM "$(cat "$f")" 2>/dev/null && pids+=("$(cat "$f")")
        fi
    done
    local t
    for t in $(seq 1 40); do
        local alive=0 p
        for p in "${pids[@]}"; do
            [ -d /proc/"$p" ] && [ "$(awk '{ print $3 }' /proc/"$p"/stat 2>/dev/null)" != Z ] && alive=1
        done
        [ $alive -eq 0 ] && break
        sleep 0.25
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    if [ -f "$dir/netns" ]; then
        while read -r ns; do ip netns del "$ns" 2>/dev/null || true; done <"$dir/netns"
        rm -f "$dir/netns"
    fi
    if [ -f "$dir/bridge" ]; then
        ip link del "$(cat "$dir/bridge")" 2>/dev/null || true
        rm -f "$dir/bridge"
    fi
    rm -f "$dir/ceph.conf" "$dir/loci.conf"
    log "stopped ${#pids[@]} daemons of $dir"
}

case $cmd in
start) start "$@" ;;
stop) stop ;;
status)
    ceph_cmd -s || true
    timeout 30 rados -c "$dir/ceph.conf" df || true ;;
client)
    [ $# -eq 1 ] || die "client DIR NAME"
    [ -f "$dir/bridge" ] || die "$dir was started without --hosts: clients need the bridge"
    [[ $1 =~ ^[a-z][a-z0-9]{0,5}$ ]] || die "client name '$1': 1-6 lowercase letters/digits"
    grep -qx "$1" "$dir/clients" && die "client '$1' exists"
    echo "$1" >>"$dir/clients"
    make_host "$1" "$(host_ip "$1")"
    netns_of "$1" ;;
netns) [ $# -eq 1 ] || die "netns DIR HOST"; netns_of "$1" ;;
down|up)
    [ $# -eq 1 ] || die "$cmd DIR HOST"
    ip -n "$(netns_of "$1")" link set eth0 "$cmd" ;;
kill-osd)
    [ $# -eq 1 ] || die "kill-osd DIR ID"
    pid_alive "$dir/run/osd.$1.pid" ceph-osd || die "osd.$1 is not running"
    kill -KILL "$(cat "$dir/run/osd.$1.pid")"
    for t in $(seq 1 40); do pid_alive "$dir/run/osd.$1.pid" ceph-osd || break; sleep 0.25; done ;;
start-osd)
    [ $# -eq 1 ] || die "start-osd DIR ID"
    [ -f "$dir/osd$1/host.loci" ] || die "no osd.$1 in $dir"
    pid_alive "$dir/run/osd.$1.pid" ceph-osd && die "osd.$1 is running"
    dir=$(readlink -f "$dir")
    start_osd "$1" ;;
*) die "unknown command '$cmd'; expected start, stop, status, client, netns, down, up, kill-osd or start-osd" ;;
esac
