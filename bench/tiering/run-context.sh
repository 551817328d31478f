#!/usr/bin/env bash
# What a calling context costs a big allocation under `loci run --tier auto` (issue 36;
# docs/BENCHMARKS.md "Calling contexts"): bench_context_cost under the C library alone, then loci
# with contexts of 1, 4 (the default) and 8 frames, for blocks of 256 KiB (untouched) from 2 and 12
# frames deep, through malloc and through C++'s operator new, each pair from one place (the walk
# kept) and from 16 stack depths in turn (every pair walks). BUILD_DIR: another build.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
bench=$build/bench/tiering/bench_context_cost loci=$build/tools/loci/loci
[[ -x $bench && -x $loci ]] || { echo "run-context.sh: build first (cmake --build $build)" >&2; exit 2; }
count=${COUNT:-20000} repeats=${REPEATS:-7}
echo "run-context.sh: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $count pairs x $repeats"
for kept in hit miss; do
  for via in malloc new; do
    for depth in 2 12; do
      printf 'libc          '; "$bench" 262144 "$depth" "$count" "$repeats" "$via" "$kept"
      for frames in 1 4 8; do
        printf 'loci %d frame%s ' "$frames" "$([ "$frames" = 1 ] && echo ' ' || echo s)"
        LOCI_TIER_CONTEXT=$frames "$loci" run --tier auto -- "$bench" 262144 "$depth" "$count" "$repeats" "$via" "$kept" 2>/dev/null
      done
    done
  done
done
