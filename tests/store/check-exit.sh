#!/usr/bin/env bash
# A process that connects to the store and returns from main at once (store_node resolve: the
# connection made at discovery, its librados threads still starting) exits cleanly: loci shuts
# its idle connections down at exit. Before, exit() destroyed librados's static objects under
# its threads: 2 of 150 such processes died of SIGSEGV or an uncaught boost::bad_get on a loaded
# host, after printing their answer.
. "$(dirname "$0")/lib.sh"
runs=80 died=0 first=
for i in $(seq 1 $runs); do
    out=$(on a "$STORE_NODE" resolve access=job 2>&1); rc=$?
    if [ "$rc" -ne 0 ] || [ "$out" != agg0 ]; then
        died=$((died + 1))
        [ -n "$first" ] || first="run $i: exit $rc: $out"
    fi
done
expect_text "$runs processes resolving access=job and exiting at once: none died" '^0 died' "$died died${first:+ ($first)}"
finish
