#!/bin/sh
# Debian's redis-server under each placement, one after the other on one machine, with the same
# fast-memory size for each, driven by zipf_client (the DAMOS/Redis anchor's YCSB-C-like load,
# its popular keys changing mid-run). bench/tiering/redis.sh runs it in the tiers3 VM; on a real
# machine, as root, directly. POSIX sh: the VM has busybox.
#   redis_guest.sh FAST SLOW [OTHER_NODE...]
# Nodes as in guest.sh: FAST keeps FAST_MIB (16) plus SLACK_MIB (16) — Redis's own memory beside
# its values (keys, dictionary, buffers), the client, loci's tables — free above its low
# watermark; loci's auto arenas get a budget of FAST_MIB there.
# Modes (MODES, default all):
#   all-fast         nothing reserved on FAST: every page on the fast node (the reference)
#   first-touch      the kernel's default placement: the filler, loaded first, takes the fast node
#   all-slow         numactl --membind=SLOW
#   numa-balancing   kernel.numa_balancing = 2 with demotion (TPP), kernel_modes.sh
#   damos            DAMOS migrate_cold FAST -> SLOW, migrate_hot SLOW -> FAST, kernel_modes.sh
#   loci-run         loci run --tier auto -- redis-server   (loci's defaults)
#   loci-run-intent  loci run --tier auto --intent LOCI_INTENT (latency=low) --tier-threshold
#                    LOCI_THRESHOLD (4K) -- redis-server: candidates every node, values tiered
# loci's budget: FAST_MIB of FAST, nothing of the other nodes (LOCI_CONFIG, fastmem.sh).
# Environment: REDIS (redis-server), CLIENT (zipf_client), LOCI (loci), NUMACTL (numactl),
# KEYS (32768), FILLER_KEYS (16384), VALUE_BYTES (4096), PHASES (2), PHASE_S (300), INTERVAL_S
# (15), THETA (0.99), PIPELINE (16), LOAD (populate: Redis makes the keys, DEBUG POPULATE; set:
# SETs from the client, zipf_client.c), PIN (a CPU list for Redis's main thread and the client,
# taskset; empty: none — under QEMU TCG one CPU for both makes each request switch address
# spaces, which flushes QEMU's TLB as a real CPU's small TLB loses entries: else the accessed
# bits DAMON reads stay clear, docs/TIERING.md), REPEATS (1: every mode that many times, in turns), the kernel modes' settings
# (kernel_modes.sh). Exit 0, or 1 when a client saw a wrong reply or Redis did not start.
# shellcheck disable=SC2086,SC2317 # $others and $client_args: lists of words, split on purpose; one_mode runs through each_mode
set -u
fast=$1 slow=$2
shift 2
others=$*
here=$(dirname "$0")
REDIS=${REDIS:-redis-server} CLIENT=${CLIENT:-zipf_client} LOCI=${LOCI:-loci} NUMACTL=${NUMACTL:-numactl}
FAST_MIB=${FAST_MIB:-16} SLACK_MIB=${SLACK_MIB:-16} PHASE_S=${PHASE_S:-300} INTERVAL_S=${INTERVAL_S:-15}
LOCI_INTENT=${LOCI_INTENT:-latency=low} LOCI_THRESHOLD=${LOCI_THRESHOLD:-4K}
MODES=${MODES:-all-fast first-touch all-slow numa-balancing damos loci-run loci-run-intent}
tmp=${TMPDIR:-/tmp}/bench-redis.$$
mkdir -p "$tmp"
sock=$tmp/redis.sock
status=0

me=redis_guest.sh
. "$here/guest_run.sh"
. "$here/fastmem.sh"
. "$here/kernel_modes.sh"
client_args="--keys ${KEYS:-32768} --filler-keys ${FILLER_KEYS:-16384} --value-bytes ${VALUE_BYTES:-4096}
  --phases ${PHASES:-2} --phase-s $PHASE_S --interval-s $INTERVAL_S --theta ${THETA:-0.99} --pipeline ${PIPELINE:-16}
  --fast-mib $FAST_MIB --fast $fast --load ${LOAD:-populate}"
pin=
[ -n "${PIN:-}" ] && pin="taskset -c $PIN"
say "fast node $fast ($FAST_MIB MiB + $SLACK_MIB MiB slack), slow node $slow, out of play: ${others:-none}; $($REDIS --version); zipf_client" $client_args "${pin:+; $pin}; kernel $(uname -r)"
fastmem_loci_targets "$fast" "$FAST_MIB" $others >"$tmp/loci.ini"

# One mode: LABEL LIMIT (yes: FAST limited) then the command that starts redis-server's arguments.
mode() {
  label=$1 lim=$2
  shift 2
  if [ "$lim" = yes ]; then
    fastmem_limit "$fast" $((FAST_MIB + SLACK_MIB)) $others
  else for n in $others; do fastmem_keep_free "$n" 0; done; fi
  rm -f "$sock"
  say "$label: $* $REDIS"
  kmon_start "$label"
  t_start=$(cut -d' ' -f1 /proc/uptime)
  "$@" "$REDIS" --port 0 --unixsocket "$sock" --save '' --appendonly no --protected-mode no \
    --enable-debug-command local --daemonize no --dir "$tmp" >"$tmp/redis.$label.log" 2>&1 &
  pid=$!
  i=0
  while [ ! -S "$sock" ] && [ $i -lt 300 ] && kill -0 $pid 2>/dev/null; do sleep 1; i=$((i + 1)); done
  # Redis's main thread (the one that serves) beside the client; its other threads (loci's
  # tiering thread among them) and the kernel's free
  [ -n "${PIN:-}" ] && taskset -p -c "$PIN" $pid >/dev/null
  if [ -S "$sock" ]; then
    { $pin "$CLIENT" --socket "$sock" --pid $pid --label "$label" $client_args || echo $? >"$tmp/failed"; } |
      tee "$tmp/client.$label" | show
    [ -e "$tmp/failed" ] && { say "$label: zipf_client exit status $(cat "$tmp/failed")"; rm -f "$tmp/failed"; status=1; }
    case $label in loci*) "$LOCI" tier $pid | sed "s/^/loci-tier $label: /" ;; esac
  else
    say "$label: redis-server did not start (its log below)"
    status=1
  fi
  t0=$(awk '$1 == "start" && $4 == 1 { print $6 }' "$tmp/client.$label" 2>/dev/null)
  kmon_stop "$label" "${t0:-$t_start}" | show
  kill $pid 2>/dev/null
  wait $pid
  sed "s/^/redis $label: /" "$tmp/redis.$label.log" | grep -v -e '^redis [^:]*: *$' | tail -n 25
  fastmem_unlimit "$fast" $others
}

one_mode() {
  case $1 in
  all-fast) mode all-fast no env ;;
  first-touch) mode first-touch yes env ;;
  all-slow) mode all-slow yes "$NUMACTL" --membind="$slow" ;;
  numa-balancing)
    if numa_tiering on; then
      mode numa-balancing yes env
    else say "numa-balancing: not available here: skipped"; fi
    numa_tiering off ;;
  damos)
    if damos on "$fast" "$slow"; then
      mode damos yes env
    else say "damos: DAMON's sysfs interface refused the setup (above): skipped"; fi
    damos off || status=1 ;;
  loci-run) mode loci-run yes env LOCI_CONFIG="$tmp/loci.ini" LOCI_STATS=1 "$LOCI" run --tier auto -- ;;
  loci-run-intent)
    mode loci-run-intent yes env LOCI_CONFIG="$tmp/loci.ini" LOCI_STATS=1 "$LOCI" run --tier auto \
      --intent "$LOCI_INTENT" --tier-threshold "$LOCI_THRESHOLD" -- ;;
  *) say "unknown mode $1" ;;
  esac
}
each_mode one_mode
rm -rf "$tmp"
exit $status
