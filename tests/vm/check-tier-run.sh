#!/bin/sh
# `loci run --tier auto` with no intent on tiers3 (issue 36, docs/TIERING.md): unmodified programs
# that allocate through wrappers (tests/tier/gups.h: gups_wrapped, gups_vectors) tiered over the
# node's three memories, the fastest (node 1, HBM-like) first.
#
#   check-tier-run.sh hot PROGRAM     node 1 budgeted at 16 MiB (a third of 12 arrays of 4 MiB):
#                                     the hot set, two arrays that start on node 0, at least 90 %
#                                     on node 1 within 10 intervals of each phase's start (the
#                                     program checks it with move_pages: gups.h, watch mode)
#   check-tier-run.sh spread PROGRAM  12 arrays of 128 MiB (1.5 GiB, more than node 0's 1 GiB of
#                                     DRAM): every one in a loci arena of its own, none left to libc
#                                     for want of room, and each of the three nodes holding some
set -u
mode=$1 program=$2
fail() { echo "check-tier-run: $*" >&2; exit 1; }
case $mode in
hot)
  printf '[tiering]\ninterval = 400ms\n[target fast]\nnuma_node = 1\ntiering_budget = 16MiB\n' >/tmp/tier-run.ini
  LOCI_CONFIG=/tmp/tier-run.ini loci run --tier auto -- "$program" 4 watch 1 400 || fail "$program: above"
  ;;
spread)
  # tiering's interval long: the heat source's sampling would only slow 1.5 GiB of writes down
  printf '[tiering]\ninterval = 60s\n' >/tmp/tier-run.ini
  out=$(LOCI_CONFIG=/tmp/tier-run.ini loci run --tier auto -- "$program" 128 0 report 2>&1) || fail "$program: $out"
  echo "$out"
  echo "$out" | grep -q ", 12 arrays in 12 arenas" || fail "not every array in an arena of its own"
  for node in 0 1 2; do
    echo "$out" | grep -q "^phase 2 array .* nodes.* $node:[0-9]" || fail "no array on node $node"
  done
  ;;
*) fail "usage: check-tier-run.sh hot|spread PROGRAM" ;;
esac
echo "check-tier-run $mode $(basename "$program"): ok"
