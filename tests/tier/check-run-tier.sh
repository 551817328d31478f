#!/usr/bin/env bash
# `loci run --tier`: what it refuses, saying what was wrong and what is right, and that it keeps
# the user's LD_PRELOAD (after libloci-tier.so) and sets the variables the program sees.
# usage: check-run-tier.sh LOCI_BINARY
set -uo pipefail
loci=$1
fail() { echo "check-run-tier: $*" >&2; exit 1; }

refused() { # exit code, message pattern, arguments...
  local want=$1 pattern=$2; shift 2
  local out rc
  out=$("$loci" run "$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -q -- "$pattern" <<<"$out"; then
    fail "loci run $*: exit $rc (want $want): $out"
  fi
}
refused 2 "the only tiering is auto" --tier manual -- /bin/true
refused 2 "goes with --tier auto" --tier-threshold 1M -- /bin/true
refused 2 "at least 4 KiB" --tier auto --tier-threshold 100 -- /bin/true
refused 2 "at least 4 KiB" --tier auto --tier-threshold lots -- /bin/true
refused 1 "names one target" --tier auto --intent target=dram0 -- /bin/true
refused 1 "unknown" --tier auto --intent bogus=1 -- /bin/true

user=$(ldd /bin/sh | awk '$1 ~ /^libc\.so/ { print $3 }') # a library the user preloads: harmless
# shellcheck disable=SC2016 # the variables are the program's, expanded by its shell
out=$(LD_PRELOAD=$user "$loci" run --tier auto --intent latency=low \
      --tier-threshold 1M -- sh -c 'echo "$LD_PRELOAD|$LOCI_TIER|$LOCI_TIER_INTENT|$LOCI_TIER_THRESHOLD"') ||
  fail "loci run --tier auto -- sh: $out"
case $out in
  */libloci-tier.so" $user|auto|latency=low|1048576") ;;
  *) fail "environment: $out" ;;
esac
echo "check-run-tier: ok"
