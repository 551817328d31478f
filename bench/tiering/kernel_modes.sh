# shellcheck shell=sh disable=SC2154 # tmp and say() are the sourcing script's
# The kernel's own tiering, for bench/tiering's guest scripts (POSIX sh, sourced by guest.sh and
# redis_guest.sh; the VM has busybox): NUMA balancing's tiering mode (TPP) and DAMOS
# migrate_hot/migrate_cold, each set up as its documentation says to give it a fair chance at
# the bench's time scale (every setting is printed), and a monitor of what the kernel moved and
# when it first moved anything. Needs say(), $tmp (a scratch directory).
#
# Settings (environment; kernel defaults in brackets):
#   NB_SCAN_DELAY_MS (100) [1000], NB_SCAN_PERIOD_MIN_MS (100) [1000], NB_SCAN_PERIOD_MAX_MS
#   (1000) [60000], NB_SCAN_SIZE_MB (256) [256], NB_HOT_THRESHOLD_MS (1000) [1000],
#   NB_PROMOTE_RATE_MBPS (65536) [65536]: NUMA balancing (debugfs sched/numa_balancing/*,
#   sysctl kernel.numa_balancing_promote_rate_limit_MBps); demotion_enabled = 1 [0].
#   DAMOS_SAMPLE_US (5000), DAMOS_AGGR_US (100000), DAMOS_MIN_REGIONS (100) [10],
#   DAMOS_HOT_ACCESSES (1): the least nr_accesses (of AGGR/SAMPLE checks) a region of the slow
#   node needs to be promoted, DAMOS_COLD_AGE (10): aggregations without access before a region
#   of the fast node is demoted, DAMOS_QUOTA_MIB (64) per second and DAMOS_QUOTA_MS (100) of
#   kdamond time per second, each way.
#   KMON_S (2): the monitor's period, seconds.

kernel_knob() { # file value: set it, say what it was
  [ -w "$1" ] || { say "  $1: not here"; return 1; }
  km_was=$(cat "$1")
  echo "$2" >"$1" && say "  $1 = $2 (was $km_was)"
}

# numa_tiering on|off FAST SLOW: kernel.numa_balancing = 2 (NUMA_BALANCING_MEMORY_TIERING: hint
# faults on pages of lower memory tiers promote them) and demotion on reclaim, or both off.
numa_tiering() {
  km_dbg=/sys/kernel/debug/sched/numa_balancing
  [ -d "$km_dbg" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
  if [ "$1" = off ]; then
    echo 0 >/proc/sys/kernel/numa_balancing
    echo 0 >/sys/kernel/mm/numa/demotion_enabled 2>/dev/null
    return 0
  fi
  [ -w /sys/kernel/mm/numa/demotion_enabled ] || { say "numa-balancing: no /sys/kernel/mm/numa/demotion_enabled (kernel $(uname -r))"; return 1; }
  say "numa-balancing: the kernel's tiering mode, settings:"
  kernel_knob "$km_dbg/scan_delay_ms" "${NB_SCAN_DELAY_MS:-100}"
  kernel_knob "$km_dbg/scan_period_min_ms" "${NB_SCAN_PERIOD_MIN_MS:-100}"
  kernel_knob "$km_dbg/scan_period_max_ms" "${NB_SCAN_PERIOD_MAX_MS:-1000}"
  kernel_knob "$km_dbg/scan_size_mb" "${NB_SCAN_SIZE_MB:-256}"
  kernel_knob "$km_dbg/hot_threshold_ms" "${NB_HOT_THRESHOLD_MS:-1000}"
  kernel_knob /proc/sys/kernel/numa_balancing_promote_rate_limit_MBps "${NB_PROMOTE_RATE_MBPS:-65536}"
  kernel_knob /sys/kernel/mm/numa/demotion_enabled 1 || return 1
  kernel_knob /proc/sys/kernel/numa_balancing 2
}

# The physical range of node $1: "START END" from its memory blocks.
node_range() {
  km_bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
  for m in /sys/devices/system/node/node"$1"/memory[0-9]*; do echo "${m##*memory}"; done | sort -n |
    awk -v bs="$km_bs" 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f %.0f\n", lo * bs, (hi + 1) * bs }'
}

# while_within_30s COMMAND...: polls COMMAND every tenth of a second while it succeeds, counting
# the tenths in km_t from where the caller set it; 1 once km_t reaches 300 (30 s) with COMMAND still
# succeeding, else 0.
while_within_30s() {
  while "$@" 2>/dev/null; do
    [ "$km_t" -lt 300 ] || return 1
    sleep 0.1
    km_t=$((km_t + 1))
  done
  return 0
}

# kd_count N: DAMON's nr_kdamonds = N, in bounded time. The write is refused (EBUSY) while
# another holds DAMON's sysfs lock for a moment: tried again each second. On 6.12 it never
# returns while another write to a kdamond's files waits for that lock (see kmon_start). After
# 30 s: said, the write left behind, and 1.
kd_count() {
  km_t=0 # tenths of a second
  while :; do
    (echo "$1" >"$km_d/nr_kdamonds") 2>"$tmp/kd_count.err" &
    km_w=$!
    if ! while_within_30s kill -0 "$km_w"; then
      say "damos: writing $1 to $km_d/nr_kdamonds has not returned in 30 s (6.12's DAMON sysfs deadlock: another write to a kdamond's files is under way); left behind; the tasks in DAMON's or sysfs's code:"
      for km_p in /proc/[0-9]*; do
        km_s=$(cat "$km_p/stack" 2>/dev/null) || continue
        case $km_s in
        *damon* | *kernfs* | *state_store*) say "  ${km_p#/proc/} $(cat "$km_p/comm" 2>/dev/null): $(echo "$km_s" | awk '{ printf "%s ", $2 }')" ;;
        esac
      done
      return 1
    fi
    wait "$km_w" && return 0
    if [ $km_t -ge 300 ]; then
      say "damos: writing $1 to $km_d/nr_kdamonds was refused for 30 s: $(cat "$tmp/kd_count.err")"
      return 1
    fi
    sleep 1
    km_t=$((km_t + 10))
  done
}

# damos on|off FAST SLOW: two kdamonds on physical addresses, as the kernel's
# samples/damon/mtier.c: FAST's cold regions migrate_cold to SLOW, SLOW's accessed regions
# migrate_hot to FAST. off: their statistics, then both removed.
damos() {
  km_d=/sys/kernel/mm/damon/admin/kdamonds
  if [ "$1" = off ]; then
    [ -d "$km_d" ] || return 0
    for km_k in 0 1; do
      [ -d "$km_d/$km_k" ] || continue
      echo update_schemes_stats >"$km_d/$km_k/state" 2>/dev/null
      km_st=$km_d/$km_k/contexts/0/schemes/0/stats
      say "kdamond $km_k ($(cat "$km_d/$km_k/contexts/0/schemes/0/action")): tried $(cat "$km_st/sz_tried") B in $(cat "$km_st/nr_tried") regions, applied $(cat "$km_st/sz_applied") B, quota exceeded $(cat "$km_st/qt_exceeds") times"
      echo off >"$km_d/$km_k/state" 2>/dev/null
    done
    # gone, not just off: loci's damon source takes a kdamond only where none is set up by others
    kd_count 0
    return
  fi
  [ -d "$km_d" ] || { say "damos: no DAMON sysfs here (kernel $(uname -r))"; return 1; }
  # nr_kdamonds cannot change while a kdamond runs (EBUSY): one a mode before left on (loci's
  # damon source keeps its kdamond for the next process) is turned off first
  for km_st in "$km_d"/*/state; do
    if [ -e "$km_st" ] && [ "$(cat "$km_st")" = on ]; then echo off >"$km_st"; fi
  done
  kd_count 2 || return 1
  km_k=0
  for km_spec in "$2 migrate_cold $3 0 0 ${DAMOS_COLD_AGE:-10}" "$3 migrate_hot $2 ${DAMOS_HOT_ACCESSES:-1} 4294967295 0"; do
    # shellcheck disable=SC2086 # the spec's words
    set -- $km_spec # node action target_nid nr_accesses_min nr_accesses_max age_min
    km_c=$km_d/$km_k/contexts
    echo 1 >"$km_c/nr_contexts" && echo paddr >"$km_c/0/operations" || return 1
    echo "${DAMOS_SAMPLE_US:-5000}" >"$km_c/0/monitoring_attrs/intervals/sample_us"
    echo "${DAMOS_AGGR_US:-100000}" >"$km_c/0/monitoring_attrs/intervals/aggr_us"
    echo "${DAMOS_MIN_REGIONS:-100}" >"$km_c/0/monitoring_attrs/nr_regions/min"
    echo 1 >"$km_c/0/targets/nr_targets" && echo 1 >"$km_c/0/targets/0/regions/nr_regions"
    km_r=$(node_range "$1")
    echo "${km_r#* }" >"$km_c/0/targets/0/regions/0/end" && echo "${km_r% *}" >"$km_c/0/targets/0/regions/0/start"
    km_s=$km_c/0/schemes
    echo 1 >"$km_s/nr_schemes" && echo "$2" >"$km_s/0/action" && echo "$3" >"$km_s/0/target_nid" || return 1
    # every range: the sysfs interface makes each 0-0, which no region matches (a region's
    # size is never 0): a scheme left so tries nothing
    echo 18446744073709551615 >"$km_s/0/access_pattern/sz/max"
    echo "$4" >"$km_s/0/access_pattern/nr_accesses/min" && echo "$5" >"$km_s/0/access_pattern/nr_accesses/max"
    echo "$6" >"$km_s/0/access_pattern/age/min" && echo 4294967295 >"$km_s/0/access_pattern/age/max"
    echo "${DAMOS_QUOTA_MS:-100}" >"$km_s/0/quotas/ms" && echo $((${DAMOS_QUOTA_MIB:-64} << 20)) >"$km_s/0/quotas/bytes"
    echo 1000 >"$km_s/0/quotas/reset_interval_ms"
    # under the quota, hottest first (promotion) and oldest first (demotion)
    if [ "$2" = migrate_hot ]; then echo 1000 >"$km_s/0/quotas/weights/nr_accesses_permil"; else echo 1000 >"$km_s/0/quotas/weights/age_permil"; fi
    echo on >"$km_d/$km_k/state" || return 1
    say "kdamond $km_k: $2 from node $1 ($km_r) to node $3: paddr, sample ${DAMOS_SAMPLE_US:-5000} us, aggregation ${DAMOS_AGGR_US:-100000} us, at least ${DAMOS_MIN_REGIONS:-100} regions, nr_accesses $4-$5, age >= $6 aggregations, quota ${DAMOS_QUOTA_MIB:-64} MiB and ${DAMOS_QUOTA_MS:-100} ms per second"
    km_k=$((km_k + 1))
  done
}

# One line of the kernel's counters of moved pages: /proc/vmstat's, then DAMOS's own (vmstat
# misses DAMOS's migrations but for pgmigrate_success).
kmon_counters() {
  awk '$1 ~ /^(pgpromote_success|pgdemote_kswapd|pgdemote_direct|pgdemote_khugepaged|numa_hint_faults|numa_pages_migrated|pgmigrate_success)$/ { printf "%s %s ", $1, $2 }' /proc/vmstat
  km_d=/sys/kernel/mm/damon/admin/kdamonds
  for km_k in 0 1; do
    [ "$(cat "$km_d/$km_k/state" 2>/dev/null)" = on ] || continue
    echo update_schemes_stats >"$km_d/$km_k/state" 2>/dev/null
    km_st=$km_d/$km_k/contexts/0/schemes/0/stats
    km_a=$(cat "$km_d/$km_k/contexts/0/schemes/0/action")
    printf '%s_tried_regions %s %s_applied_bytes %s ' "$km_a" "$(cat "$km_st/nr_tried")" "$km_a" "$(cat "$km_st/sz_applied")"
  done
}

# kmon_start LABEL: the counters every KMON_S seconds, with /proc/uptime, to $tmp/kmon.LABEL.
# The loop ends itself when kmon_stop asks (a stop file), and says so (a done file), never by a
# signal: a signal would end the loop but not the reading it is in, and a DAMON
# "update_schemes_stats" write left running deadlocks on 6.12 with a later nr_kdamonds write
# (damos off) — that write holds DAMON's sysfs lock while it waits for every write to the
# kdamond's files to finish, and this one waits for the lock.
kmon_start() {
  kmon_file=$tmp/kmon.$1 kmon_stopping=$tmp/kmon.stop kmon_done=$tmp/kmon.done
  rm -f "$kmon_stopping" "$kmon_done"
  (while [ ! -e "$kmon_stopping" ]; do
    echo "$(cut -d' ' -f1 /proc/uptime) $(kmon_counters)"
    sleep "${KMON_S:-2}"
  done
  : >"$kmon_done") >"$kmon_file" 2>/dev/null &
}

# kmon_stop LABEL T0: stops the monitor; prints its timeline ("kmon LABEL UPTIME COUNTER VALUE
# ...") and one line "kernel LABEL COUNTER INCREASE COUNTER_first_s S ...": what each counter
# grew by, and when it first grew, in seconds after uptime T0 (the mode's workload started;
# negative: before, e.g. while Redis was loaded; "never"). Callers pipe it, so it runs in a
# subshell, where the loop is no child to wait for: its done file says it ended.
kmon_stop() {
  : >"$kmon_stopping"
  km_t=0
  while_within_30s test ! -e "$kmon_done" || say "kmon $1: the monitor did not stop within 30 s"
  rm -f "$kmon_stopping" "$kmon_done"
  echo "$(cut -d' ' -f1 /proc/uptime) $(kmon_counters)" >>"$kmon_file"
  sed "s/^/kmon $1 /" "$kmon_file"
  awk -v label="$1" -v t0="$2" '
    { for (i = 2; i < NF; i += 2) {
        if (!($i in base)) { base[$i] = $(i + 1); order[++n] = $i }
        if ($(i + 1) > base[$i] && !($i in first)) first[$i] = $1 - t0
        last[$i] = $(i + 1) } }
    END { printf "kernel %s", label
          for (k = 1; k <= n; k++) { c = order[k]
            printf " %s %d %s_first_s %s", c, last[c] - base[c], c, (c in first) ? sprintf("%.1f", first[c]) : "never" }
          printf "\n" }' "$kmon_file"
}
