#!/usr/bin/env bash
# A full pool (quota reached): writing a region fails with LOCI_ENOSPC (-11) naming the
# region — at once, not held until space comes back — and what was written before stays.
. "$(dirname "$0")/lib.sh"
export LOCI_CONFIG=$STORE_DIR/full.conf
ceph_c() { timeout 30 ceph -c "$STORE_DIR/ceph.conf" "$@"; }
wait_healthy # pool lfull keeps one copy: every OSD must be up
expect "write full1 (2 MiB, over the 1 MiB quota) before the pool is marked full" 0 on a "$STORE_NODE" write full1 2M 31
full=1
for i in $(seq 1 60); do # the monitors mark the pool full from the usage the manager reports
    if ceph_c osd pool ls detail 2>/dev/null | grep "'lfull'" | grep -Eq 'flags [^ ]*full'; then full=0; break; fi
    sleep 1
done
expect "the cluster marks pool lfull full" 0 test $full -eq 0
out=$(on b "$STORE_NODE" timed-write full2 1M 2>&1)
expect_text "a write into the full pool: LOCI_ENOSPC (-11)" "^code -11 " "$out"
expect_text "the message names the region" 'region "full2"' "$out"
expect "full1 is intact" 0 on b "$STORE_NODE" verify full1 2M 31
ceph_c osd pool set-quota lfull max_bytes 0 >/dev/null 2>&1
for r in full1 full2; do on a "$STORE_NODE" remove $r >/dev/null 2>&1; done
ceph_c osd pool set-quota lfull max_bytes 1048576 >/dev/null 2>&1
finish
