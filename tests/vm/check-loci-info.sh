#!/bin/sh
# Guest test (busybox sh): `loci info --json` classifies the VM's nodes from what the real
# kernel exposes (HMAT, no config). Each argument is one expectation about one target:
#   NODE:KIND:KIND_SOURCE      e.g. 1:hbm:hmat   (node 1 is hbm, decided from HMAT figures)
#   nic@NODE                   e.g. nic@1        (a NIC is near node NODE and near no other)
# usage: check-loci-info.sh EXPECTATION...
set -eu
loci info                       # the table, for the log
loci info --json >/tmp/info.json
status=0
for want in "$@"; do
    case $want in
    nic@*)
        node=${want#nic@}
        # the line of each target carries its numa_node, the next its "nics"
        near=$(awk '/"numa_node":/ { match($0, /"numa_node": -?[0-9]+/); n = substr($0, RSTART + 13, RLENGTH - 13) }
                    /"nics": \[".+"\]/ { print n }' /tmp/info.json | tr '\n' ' ')
        if [ "$near" != "$node " ]; then
            echo "check-loci-info: expected a NIC near node $node only, loci reports nodes: '${near}'" >&2
            status=1
        fi ;;
    *)
        node=${want%%:*}; rest=${want#*:}; kind=${rest%%:*}; source=${rest#*:}
        if ! grep -q "\"kind\": \"$kind\", \"kind_source\": \"$source\", \"numa_node\": $node," /tmp/info.json; then
            echo "check-loci-info: expected node $node to be $kind (from $source); loci says:" >&2
            grep "\"numa_node\": $node," /tmp/info.json >&2 || echo "  (no target for node $node)" >&2
            status=1
        fi ;;
    esac
done
exit $status
