#!/bin/sh
# Guest test (busybox sh): `loci weights --set` on the VM's kernel.
#   Linux 6.9+: before it, the weights are the kernel's default (1 each) and a program asking for
#   partition=interleave is told (LOCI_LOG=info) that the bandwidths ask for WANTED and how to
#   set them; `loci weights --set` then writes WANTED into the kernel's sysfs weights.
#   Before 6.9: `loci weights --set` fails, saying the kernel has no weighted interleave.
# usage: check-weights.sh W0,W1,...     (the weights the nodes' HMAT bandwidths ask for)
set -u
want=$(echo "$1" | tr ',' ':')
dir=/sys/kernel/mm/mempolicy/weighted_interleave
release=$(uname -r)
major=${release%%.*} rest=${release#*.}
minor=${rest%%[!0-9]*}
status=0
fail() { echo "check-weights: $*" >&2; status=1; }

if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 9 ]; }; then
    hint=$(LOCI_LOG=info vm_interleave alloc 1,1,1 2>&1)
    echo "$hint" | grep -q "bandwidths ask for $want; \`loci weights --set\`" ||
        fail "no hint that the bandwidths ask for $want before the weights are set; the program said:
$hint"
    loci weights --set || fail "loci weights --set failed on Linux $release"
    got=
    i=0
    for _ in $(echo "$1" | tr "," " "); do
        got="$got${got:+:}$(cat "$dir/node$i")"
        i=$((i + 1))
    done
    [ "$got" = "$want" ] || fail "the kernel's weights are $got after loci weights --set, expected $want"
    echo "kernel weights now $got"
else
    out=$(loci weights --set 2>&1) && fail "loci weights --set succeeded on Linux $release (no weighted interleave)"
    echo "$out"
    echo "$out" | grep -q "no MPOL_WEIGHTED_INTERLEAVE" || fail "loci weights did not say that Linux $release lacks weighted interleave"
    [ ! -e "$dir" ] || fail "$dir exists on Linux $release"
fi
exit $status
