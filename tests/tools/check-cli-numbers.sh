#!/usr/bin/env bash
# Numeric options of the `loci` command are range-checked: --from with a number beyond int,
# a negative one or one with junk is refused with a message naming the option (exit 2),
# where it was truncated or taken as "follow the CPU" before; a valid node still works.
# usage: check-cli-numbers.sh LOCI_BINARY
set -uo pipefail
loci=$1
fail() { echo "check-cli-numbers: $*" >&2; exit 1; }

for cmd in "info" "resolve bandwidth=high" "weights"; do
  for bad in 4294967296 -1 -4294967296 99999999999999999999 0x1 1e3 ""; do
    out=$($loci $cmd --from "$bad" 2>&1 >/dev/null); rc=$?
    [ "$rc" -eq 2 ] || fail "loci $cmd --from '$bad': exit $rc, expected 2 (refused)"
    grep -q -- "--from" <<<"$out" || fail "loci $cmd --from '$bad': message does not name --from: $out"
  done
  $loci $cmd --from 0 >/dev/null || fail "loci $cmd --from 0 refused"
done
out=$(LOCI_BENCH_MB=-5 $loci bench --target none 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && grep -q LOCI_BENCH_MB <<<"$out" || fail "LOCI_BENCH_MB=-5: exit $rc: $out"
echo "check-cli-numbers: every bad number refused"
