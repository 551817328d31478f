#!/usr/bin/env bash
# Checkpoints killed with SIGKILL at random moments of saves and drains (docs/CHECKPOINT.md,
# "what a crash leaves"), KILLS times: a writer on node a saves a store region and a DRAM
# variable again and again with [checkpoint] drain = agg0. After each kill the checkpoint
# restores bit-exact on a (level 1: the last save reported, or the one after it) and from the
# store on node b with no checkpoint directory (level 2: the last drain reported, or later).
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
for k in $(seq 1 "$kills"); do
    ip netns exec "$("$STORE_CLUSTER" netns "$STORE_DIR" a)" env LOCI_CONFIG="$conf" LOCI_CKPT_DIR="$cka" \
        "$STORE_NODE" ckpt-loop kr $size latest $seed >"$log" 2>&1 &
    pid=$!
    sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.3 + r / 32768 * 1.5 }')"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    s=$(sed -n 's/^saved //p' "$log" | tail -1)
    d=$(sed -n 's/^drained //p' "$log" | tail -1)
    [ -n "$s" ] && saved=$s
    [ -n "$d" ] && drained=$d
    last=$(sed -n 's/^\(saved\|drained\) //p' "$log" | tail -1)
    seed=$(( ${last:-$seed} + 1 ))
    [ "$saved" -eq 0 ] && continue # killed before the first save ever
    local_out=$(at a "$cka" "$STORE_NODE" ckpt-check kr $size latest 2>&1)
    store_out=$(at b "$ckb" "$STORE_NODE" ckpt-check kr $size latest 2>&1)
    l=$(echo "$local_out" | sed -n 's/^restored //p') r=$(echo "$store_out" | sed -n 's/^restored //p')
    echo "kill $k: last saved $saved, drained $drained; restored: local ${l:-none}, from the store ${r:-none}"
    if [ -z "$l" ] || [ "$l" -lt "$saved" ] || [ "$l" -gt $((saved + 1)) ]; then
        echo "FAIL kill $k: level 1 restored ${l:-nothing}, expected $saved or $((saved + 1)): $local_out"
        bad=$((bad + 1))
    fi
    if [ "$drained" -gt 0 ] && { [ -z "$r" ] || [ "$r" -lt "$drained" ] || [ "$r" -gt $((saved + 1)) ]; }; then
        echo "FAIL kill $k: level 2 restored ${r:-nothing}, expected $drained..$((saved + 1)): $store_out"
        bad=$((bad + 1))
    fi
    seed=$((seed + 1))
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
