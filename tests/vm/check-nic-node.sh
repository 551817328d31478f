#!/bin/sh
# Guest test (busybox sh): the Ethernet controller (PCI class 0x0200xx) sits on NUMA node
# EXPECTED according to sysfs -- what hwloc and loci read for near=nic.
# usage: check-nic-node.sh EXPECTED_NODE
set -eu
expected=${1:?usage: check-nic-node.sh EXPECTED_NODE}
found=0
for dev in /sys/bus/pci/devices/*; do
    case $(cat "$dev/class") in 0x0200*) ;; *) continue ;; esac
    found=$((found + 1))
    node=$(cat "$dev/numa_node")
    echo "NIC ${dev##*/}: vendor $(cat "$dev/vendor") device $(cat "$dev/device") numa_node $node"
    if [ "$node" != "$expected" ]; then
        echo "check-nic-node: NIC ${dev##*/} is on node $node, expected $expected" >&2
        exit 1
    fi
done
if [ "$found" -eq 0 ]; then
    echo "check-nic-node: no Ethernet controller (class 0x0200) under /sys/bus/pci/devices" >&2
    exit 1
fi
