#!/usr/bin/env bash
# `loci tier PID` on an unmodified program under `loci run --tier auto` (docs/TIERING.md "Seeing
# it"): its 16 allocation sites' arenas with their module+offset, target, size, and the totals,
# live; --watch until the program ends; and the refusals: not a PID, a process without loci.
# `loci tier --node` (docs/TIERING.md "Node-wide"): the process in the node ledger with its arenas,
# and the node's totals; its LOCI_STATS line at exit.
# usage: check-tier-view.sh LOCI_BINARY GUPS_MALLOC_BINARY
set -uo pipefail
loci=$1 gups=$2
fail() { echo "check-tier-view: $*" >&2; exit 1; }
dir=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$dir"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null' EXIT
printf '[tiering]\ninterval = 50ms\n' >"$dir/tier.ini"
export LOCI_TIER_LEDGER=$dir/ledger # a node of its own: tests run side by side

LOCI_STATS=1 LOCI_CONFIG=$dir/tier.ini "$loci" run --tier auto -- "$gups" 4 60 >"$dir/out" 2>&1 &
pid=$!
for _ in $(seq 100); do
  out=$("$loci" tier "$pid" 2>&1) && [ "$(grep -c "gups_malloc+0x" <<<"$out")" -ge 16 ] && break
  sleep 0.1
done
[ "$(grep -c "gups_malloc+0x" <<<"$out")" -ge 16 ] || fail "loci tier $pid: $out"
grep -q "^process $pid: tiering by the .* heat source" <<<"$out" || fail "no header: $out"
grep -q "^totals: .* promoted, .* demoted, .* moved back within 10 intervals" <<<"$out" || fail "no totals: $out"
grep -q "tiering CPU .* of one core" <<<"$out" || fail "no CPU share: $out"

# the table is published after an interval's share, so it may list an arena made after the ledger
# was written: the ledger lists it at the next interval
for _ in $(seq 100); do
  node=$("$loci" tier --node 2>&1) && grep -q "^process $pid: 16 auto arenas listed" <<<"$node" && break
  sleep 0.1
done
grep -q "^process $pid: 16 auto arenas listed" <<<"$node" || fail "loci tier --node lacks process $pid: $node"
grep -q "^node: 1 tiering processes of yours" <<<"$node" || fail "loci tier --node: no node totals: $node"
[ "$(stat -c %a "$dir/ledger")" = 600 ] || fail "the ledger is not 0600"

watch=$(timeout 120 "$loci" tier "$pid" --watch 0.2 2>&1) || fail "--watch ended with an error: $watch"
grep -q "process $pid has no tiering table any more" <<<"$watch" || fail "--watch did not see the end: $(tail -3 <<<"$watch")"
wait "$pid" || fail "gups_malloc: $(cat "$dir/out")"
[ ! -e "/dev/shm/loci-tier-$(id -u)-$pid" ] || fail "its table is left in /dev/shm"
grep -q "node at the last interval (1 tiering processes of yours): dram0 .* B node budget" "$dir/out" ||
  fail "LOCI_STATS has no node totals: $(cat "$dir/out")"
node=$("$loci" tier --node 2>&1) || fail "loci tier --node after the end: $node"
grep -q "^node: 0 tiering processes of yours" <<<"$node" || fail "its slot is left in the ledger: $node"

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
