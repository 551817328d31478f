#!/usr/bin/env bash
# Checkpoints killed with SIGKILL at random moments of saves and drains (docs/CHECKPOINT.md,
# "what a crash leaves"), KILLS times: a writer on node a saves a store region and a DRAM
# variable again and again with [checkpoint] drain = agg0. After each kill the checkpoint
# restores bit-exact on a (level 1: the last save known durable — reported, or restored by an
# earlier check — or the save the killed run was in, durable once loci_ckpt_save returned and
# reported only after: the one after the last it reported, or its first when it reported none)
# and from the store on node b with no checkpoint directory (level 2: the last drain reported, or
# later). Every tenth kill lands exactly there: the run
# stops itself once its first save returned, before reporting it (ckpt-loop ... pause), and is
# killed stopped. The others land a random 0-0.6 s after the writer reported its first save, its
# first drain or its second save: in the save or drain under way, however slowly a loaded machine
# runs the writer (killed at a random time after its start, it was killed before its first save
# on a loaded machine, and no drain completed for level 2 and gc to check).
. "$(dirname "$0")/lib.sh"
kills=${KILLS:-30}
size=1M
conf=$STORE_DIR/kill.conf
{ sed 's/^lock_ttl = .*/lock_ttl = 2s/' "$LOCI_CONFIG"; printf '\n[checkpoint]\ndrain = agg0\n'; } >"$conf"
cka=$STORE_DIR/ckpt-ka ckb=$STORE_DIR/ckpt-kb
rm -rf "$cka" "$ckb"
mkdir -m 700 "$cka"
at() { local host=$1 dir=$2; shift 2; on "$host" env LOCI_CONFIG="$conf" LOCI_CKPT_DIR="$dir" "$@"; }
on a "$STORE_NODE" remove kr >/dev/null 2>&1
log=$STORE_DIR/kill.log
saved=0 drained=0 seed=1 bad=0
# stopped PID: whether process PID stopped itself (within 120 s; a save takes seconds under load).
stopped() {
    local i
    for i in $(seq 1 1200); do
        [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# reported PID N: whether writer PID reported N saves and drains (within 120 s).
reported() {
    local i
    for i in $(seq 1 1200); do
        [ "$(grep -c '^\(saved\|drained\) ' "$log")" -ge "$2" ] && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
for k in $(seq 1 "$kills"); do
    pause=
    [ $((k % 10)) -eq 5 ] && pause=pause
    : >"$log" # the last run's lines are not this one's progress
    ip netns exec "$("$STORE_CLUSTER" netns "$STORE_DIR" a)" env LOCI_CONFIG="$conf" LOCI_CKPT_DIR="$cka" \
        "$STORE_NODE" ckpt-loop kr $size latest $seed $pause >"$log" 2>&1 &
    pid=$!
    if [ -n "$pause" ]; then
        stopped $pid || { echo "FAIL kill $k: the writer did not stop after its first save: $(cat "$log")"; bad=$((bad + 1)); }
    elif reported $pid $((k % 3 + 1)); then
        sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", r / 32768 * 0.6 }')"
    else
        echo "FAIL kill $k: the writer reported no progress in 120 s: $(cat "$log")"
        bad=$((bad + 1))
    fi
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    s=$(sed -n 's/^saved //p' "$log" | tail -1)
    d=$(sed -n 's/^drained //p' "$log" | tail -1)
    # pending: the save the run was in when killed, durable perhaps, unreported
    if [ -n "$s" ]; then saved=$s pending=$((s + 1)); else pending=$seed; fi
    [ -n "$d" ] && drained=$d
    seed=$((pending + 1)) # pending's seed is never saved again: a restore of it is pending's
    [ "$saved" -eq 0 ] && continue # killed before the first save ever
    local_out=$(at a "$cka" "$STORE_NODE" ckpt-check kr $size latest 2>&1)
    store_out=$(at b "$ckb" "$STORE_NODE" ckpt-check kr $size latest 2>&1)
    l=$(echo "$local_out" | sed -n 's/^restored //p') r=$(echo "$store_out" | sed -n 's/^restored //p')
    echo "kill $k: last saved $saved, drained $drained; restored: local ${l:-none}, from the store ${r:-none}"
    if [ "$l" != "$saved" ] && [ "$l" != "$pending" ]; then
        echo "FAIL kill $k: level 1 restored ${l:-nothing}, expected $saved or $pending: $local_out"
        bad=$((bad + 1))
    fi
    if [ "$drained" -gt 0 ] && { [ -z "$r" ] || [ "$r" -lt "$drained" ] || [ "$r" -gt "$pending" ]; }; then
        echo "FAIL kill $k: level 2 restored ${r:-nothing}, expected $drained..$pending: $store_out"
        bad=$((bad + 1))
    fi
    # restored, so durable: a later run that saves nothing before its kill leaves this one latest
    [ "$l" = "$pending" ] && saved=$pending
done
expect "$kills kills: every checkpoint restored bit-exact at both levels" 0 test "$bad" -eq 0
expect "verify latest on a" 0 at a "$cka" "$LOCI_TOOL" ckpt verify latest
gc=$(at a "$cka" "$LOCI_TOOL" ckpt gc)
expect_text "gc removes the snapshots of killed saves and replaced checkpoints" 'store snapshots: [12] kept, [1-9][0-9]* removed' "$gc"
expect "latest still restores after gc" 0 at b "$ckb" "$STORE_NODE" ckpt-check kr $size latest
expect "rm latest on a (and the store's record of a's level 1, if its last drain was killed)" 0 \
    at a "$cka" "$LOCI_TOOL" ckpt rm latest
rados_cmd -p loci rm loci-ckpt/latest 2>/dev/null # level 2's, an older one
expect "remove region kr" 0 on a "$STORE_NODE" remove kr
rm -rf "$cka" "$ckb" "$log"
finish
