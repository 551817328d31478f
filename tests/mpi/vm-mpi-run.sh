#!/bin/sh
# Guest side of the MPI VM tests (busybox): gives an MPI job what the test
# initramfs lacks — the loopback interface (launchers reach their processes
# over TCP), a hostname that resolves, /dev/shm (shared-memory transports and
# windows) — then runs mpirun.sh with every process on CPU `cpu`.
#
# usage: vm-mpi-run.sh CPU FLAVOUR MPIRUN NP -- PROGRAM [ARGS...]   (see mpirun.sh)
set -eu
cpu=$1
shift
ip link set lo up
hostname loci-vm
grep -q loci-vm /etc/hosts 2>/dev/null || echo "127.0.0.1 localhost loci-vm" >>/etc/hosts
if ! grep -q " /dev/shm " /proc/mounts; then
    mkdir -p /dev/shm
    mount -t tmpfs -o mode=1777 tmpfs /dev/shm
fi
exec taskset -c "$cpu" mpirun.sh "$@"
