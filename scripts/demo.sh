#!/usr/bin/env bash
# loci's main job, shown: this machine's memory targets and data placed by
# intent — then the same inside a VM whose kernel sees three NUMA nodes with
# HMAT figures (DRAM, an HBM-like and a CXL-like node) and one with a NIC.
# usage: scripts/demo.sh BUILD_DIR   (after cmake --build BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
loci=$build/tools/loci/loci
place=$build/examples/place_by_intent

banner() { printf '\n==== %s ====\n\n' "$*"; }

banner "This machine: loci info"
"$loci" info
banner "This machine: placing 64 MiB by intent"
"$place"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for topo in tiers3 nic1; do
  suite=$out/$topo.suite
  { echo "file $loci"; echo "file $place"; echo "timeout 120"
    echo "info: loci info"
    if [ "$topo" = tiers3 ]; then
      echo "place: place_by_intent '' bandwidth=high latency=low capacity=large kind=cxl 'bandwidth=high!,fallback=null' 'latency=low!'"
    else
      echo "place: place_by_intent '' near=nic near=pe"
    fi
  } >"$suite"
  banner "VM '$topo' (Debian's kernel under QEMU): booting"
  if ! tests/vm/run-vm.sh "$topo" "$suite" "$out/$topo" >"$out/$topo.run" 2>&1; then
    cat "$out/$topo.run" >&2
    echo "demo: the VM run failed (see above)" >&2
    exit 1
  fi
  banner "VM '$topo': loci info"
  cat "$out/$topo/info.log"
  banner "VM '$topo': placing 64 MiB by intent (move_pages reports where the kernel put each page)"
  cat "$out/$topo/place.log"
done
