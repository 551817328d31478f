#!/usr/bin/env bash
# Automatic tiering, side by side (issue 29; docs/BENCHMARKS.md "Automatic tiering"): HeMem's
# hot-set GUPS (bench_tiering) under first touch, all on the fast node, the kernel's NUMA
# balancing tiering mode, DAMOS migrate_hot/migrate_cold, loci tier=auto (API) and
# `loci run --tier auto` (unmodified), each loci one again with the profile the first run saved
# — the same fast-memory size for each (bench/tiering/guest.sh).
#
#   bench/tiering/run.sh                      in the tiers3 VM (QEMU TCG) on Debian's 6.12 kernel:
#                                             fast node 0 (the CPUs' DRAM), slow node 2 (CXL-like,
#                                             a lower memory tier), node 1 (HBM-like) out of play
#   bench/tiering/run.sh --host FAST SLOW [OTHER...]   on this machine, as root: a real machine
#                                             with two memory kinds; adds all-slow, and the speed
#                                             (updates/s) against all-fast and all-slow means something
#
# Writes bench/results/tiering[-host].txt: every interval line, then a table of the summaries.
# Builds nothing: cmake -S . -B build -G Ninja -DLOCI_BUILD_BENCH=ON && ninja -C build
# (BUILD_DIR: another build). Environment passed to guest.sh: MODES, ARGS, FAST_MIB, SLACK_MIB.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
bench=$build/bench/tiering/bench_tiering loci=$build/tools/loci/loci tierlib=$build/shim/tier/libloci-tier.so
for f in "$bench" "$loci" "$tierlib"; do
  [[ -e $f ]] || { echo "run.sh: $f not found; build first: cmake -S $root -B $build -G Ninja -DLOCI_BUILD_BENCH=ON && ninja -C $build" >&2; exit 2; }
done
mkdir -p "$root/bench/results"

# The table: one row per mode from its "summary" line (and its "alloc" line: what a profile placed).
table() {
  awk '
    /^alloc / { hot_on_fast[$2] = $8; fast_is_hot[$2] = $6 }
    /^summary / {
      for (i = 3; i < NF; i++) v[$i] = $(i + 1)
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, v["reach90_phase1"], v["reach90_phase2"],
        v["residency_last5_phase1"], v["residency_last5_phase2"], v["moved_mib"], v["pingpong"],
        v["tiering_cpu_core"], v["updates_per_s"], hot_on_fast[$2], fast_is_hot[$2]
    }' "$1"
}
header='| mode | intervals to 90 %, phase 1 | phase 2 | hot-set residency, last 5 intervals, phase 1 | phase 2 | MiB moved | ping-pong | tiering CPU (% of a core) | updates/s | at allocation: phase-2 hot set on fast | at allocation: share of fast bytes that are it |
|---|---|---|---|---|---|---|---|---|---|---|'

if [[ ${1:-} == --host ]]; then
  shift
  [[ $# -ge 2 ]] || { echo "usage: run.sh --host FAST SLOW [OTHER_NODE...]" >&2; exit 2; }
  [[ $(id -u) -eq 0 ]] || { echo "run.sh --host: run as root (huge-page reservations, sysctls, DAMON)" >&2; exit 2; }
  out=$root/bench/results/tiering-host.txt
  MODES=${MODES:-first-touch all-fast all-slow numa-balancing damos loci-api loci-api-profiled loci-run loci-run-profiled} \
    BENCH=$bench LOCI=$loci sh "$root/bench/tiering/guest.sh" "$@" 2>&1 | tee "$out.raw"
else
  out=$root/bench/results/tiering.txt
  work=$(mktemp -d "${TMPDIR:-/tmp}/loci-tiering.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  env_words=""
  for v in MODES ARGS FAST_MIB SLACK_MIB; do [[ -n ${!v:-} ]] && env_words+="$v='${!v}' "; done
  {
    for f in "$bench" "$loci" "$tierlib" "$root/bench/tiering/guest.sh"; do echo "file $f"; done
    echo "timeout ${LOCI_BENCH_TIMEOUT:-900}"
    echo "tiering: ${env_words}BENCH=bench_tiering LOCI=loci sh guest.sh 0 2 1"
  } >"$work/tiering.suite"
  echo "run.sh: booting the tiers3 VM (QEMU TCG, Debian's 6.12 kernel) for bench_tiering" >&2
  if ! "$root/tests/vm/run-vm.sh" --kernel bpo tiers3 "$work/tiering.suite" "$work/out" >"$work/run.log" 2>&1; then
    cat "$work/run.log" "$work/out/tiering.log" >&2 || true
    echo "run.sh: the benchmark failed in the VM (above)" >&2
    exit 1
  fi
  cp "$work/out/tiering.log" "$out.raw"
  cat "$out.raw"
fi
{ grep -E '^(alloc|interval|summary|guest.sh|bench_tiering)' "$out.raw"; echo; echo "$header"; table "$out.raw"; } >"$out"
rm -f "$out.raw"
echo "$header"; table "$out"
echo "run.sh: wrote $out" >&2
