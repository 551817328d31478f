#!/bin/sh
# Guest test (busybox sh): the kernel parsed the VM's ACPI HMAT, i.e. each NODE given has
# access0 initiator figures in sysfs (what loci's discovery reads). Prints them.
# usage: check-hmat.sh NODE...
set -eu
[ $# -gt 0 ] || { echo "usage: check-hmat.sh NODE..." >&2; exit 2; }
rc=0
for node in "$@"; do
    dir=/sys/devices/system/node/node$node/access0/initiators
    if [ ! -e "$dir/read_bandwidth" ]; then
        echo "check-hmat: $dir/read_bandwidth missing: no HMAT figures for node $node" >&2
        rc=1
        continue
    fi
    initiators=
    for i in "$dir"/node*; do initiators="$initiators ${i##*/}"; done
    echo "node $node: initiators$initiators," \
         "read_bandwidth $(cat "$dir/read_bandwidth") MB/s read_latency $(cat "$dir/read_latency") ns"
done
exit $rc
