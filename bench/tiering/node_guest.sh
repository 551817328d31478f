#!/bin/sh
# The node workload (issue 39: tests/vm/vm_node_tiering.c — 4 processes, 4 arrays of 4 MiB each,
# the hot set moving from process A to B to C, then a fifth joining and A leaving) under each
# placement, one after the other, with the same fast-memory size: 28 MiB of node FAST (bench/
# tiering/node.sh runs it in the tiers3 VM; on a real machine, as root, directly). POSIX sh: the VM
# has busybox.
#   node_guest.sh FAST SLOW [OTHER_NODE...]
# FAST: the fast node (with the CPUs: the kernel promotes to it); SLOW: the slow node (a lower
# kernel memory tier); OTHER_NODE: out of play (fastmem.sh). The kernel's modes get 28 MiB plus
# SLACK_MIB (2) for the processes' other memory free above FAST's low watermark: free memory is all
# that bounds them, and they take it down to the watermarks, demoting other memory. loci gets 28
# MiB for its auto arenas ([target] tiering_budget: the node's budget there where loci has the
# node ledger, else each process's), which bounds them, and that much free memory beyond what
# loci's moves leave alone (fastmem_loci_reserve_kb: the node's reserve) plus LOCI_SLACK_MIB (40)
# for the processes' other memory, which comes from FAST too (it has their CPUs) and which loci
# leaves room for rather than take: with 16 MiB of slack its move room on FAST fell to 2 MiB while
# its arenas held 16-20 MiB (2026-11-30), six processes with loci loaded (TIERING.md, "Room").
# The MPI form's runtime (mpirun, Open MPI's shared-memory segments) takes more of FAST than plain
# workers' other memory does: in that form every mode gets MPI_SLACK_MIB (16) more (2026-12-01,
# vm_node_tiering's "when all started" line: the MPI job had taken 56 MiB of FAST before any of its
# arrays was there, the plain workers 41 MiB beside theirs; with 40 MiB of slack loci's move room
# then stayed at 3.6 MiB, under an array's 4, and the hot set never came).
# Environment: NODE (vm_node_tiering), FORMS (plain, and/or mpi: the workers the 4 ranks of MPI_JOB,
# an mpirun line that node.sh gives, their arrays from MPI_Alloc_mem; phases A-C only; each mode's
# label then ends in -mpi), MODES (first-touch numa-balancing damos loci loci-alone;
# loci: node-wide tiering where loci has the node ledger, loci-alone: per-process tiering,
# LOCI_TIER_LEDGER=off — each summary says which), LOCI_INTENT (the
# auto arenas' intent, latency=low,tier=auto: node 0, the CPUs' DRAM, ranks first), PHASE_INTERVALS
# (150: 60 s phases at 400 ms, long enough for the kernel's scanners), REPEATS (1), SLACK_MIB,
# LOCI_SLACK_MIB, MPI_SLACK_MIB, and
# the kernel modes' settings (kernel_modes.sh). Prints each mode's checks, an "alloc MODE" line
# and one "interval N residency R%" line per check (the hot set's share on FAST, for plot.py), its
# "summary MODE ..." line, and the kernel's moves ("kernel MODE ...").
# shellcheck disable=SC2086 # $oop, $others and $workload are lists of words, split on purpose
set -u
fast=$1 slow=$2
shift 2
others=$*
here=$(dirname "$0")
NODE=${NODE:-vm_node_tiering} SLACK_MIB=${SLACK_MIB:-2} LOCI_SLACK_MIB=${LOCI_SLACK_MIB:-40} MPI_SLACK_MIB=${MPI_SLACK_MIB:-16}
PHASE_INTERVALS=${PHASE_INTERVALS:-150}
LOCI_INTENT=${LOCI_INTENT:-latency=low,tier=auto}
MODES=${MODES:-first-touch numa-balancing damos loci loci-alone}
FORMS=${FORMS:-plain}
FAST_MIB=28 # vm_node_tiering's fast memory (FAST_BYTES)
tmp=${TMPDIR:-/tmp}/bench-node.$$
mkdir -p "$tmp"
oop=
for n in $others; do oop="$oop --out-of-play $n"; done

me=node_guest.sh
. "$here/guest_run.sh"
. "$here/fastmem.sh"
. "$here/kernel_modes.sh"
say "fast node $fast ($FAST_MIB MiB), slow node $slow, out of play: ${others:-none}; phases of $PHASE_INTERVALS intervals of 400 ms; kernel $(uname -r)"

# The run's lines, its summary named after the mode, and the checks as plot.py's lines: the hot
# set's share on FAST at each.
plot_lines() {
  awk -v label="$1" 'BEGIN { print "alloc", label } /^summary / { sub(/^summary /, "summary " label " ") } { print }
    / i[0-9]+ .*\| hot / { for (i = 1; i < NF; i++) if ($i == "hot") print "interval", ++k, "residency", $(i + 1) "%" }
    { fflush() }'
}

run() { # label, memory (first-touch, or auto: arenas by LOCI_INTENT): the workload in each form
  for form in $FORMS; do
    label=$1 workload="plain $fast" runtime=0
    if [ "$form" = mpi ]; then
      label=$1-mpi workload="mpi $fast -- ${MPI_JOB:?node_guest.sh: FORMS=mpi needs MPI_JOB}" runtime=$MPI_SLACK_MIB
    fi
    if [ "$2" = auto ]; then
      fastmem_keep_free "$fast" $(((FAST_MIB + LOCI_SLACK_MIB + runtime) * 1024 + $(fastmem_loci_reserve_kb "$fast"))) compact
      for n in $others; do fastmem_keep_free "$n" 0; done
    else
      fastmem_limit "$fast" $((FAST_MIB + SLACK_MIB + runtime)) $others
    fi
    say "$label: $NODE --memory $2 --intent $LOCI_INTENT --phase-intervals $PHASE_INTERVALS$oop $workload"
    kmon_start "$label"
    t0=$(cut -d' ' -f1 /proc/uptime)
    { "$NODE" --memory "$2" --intent "$LOCI_INTENT" --phase-intervals "$PHASE_INTERVALS" $oop $workload 2>&1 ||
      say "$label: goals missed or failed (status $?)"; } |
      plot_lines "$label" | show
    kmon_stop "$label" "$t0" | show
    fastmem_unlimit "$fast" $others
  done
}
one_mode() {
  case $1 in
  first-touch) run first-touch first-touch ;;
  numa-balancing)
    if numa_tiering on; then
      run numa-balancing first-touch
    else say "numa-balancing: kernel.numa_balancing=2 or demotion_enabled not available: skipped"; fi
    numa_tiering off ;;
  damos)
    if damos on "$fast" "$slow"; then
      run damos first-touch
    else say "damos: DAMON's sysfs interface refused the setup (above): skipped"; fi
    damos off ;;
  loci) run loci auto ;;
  loci-alone) # per-process tiering, as before the node ledger: each process its own 28 MiB budget
    export LOCI_TIER_LEDGER=off
    run loci-alone auto
    unset LOCI_TIER_LEDGER ;;
  *) say "unknown mode $1" ;;
  esac
}
each_mode one_mode
rm -rf "$tmp"
