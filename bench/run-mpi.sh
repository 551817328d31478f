#!/usr/bin/env bash
# Run the MPI front-end benchmarks (bench/mpi) under every MPI built, with
# their defaults, and keep the tables in bench/results/mpi-<bench>-<mpi>.txt.
# Builds nothing: build first, e.g.
#   cmake -S . -B build -G Ninja && ninja -C build
# BUILD_DIR picks the build directory (default: build). Extra arguments go
# to every benchmark (e.g. --quick). 1-3 minutes with the defaults; the
# tables are also drawn into bench/results/mpi.png (bench/mpi/plot.py).
#   bench_mpi_alloc  1 process (singleton)   SharP 6.1 through MPI_Alloc_mem
#   bench_mpi_put    2 processes             MPI_Put bandwidth and message rate
#   bench_mpi_bfs    2 processes             Graph500-style BFS, scale 16
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
mkdir -p "$root/bench/results"
declare -A launcher=([openmpi]=mpirun.openmpi [mpich]=mpiexec.mpich)
ran=0
for mpi in openmpi mpich; do
    for spec in alloc:0 put:2 bfs:2; do
        bench=${spec%%:*} np=${spec#*:}
        exe=$build/bench/mpi/bench_mpi_${bench}_$mpi
        if [[ ! -x $exe ]]; then
            echo "run-mpi.sh: $exe not built (is $mpi installed? scripts/install-deps.sh)" >&2
            continue
        fi
        out=$root/bench/results/mpi-$bench-$mpi.txt
        echo "run-mpi.sh: tests/mpi/mpirun.sh $mpi ${launcher[$mpi]} $np -- $exe $* > ${out#"$root"/}" >&2
        "$root/tests/mpi/mpirun.sh" "$mpi" "${launcher[$mpi]}" "$np" -- "$exe" "$@" | tee "$out"
        ran=$((ran + 1))
    done
done
[[ $ran -gt 0 ]] || { echo "run-mpi.sh: no MPI benchmark built under $build" >&2; exit 2; }
# The plot needs matplotlib (python3-matplotlib); PYTHON overrides the interpreter.
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import matplotlib' 2>/dev/null; then py=$cand; break; fi
done
if [[ -z $py ]]; then
    echo "run-mpi.sh: *** no python3 with matplotlib (apt-get install python3-matplotlib): no plot" >&2
    exit 1
fi
"$py" "$root/bench/mpi/plot.py" "$root/bench/results" "$root/bench/results/mpi.png"
echo "run-mpi.sh: plot in bench/results/mpi.png" >&2
