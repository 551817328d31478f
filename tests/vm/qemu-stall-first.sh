#!/usr/bin/env bash
# QEMU for vm.boot_retry (check-boot-retry.sh): the first boot's vCPUs never run (-S: QEMU starts
# with them stopped, as a vCPU starved by a loaded host barely runs), every later one is QEMU as
# usual. LOCI_VM_STALL_MARK names the file the first call makes.
set -euo pipefail
mark=${LOCI_VM_STALL_MARK:?LOCI_VM_STALL_MARK: the file that marks the first boot as done}
if [[ ! -e $mark ]]; then
    : >"$mark"
    exec qemu-system-x86_64 -S "$@"
fi
exec qemu-system-x86_64 "$@"
