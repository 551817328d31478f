#!/usr/bin/env bash
# Redis under every placement, side by side (issue 36 item 6; docs/BENCHMARKS.md "Automatic
# tiering: Redis"): Debian's redis-server driven by zipf_client (YCSB workload C's zipfian GETs,
# θ 0.99, cold filler keys loaded first, the popular keys changing mid-run) under all on the
# fast node, first touch, all on the slow node, NUMA balancing's tiering mode, DAMOS
# migrate_hot/migrate_cold and `loci run --tier auto` (loci's defaults, then an explicit intent
# and threshold) — the same fast-memory size for each (bench/tiering/redis_guest.sh).
#
#   bench/tiering/redis.sh                  in the tiers3 VM (QEMU TCG) on Debian's 6.12 kernel:
#                                           fast node 0, slow node 2 (a lower memory tier), node 1
#                                           out of play; Redis and the client share CPU 1 (PIN)
#   bench/tiering/redis.sh --host FAST SLOW [OTHER...]   on this machine, as root
#
# Environment: MODES, REPEATS (3), PHASE_S, INTERVAL_S, FAST_MIB, SLACK_MIB, KEYS, FILLER_KEYS,
# VALUE_BYTES, THETA, PIPELINE, LOAD, PIN, LOCI_INTENT, LOCI_THRESHOLD and the kernel modes' settings
# (bench/tiering/kernel_modes.sh), passed to redis_guest.sh; BUILD_DIR (build). Writes
# bench/results/redis-tiering.txt (every line, then the tables: medians over the repeats) and
# bench/results/redis-tiering.png. Builds nothing: cmake -S . -B build -G Ninja
# -DLOCI_BUILD_BENCH=ON && ninja -C build (zipf_client needs libhiredis-dev, scripts/install-deps.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
client=$build/bench/tiering/zipf_client loci=$build/tools/loci/loci tierlib=$build/shim/tier/libloci-tier.so
redis=$(command -v redis-server || true) numactl=$(command -v numactl || true)
[[ -n $redis ]] || { echo "redis.sh: no redis-server (Debian: apt-get install redis-server; scripts/install-deps.sh)" >&2; exit 2; }
[[ -n $numactl ]] || { echo "redis.sh: no numactl (scripts/install-deps.sh)" >&2; exit 2; }
driver_need redis.sh "$client" "$loci" "$tierlib"
export REPEATS=${REPEATS:-3}
vars="MODES REPEATS PHASE_S INTERVAL_S FAST_MIB SLACK_MIB KEYS FILLER_KEYS VALUE_BYTES THETA PIPELINE PIN PHASES LOAD
      LOCI_INTENT LOCI_THRESHOLD $driver_kernel_vars"
if [[ ${1:-} == --host ]]; then
  shift
  [[ $# -ge 2 ]] || { echo "usage: redis.sh --host FAST SLOW [OTHER_NODE...]" >&2; exit 2; }
  [[ $(id -u) -eq 0 ]] || { echo "redis.sh --host: run as root (huge-page reservations, sysctls, DAMON, reading Redis's memory)" >&2; exit 2; }
  out=$root/bench/results/redis-tiering-host.txt
  REDIS=$redis CLIENT=$client LOCI=$loci NUMACTL=$numactl sh "$here/redis_guest.sh" "$@" 2>&1 | tee "$out.raw"
else
  out=$root/bench/results/redis-tiering.txt
  export PIN=${PIN-1}
  vm_bench redis "$out.raw" "${LOCI_BENCH_TIMEOUT:-36000}" "$vars" \
    "REDIS=redis-server CLIENT=zipf_client LOCI=loci NUMACTL=numactl sh redis_guest.sh 0 2 1" \
    "$redis" "$client" "$loci" "$tierlib" "$numactl" "$here"/{redis_guest,fastmem,kernel_modes,guest_run}.sh || vm_failed=1
  # a mode that failed (above) leaves the others' lines: their tables still count
  [[ -s $out.raw ]] || exit 1
fi

summary_keys="ops_per_s_phase1 ops_per_s_phase2 ops_per_s residency_last5_phase1 residency_last5_phase2 ideal_w
  reach90_phase1 reach90_phase2 redis_fast_mib redis_cpu_core kernel_cpu_core data"
kernel_keys="pgpromote_success pgpromote_success_first_s pgdemote_kswapd pgdemote_kswapd_first_s numa_hint_faults
  numa_hint_faults_first_s migrate_hot_applied_bytes migrate_hot_applied_bytes_first_s migrate_cold_applied_bytes
  migrate_cold_applied_bytes_first_s"
tables() {
  echo "| mode | runs | GETs/s, phase 1 | phase 2 | GETs/s ÷ all-fast's | GETs on fast (access-weighted residency), last 5 intervals, phase 1 | phase 2 | ideal at this fast size | intervals to 90 % of ideal, phase 1 | phase 2 | Redis on fast node (MiB) | Redis CPU (% of a core) | kswapd+kdamond CPU | data |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  awk -v kind=summary -v keys="$summary_keys" -f "$here/medians.awk" "$1" | awk '
    { for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
      if ($2 == "all-fast") ref = v["ops_per_s"]
      row[++n] = sprintf("| %s | %s | %s | %s | @%s@ | %s | %s | %s | %s | %s | %s | %s | %s | %s |", $2, v["repeats"],
        v["ops_per_s_phase1"], v["ops_per_s_phase2"], v["ops_per_s"], v["residency_last5_phase1"], v["residency_last5_phase2"],
        v["ideal_w"], v["reach90_phase1"] == -1 ? "never" : v["reach90_phase1"], v["reach90_phase2"] == -1 ? "never" : v["reach90_phase2"],
        v["redis_fast_mib"], v["redis_cpu_core"], v["kernel_cpu_core"], v["data"]) }
    END { for (i = 1; i <= n; i++) { r = row[i]; match(r, /@[^@]*@/); x = substr(r, RSTART + 1, RLENGTH - 2)
            print substr(r, 1, RSTART - 1) (ref > 0 ? sprintf("%.2f", x / ref) : "-") substr(r, RSTART + RLENGTH) } }'
  echo
  echo "| mode | pages promoted (NUMA balancing) | first after phase 1 began (s) | pages demoted by kswapd | first (s) | NUMA hint faults | first (s) | DAMOS migrate_hot: bytes applied | first (s) | DAMOS migrate_cold: bytes applied | first (s) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  awk -v kind=kernel -v keys="$kernel_keys" -f "$here/medians.awk" "$1" | awk '
    { for (i = 3; i < NF; i += 2) v[$i] = $(i + 1)
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, v["pgpromote_success"], v["pgpromote_success_first_s"],
        v["pgdemote_kswapd"], v["pgdemote_kswapd_first_s"], v["numa_hint_faults"], v["numa_hint_faults_first_s"],
        v["migrate_hot_applied_bytes"], v["migrate_hot_applied_bytes_first_s"], v["migrate_cold_applied_bytes"],
        v["migrate_cold_applied_bytes_first_s"] }'
}
bench_results redis.sh "$out" tables
[[ -z ${vm_failed:-} ]] || { echo "redis.sh: a mode or the VM failed (above): the tables hold what the others measured" >&2; exit 1; }
