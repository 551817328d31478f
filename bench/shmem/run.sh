#!/usr/bin/env bash
# Run the OpenSHMEM front-end benchmarks (bench/shmem) with their defaults
# and keep the tables in bench/results/shmem-<bench>.txt. Builds nothing:
# build first, e.g.
#   cmake -S . -B build -G Ninja && ninja -C build
# BUILD_DIR picks the build directory (default: build). Extra arguments go
# to every benchmark (e.g. --quick). A few minutes with the defaults; the
# tables are also drawn into bench/results/shmem.png (bench/shmem/plot.py).
#   bench_shmem_alloc  1 PE    SharP 6.1: shmemx_partition_malloc vs shmem_malloc
#   bench_shmem_put    2 PEs   shmem_putmem bandwidth and message rate, partition vs heap
#   bench_shmem_bfs    2 PEs   Graph500-style BFS, scale 16, partition vs heap
# The symmetric heap holds the allocation benchmark's partition and its
# shmem_malloc blocks (2 GiB of live blocks each): SMA_SYMMETRIC_SIZE (Open
# MPI's name for it) is 5G unless set.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
export SMA_SYMMETRIC_SIZE=${SMA_SYMMETRIC_SIZE:-5G}
oshrun=$(command -v oshrun) || { echo "run.sh: no oshrun (scripts/install-deps.sh)" >&2; exit 2; }
mkdir -p "$root/bench/results"
for spec in alloc:1 put:2 bfs:2; do
    bench=${spec%%:*} np=${spec#*:}
    exe=$build/bench/shmem/bench_shmem_$bench
    [[ -x $exe ]] || { echo "run.sh: $exe not built (is libopenmpi-dev installed?)" >&2; exit 2; }
    out=$root/bench/results/shmem-$bench.txt
    echo "run.sh: SMA_SYMMETRIC_SIZE=$SMA_SYMMETRIC_SIZE tests/shmem/oshrun.sh $oshrun $np -- $exe $*" \
         "> ${out#"$root"/}" >&2
    "$root/tests/shmem/oshrun.sh" "$oshrun" "$np" -- "$exe" "$@" | tee "$out"
done
# The plot (bench/shmem/plot.py) needs matplotlib (python3-matplotlib); PYTHON overrides the interpreter.
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
    echo "run.sh: *** $py has no matplotlib (apt-get install python3-matplotlib): no plot" >&2
    exit 1
fi
"$py" "$root/bench/shmem/plot.py" "$root/bench/results" "$root/bench/results/shmem.png"
echo "run.sh: plot in bench/results/shmem.png" >&2
