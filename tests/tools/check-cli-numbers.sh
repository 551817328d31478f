#!/usr/bin/env bash
# Every number of the `loci` command goes through the one number parser (src/util/units.c): a
# number beyond its range, negative, hexadecimal, with an exponent or junk is refused with a
# message naming the option, what was wrong and what is right (exit 2), where it was truncated,
# wrapped or taken as "follow the CPU" before (`loci tier 4294967297` reported on process 1,
# `loci tier 2147483648` on "process -2147483648"); a valid number still works.
# usage: check-cli-numbers.sh LOCI_BINARY
set -uo pipefail
loci=$1
fail() { echo "check-cli-numbers: $*" >&2; exit 1; }

# refused WHAT-TO-FIND-IN-THE-MESSAGE COMMAND...: exit 2, the message has it
refused() {
  local want=$1 out rc; shift
  out=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2 (refused): $out"
  grep -qF -- "$want" <<<"$out" || fail "$*: message lacks \"$want\": $out"
}

for cmd in "info" "resolve bandwidth=high" "weights"; do
  for bad in 4294967296 -1 -4294967296 99999999999999999999 0x1 1e3 ""; do
    refused "--from" $loci $cmd --from "$bad"
  done
  $loci $cmd --from 0 >/dev/null || fail "loci $cmd --from 0 refused"
done
refused "--from 0x1: hexadecimal is not read: write the number in decimal digits; expected a NUMA node" \
  $loci info --from 0x1

# a PID is a pid_t, 1 to 2147483647, or refused
refused '"4294967297": too large: more than the most allowed; expected a process ID (1 to 2147483647)' \
  $loci tier 4294967297
refused '"2147483648": too large' $loci tier 2147483648
refused '"0": too small: less than the least allowed; expected a process ID' $loci tier 0
refused '"-1": a sign is not read' $loci tier -1
refused '"0x10": hexadecimal is not read' $loci tier 0x10
refused '"1e3": an exponent is not read' $loci tier 1e3
refused '"12abc": something after the number' $loci tier 12abc
refused "--watch 0x1: hexadecimal is not read" $loci tier $$ --watch 0x1
refused "--watch -1: a sign is not read" $loci tier $$ --watch -1
refused "--watch 0.01: out of range; expected seconds from 0.1 to 3600" $loci tier $$ --watch 0.01
refused "--watch 1e3: an exponent is not read" $loci tier $$ --watch 1e3
out=$($loci tier $$ 2>&1); rc=$?  # a valid PID: read, and refused for its own reason (no loci there)
[ "$rc" -eq 1 ] && grep -q "does not use loci" <<<"$out" || fail "loci tier $$: exit $rc: $out"

refused "--tier-threshold 0x1000: hexadecimal is not read" $loci run --tier auto --tier-threshold 0x1000 -- true
refused "--tier-threshold -64K: a sign is not read" $loci run --tier auto --tier-threshold -64K -- true
refused "--tier-threshold 1K: less than a page" $loci run --tier auto --tier-threshold 1K -- true

refused "LOCI_BENCH_MB=-5: a sign is not read" env LOCI_BENCH_MB=-5 $loci bench --target none
refused "LOCI_BENCH_MB=0x10: hexadecimal is not read" env LOCI_BENCH_MB=0x10 $loci bench --target none
refused "AUTO_HBW_SIZE=0x10: hexadecimal is not read" env AUTO_HBW_SIZE=0x10 $loci run --memkind -- true
refused "AUTO_HBW_SIZE=-1M: a sign is not read" env AUTO_HBW_SIZE=-1M $loci run --memkind -- true
# LOCI_TIER_CONTEXT is read by libloci-tier.so inside the program: a warning, and the default.
# (Not under sanitizers: their runtime must come first in a program, so the interposer is not
# preloaded into an uninstrumented one; CMake sets LOCI_CHECK_INTERPOSER where it is.)
if [ "${LOCI_CHECK_INTERPOSER:-0}" = 1 ]; then
  out=$(LOCI_TIER_CONTEXT=0x4 LOCI_LOG=warn $loci run --tier auto -- true 2>&1)
  grep -qF "LOCI_TIER_CONTEXT=0x4: hexadecimal is not read" <<<"$out" || fail "LOCI_TIER_CONTEXT=0x4 not refused: $out"
else
  echo "check-cli-numbers: LOCI_TIER_CONTEXT not checked: a sanitizer build preloads no interposer"
fi
echo "check-cli-numbers: every bad number refused, saying what was wrong and what is right"
