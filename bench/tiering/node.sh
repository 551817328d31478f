#!/usr/bin/env bash
# Tiering across the processes of one node, side by side (issue 39; docs/BENCHMARKS.md "Automatic
# tiering: one node, several processes"): vm_node_tiering's workload — 4 processes, the hot set
# moving from one to another twice, a fifth joining and the first leaving — under first touch, the
# kernel's NUMA balancing tiering mode, DAMOS migrate_hot/migrate_cold and loci tier=auto
# (per-process tiering, or node-wide with the node ledger: whichever this loci is), at the same
# fast-memory size (bench/tiering/node_guest.sh).
#
#   bench/tiering/node.sh                      in the tiers3 VM (QEMU TCG) on Debian's 6.12 kernel:
#                                              fast node 0 (the CPUs' DRAM), slow node 2 (CXL-like,
#                                              a lower memory tier), node 1 (HBM-like) out of play
#   bench/tiering/node.sh --host FAST SLOW [OTHER...]   on this machine, as root
#
# Writes bench/results/tiering-node[-host].txt: every check, then a table of each mode's summary
# (intervals until the hot set was 90 % on the fast node in each phase, floors, the most MiB of
# the workers' memory on it, MiB moved and moved back) and bench/results/tiering-node[-host].png.
# Builds nothing: cmake -S . -B build -G Ninja -DLOCI_BUILD_BENCH=ON && ninja -C build (BUILD_DIR:
# another build). Environment passed to node_guest.sh: FORMS (plain; mpi), MODES, REPEATS, PHASE_INTERVALS (150),
# SLACK_MIB, LOCI_SLACK_MIB, MPI_SLACK_MIB, LOCI_INTENT, LOCI_LOG (debug: every process's plan, to read why) and the kernel modes'
# settings (bench/tiering/kernel_modes.sh).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
node=$build/tests/vm/vm_node_tiering
driver_need node.sh "$node"
# FORMS=mpi (or "plain mpi"): the workers as the 4 ranks of an Open MPI job through MPI_Alloc_mem
# (tests/mpi/vm_node_tiering_mpi.c), with Open MPI's files in the VM.
files=("$node" "$here"/{node_guest,fastmem,kernel_modes,guest_run}.sh)
if [[ " ${FORMS:-plain} " == *" mpi "* ]]; then
  mpi=$build/tests/vm/vm_node_tiering_mpi_openmpi
  driver_need node.sh "$mpi"
  mapfile -t mpi_files < <("$root/tests/mpi/vm-mpi-files.sh" openmpi)
  files+=("$mpi" "$root"/tests/mpi/{mpirun,vm-mpi-run}.sh "${mpi_files[@]}")
  export MPI_JOB="vm-mpi-run.sh 0 openmpi mpirun.openmpi 4 -- ${mpi##*/}"
fi
vars="FORMS MPI_JOB MODES REPEATS PHASE_INTERVALS SLACK_MIB LOCI_SLACK_MIB MPI_SLACK_MIB LOCI_INTENT LOCI_LOG $driver_kernel_vars"

# One row per summary line: "summary MODE memory M tiering T goals G; PHASE: placed_at N floors F
# fast_mib_max X; ... moved_mib M pingpong_mib P".
table() {
  echo '| mode | tiering | goals | intervals to 90 %: A / B / C / E joins / C,D,E hot / A left | floors kept, per phase | most MiB on fast, per phase | MiB moved | moved back |'
  echo '|---|---|---|---|---|---|---|---|'
  awk '$1 == "summary" {
    n = split($0, part, ";"); split(part[1], head, " ")
    placed = floors = most = ""
    for (i = 2; i <= n; i++) {
      k = split(part[i], w, " ")
      for (j = 1; j < k; j++) {
        if (w[j] == "placed_at") placed = placed (placed == "" ? "" : " / ") (w[j + 1] == -1 ? "never" : w[j + 1])
        if (w[j] == "floors") floors = floors (floors == "" ? "" : " / ") w[j + 1]
        if (w[j] == "fast_mib_max") most = most (most == "" ? "" : " / ") w[j + 1]
        if (w[j] == "moved_mib") moved = w[j + 1]
        if (w[j] == "pingpong_mib") back = w[j + 1] } }
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", head[2], head[6], head[8], placed, floors, most, moved, back }' "$1"
}

if [[ ${1:-} == --host ]]; then
  shift
  [[ $# -ge 2 ]] || { echo "usage: node.sh --host FAST SLOW [OTHER_NODE...]" >&2; exit 2; }
  [[ $(id -u) -eq 0 ]] || { echo "node.sh --host: run as root (huge-page reservations, sysctls, DAMON, move_pages of other processes)" >&2; exit 2; }
  out=$root/bench/results/tiering-node-host.txt
  NODE=$node sh "$here/node_guest.sh" "$@" 2>&1 | tee "$out.raw"
else
  out=$root/bench/results/tiering-node.txt
  vm_bench node "$out.raw" "${LOCI_BENCH_TIMEOUT:-36000}" "$vars" "NODE=vm_node_tiering sh node_guest.sh 0 2 1" \
    "${files[@]}" || vm_failed=1
  [[ -s $out.raw ]] || exit 1
fi
bench_results node.sh "$out" table
[[ -z ${vm_failed:-} ]] || { echo "node.sh: a mode or the VM failed (above): the table holds what the others measured" >&2; exit 1; }
