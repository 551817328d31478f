#!/bin/sh
# Runs an MPI program twice through mpirun.sh — as it is, then with
# libloci-mpi preloaded and an intent active (LOCI_MPI_INTENT) — and fails
# unless both runs pass and write the same observations: with the library a
# program must see what it sees without it, except where its memory lands.
# The program takes OUTDIR, MODE (plain | placed) and INTENT, and writes
# OUTDIR/rank.N.
#
# usage: same-as-plain.sh FLAVOUR MPIRUN NP SHIM INTENT -- PROGRAM [ARGS...]
set -eu
[ $# -ge 7 ] && [ "$6" = -- ] || {
    echo "usage: $0 FLAVOUR MPIRUN NP SHIM INTENT -- PROGRAM [ARGS...]" >&2
    exit 2
}
flavour=$1 mpirun=$2 np=$3 shim=$4 intent=$5
shift 6
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir "$out/plain" "$out/placed"

echo "== without libloci-mpi"
LOCI_MPI_INTENT= "$here/mpirun.sh" "$flavour" "$mpirun" "$np" -- "$@" "$out/plain" plain "$intent"
echo "== with libloci-mpi, LOCI_MPI_INTENT=$intent"
LOCI_MPI_INTENT=$intent "$here/mpirun.sh" "$flavour" "$mpirun" "$np" --preload "$shim" -- "$@" "$out/placed" placed "$intent"
for f in "$out"/plain/rank.*; do
    [ -s "$f" ] || { echo "FAILED: the run without loci wrote nothing to $(basename "$f")"; exit 1; }
done
if ! diff -r -u "$out/plain" "$out/placed"; then
    echo "FAILED: the program observed something different with libloci-mpi (- without, + with)"
    exit 1
fi
echo "same observations with and without libloci-mpi: $(cat "$out"/plain/rank.* | wc -l) lines from $np processes"
