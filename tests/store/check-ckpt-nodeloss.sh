#!/usr/bin/env bash
# A checkpoint seen from two nodes with NO [checkpoint] drain (docs/CHECKPOINT.md, "Two levels"):
# node a saves c1 (a store region and a DRAM variable: the DRAM chunk stays in a's directory)
# and c2 (the store region only: every chunk is in the store already). Node a is lost (its
# checkpoint directory wiped). On node b, ls, show, verify and restore agree: c2 is whole in
# the store and restores bit-exact; c1 was saved on node a at level 1 only and is reported so,
# never as corrupt; the store holds no manifest of c1, only the record that a holds it, and
# that record keeps c1's snapshot from b's GC while a lives.
. "$(dirname "$0")/lib.sh"
size=4M
cka=$STORE_DIR/ckpt-la ckb=$STORE_DIR/ckpt-lb
rm -rf "$cka" "$ckb"
mkdir -m 700 "$cka" "$ckb"
at() { local host=$1 dir=$2; shift 2; on "$host" env LOCI_CKPT_DIR="$dir" "$@"; }
on a "$STORE_NODE" remove nl >/dev/null 2>&1
objects() { rados_cmd -p loci ls | grep "^loci-ckpt/$1" | sort | tr '\n' ' '; }

expect "a saves c1: store region nl (seed 21) and a DRAM variable, no drain" 0 \
    at a "$cka" "$STORE_NODE" ckpt-save nl $size 21 c1
expect "a saves c2: the store region only" 0 at a "$cka" "$STORE_NODE" ckpt-save nl $size - c2 nodram
expect_text "the store holds c2's manifest, whole" 'loci-ckpt/c2 ' "$(objects c2)"
expect_text "... and no manifest of c1 (its DRAM chunk is on a only)" '^$' "$(objects 'c1$')"
expect_text "... but a record that a holds c1 at level 1" 'loci-ckpt/level1/c1/[0-9a-f]{16} ' "$(objects level1/c1/)"
ls=$(at a "$cka" "$LOCI_TOOL" ckpt ls); echo "$ls"
expect_text "ls on a: c1 local" '^c1 .* local$' "$ls"
expect_text "ls on a: c2 local+store" '^c2 .* local\+store$' "$ls"

# b's GC keeps what a's level-1 checkpoint needs: a's record names c1's snapshot.
expect "b saves c3 and c4 of region nl" 0 at b "$ckb" "$STORE_NODE" ckpt-save nl $size - c3 nodram
expect "... c4" 0 at b "$ckb" "$STORE_NODE" ckpt-save nl $size - c4 nodram
expect "rm c3 on b" 0 at b "$ckb" "$LOCI_TOOL" ckpt rm c3
gc=$(at b "$ckb" "$LOCI_TOOL" ckpt gc); echo "$gc"
expect_text "gc on b removes c3's snapshot only (c1's is named by a's record)" 'store snapshots: 3 kept, 1 removed' "$gc"
expect "c1 still verifies on a" 0 at a "$cka" "$LOCI_TOOL" ckpt verify c1

rm -rf "$cka" # node a is lost
ls=$(at b "$ckb" "$LOCI_TOOL" ckpt ls 2>&1); echo "$ls"
expect_text "ls on b: c2 in the store" '^c2 .* store$' "$ls"
expect_text "ls on b: c4 at both levels" '^c4 .* local\+store$' "$ls"
expect_text "ls on b: c1 at level 1 of node a only" '^c1 .* level 1 on node [^ ]+ only$' "$ls"
level1="checkpoint \"c1\" was saved on node [^ ]+ \\(checkpoint directory $cka\\), level 1 only: .*configure a drain \\(\\[checkpoint\\] drain = agg0 in LOCI_CONFIG\\) to restart elsewhere"
out=$(at b "$ckb" "$LOCI_TOOL" ckpt show c1 2>&1); echo "$out"
expect_text "show c1 on b: saved on node a, level 1 only" "$level1" "$out"
out=$(at b "$ckb" "$LOCI_TOOL" ckpt verify c1 2>&1)
expect_text "verify c1 on b: the same" "$level1" "$out"
expect_text "... not called corrupt" '^$' "$(echo "$out" | grep -i corrupt)"
out=$(at b "$ckb" "$STORE_NODE" ckpt-restore nl $size c1 21 2>&1); echo "$out"
expect_text "restore c1 on b: the same, nothing restored" "FAIL restore: .*$level1" "$out"
expect_text "... not called corrupt" '^$' "$(echo "$out" | grep -i corrupt)"
expect_text "show c2 on b reads it from the store" 'object loci-ckpt/c2 of agg0' \
    "$(at b "$ckb" "$LOCI_TOOL" ckpt show c2 2>&1)"
expect "verify c2 on b" 0 at b "$ckb" "$LOCI_TOOL" ckpt verify c2
expect "restore c2 on b: the region bit-exact" 0 at b "$ckb" "$STORE_NODE" ckpt-restore nl $size c2 21 nodram

# The lost node's checkpoint is removed from b: its record goes, then its snapshot with the region.
out=$(at b "$ckb" "$LOCI_TOOL" ckpt rm c1 2>&1)
expect_text "rm c1 on b removes the record of a's level 1" 'removed checkpoint c1' "$out"
expect_text "... no object of c1 is left" '^$' "$(objects 'c1$')$(objects level1/c1/)"
expect "rm c2 on b" 0 at b "$ckb" "$LOCI_TOOL" ckpt rm c2
expect "rm c4 on b" 0 at b "$ckb" "$LOCI_TOOL" ckpt rm c4
expect "remove region nl" 0 on a "$STORE_NODE" remove nl
rm -rf "$ckb"
finish
