#!/usr/bin/env bash
# LOCI_TIER_PROFILE under `loci run --tier auto` (docs/TIERING.md "Profiles"): an unmodified
# program's allocation sites, keyed by their calling contexts' modules and offsets, written at exit
# (0600) and read by its next run (a new process, new addresses), which finds the same sites (it
# adds none); the profile of another program is ignored with a warning naming it.
# usage: check-tier-profile.sh LOCI_BINARY GUPS_MALLOC_BINARY
set -uo pipefail
loci=$1 gups=$2
fail() { echo "check-tier-profile: $*" >&2; exit 1; }
dir=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$dir"' EXIT
export LOCI_TIER_PROFILE=$dir/gups.profile

out=$("$loci" run --tier auto -- "$gups" 2 1 2>&1) || fail "first run: $out"
[ -f "$LOCI_TIER_PROFILE" ] || fail "no profile written: $out"
[ "$(stat -c %a "$LOCI_TIER_PROFILE")" = 600 ] || fail "profile mode $(stat -c %a "$LOCI_TIER_PROFILE")"
sites=$(grep -c "^site [0-9a-f]\{16\} .* gups_malloc+0x[0-9a-f]*<" "$LOCI_TIER_PROFILE")
[ "$sites" -ge 16 ] || fail "$sites sites of gups_malloc in the profile (want 16): $(cat "$LOCI_TIER_PROFILE")"
first=$(cat "$LOCI_TIER_PROFILE")

out=$(LOCI_LOG=info "$loci" run --tier auto -- "$gups" 2 1 2>&1) || fail "second run: $out"
grep -q "gups.profile: $sites sites\$" <<<"$out" || fail "second run did not read $sites sites: $out"
contexts() { grep -o "^site [0-9a-f]* [0-9]* [0-9]*" | sort; }
[ "$(contexts <<<"$first")" = "$(contexts <"$LOCI_TIER_PROFILE")" ] ||
  fail "the second run's sites are not the first run's: $first
---
$(cat "$LOCI_TIER_PROFILE")"

out=$(LOCI_LOG=info "$loci" run --tier auto -- python3 -c 'bytearray(1 << 20)' 2>&1) ||
  fail "python3 with gups_malloc's profile: $out"
grep -q "a profile of $(readlink -f "$gups"), not of this program" <<<"$out" ||
  fail "another program's profile was not refused: $out"
echo "check-tier-profile: ok ($sites sites)"
