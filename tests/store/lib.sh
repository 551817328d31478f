# What the store checks share: run store_node on a client host, assert, report.
# Sourced by check-*.sh; ctest gives STORE_NODE, STORE_CLUSTER, STORE_DIR, LOCI_TOOL.
set -uo pipefail
export LOCI_CONFIG=$STORE_DIR/test.conf
failures=0

# on HOST CMD...: run CMD in the namespace of client host HOST (a, b) with LOCI_CONFIG.
on() {
    local host=$1; shift
    ip netns exec "$("$STORE_CLUSTER" netns "$STORE_DIR" "$host")" env LOCI_CONFIG="$LOCI_CONFIG" "$@"
}

# expect WHAT CODE CMD...: CMD exits with CODE; its output is shown either way.
expect() {
    local what=$1 want=$2; shift 2
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -eq "$want" ]; then
        echo "ok   $what: $out"
    else
        echo "FAIL $what: exit $rc, expected $want: $out"
        failures=$((failures + 1))
    fi
}

# expect_text WHAT PATTERN TEXT: TEXT matches the extended regex PATTERN.
expect_text() {
    if grep -Eq "$2" <<<"$3"; then # (not echo | grep -q: under pipefail, grep's early exit kills echo, 141)
        echo "ok   $1"
    else
        echo "FAIL $1: expected /$2/ in: $3"
        failures=$((failures + 1))
    fi
}

rados_cmd() { timeout 30 rados -c "$STORE_DIR/ceph.conf" "$@"; }

# Wait (60 s at most) until every OSD is up and every placement group active: what a check
# that took hosts or OSDs down leaves for the next one.
wait_healthy() {
    local stat pgs deadline=$((SECONDS + 60))
    while [ $SECONDS -lt $deadline ]; do
        stat=$(timeout 10 ceph -c "$STORE_DIR/ceph.conf" osd stat -f json 2>/dev/null)
        pgs=$(timeout 10 ceph -c "$STORE_DIR/ceph.conf" pg stat 2>/dev/null)
        if grep -q '"num_osds":\([0-9]*\),"num_up_osds":\1,' <<<"$stat" &&
            ! grep -Eq 'peering|down|activating|stale|unknown|creating' <<<"$pgs"; then
            return 0
        fi
        sleep 0.5
    done
    echo "cluster not healthy after 60 s: $stat / $pgs"
    failures=$((failures + 1))
}

# A client counter of every OSD summed (its admin socket): osd_counter op_w_in_bytes.
osd_counter() {
    local sock total=0 n
    for sock in "$STORE_DIR"/run/ceph-osd.*.asok; do
        n=$(timeout 20 ceph --admin-daemon "$sock" perf dump 2>/dev/null |
            python3 -c "import json,sys; print(json.load(sys.stdin)['osd']['$1'])") || return 1
        total=$((total + n))
    done
    echo "$total"
}

# Client bytes written to the OSDs so far.
osd_write_bytes() { osd_counter op_w_in_bytes; }

# Client write ops the OSDs took so far (each op counted once, at its primary).
osd_write_ops() { osd_counter op_w; }

finish() {
    echo "$(basename "$0" .sh): $failures failure(s)"
    [ "$failures" -eq 0 ]
}
