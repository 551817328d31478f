#!/bin/sh
# bench_tiering's modes one after the other on one machine, with the same fast-memory size for
# each (bench/tiering/run.sh runs it in the tiers3 VM; on a real machine, as root, directly).
# POSIX sh: the VM has busybox.
#   guest.sh FAST SLOW [OTHER_NODE...]
# FAST: the fast node (with the CPUs: the kernel promotes to it); SLOW: the slow node (in a lower
# kernel memory tier for the kernel's modes); OTHER_NODE: nodes to take out of play (their free
# memory reserved as huge pages, fastmem.sh). FAST keeps FAST_MIB (16) plus SLACK_MIB (2) for the
# program's other memory free above its low watermark (where the kernel's allocations spill to
# the next node), reserved before each mode; loci's auto arenas get a budget of FAST_MIB there.
# loci's modes get FAST_MIB + SLACK_MIB above what loci's moves leave alone of the node instead
# (fastmem_loci_reserve_kb: the node's reserve, counted from its high watermark, not the low one
# where the kernel's allocations move on; docs/TIERING.md "Room"): on a node left 18 MiB above its
# low watermark loci placed and moved nothing at all. Its data there is still held to FAST_MIB by
# its budget (the fast_mib column shows what it held).
# Environment: BENCH (bench_tiering), LOCI (the loci tool, libloci-tier.so beside it), MODES
# (default: all), PHASE_S (60: seconds per phase), INTERVAL_MS (400), ARRAY_MIB (4: each of the
# 16 arrays), REPEATS (1: every mode that many times, in turns), ARGS (more bench_tiering
# options, e.g. --tlb-refresh 1 under QEMU TCG, --pause-ms 0 on real machines), and the kernel
# modes' settings (kernel_modes.sh). Prints each mode's bench_tiering output, then a "kernel"
# line: what the kernel moved and how many seconds after the mode started it first moved it.
# shellcheck disable=SC2086 # $ARGS and $others are lists of words, split on purpose
set -u
fast=$1 slow=$2
shift 2
others=$*
here=$(dirname "$0")
BENCH=${BENCH:-bench_tiering} LOCI=${LOCI:-loci}
FAST_MIB=${FAST_MIB:-16} SLACK_MIB=${SLACK_MIB:-2} PHASE_S=${PHASE_S:-60} INTERVAL_MS=${INTERVAL_MS:-400}
ARGS="--array-mib ${ARRAY_MIB:-4} --interval-ms $INTERVAL_MS --phase-intervals $(((PHASE_S * 1000 + INTERVAL_MS / 2) / INTERVAL_MS)) ${ARGS:-}"
MODES=${MODES:-first-touch all-fast numa-balancing damos loci-api loci-api-profiled loci-run loci-run-profiled}
tmp=${TMPDIR:-/tmp}/bench-tiering.$$
mkdir -p "$tmp"

me=guest.sh
. "$here/guest_run.sh"
. "$here/fastmem.sh"
. "$here/kernel_modes.sh"
say "fast node $fast ($FAST_MIB MiB + $SLACK_MIB MiB slack), slow node $slow, out of play: ${others:-none}; phases of ${PHASE_S} s; bench_tiering $ARGS; kernel $(uname -r)"

{ printf '[tiering]\ninterval = %sms\n' "$INTERVAL_MS"; fastmem_loci_targets "$fast" "$FAST_MIB" $others; } >"$tmp/loci.ini"

run() { # label, then the command
  label=$1
  shift
  fastmem_limit "$fast" $((FAST_MIB + SLACK_MIB + margin_mib)) $others
  say "$label: $*"
  kmon_start "$label"
  t0=$(cut -d' ' -f1 /proc/uptime)
  { "$@" --label "$label" || say "$label: exit status $?"; } | show
  kmon_stop "$label" "$t0" | show
  fastmem_unlimit "$fast" $others
}
one_mode() {
  margin_mib=0
  case $1 in loci-*) margin_mib=$((($(fastmem_loci_reserve_kb "$fast") - $(fastmem_watermark_kb "$fast" low) + 1023) / 1024)) ;; esac
  case $1 in
  first-touch) run first-touch "$BENCH" plain "$fast" "$slow" $ARGS ;;
  all-fast) run all-fast "$BENCH" fast "$fast" "$slow" $ARGS ;;
  all-slow) run all-slow "$BENCH" slow "$fast" "$slow" $ARGS ;;
  numa-balancing)
    if numa_tiering on; then
      run numa-balancing "$BENCH" plain "$fast" "$slow" $ARGS
    else say "numa-balancing: kernel.numa_balancing=2 or demotion_enabled not available: skipped"; fi
    numa_tiering off ;;
  damos)
    if damos on "$fast" "$slow"; then
      run damos "$BENCH" plain "$fast" "$slow" $ARGS
    else say "damos: DAMON's sysfs interface refused the setup (above): skipped"; fi
    damos off ;;
  loci-api | loci-api-profiled)
    [ "$1" = loci-api ] && rm -f "$tmp/api.profile"
    run "$1" env LOCI_CONFIG="$tmp/loci.ini" LOCI_TIER_PROFILE="$tmp/api.profile" \
      "$BENCH" loci "$fast" "$slow" $ARGS ;;
  loci-run | loci-run-profiled)
    [ "$1" = loci-run ] && rm -f "$tmp/run.profile"
    run "$1" env LOCI_CONFIG="$tmp/loci.ini" LOCI_TIER_PROFILE="$tmp/run.profile" \
      "$LOCI" run --tier auto --intent latency=low -- "$BENCH" malloc "$fast" "$slow" $ARGS ;;
  *) say "unknown mode $1" ;;
  esac
}
each_mode one_mode
rm -rf "$tmp"
