#!/bin/sh
# `loci run --tier auto` with no intent on tiers3 (issue 36, docs/TIERING.md): unmodified programs
# that allocate through wrappers (tests/tier/gups.h: gups_wrapped, gups_vectors) tiered over the
# node's three memories, the fastest (node 1, HBM-like) first.
#
#   check-tier-run.sh hot PROGRAM     node 1 budgeted at 16 MiB (a third of 12 arrays of 4 MiB):
#                                     the hot set, two arrays that start on node 0, at least 90 %
#                                     on node 1 within 10 intervals of each phase's start (the
#                                     program checks it with move_pages: gups.h, watch mode;
#                                     intervals of work, and exit 77 when the host starved it)
#   check-tier-run.sh spread PROGRAM  `loci resolve tier=auto` ranks node 1, 0, 2 (the kernel's tiers,
#                                     then bandwidth); node 1 budgeted at 128 MiB and node 0 at 256
#                                     MiB, 12 arrays of 64 MiB: every one in a loci arena of its own,
#                                     none left to libc, and each of the three nodes holding some
#                                     (with tier=auto meaning node 0 alone, all stayed there)
set -u
mode=$1 program=$2
fail() { echo "check-tier-run: $*" >&2; exit 1; }
case $mode in
hot)
  printf '[tiering]\ninterval = 400ms\n[target fast]\nnuma_node = 1\ntiering_budget = 16MiB\n' >/tmp/tier-run.ini
  LOCI_CONFIG=/tmp/tier-run.ini loci run --tier auto -- "$program" 4 watch 1 400
  rc=$?
  [ $rc -ne 77 ] || exit 77 # a phase starved of CPU by the host: no verdict (the program said so)
  [ $rc -eq 0 ] || fail "$program: above"
  ;;
spread)
  resolved=$(loci resolve tier=auto) || fail "loci resolve tier=auto: $resolved"
  echo "$resolved"
  order=$(echo "$resolved" | awk '$1 ~ /^[0-9]+$/ { printf "%s ", $4 }')
  [ "$order" = "1 0 2 " ] || fail "loci resolve tier=auto ranks nodes $order, not 1 0 2"
  # tiering's interval long: the heat source's sampling would only slow the writes down
  printf '[tiering]\ninterval = 60s\n[target fast]\nnuma_node = 1\ntiering_budget = 128MiB\n[target mid]\nnuma_node = 0\ntiering_budget = 256MiB\n' >/tmp/tier-run.ini
  out=$(LOCI_CONFIG=/tmp/tier-run.ini loci run --tier auto -- "$program" 64 0 report 2>&1) || fail "$program: $out"
  echo "$out"
  echo "$out" | grep -q ", 12 arrays in 12 arenas" || fail "not every array in an arena of its own"
  for node in 0 1 2; do
    echo "$out" | grep -q "^phase 2 array .* nodes.* $node:[0-9]" || fail "no array on node $node"
  done
  ;;
*) fail "usage: check-tier-run.sh hot|spread PROGRAM" ;;
esac
echo "check-tier-run $mode $(basename "$program"): ok"
