#!/usr/bin/env bash
# Multi-level checkpoints (docs/CHECKPOINT.md): with [checkpoint] drain = agg0 a save writes
# level 1 (the node's directory) and a background thread drains it to the store. Node a
# saves a DRAM variable and a store region, and is lost (its checkpoint directory wiped):
# node b lists, verifies and restores the checkpoint from the store bit-exact. With the
# store unreachable a save still succeeds at level 1 and says level 2 is pending. A name at
# both levels with other contents: the newer one wins.
. "$(dirname "$0")/lib.sh"
size=4M
drain_conf=$STORE_DIR/drain.conf
{ cat "$LOCI_CONFIG"; printf '\n[checkpoint]\ndrain = agg0\n'; } >"$drain_conf"
cka=$STORE_DIR/ckpt-ra ckb=$STORE_DIR/ckpt-rb
rm -rf "$cka" "$ckb"
mkdir -m 700 "$cka" "$ckb"
at() { local host=$1 dir=$2; shift 2; on "$host" env LOCI_CONFIG="$drain_conf" LOCI_CKPT_DIR="$dir" "$@"; }
on a "$STORE_NODE" remove rs >/dev/null 2>&1

out=$(at a "$cka" "$STORE_NODE" ckpt-save rs $size 44 r1 wait); echo "$out"
expect_text "save r1 on a, then its drain to the store completes" 'drained r1' "$out"
expect_text "loci_ckpt_list: r1 at both levels, its DRAM chunk's 1 MiB drained (the region is a snapshot)" \
    'listed r1: levels 3, 1048576 of 1048576 chunk bytes in the store' "$out"
expect_text "loci ckpt ls on a: r1 at both levels" 'r1 .*local\+store' "$(at a "$cka" "$LOCI_TOOL" ckpt ls)"
drained=$(rados_cmd -p loci ls | grep -c '^loci-ckpt/chunks/' || true)
expect_text "the DRAM variable's chunk is an object of the store" '^[1-9]' "$drained"
# A second checkpoint of the same DRAM bytes sends no chunk again.
out=$(at a "$cka" "$STORE_NODE" ckpt-save rs $size 44 r2 wait); echo "$out"
again=$(rados_cmd -p loci ls | grep -c '^loci-ckpt/chunks/' || true)
expect_text "r2 drained without a new chunk object (shared with r1)" "^$drained\$" "$again"

rm -rf "$cka" # node a is lost
expect_text "loci ckpt ls on b finds r1 in the store" 'r1 .*store' "$(at b "$ckb" "$LOCI_TOOL" ckpt ls)"
expect "loci ckpt verify r1 on b (level 2 only)" 0 at b "$ckb" "$LOCI_TOOL" ckpt verify r1
expect_text "loci ckpt show r1 on b reads it from the store" 'object loci-ckpt/r1 of agg0' \
    "$(at b "$ckb" "$LOCI_TOOL" ckpt show r1)"
# Bad input: the manifest in the store fails its checksum.
rados_cmd -p loci get loci-ckpt/r1 "$STORE_DIR/r1.manifest"
sed '0,/^seq /s/^seq /seq 9/' "$STORE_DIR/r1.manifest" >"$STORE_DIR/r1.bad"
rados_cmd -p loci put loci-ckpt/r1 "$STORE_DIR/r1.bad"
out=$(at b "$ckb" "$LOCI_TOOL" ckpt verify r1 2>&1)
expect_text "verify on b: r1's manifest in the store fails its checksum" 'r1.*fails its checksum' "$out"
rados_cmd -p loci put loci-ckpt/r1 "$STORE_DIR/r1.manifest"
rm -f "$STORE_DIR/r1.manifest" "$STORE_DIR/r1.bad"
expect "restore r1 on b from the store: region and DRAM variable bit-exact" 0 \
    at b "$ckb" "$STORE_NODE" ckpt-restore rs $size r1 44

# The store unreachable: a conf whose monitor address answers nothing.
sed 's/^mon_host = .*/mon_host = [v2:127.0.0.1:9]/' "$STORE_DIR/ceph.conf" >"$STORE_DIR/down-ceph.conf"
sed "s|^conf = .*|conf = $STORE_DIR/down-ceph.conf|; s/^timeout = .*/timeout = 3s/" "$drain_conf" >"$STORE_DIR/down.conf"
out=$(on a env LOCI_CONFIG="$STORE_DIR/down.conf" LOCI_CKPT_DIR="$cka" "$STORE_NODE" ckpt-save - 0 55 d1 wait 2>&1)
rc=$?
echo "$out"
expect "save d1 with the store down: level 1 saved, the drain failed (exit 4)" 0 test $rc -eq 4
expect_text "d1 is listed at level 1 with level 2 pending" 'd1 .*local, store pending' \
    "$(on a env LOCI_CONFIG="$STORE_DIR/down.conf" LOCI_CKPT_DIR="$cka" "$LOCI_TOOL" ckpt ls 2>&1)"
# by hand, with its progress bar asked for (stderr is no terminal here)
out=$(at a "$cka" env LOCI_PROGRESS=1 "$LOCI_TOOL" ckpt drain d1 2>&1)
rc=$?
echo "$out"
expect "loci ckpt drain d1 once the store is back" 0 test $rc -eq 0
expect_text "... with a complete progress bar (LOCI_PROGRESS=1)" 'drain d1 \[#+\] 100% ' "$out"
expect_text "d1 now at both levels" 'd1 .*local\+store' "$(at a "$cka" "$LOCI_TOOL" ckpt ls)"

# The same name at both levels with other contents: the newer complete one wins, said.
ckc=$STORE_DIR/ckpt-rc
rm -rf "$ckc"; mkdir -m 700 "$ckc"
expect "a saves n1 (seed 77) at level 1" 0 on a env LOCI_CKPT_DIR="$ckc" "$STORE_NODE" ckpt-save rs $size 77 n1
sleep 1.1 # a later save time
expect "b saves n1 (seed 66) and drains it" 0 at b "$ckb" "$STORE_NODE" ckpt-save rs $size 66 n1 wait
out=$(at a "$ckc" "$STORE_NODE" ckpt-restore rs $size n1 66 2>&1)
expect_text "restore n1 on a says the store holds a newer one" 'n1.*agg0 holds a newer one' "$out"
expect_text "... and restores that one bit-exact (seed 66)" '^restored n1' "$out"
expect "rm n1 on a (its level 1, and the store's record of it; b's n1 in the store stays)" 0 \
    on a env LOCI_CKPT_DIR="$ckc" "$LOCI_TOOL" ckpt rm n1
rm -rf "$ckc"

# GC of the drained chunks (objects loci-ckpt/chunks/<id>): one a killed drain left and those
# of removed checkpoints go; those a checkpoint names, here or only in the store, stay.
chunks() { rados_cmd -p loci ls | grep -c '^loci-ckpt/chunks/' || true; }
printf 'left by a killed drain' >"$STORE_DIR/orphan"
rados_cmd -p loci put loci-ckpt/chunks/00000000deadbeef "$STORE_DIR/orphan"
rm -f "$STORE_DIR/orphan"
gc=$(at b "$ckb" "$LOCI_TOOL" ckpt gc); echo "$gc"
expect_text "gc on b removes drained chunks no manifest names" 'drained chunks in the store: [1-9][0-9]* kept, [1-9][0-9]* removed' "$gc"
expect_text "... the orphan among them" '^$' "$(rados_cmd -p loci ls | grep deadbeef)"
expect "d1 (level 2 only on b) still verifies after gc" 0 at b "$ckb" "$LOCI_TOOL" ckpt verify d1
kept=$(chunks)
expect "loci ckpt rm r1 on b (level 2 only: its manifest in the store)" 0 at b "$ckb" "$LOCI_TOOL" ckpt rm r1
expect_text "r1 is gone from the store" '^0$' "$(rados_cmd -p loci ls | grep -c '^loci-ckpt/r1$' || true)"
gc=$(at b "$ckb" "$LOCI_TOOL" ckpt gc); echo "$gc"
expect_text "r2 still names r1's chunk: nothing removed" ', 0 removed$' "$gc"
expect "loci ckpt rm r2 on b" 0 at b "$ckb" "$LOCI_TOOL" ckpt rm r2
gc=$(at b "$ckb" "$LOCI_TOOL" ckpt gc); echo "$gc"
expect_text "gc removes the chunk r1 and r2 shared" 'drained chunks in the store: [0-9]+ kept, [1-9][0-9]* removed' "$gc"
expect "fewer chunk objects than before" 0 test "$(chunks)" -lt "$kept"
expect "d1 still verifies" 0 at b "$ckb" "$LOCI_TOOL" ckpt verify d1
expect "n1 still verifies" 0 at b "$ckb" "$LOCI_TOOL" ckpt verify n1
expect_text "rm of a checkpoint at neither level says so" 'no checkpoint "r9" here nor in a store' \
    "$(at b "$ckb" "$LOCI_TOOL" ckpt rm r9 2>&1)"

for c in r1 r2 d1 n1; do rados_cmd -p loci rm "loci-ckpt/$c" 2>/dev/null; done
rm -f "$ckb"/n1.manifest
before=$(chunks)
expect "gc once every checkpoint is gone" 0 at b "$ckb" "$LOCI_TOOL" ckpt gc
expect "... removes their drained chunks" 0 test "$(chunks)" -lt "$before"
expect "remove region rs" 0 on a "$STORE_NODE" remove rs
rm -rf "$cka" "$ckb"
finish
