#!/usr/bin/env bash
# Automatic tiering, side by side (issues 29, 36; docs/BENCHMARKS.md "Automatic tiering"): HeMem's
# hot-set GUPS (bench_tiering) under first touch, all on the fast node, the kernel's NUMA
# balancing tiering mode, DAMOS migrate_hot/migrate_cold, loci tier=auto (API) and
# `loci run --tier auto` (unmodified), each loci one again with the profile the first run saved
# — the same fast-memory size for each (bench/tiering/guest.sh), phases long enough for the
# kernel's scanners (PHASE_S), and when each kernel mode first moved pages.
#
#   bench/tiering/run.sh                      in the tiers3 VM (QEMU TCG) on Debian's 6.12 kernel:
#                                             fast node 0 (the CPUs' DRAM), slow node 2 (CXL-like,
#                                             a lower memory tier), node 1 (HBM-like) out of play
#   bench/tiering/run.sh --host FAST SLOW [OTHER...]   on this machine, as root: a real machine
#                                             with two memory kinds; adds all-slow, and the speed
#                                             (updates/s) against all-fast and all-slow means something
#
# Writes bench/results/tiering[-host].txt: every interval line, then a table of the medians of the
# summaries over REPEATS (1), and bench/results/tiering[-host].png.
# Builds nothing: cmake -S . -B build -G Ninja -DLOCI_BUILD_BENCH=ON && ninja -C build
# (BUILD_DIR: another build). Environment passed to guest.sh: MODES, REPEATS, PHASE_S (60),
# INTERVAL_MS, ARRAY_MIB, FAST_MIB (16), SLACK_MIB, ARGS (in the VM: --tlb-refresh 1, as a real
# CPU's TLB), LOCI_LOG (debug: loci's plan every interval, docs/TIERING.md "Seeing it") and the
# kernel modes' settings (bench/tiering/kernel_modes.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
bench=$build/bench/tiering/bench_tiering loci=$build/tools/loci/loci tierlib=$build/shim/tier/libloci-tier.so
driver_need run.sh "$bench" "$loci" "$tierlib"
vars="MODES REPEATS PHASE_S INTERVAL_MS ARRAY_MIB ARGS FAST_MIB SLACK_MIB LOCI_LOG $driver_kernel_vars"

summary_keys="reach90_phase1 reach90_phase2 residency_last5_phase1 residency_last5_phase2 moved_mib pingpong
  tiering_cpu_core updates_per_s loci_source data"
kernel_keys="pgpromote_success_first_s pgdemote_kswapd_first_s migrate_hot_applied_bytes_first_s
  migrate_cold_applied_bytes_first_s"
table() {
  echo '| mode | runs | intervals to 90 %, phase 1 | phase 2 | hot-set residency, last 5 intervals, phase 1 | phase 2 | MiB moved | ping-pong | tiering CPU (% of a core) | updates/s | kernel: first promotion / demotion (s after start) | at allocation: phase-2 hot set on fast | at allocation: share of fast bytes that are it | heat source | data |'
  echo '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'
  { awk -v kind=summary -v keys="$summary_keys" -f "$here/medians.awk" "$1"
    awk -v kind=kernel -v keys="$kernel_keys" -f "$here/medians.awk" "$1"
    awk '/^alloc / { print "alloc", $2, "hot_on_fast", $8, "fast_is_hot", $6 }' "$1" |
      awk -v kind=alloc -v keys="hot_on_fast fast_is_hot" -f "$here/medians.awk"; } | awk '
    function never(x) { return x == -1 ? "never" : x }
    { for (i = 3; i < NF; i += 2) v[$2, $1, $i] = $(i + 1)
      if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
    END { for (i = 1; i <= n; i++) { m = order[i]
      first = "–"
      if (m ~ /^numa/) first = v[m, "kernel", "pgpromote_success_first_s"] " / " v[m, "kernel", "pgdemote_kswapd_first_s"]
      if (m ~ /^damos/) first = v[m, "kernel", "migrate_hot_applied_bytes_first_s"] " / " v[m, "kernel", "migrate_cold_applied_bytes_first_s"]
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, v[m, "summary", "repeats"],
        never(v[m, "summary", "reach90_phase1"]), never(v[m, "summary", "reach90_phase2"]), v[m, "summary", "residency_last5_phase1"],
        v[m, "summary", "residency_last5_phase2"], v[m, "summary", "moved_mib"], v[m, "summary", "pingpong"],
        v[m, "summary", "tiering_cpu_core"], v[m, "summary", "updates_per_s"], first, v[m, "alloc", "hot_on_fast"],
        v[m, "alloc", "fast_is_hot"], v[m, "summary", "loci_source"], v[m, "summary", "data"] } }'
}

if [[ ${1:-} == --host ]]; then
  shift
  [[ $# -ge 2 ]] || { echo "usage: run.sh --host FAST SLOW [OTHER_NODE...]" >&2; exit 2; }
  [[ $(id -u) -eq 0 ]] || { echo "run.sh --host: run as root (huge-page reservations, sysctls, DAMON)" >&2; exit 2; }
  out=$root/bench/results/tiering-host.txt
  MODES=${MODES:-first-touch all-fast all-slow numa-balancing damos loci-api loci-api-profiled loci-run loci-run-profiled} \
    BENCH=$bench LOCI=$loci sh "$here/guest.sh" "$@" 2>&1 | tee "$out.raw"
else
  out=$root/bench/results/tiering.txt
  export ARGS=${ARGS---tlb-refresh 1}
  vm_bench tiering "$out.raw" "${LOCI_BENCH_TIMEOUT:-36000}" "$vars" "BENCH=bench_tiering LOCI=loci sh guest.sh 0 2 1" \
    "$bench" "$loci" "$tierlib" "$here"/{guest,fastmem,kernel_modes,guest_run}.sh || vm_failed=1
  # a mode that failed (above) leaves the others' lines: their tables still count
  [[ -s $out.raw ]] || exit 1
fi
bench_results run.sh "$out" table
[[ -z ${vm_failed:-} ]] || { echo "run.sh: a mode or the VM failed (above): the tables hold what the others measured" >&2; exit 1; }
