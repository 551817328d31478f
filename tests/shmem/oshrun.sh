#!/bin/sh
# Launch an OpenSHMEM program under Open MPI on one node, with no network:
# what the OpenSHMEM tests and benchmarks run (POSIX sh: it also runs in the
# VM's busybox).
#
# usage: oshrun.sh OSHRUN NP [--preload LIB] -- PROGRAM [ARGS...]
#   OSHRUN   Open MPI's oshrun
#   NP       number of PEs (more than the cores: oversubscribed)
#   --preload LIB   LD_PRELOAD LIB into the PEs (not the launcher)
#
# --mca osc ^rdma: Debian's Open MPI 4.1.4 crashes in shmem_finalize, even
# for an empty program, through a memory hook the osc/rdma component leaves
# behind (docs/SHMEM.md); without that component put/get/atomics work the
# same (the spml is UCX's). Shared memory and self only for the MPI layer
# oshmem starts; no binding (the caller binds, e.g. taskset); root allowed;
# no ssh (plm isolated).
set -eu
usage() { echo "usage: $0 OSHRUN NP [--preload LIB] -- PROGRAM [ARGS...]" >&2; exit 2; }
[ $# -ge 4 ] || usage
oshrun=$1 np=$2
shift 2
preload=
if [ "$1" = --preload ]; then preload=$2; shift 2; fi
[ "$1" = -- ] || usage
shift
if [ -n "$preload" ]; then set -- -x "LD_PRELOAD=$preload" "$@"; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
exec "$oshrun" --oversubscribe -np "$np" --bind-to none --mca osc ^rdma --mca btl self,vader "$@"
