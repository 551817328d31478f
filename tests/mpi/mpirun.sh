#!/bin/sh
# Launch an MPI program the same way under either MPI, on one node, with no
# network: what the MPI tests and benchmarks run (POSIX sh: it also runs in
# the VM's busybox).
#
# usage: mpirun.sh FLAVOUR MPIRUN NP [--preload LIB] -- PROGRAM [ARGS...]
#   FLAVOUR  openmpi | mpich
#   MPIRUN   that MPI's launcher (mpirun.openmpi, mpiexec.mpich)
#   NP       number of processes (more than the cores: oversubscribed);
#            0 runs PROGRAM alone, without a launcher (MPI singleton)
#   --preload LIB   LD_PRELOAD LIB into the MPI processes (not the launcher)
#
# Open MPI: shared memory (vader) and self only; one-sided through osc sm or
# rdma (vader's single-copy CMA), else pt2pt (Debian's default list leaves
# it out; it works where CMA is not allowed); no binding (the caller binds,
# e.g. taskset); root allowed; no ssh (plm isolated: this node only, also
# for the daemon a singleton starts). MPICH: hydra forking locally.
set -eu
usage() { echo "usage: $0 FLAVOUR MPIRUN NP [--preload LIB] -- PROGRAM [ARGS...]" >&2; exit 2; }
[ $# -ge 5 ] || usage
flavour=$1 mpirun=$2 np=$3
shift 3
preload=
if [ "$1" = --preload ]; then preload=$2; shift 2; fi
[ "$1" = -- ] || usage
shift

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
if [ "$np" = 0 ]; then
    [ -z "$preload" ] || export LD_PRELOAD="$preload"
    exec "$@"
fi
case $flavour in
openmpi)
    if [ -n "$preload" ]; then set -- -x "LD_PRELOAD=$preload" "$@"; fi
    exec "$mpirun" --oversubscribe -np "$np" --bind-to none \
        --mca btl self,vader --mca pml ob1 --mca osc sm,rdma,pt2pt "$@" ;;
mpich)
    if [ -n "$preload" ]; then set -- -genv LD_PRELOAD "$preload" "$@"; fi
    exec "$mpirun" -launcher fork -n "$np" "$@" ;;
*)
    echo "mpirun.sh: unknown MPI flavour '$flavour' (openmpi, mpich)" >&2
    exit 2 ;;
esac
