#!/usr/bin/env bash
# loci's main job, shown: this machine's memory targets, data placed by
# intent and a persistent region (on pmem where there is some) — then the same
# inside a VM whose kernel sees three NUMA nodes with HMAT figures (DRAM, an
# HBM-like and a CXL-like node), one with a NIC and one with an NVDIMM as
# device-DAX (/dev/dax0.0: placement and a region across processes) —
# then the job-wide half: a throw-away Ceph cluster (scripts/store-cluster.sh)
# whose pool is the job's aggregate store, two compute "nodes" (network
# namespaces), a region written on one and read on the other, and a checkpoint
# drained to the store, its node lost, restored on the other node
# (examples/job_memory.c). Everything it starts is stopped and removed on every
# exit path. The job-wide half needs root (namespaces) and Ceph's packages.
# usage: scripts/demo.sh BUILD_DIR   (after cmake --build BUILD_DIR)
set -euo pipefail
# The job-wide half needs root: as scripts/install-deps.sh does, through sudo where there is one.
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then exec sudo -E "$0" "$@"; fi
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
loci=$build/tools/loci/loci
place=$build/examples/place_by_intent
job=$build/examples/job_memory

banner() { printf '\n==== %s ====\n\n' "$*"; }
# What the step under a banner proves, before its output.
proves() { printf '%s\n' "$@" ""; }

work=$(mktemp -d) # the VMs' output, the cluster, the nodes' local directories
cluster=$work/cluster
cleanup() {
  if [ -d "$cluster" ]; then
    banner "Tearing the cluster down"
    scripts/store-cluster.sh stop "$cluster" 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT # the EXIT trap runs on these too
trap 'exit 143' TERM

region=$build/examples/pmem_region
banner "This machine: loci info"
"$loci" info
banner "This machine: placing 64 MiB by intent"
"$place"
banner "This machine: a persistent region, written by one process and read by the next"
proves "\"persist,kind=pmem\": persistent memory where the machine has some — a device-DAX node" \
  "(/dev/daxX.Y) or a DAX file system — else the SSD tier (examples/pmem_region.c)."
for step in write check remove; do "$region" $step; done

# Boot VM topology $1 with the suite lines on stdin (after the files every VM gets); its tests'
# logs are then in $work/$1.
run_vm() {
  local topo=$1 suite=$work/$1.suite
  { echo "file $loci"; echo "file $place"; echo "file $region"; echo "timeout 120"; cat; } >"$suite"
  banner "VM '$topo' (Debian's kernel under QEMU): booting"
  if ! tests/vm/run-vm.sh "$topo" "$suite" "$work/$topo" >"$work/$topo.run" 2>&1; then
    cat "$work/$topo.run" >&2
    echo "demo: the VM run failed (see above)" >&2
    exit 1
  fi
}

for topo in tiers3 nic1; do
  if [ "$topo" = tiers3 ]; then
    echo "place: place_by_intent '' bandwidth=high latency=low capacity=large kind=cxl 'bandwidth=high!,fallback=null' 'latency=low!'"
  else
    echo "place: place_by_intent '' near=nic near=pe"
  fi | { echo "info: loci info"; cat; } | run_vm "$topo"
  banner "VM '$topo': loci info"
  cat "$work/$topo/info.log"
  banner "VM '$topo': placing 64 MiB by intent (move_pages reports where the kernel put each page)"
  cat "$work/$topo/place.log"
done

# Automatic tiering in the same VM: an unmodified program (tests/tier/gups_wrapped: 12 arrays of
# 4 MiB, each made by its own function through the program's own xmalloc wrapper; two of them hot,
# then two others) under `loci run --tier auto` with no intent: every array in an arena of its own
# (its calling context), the node's memories ranked fastest first, the hot ones moved to the
# HBM-like node 1 by measured heat — the program itself checks every interval with move_pages
# where the hot arrays' pages are. Node 1 holds a third of the arrays (an administrator's
# tiering_budget), so loci has to choose.
tier_program=$build/tests/tier/gups_wrapped
if [ -x "$tier_program" ]; then
  run_vm tiers3 <<EOS
file $tier_program
file $build/shim/tier/libloci-tier.so
timeout 300
tier: printf '[tiering]\ninterval = 400ms\n[target fast]\nnuma_node = 1\ntiering_budget = 16MiB\n' >/tmp/tier.ini; export LOCI_CONFIG=/tmp/tier.ini; loci run --tier auto -- gups_wrapped 4 watch 1 400 >/tmp/gups.out 2>&1 & pid=\$!; sleep 10; loci tier \$pid >/tmp/view.out 2>&1; wait \$pid; rc=\$?; cat /tmp/gups.out; echo; echo "loci tier \$pid, 10 s into the run (the live view of another process's tiering):"; cat /tmp/view.out; exit \$rc
EOS
  banner "VM 'tiers3': an unmodified program under loci run --tier auto"
  proves "No intent, no code changed: each of the 12 arrays is its allocation's calling context, an arena" \
    "of its own; 'hot on node 1' is the share of the two hot arrays' pages the kernel reports on the" \
    "fast node, every 400 ms interval, through both phases (the hot pair changes halfway)."
  cat "$work/tiers3/tier.log"
else
  banner "VM 'tiers3': automatic tiering skipped (build the tests: $tier_program is missing)"
fi

# PMEM as a device: an emulated NVDIMM that ndctl makes /dev/dax0.0 (tests/vm/topologies.sh devdax).
if ndctl=$(command -v ndctl); then
  run_vm devdax <<EOS
file $ndctl
file $PWD/tests/vm/devdax-setup.sh
setup: devdax-setup.sh
info: loci info
place: place_by_intent kind=pmem persist
write: pmem_region write
check: pmem_region check
ls: loci devdax ls /dev/dax0.0
remove: pmem_region remove
EOS
  banner "VM 'devdax': an NVDIMM as /dev/dax0.0, a pmem target"
  cat "$work/devdax/setup.log" "$work/devdax/info.log"
  banner "VM 'devdax': placing 64 MiB on it by intent"
  cat "$work/devdax/place.log"
  banner "VM 'devdax': a persistent region on /dev/dax0.0, written by one process, read by the next"
  proves "The device has no file system: loci keeps a checksummed region directory at its start" \
    "(docs/NVM.md); the second process finds the region by name at the same offset, every byte as written."
  cat "$work/devdax/write.log" "$work/devdax/check.log" "$work/devdax/ls.log" "$work/devdax/remove.log"
else
  banner "VM 'devdax': skipped (no ndctl here; scripts/install-deps.sh installs it)"
fi

# ---- the job-wide half ----
banner "The job: a throw-away Ceph cluster and two compute nodes"
proves "loci's aggregate store (kind=store, docs/STORE.md) is a Ceph pool that every node of a job" \
  "reaches. Here: a MON, a MGR and one OSD on a benefactor host, and compute nodes a and b — each a" \
  "network namespace of this machine with an address of its own and a local SSD of its own (a" \
  "directory). a and b share nothing but the network and the store."
if [ "$(id -u)" -ne 0 ]; then
  echo "demo: the job-wide half needs root (its nodes are network namespaces): sudo $0 ${1:-build}" >&2
  exit 1
fi
if ! scripts/store-cluster.sh start "$cluster" --osds 1 --hosts 1 --osd-size 2G 2>"$work/cluster.log"; then
  cat "$work/cluster.log" >&2
  echo "demo: the Ceph cluster did not start (see above); scripts/install-deps.sh installs Ceph's packages" >&2
  exit 1
fi
tail -1 "$work/cluster.log"
for node in a b; do
  scripts/store-cluster.sh client "$cluster" "$node" >/dev/null
  mkdir -m 700 "$work/node-$node"
done
# The cluster's [target agg0], and checkpoints drained to it (docs/CHECKPOINT.md, level 2).
{ cat "$cluster/loci.conf"; printf '\n[checkpoint]\ndrain = agg0\n'; } >"$work/job.conf"
# on NODE CMD...: run CMD on compute node NODE, its local SSD (ssd0, and the checkpoint
# directory in it) its own directory.
on() {
  local node=$1; shift
  local ns; ns=$(scripts/store-cluster.sh netns "$cluster" "$node")
  echo "[node $node, $(ip -n "$ns" -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')] $*" | sed "s|$build/||g"
  ip netns exec "$ns" \
    env LOCI_CONFIG="$work/job.conf" LOCI_STORE_DIR="$work/node-$node" "$@"
}
# What reached the pool: its objects by kind, and the bytes the OSD took from clients.
pool() {
  echo "pool 'loci' of the cluster (rados ls):"
  timeout 30 rados -c "$cluster/ceph.conf" -p loci ls |
    sed -E 's#^(loci-region/[^/]+|loci-ckpt/chunks)/.*#\1/<chunk>#' | sort | uniq -c |
    awk '{ if ($2 ~ /^loci-region\/.*\/<chunk>$/) what = "256 KiB chunks of a region"
           else if ($2 ~ /^loci-region\//) what = "a region: its size, its lock"
           else if ($2 ~ /^loci-ckpt\/chunks\//) what = "drained chunks of checkpoint variables"
           else if ($2 ~ /^loci-ckpt\//) what = "a checkpoint manifest (put last: it is whole)"
           else if ($2 == "loci-ckpt-gc") what = "the lock drains and gc share"
           else what = ""
           printf "  %4d  %-28s %s\n", $1, $2, what }'
  local bytes
  bytes=$(timeout 20 ceph --admin-daemon "$cluster/run/ceph-osd.0.asok" perf dump |
    sed -n 's/.*"op_w_in_bytes": \([0-9]*\).*/\1/p')
  echo "bytes written to the OSD by clients so far: $(numfmt --to=iec-i --suffix=B "$bytes")"
}

on a "$loci" resolve access=job

banner "A region with access=job: written on node a, read on node b"
proves "access=job resolves to agg0, the store, on every node. Node a fills a 16 MiB region and syncs" \
  "it: its pages go to the pool as 256 KiB objects. Node b, another host on the network, opens the" \
  "region by name and finds every value a wrote, bit for bit."
on a "$job" write field
on b "$job" read field
echo
pool

banner "A checkpoint drained to the store, node a lost, restored on node b"
proves "Node a registers a 1 MiB DRAM array, opens region 'state' on the store, and saves checkpoint c1:" \
  "level 1 in a's local checkpoint directory, drained by loci in the background to the store (level 2:" \
  "[checkpoint] drain = agg0; the region's part is a snapshot of its objects, nothing copied). Then a" \
  "goes on to step 2 and is lost: its local directory is wiped. Node b lists c1 (from the store) and" \
  "restores it: the region and the DRAM array hold step 1 again, bit for bit."
on a "$job" save state c1
on a "$loci" ckpt ls
echo
pool
echo
echo "node a is lost: rm -rf its local SSD ($work/node-a), checkpoint level 1 with it"
rm -rf "$work/node-a"
echo
on b "$loci" ckpt ls
on b "$job" restore state c1
