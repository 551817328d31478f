#!/usr/bin/env bash
# Checkpoints of a region on the store (docs/CHECKPOINT.md): kept by a RADOS snapshot, not
# copied. A second checkpoint of the unchanged region sends ~0 bytes of chunk data to the
# OSDs; a write from ANOTHER client node after the checkpoint leaves its bytes intact (the
# region's snapshot context lives with its metadata, and that node's writer applies it);
# restoring brings back region and DRAM variable bit-exact; the store holds the manifest of a
# checkpoint whose every chunk it has, and a record of one whose DRAM data is on a only;
# gc removes the snapshots no checkpoint refers to.
. "$(dirname "$0")/lib.sh"
size=8M
cka=$STORE_DIR/ckpt-a
rm -rf "$cka"
mkdir -m 700 "$cka"
ckpt_a() { on a env LOCI_CKPT_DIR="$cka" "$@"; }
on a "$STORE_NODE" remove ck >/dev/null 2>&1

expect "save c1 of region ck (filled from seed 11) and a DRAM variable on a" 0 \
    ckpt_a "$STORE_NODE" ckpt-save ck $size 11 c1
before=$(osd_write_bytes)
out=$(ckpt_a "$STORE_NODE" ckpt-save ck $size - c2)
after=$(osd_write_bytes)
echo "$out"
expect_text "second checkpoint (another process, region unchanged) saved" '^saved c2' "$out"
sent=$((after - before))
echo "bytes the OSDs received for checkpoint c2 of an 8 MiB region: $sent"
expect "c2 sent less than one 256 KiB chunk to the OSDs (not the 8 MiB a copy would)" 0 test "$sent" -lt 262144
objects=$(rados_cmd -p loci ls | grep -c '^loci-ckpt/c2$\|^loci-ckpt/level1/c1/' || true)
expect_text "c2 (its DRAM variable all zeros) is whole in the store; c1 (DRAM data on a) a record of a's level 1" \
    '^2$' "$objects"

expect "client b overwrites the region (seed 22) after the checkpoints" 0 on b "$STORE_NODE" write ck $size 22
expect "b reads its own bytes back" 0 on b "$STORE_NODE" verify ck $size 22
expect "verify c1 against its checksums (read at its snapshot)" 0 ckpt_a "$LOCI_TOOL" ckpt verify c1
expect "restore c1 on a: region and DRAM variable bit-exact as saved" 0 \
    ckpt_a "$STORE_NODE" ckpt-restore ck $size c1 11
expect "b sees the restored region" 0 on b "$STORE_NODE" verify ck $size 11
show=$(ckpt_a "$LOCI_TOOL" ckpt show c1)
expect_text "loci ckpt show names the snapshot" 'kept by snapshot [0-9]+ of agg0' "$show"

# Bad input: c1's snapshot gone from the region's context behind loci's back.
ctx=$(rados_cmd -p loci getxattr loci-region/ck loci.snapc)
rados_cmd -p loci setxattr loci-region/ck loci.snapc "${ctx% *}" # the oldest (c1's) dropped
out=$(ckpt_a "$LOCI_TOOL" ckpt verify c1 2>&1)
expect_text "verify c1 with its snapshot gone says so" 'region "ck".*no such snapshot' "$out"
out=$(ckpt_a "$STORE_NODE" ckpt-restore ck $size c1 11 2>&1)
expect_text "restore c1 with its snapshot gone refuses, naming it" 'FAIL restore:.*no such snapshot' "$out"
rados_cmd -p loci setxattr loci-region/ck loci.snapc "$ctx"
expect "b's bytes were not overwritten by the refused restore" 0 on b "$STORE_NODE" verify ck $size 11

# b writes again, then c2 is removed and collected: c1's snapshot stays, c2's goes.
expect "b overwrites again (seed 33)" 0 on b "$STORE_NODE" write ck $size 33
expect "rm c2" 0 ckpt_a "$LOCI_TOOL" ckpt rm c2
objects=$(rados_cmd -p loci ls | grep -c '^loci-ckpt/c2$' || true)
expect_text "rm removes c2's manifest from the store" '^0$' "$objects"
gc=$(ckpt_a "$LOCI_TOOL" ckpt gc)
expect_text "gc removes c2's snapshot and keeps c1's" 'store snapshots: 1 kept, 1 removed' "$gc"
expect "c1 still restores bit-exact after gc" 0 ckpt_a "$STORE_NODE" ckpt-restore ck $size c1 11

expect "rm c1" 0 ckpt_a "$LOCI_TOOL" ckpt rm c1
expect "remove the region (its snapshots with it)" 0 on a "$STORE_NODE" remove ck
# The OSDs trim the clones of removed snapshots in the background: wait for them (60 s at most).
for i in $(seq 1 120); do
    left=$(rados_cmd -p loci ls | grep -c '^loci-region/ck\|^loci-ckpt/c1$\|^loci-ckpt/level1/c1/' || true)
    [ "$left" = 0 ] && break
    sleep 0.5
done
expect_text "nothing of region ck or checkpoint c1 is left in the pool (clones trimmed)" '^0$' "$left"
rm -rf "$cka"
finish
