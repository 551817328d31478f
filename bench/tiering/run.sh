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
# CPU's TLB) and the kernel modes' settings (bench/tiering/kernel_modes.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/bench/tiering
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
bench=$build/bench/tiering/bench_tiering loci=$build/tools/loci/loci tierlib=$build/shim/tier/libloci-tier.so
for f in "$bench" "$loci" "$tierlib"; do
  [[ -e $f ]] || { echo "run.sh: $f not found; build first: cmake -S $root -B $build -G Ninja -DLOCI_BUILD_BENCH=ON && ninja -C $build" >&2; exit 2; }
done
# shellcheck source-path=SCRIPTDIR
source "$here/vm_bench.sh"
mkdir -p "$root/bench/results"
vars="MODES REPEATS PHASE_S INTERVAL_MS ARRAY_MIB ARGS FAST_MIB SLACK_MIB NB_SCAN_DELAY_MS NB_SCAN_PERIOD_MIN_MS
      NB_SCAN_PERIOD_MAX_MS NB_SCAN_SIZE_MB NB_HOT_THRESHOLD_MS NB_PROMOTE_RATE_MBPS DAMOS_SAMPLE_US DAMOS_AGGR_US
      DAMOS_MIN_REGIONS DAMOS_HOT_ACCESSES DAMOS_COLD_AGE DAMOS_QUOTA_MIB DAMOS_QUOTA_MS KMON_S"
started=$(date +%s) load_before=$(vm_bench_load)

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
    "$bench" "$loci" "$tierlib" "$here"/{guest,fastmem,kernel_modes,progress}.sh || exit 1
fi
{
  echo "# bench/tiering/run.sh ${*:-}: $(date -u +%FT%TZ), $(($(date +%s) - started)) s; $load_before at the start, $(vm_bench_load) at the end"
  grep -E '^(alloc|interval|summary|kernel|kmon|guest.sh|bench_tiering)' "$out.raw"
  echo
  table "$out.raw"
} >"$out"
rm -f "$out.raw"
table "$out"
echo "run.sh: wrote $out" >&2
for py in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import matplotlib' 2>/dev/null; then
    "$py" "$here/plot.py" "$out" "${out%.txt}.png" && echo "run.sh: drew ${out%.txt}.png" >&2
    exit 0
  fi
done
echo "run.sh: *** no python3 with matplotlib (apt-get install python3-matplotlib): no plot" >&2
