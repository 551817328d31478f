#!/usr/bin/env bash
# A benefactor host's network goes down (2 replicas on different hosts): writes and
# reads go on from both client nodes, and nothing acknowledged is lost — neither while
# the host is down nor after it comes back; a checkpoint drains to the store meanwhile and
# restores on the other node. Then an OSD is killed outright.
. "$(dirname "$0")/lib.sh"
for r in hd1 hd2 hd3; do on a "$STORE_NODE" remove $r >/dev/null 2>&1; done
expect "write hd1 (16 MiB) on a, all hosts up" 0 on a "$STORE_NODE" write hd1 16M 11
"$STORE_CLUSTER" down "$STORE_DIR" h1
expect "write hd2 on b with host h1 down" 0 on b "$STORE_NODE" write hd2 16M 12
expect "read hd1 on b with host h1 down" 0 on b "$STORE_NODE" verify hd1 16M 11
expect "read hd2 on a with host h1 down" 0 on a "$STORE_NODE" verify hd2 16M 12
# A checkpoint (region snapshot + DRAM variable) drained to the store with h1 down.
drain_conf=$STORE_DIR/hd-drain.conf
{ cat "$LOCI_CONFIG"; printf '\n[checkpoint]\ndrain = agg0\n'; } >"$drain_conf"
rm -rf "$STORE_DIR/ckpt-hda" "$STORE_DIR/ckpt-hdb"
mkdir -m 700 "$STORE_DIR/ckpt-hda"
out=$(on a env LOCI_CONFIG="$drain_conf" LOCI_CKPT_DIR="$STORE_DIR/ckpt-hda" "$STORE_NODE" ckpt-save hd2 16M 12 hk wait)
expect_text "a checkpoint of hd2 and a DRAM variable drains to the store with host h1 down" '^drained hk' "$out"
"$STORE_CLUSTER" up "$STORE_DIR" h1
wait_healthy
expect "restore hk on b from the store after recovery, bit-exact" 0 \
    on b env LOCI_CONFIG="$drain_conf" LOCI_CKPT_DIR="$STORE_DIR/ckpt-hdb" "$STORE_NODE" ckpt-restore hd2 16M hk 12
rados_cmd -p loci rm loci-ckpt/hk 2>/dev/null
rm -rf "$STORE_DIR/ckpt-hda" "$STORE_DIR/ckpt-hdb"
expect "write hd3 on a after h1 came back" 0 on a "$STORE_NODE" write hd3 4M 13
expect "hd1 intact on b after recovery" 0 on b "$STORE_NODE" verify hd1 16M 11
expect "hd2 intact on a after recovery" 0 on a "$STORE_NODE" verify hd2 16M 12
# An OSD process killed (its host stays): the same.
osd=$(ls "$STORE_DIR"/run/osd.*.pid | head -1 | sed 's/.*osd\.\([0-9]*\)\.pid/\1/')
"$STORE_CLUSTER" kill-osd "$STORE_DIR" "$osd"
expect "write hd3 again on b with osd.$osd killed" 0 on b "$STORE_NODE" write hd3 4M 14
expect "hd1 read on a with osd.$osd killed" 0 on a "$STORE_NODE" verify hd1 16M 11
expect "hd3 read on a with osd.$osd killed" 0 on a "$STORE_NODE" verify hd3 4M 14
"$STORE_CLUSTER" start-osd "$STORE_DIR" "$osd" # back for the checks after this one
wait_healthy
for r in hd1 hd2 hd3; do on a "$STORE_NODE" remove $r >/dev/null 2>&1; done
finish
