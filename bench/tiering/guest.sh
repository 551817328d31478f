#!/bin/sh
# bench_tiering's modes one after the other on one machine, with the same fast-memory size for
# each (bench/tiering/run.sh runs it in the tiers3 VM; on a real machine, as root, directly).
# POSIX sh: the VM has busybox.
#   guest.sh FAST SLOW [OTHER_NODE...]
# FAST: the fast node (with the CPUs: the kernel promotes to it); SLOW: the slow node (in a lower
# kernel memory tier for the kernel's modes); OTHER_NODE: nodes to take out of play (their free
# memory reserved as huge pages). FAST keeps FAST_MIB (16) free above its high watermark plus
# SLACK_MIB (2) for the program's other memory, reserved as 2 MiB huge pages before each mode.
# Environment: BENCH (bench_tiering), LOCI (the loci tool, libloci-tier.so beside it), MODES
# (default: all), ARGS (bench_tiering options), PACE (--batch/--pause-ms; "" on real machines for
# speed: then also the slow mode).
# shellcheck disable=SC2086 # $ARGS and $others are lists of words, split on purpose
set -u
fast=$1 slow=$2
shift 2
others=$*
BENCH=${BENCH:-bench_tiering} LOCI=${LOCI:-loci}
FAST_MIB=${FAST_MIB:-16} SLACK_MIB=${SLACK_MIB:-2}
ARGS=${ARGS:---array-mib 4 --phase-intervals 12 --interval-ms 400}
MODES=${MODES:-first-touch all-fast numa-balancing damos loci-api loci-api-profiled loci-run loci-run-profiled}
tmp=${TMPDIR:-/tmp}/bench-tiering.$$
mkdir -p "$tmp"

say() { echo "guest.sh: $*" >&2; }
hugepages() { echo "/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/nr_hugepages"; }
free_kb() { awk '/MemFree/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"; }
high_kb() { awk -v n="$1," '/^Node/ { node = $2 } node == n && $1 == "high" { s += $2 } END { print s * 4 }' /proc/zoneinfo; }

# Reserve huge pages on node $1 until about $2 KiB are free there.
keep_free() {
  cur=$(cat "$(hugepages "$1")")
  want=$((cur + ($(free_kb "$1") - $2) / 2048))
  [ "$want" -lt 0 ] && want=0
  echo "$want" >"$(hugepages "$1")" 2>/dev/null
  say "node $1: $(($(free_kb "$1") / 1024)) MiB free ($(cat "$(hugepages "$1")") huge pages reserved)"
}
limit() {
  for n in $others; do keep_free "$n" 0; done
  keep_free "$fast" $(((FAST_MIB + SLACK_MIB) * 1024 + $(high_kb "$fast")))
  say "node $fast watermarks (KiB): $(awk -v n="$fast," '/^Node/ { node = $2 } node == n && ($1 == "min" || $1 == "low" || $1 == "high" || $1 == "promo") { w[$1] += $2 * 4 } END { printf "min %d low %d high %d promo %d", w["min"], w["low"], w["high"], w["promo"] }' /proc/zoneinfo)"
}
unlimit() { for n in $fast $others; do echo 0 >"$(hugepages "$n")"; done; }

# NUMA balancing's tiering mode (TPP) with demotion: on|off. Its scanner starts 1 s after a task
# does and scans at most every second by default; for runs of seconds under TCG it scans every
# 100 ms from 100 ms on (debugfs), so that the kernel has as many chances as loci's intervals.
kernel_tiering() {
  if [ "$1" = on ]; then v=2 d=1 ms=100; else v=0 d=0 ms=1000; fi
  dbg=/sys/kernel/debug/sched/numa_balancing
  [ -d "$dbg" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
  for k in scan_delay_ms scan_period_min_ms; do [ -w "$dbg/$k" ] && echo $ms >"$dbg/$k"; done
  echo $v >/proc/sys/kernel/numa_balancing && echo $d >/sys/kernel/mm/numa/demotion_enabled
}

# The kernel's own counts of what it moved (they miss DAMOS's: see the schemes' stats).
vmstat() { grep -E '^(pgpromote_success|pgdemote_kswapd|pgdemote_direct|numa_hint_faults|numa_pages_migrated|pgmigrate_success|pgmigrate_fail) ' /proc/vmstat | tr '\n' ' '; }

# The physical range of node $1: "START END" from its memory blocks.
node_range() {
  bs=$((0x$(cat /sys/devices/system/memory/block_size_bytes)))
  for m in /sys/devices/system/node/node"$1"/memory[0-9]*; do echo "${m##*memory}"; done | sort -n |
    awk -v bs="$bs" 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f %.0f\n", lo * bs, (hi + 1) * bs }'
}

# DAMOS as the kernel's sample (samples/damon/mtier.c) does it: node FAST's cold pages to SLOW
# (migrate_cold), SLOW's hot pages to FAST (migrate_hot), physical-address monitoring, 5 ms
# sampling, 100 ms aggregation, at most 64 MiB per second each way.
damos() { # on|off
  d=/sys/kernel/mm/damon/admin/kdamonds
  if [ "$1" = off ]; then
    for k in 0 1; do
      [ -d "$d/$k" ] || continue
      echo update_schemes_stats >"$d/$k/state" 2>/dev/null
      st=$d/$k/contexts/0/schemes/0/stats
      say "kdamond $k ($(cat "$d/$k/contexts/0/schemes/0/action")): tried $(cat "$st/sz_tried") B in $(cat "$st/nr_tried") regions, applied $(cat "$st/sz_applied") B, quota exceeded $(cat "$st/qt_exceeds") times"
      echo off >"$d/$k/state" 2>/dev/null
    done
    # gone, not just off: loci's damon source takes a kdamond only where none is set up by others
    echo 0 >"$d/nr_kdamonds" 2>/dev/null
    return 0
  fi
  [ -d "$d" ] || { say "no DAMON sysfs here (kernel $(uname -r))"; return 1; }
  echo 2 >"$d/nr_kdamonds" || return 1
  set -- "$fast migrate_cold $slow 0 0 10" "$slow migrate_hot $fast 1 20 0"
  k=0
  for spec in "$@"; do
    set -- $spec # node action target_nid nr_accesses_min nr_accesses_max age_min
    c=$d/$k/contexts
    echo 1 >"$c/nr_contexts" && echo paddr >"$c/0/operations" || return 1
    echo 5000 >"$c/0/monitoring_attrs/intervals/sample_us"
    echo 100000 >"$c/0/monitoring_attrs/intervals/aggr_us"
    echo 1 >"$c/0/targets/nr_targets" && echo 1 >"$c/0/targets/0/regions/nr_regions"
    r=$(node_range "$1")
    echo "${r#* }" >"$c/0/targets/0/regions/0/end" && echo "${r% *}" >"$c/0/targets/0/regions/0/start"
    s=$c/0/schemes
    echo 1 >"$s/nr_schemes" && echo "$2" >"$s/0/action" && echo "$3" >"$s/0/target_nid" || return 1
    echo "$4" >"$s/0/access_pattern/nr_accesses/min" && echo "$5" >"$s/0/access_pattern/nr_accesses/max"
    echo "$6" >"$s/0/access_pattern/age/min"
    echo 100 >"$s/0/quotas/ms" && echo $((64 << 20)) >"$s/0/quotas/bytes" && echo 1000 >"$s/0/quotas/reset_interval_ms"
    echo on >"$d/$k/state" || return 1
    say "kdamond $k: $2 from node $1 (${r}) to node $3"
    k=$((k + 1))
  done
}

cat >"$tmp/loci.ini" <<INI
[tiering]
interval = 400ms
[target benchfast]
numa_node = $fast
tiering_budget = ${FAST_MIB}MiB
INI
for n in $others; do printf '[target benchout%s]\nnuma_node = %s\ntiering_budget = 0%%\n' "$n" "$n" >>"$tmp/loci.ini"; done

run() { # label, then the command
  label=$1
  shift
  limit
  say "$label: $*"
  before=$(vmstat)
  "$@" --label "$label" || say "$label: exit status $?"
  say "$label: /proc/vmstat before: $before"
  say "$label: /proc/vmstat after:  $(vmstat)"
  unlimit
}
for m in $MODES; do
  case $m in
  first-touch) run first-touch "$BENCH" plain "$fast" "$slow" $ARGS ;;
  all-fast) run all-fast "$BENCH" fast "$fast" "$slow" $ARGS ;;
  all-slow) run all-slow "$BENCH" slow "$fast" "$slow" $ARGS ;;
  numa-balancing)
    if kernel_tiering on 2>/dev/null; then
      run numa-balancing "$BENCH" plain "$fast" "$slow" $ARGS
      kernel_tiering off
    else say "numa-balancing: kernel.numa_balancing=2 or demotion_enabled not available: skipped"; fi ;;
  damos)
    if damos on; then
      run damos "$BENCH" plain "$fast" "$slow" $ARGS
    else say "damos: DAMON's sysfs interface refused the setup (above): skipped"; fi
    damos off ;;
  loci-api | loci-api-profiled)
    run "$m" env LOCI_CONFIG="$tmp/loci.ini" LOCI_TIER_PROFILE="$tmp/api.profile" \
      "$BENCH" loci "$fast" "$slow" $ARGS ;;
  loci-run | loci-run-profiled)
    run "$m" env LOCI_CONFIG="$tmp/loci.ini" LOCI_TIER_PROFILE="$tmp/run.profile" \
      "$LOCI" run --tier auto --intent latency=low -- "$BENCH" malloc "$fast" "$slow" $ARGS ;;
  *) say "unknown mode $m" ;;
  esac
done
rm -rf "$tmp"
