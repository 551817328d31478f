#!/usr/bin/env bash
# The whole cluster unreachable from a client node (its network down): loci_init does not
# fail or hang — agg0 is listed as unreachable with a warning — and calls on the store
# return LOCI_EIO with a message within the configured timeout (5 s here); when the
# cluster is reachable again, what was written before it went away is intact.
. "$(dirname "$0")/lib.sh"
export LOCI_CONFIG=$STORE_DIR/short.conf
on a "$STORE_NODE" remove unr >/dev/null 2>&1
expect "write unr (2 MiB) on a while reachable" 0 on a "$STORE_NODE" write unr 2M 21

"$STORE_CLUSTER" down "$STORE_DIR" a
out=$(on a "$LOCI_TOOL" info 2>&1); rc=$?
expect "loci info on a with the cluster unreachable still works" 0 test $rc -eq 0
expect_text "loci info warns that agg0 is unreachable" "agg0 is unreachable" "$out"
expect_text "loci info says why agg0 is unreachable" "unreachable: agg0: cannot connect" "$out"
out=$(on a "$STORE_NODE" timed-write unr2 1M 2>&1)
expect_text "a region on an unreachable store: LOCI_EIO (-8)" "^code -8 " "$out"
secs=$(echo "$out" | sed -n 's/.* after \([0-9]*\)\..*/\1/p')
expect "...within the bound (connect timeout 5 s; took ${secs} s)" 0 test "${secs:-99}" -lt 20
"$STORE_CLUSTER" up "$STORE_DIR" a

# Reachable at open, gone at write-back.
fifo=/tmp/unr.$$; mkfifo $fifo
on a "$STORE_NODE" late-write unr 2M 3 >$fifo 2>&1 & writer=$!
read -r line <$fifo
expect_text "opened while reachable" "^open$" "$line"
"$STORE_CLUSTER" down "$STORE_DIR" a
out=$(cat $fifo); wait $writer; rm -f $fifo
expect_text "write-back to a vanished cluster: LOCI_EIO (-8)" "^code -8 " "$out"
secs=$(echo "$out" | sed -n 's/.* after \([0-9]*\)\..*/\1/p')
expect "...in bounded time (op timeout 5 s; took ${secs} s)" 0 test "${secs:-99}" -lt 30
"$STORE_CLUSTER" up "$STORE_DIR" a
# The writer could not release its lock while the cluster was away: it expires lock_ttl (6 s)
# after the last renewal that reached the OSD. Renewals the writer sent while host a was cut off
# stay queued in a's kernel after the writer exits (an orphaned TCP socket keeps retransmitting)
# and reach the OSD once the link is up; they used to take the expired lock anew (a renewal now
# must find the lock still held: LIBRADOS_LOCK_FLAG_MUST_RENEW). Wait for the lock to go, up to
# 60 s (a run on a loaded machine failed after 15 s, before MUST_RENEW).
for i in $(seq 1 120); do on b "$STORE_NODE" open unr ro >/dev/null 2>&1 && break; sleep 0.5; done
expect "what was synced before is intact when it comes back" 0 on b "$STORE_NODE" verify unr 2M 21
on a "$STORE_NODE" remove unr >/dev/null 2>&1
finish
