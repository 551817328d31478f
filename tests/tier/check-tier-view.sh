#!/usr/bin/env bash
# `loci tier PID` on an unmodified program under `loci run --tier auto` (docs/TIERING.md "Seeing
# it"): its 16 allocation sites' arenas with their module+offset, target, size, and the totals,
# live; --watch until the program ends; and the refusals: not a PID, a process without loci.
# usage: check-tier-view.sh LOCI_BINARY GUPS_MALLOC_BINARY
set -uo pipefail
loci=$1 gups=$2
fail() { echo "check-tier-view: $*" >&2; exit 1; }
dir=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$dir"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null' EXIT
printf '[tiering]\ninterval = 50ms\n' >"$dir/tier.ini"

LOCI_CONFIG=$dir/tier.ini "$loci" run --tier auto -- "$gups" 4 60 >"$dir/out" 2>&1 &
pid=$!
for _ in $(seq 100); do
  out=$("$loci" tier "$pid" 2>&1) && [ "$(grep -c "gups_malloc+0x" <<<"$out")" -ge 16 ] && break
  sleep 0.1
done
[ "$(grep -c "gups_malloc+0x" <<<"$out")" -ge 16 ] || fail "loci tier $pid: $out"
grep -q "^process $pid: tiering by the .* heat source" <<<"$out" || fail "no header: $out"
grep -q "^totals: .* promoted, .* demoted, .* moved back within 10 intervals" <<<"$out" || fail "no totals: $out"
grep -q "tiering CPU .* of one core" <<<"$out" || fail "no CPU share: $out"

watch=$(timeout 120 "$loci" tier "$pid" --watch 0.2 2>&1) || fail "--watch ended with an error: $watch"
grep -q "process $pid has no tiering table any more" <<<"$watch" || fail "--watch did not see the end: $(tail -3 <<<"$watch")"
wait "$pid" || fail "gups_malloc: $(cat "$dir/out")"
[ ! -e "/dev/shm/loci-tier-$(id -u)-$pid" ] || fail "its table is left in /dev/shm"

refused() { # exit code, message pattern, PID argument
  local out rc
  out=$("$loci" tier "$3" 2>&1); rc=$?
  if [ "$rc" -ne "$1" ] || ! grep -q -- "$2" <<<"$out"; then fail "loci tier $3: exit $rc (want $1): $out"; fi
}
refused 2 "expected a process ID" abc
sleep 10 & other=$!
refused 1 "does not use loci" "$other"
kill "$other"
echo "check-tier-view: ok"
