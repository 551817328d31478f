#!/bin/sh
# Files an OpenSHMEM job needs in the VM's initramfs that ldd cannot see:
# Open MPI's (tests/mpi/vm-mpi-files.sh openmpi: MCA plugins — oshmem's
# among them —, PMIx, the launcher, help texts) and UCX's transport
# modules, which oshmem's spml/ucx loads and UCX looks for beside libucs
# (flattened into the guest's /lib). One "HOST_PATH=GUEST_PATH" per line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
"$here/../mpi/vm-mpi-files.sh" openmpi
spml=$(pkg-config --variable=libdir ompi-c)/openmpi3/mca_spml_ucx.so
ucs=$(ldd "$spml" | awk '$1 ~ /libucs/ { print $3 }' | xargs -r readlink -f | xargs -r dirname)
if [ -n "$ucs" ]; then for f in "$ucs"/ucx/*.so; do echo "$f=/lib/ucx/${f##*/}"; done; fi
