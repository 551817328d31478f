#!/bin/sh
# Guest test (busybox sh): `loci info --json` puts each NUMA node in the kernel memory tier whose
# /sys/devices/virtual/memory_tiering/memory_tierN/nodelist lists it, with that tier's nodes and
# source "os" (docs/DISCOVERY.md, "Kernel memory tiers"). Both Debian kernels (6.1, 6.12) have
# memory tiers, so their absence fails too.
# usage: check-memory-tiers.sh NODE...
set -eu
[ $# -gt 0 ] || { echo "usage: check-memory-tiers.sh NODE..." >&2; exit 2; }
dir=/sys/devices/virtual/memory_tiering
if ! ls "$dir"/memory_tier*/nodelist >/dev/null 2>&1; then
    echo "check-memory-tiers: no $dir/memory_tier*/nodelist: the guest kernel has no memory tiers" >&2
    exit 1
fi
# tier_N and list_N: the tier of node N and the nodes of that tier, as the kernel says
for f in "$dir"/memory_tier*/nodelist; do
    tier=${f%/nodelist}; tier=${tier##*/memory_tier}
    list=$(cat "$f")
    echo "kernel: memory_tier$tier: nodes $list"
    for n in $(echo "$list" | awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
                                         last = r[2] == "" ? r[1] : r[2];
                                         for (j = r[1]; j <= last; j++) print j } }'); do
        eval "tier_$n=$tier list_$n=$list"
    done
done
loci info --json >/tmp/info.json
grep '"numa_node": [0-9]' /tmp/info.json
status=0
for node in "$@"; do
    eval "tier=\${tier_$node:-} list=\${list_$node:-}"
    if [ -z "$tier" ]; then
        echo "check-memory-tiers: the kernel lists node $node in no memory tier" >&2
        status=1
        continue
    fi
    want="\"numa_node\": $node, \"cuda_device\": -1, \"memory_tier\": $tier, \"memory_tier_nodes\": \"$list\", \"memory_tier_source\": \"os\","
    if ! grep -qF "$want" /tmp/info.json; then
        echo "check-memory-tiers: expected node $node in memory_tier$tier (nodes $list, from os); loci says:" >&2
        grep "\"numa_node\": $node," /tmp/info.json >&2 || echo "  (no target for node $node)" >&2
        status=1
    fi
done
exit $status
