#!/usr/bin/env bash
# `loci ckpt ls | show | verify | rm | gc` on checkpoints made by test_ckpt_proc's "save" role
# (a DRAM variable and a paged region): listing, details, verify passing and then detecting a
# flipped byte in a chunk and in a manifest, removal, and GC freeing exactly the removed chunks.
# usage: check-ckpt.sh LOCI_BINARY TEST_CKPT_PROC SCRATCH_DIR
set -euo pipefail
loci=$1 maker=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" && chmod 700 "$scratch"
export LOCI_STORE_DIR=$scratch LOCI_CKPT_DIR=$scratch/ckpt
fail() { echo "check-ckpt: $*" >&2; exit 1; }

"$maker" --child save cli-a 1 cli-region
"$maker" --child save cli-b 2 cli-region
"$maker" --child save cli-c 3 cli-region

out=$("$loci" ckpt ls) && echo "$out"
for n in cli-a cli-b cli-c; do grep -q "^$n " <<<"$out" || fail "ls does not list $n"; done
[ "$(grep -c '^cli-' <<<"$out")" -eq 3 ] || fail "ls lists other than three checkpoints"

out=$("$loci" ckpt show cli-a -v) && head -8 <<<"$out"
grep -qE '^memory +data +2\.0 MiB +1\.0 MiB +copy +2 +0$' <<<"$out" || fail "show: no line for the DRAM variable"
grep -qE '^region +cli-region +1\.0 MiB +64\.0 KiB +link +16 +0$' <<<"$out" || fail "show: no line for the region"

"$loci" ckpt verify cli-a
chunk=$(sed -n 's|^ *1  chunks/\([0-9a-f]\{16\}\) .*|\1|p' <<<"$out" | head -1)   # chunk 1 of "data"
[ -n "$chunk" ] || fail "show -v names no pool file for chunk 1"
flip() { # file offset: flip one bit of one byte
  local b; b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
flip "$LOCI_CKPT_DIR/chunks/$chunk" 1000
if err=$("$loci" ckpt verify cli-a 2>&1); then fail "verify passed with a flipped byte in chunks/$chunk"; fi
echo "$err"
grep -q "variable \"data\", chunk 1" <<<"$err" && grep -q "fails its checksum" <<<"$err" ||
  fail "verify does not name the bad chunk: $err"
flip "$LOCI_CKPT_DIR/chunks/$chunk" 1000
"$loci" ckpt verify cli-a

flip "$LOCI_CKPT_DIR/cli-b.manifest" 30
if err=$("$loci" ckpt verify cli-b 2>&1); then fail "verify passed with a flipped byte in the manifest"; fi
echo "$err"
grep -q "manifest fails its checksum" <<<"$err" || fail "verify does not blame the manifest: $err"
flip "$LOCI_CKPT_DIR/cli-b.manifest" 30

if "$loci" ckpt verify no-such 2>/dev/null; then fail "verify of an unknown checkpoint passed"; fi
if "$loci" ckpt show ../etc 2>/dev/null; then fail "show accepted a path"; fi
if "$loci" ckpt frobnicate 2>/dev/null; then fail "an unknown subcommand passed"; fi

before=$(ls "$LOCI_CKPT_DIR/chunks" | wc -l)
"$loci" ckpt rm cli-a
"$loci" ckpt rm cli-b
if "$loci" ckpt rm cli-b 2>/dev/null; then fail "removing a removed checkpoint passed"; fi
grep -q '^cli-a ' <<<"$("$loci" ckpt ls)" && fail "ls still lists cli-a"
out=$("$loci" ckpt gc) && echo "$out"
after=$(ls "$LOCI_CKPT_DIR/chunks" | wc -l)
removed=$(sed -n 's/.* \([0-9]*\) removed .*/\1/p' <<<"$out")
kept=$(sed -n 's/^gc: \([0-9]*\) chunks kept.*/\1/p' <<<"$out")
[ "$removed" -gt 0 ] && [ $((before - removed)) -eq "$after" ] && [ "$kept" -eq "$after" ] ||
  fail "gc: $before files before, $after after, reported $removed removed and $kept kept"
"$loci" ckpt verify cli-c

# Progress bars (verify and drain): never on a stderr that is not a terminal, unless asked.
err=$(env -u LOCI_PROGRESS "$loci" ckpt verify cli-c 2>&1 >/dev/null)
# (no bar and no carriage return; a sanitizer build may print its own report there)
! grep -q $'verify cli-c \\[\\|\r' <<<"$err" || fail "verify drew on a stderr that is no terminal: $err"
err=$(LOCI_PROGRESS=1 "$loci" ckpt verify cli-c 2>&1 >/dev/null)
grep -qE 'verify cli-c \[#{24}\] 100% 3\.0 MiB of 3\.0 MiB' <<<"$err" || fail "LOCI_PROGRESS=1: no complete bar: $err"
if command -v script >/dev/null; then # a terminal (util-linux script's pseudo-terminal)
  out=$(script -qec "$loci ckpt verify cli-c" /dev/null)
  grep -q 'verify cli-c \[#' <<<"$out" || fail "no bar on a terminal: $out"
  out=$(LOCI_PROGRESS=0 script -qec "$loci ckpt verify cli-c" /dev/null)
  ! grep -q 'verify cli-c \[' <<<"$out" || fail "LOCI_PROGRESS=0: a bar on a terminal: $out"
else
  echo "check-ckpt: no script(1): the terminal case of progress bars not checked"
fi
# More checkpoints than ls's first listing has room for (64): every one listed, once.
export LOCI_CKPT_DIR=$scratch/many
"$maker" --child save-many many 70 many-region >/dev/null
out=$("$loci" ckpt ls)
[ "$(grep -c '^many-' <<<"$out")" -eq 70 ] || fail "ls of 70 checkpoints lists $(grep -c '^many-' <<<"$out")"
[ "$(grep '^many-' <<<"$out" | awk '{ print $1 }' | sort -u | wc -l)" -eq 70 ] || fail "ls lists a checkpoint twice"
echo "loci ckpt: ls (also of 70), show, verify (a flipped chunk byte and a flipped manifest byte caught), rm, gc, progress bars"
