#!/usr/bin/env bash
# Every OSD killed while a writer streams a region of 128 MiB through its 64 MiB cache: the
# writer, held at the dirty limit, is let go once the store has taken no write for its timeout
# (5 s here), and its sync ends with LOCI_EIO saying that unflushed pages were lost — in bounded
# time, where it used to wait at the dirty limit for ever. Then the OSDs are started again.
. "$(dirname "$0")/lib.sh"
export LOCI_CONFIG=$STORE_DIR/short.conf
osds=$(ls "$STORE_DIR"/run/osd.*.pid | sed 's/.*osd\.\([0-9]*\)\.pid/\1/')
on a "$STORE_NODE" remove dead >/dev/null 2>&1
out_fifo=/tmp/dead-out.$$ in_fifo=/tmp/dead-in.$$
mkfifo $out_fifo $in_fifo
on a timeout 300 "$STORE_NODE" paused-write dead 128M <$in_fifo >$out_fifo 2>&1 & writer=$!
exec 4>$in_fifo 3<$out_fifo # (in the order the writer opens them) open all along: a writer logging meanwhile must not meet a closed pipe
read -r line <&3
expect_text "the first 32 MiB written with every OSD up" "^quarter$" "$line"
for osd in $osds; do "$STORE_CLUSTER" kill-osd "$STORE_DIR" "$osd"; done
killed=$SECONDS
echo go >&4 # the other 96 MiB, with every OSD dead
out=$(cat <&3); wait $writer; rc=$?
exec 3<&- 4>&-; rm -f $out_fifo $in_fifo
secs=$((SECONDS - killed))
expect "the writer ends with every OSD dead (exit $rc; 124: still writing after 300 s)" 0 test $rc -ne 124
expect_text "its sync: LOCI_EIO (-8)" "^code -8 " "$out"
expect_text "...saying unflushed pages were lost" "unflushed pages lost" "$out"
expect_text "the log says writers no longer wait for the store" "has taken no write for 5 s: writers no longer wait" "$out"
expect "...in bounded time (timeout 5 s; ended ${secs} s after the kill)" 0 test "$secs" -lt 60
for osd in $osds; do "$STORE_CLUSTER" start-osd "$STORE_DIR" "$osd" 2>/dev/null; done
wait_healthy
for i in $(seq 1 120); do on a "$STORE_NODE" remove dead >/dev/null 2>&1 && break; sleep 0.5; done # its lock expires
finish
