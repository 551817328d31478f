#!/bin/sh
# Does hydro (examples/hydro) put each array where it declares it, and compute the same answer
# with and without loci's OpenMP front end? (docs/OPENMP.md, the portability table)
#
#   check-hydro.sh NODES HYDRO SHIM HIGH_BW_NODE DEFAULT_NODE [HYDRO ARGS...]
#
# NODES: the number of NUMA nodes the expectation is written for; a machine with another
# number skips the check (exit 77). Exit 0 ok, 1 an array misplaced or another answer.
set -eu
nodes=$1 hydro=$2 shim=$3 high_bw=$4 default=$5
shift 5
have=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
if [ "$have" -ne "$nodes" ]; then
    echo "check-hydro: written for $nodes NUMA node(s), this machine has $have: skipped"
    exit 77
fi
plain=$("$hydro" "$@")
placed=$(LD_PRELOAD=$shim "$hydro" "$@")
echo "$placed"
echo "$placed" | awk -v high_bw="$high_bw" -v default="$default" '
    $1 == "array" {
        want = $3 == "high_bw" ? high_bw : default
        where = $6; for (i = 7; i <= NF; i++) where = where " " $i
        if (where != "node " want " (100%)") {
            printf "check-hydro: %s (%s) is on %s, expected node %s\n", $2, $3, where, want
            bad = 1
        }
        n++
    }
    END { if (!n) print "check-hydro: hydro reported no arrays"; exit bad || !n }'
energy() { echo "$1" | sed -n 's/.*energy //p'; }
if [ "$(energy "$plain")" != "$(energy "$placed")" ]; then
    echo "check-hydro: energy $(energy "$placed") under loci, $(energy "$plain") without"
    exit 1
fi
echo "check-hydro: every array where declared; the same energy $(energy "$plain") with and without loci"
