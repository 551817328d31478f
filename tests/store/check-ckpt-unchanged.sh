#!/usr/bin/env bash
# An unchanged checkpoint costs its manifest (issue 40, docs/CHECKPOINT.md): a store region and
# a DRAM variable saved with [checkpoint] drain = agg0 and drained; saved again by another
# process with nothing changed, the OSDs receive at most the manifest (plus a few hundred bytes
# of locks and the snapshot context) — not the level-1 record and then the drain's manifest (2x).
# Without a drain the record is all it costs. The store then holds the new manifest, and the
# checkpoint restores bit-exact.
. "$(dirname "$0")/lib.sh"
size=32M
drain_conf=$STORE_DIR/drain.conf
{ cat "$LOCI_CONFIG"; printf '\n[checkpoint]\ndrain = agg0\n'; } >"$drain_conf"
ck=$STORE_DIR/ckpt-unchanged
rm -rf "$ck"
mkdir -m 700 "$ck"
at() { on a env LOCI_CONFIG="$1" LOCI_CKPT_DIR="$ck" "${@:2}"; }
on a "$STORE_NODE" remove un >/dev/null 2>&1

out=$(at "$drain_conf" "$STORE_NODE" ckpt-save un $size 5 u1 wait); echo "$out"
expect_text "u1: region and DRAM variable (seed 5) saved and drained" 'drained u1' "$out"
before=$(osd_write_bytes)
out=$(at "$drain_conf" "$STORE_NODE" ckpt-save un $size -5 u2 wait); echo "$out"
after=$(osd_write_bytes)
expect_text "u2 in another process, nothing changed: saved and drained" 'drained u2' "$out"
manifest=$(stat -c %s "$ck/u2.manifest")
sent=$((after - before))
echo "the OSDs received $sent bytes for unchanged checkpoint u2, whose manifest is $manifest bytes"
expect "u2 cost at most its manifest and 1 KiB (not the record and the manifest: $((2 * manifest)))" 0 \
    test "$sent" -le $((manifest + 1024))
expect_text "u2 is whole in the store, and no record of it is left" '^1 0$' \
    "$(rados_cmd -p loci ls | grep -c '^loci-ckpt/u2$') $(rados_cmd -p loci ls | grep -c '^loci-ckpt/level1/u2/' || true)"

before=$(osd_write_bytes)
out=$(at "$LOCI_CONFIG" "$STORE_NODE" ckpt-save un $size -5 u3); echo "$out"
after=$(osd_write_bytes)
manifest=$(stat -c %s "$ck/u3.manifest")
sent=$((after - before))
echo "without a drain the OSDs received $sent bytes for unchanged checkpoint u3 (manifest $manifest bytes)"
expect "u3 cost at most its record (manifest and a header) and 1 KiB" 0 test "$sent" -le $((manifest + 1024))

expect "u2 restores bit-exact (region and DRAM variable of seed 5)" 0 \
    at "$drain_conf" "$STORE_NODE" ckpt-restore un $size u2 5
for c in u1 u2 u3; do at "$drain_conf" "$LOCI_TOOL" ckpt rm $c >/dev/null; done
at "$drain_conf" "$LOCI_TOOL" ckpt gc >/dev/null
expect "remove the region" 0 on a "$STORE_NODE" remove un
rm -rf "$ck"
finish
