#!/bin/sh
# Files an MPI job needs in the VM's initramfs that ldd cannot see: the
# plugins the MPI libraries dlopen (Open MPI's MCA components, PMIx's, UCX's
# transports), the launcher and its helpers, help texts, Open MPI's system
# parameters. Prints one "HOST_PATH=GUEST_PATH" per line, for the PROGRAMS of
# loci_vm_suite (tests/mpi/vm.cmake): the same path, except UCX's modules,
# which UCX looks for beside libucs (flattened into the guest's /lib).
#
# usage: vm-mpi-files.sh openmpi|mpich
set -eu
same() { for f in "$@"; do if [ -e "$f" ]; then echo "$f=$f"; fi; done; }
# The directory (symbolic links resolved) of library NAME that FILE loads.
lib_dir() { ldd "$1" | awk -v n="$2" '$1 ~ n { print $3 }' | xargs -r readlink -f | xargs -r dirname; }

case ${1:?usage: vm-mpi-files.sh openmpi|mpich} in
openmpi)
    plugins=$(pkg-config --variable=libdir ompi-c)/openmpi3
    same "$plugins"/*.so
    pmix=$(lib_dir "$plugins/mca_pmix_ext3x.so" libpmix)
    if [ -n "$pmix" ]; then same "$pmix"/pmix/*.so "$(cd "$pmix/../share/pmix" && pwd)"/*.txt; fi
    same /usr/bin/mpirun.openmpi "$(command -v orted)"
    same /usr/share/openmpi/*.txt /usr/share/pmix/*.txt /etc/openmpi/openmpi-mca-params.conf ;;
mpich)
    ucs=$(lib_dir "$(pkg-config --variable=libdir mpich)/libmpich.so" libucs)
    if [ -n "$ucs" ]; then for f in "$ucs"/ucx/*.so; do echo "$f=/lib/ucx/${f##*/}"; done; fi
    same /usr/bin/mpiexec.mpich "$(command -v hydra_pmi_proxy)" ;;
*)
    echo "vm-mpi-files.sh: unknown flavour '$1'" >&2
    exit 2 ;;
esac
