#!/usr/bin/env bash
# `loci weights` on simulated machines: the weights the bandwidths ask for (KNL flat: MCDRAM
# 380 GB/s beside DDR 90 GB/s gives 4:17; the CXL expander 100:30 GB/s gives 10:3), and --set
# refused there (a simulated machine's weights are not this kernel's), as is a bad argument.
# usage: check-weights-cli.sh LOCI_BINARY TOPOLOGY_DIR
set -uo pipefail
loci=$1 topo=$2
fail() { echo "check-weights-cli: $*" >&2; exit 1; }

check() { # topology, node:weight...
  local xml=$1; shift
  local out
  out=$(LOCI_TOPOLOGY=$topo/$xml $loci weights) || fail "loci weights on $xml failed: $out"
  echo "$out"
  for want in "$@"; do
    awk -v n="${want%%:*}" -v w="${want#*:}" '$1 == n && $(NF - 1) == w { found = 1 } END { exit !found }' \
      <<<"$out" || fail "$xml: node ${want%%:*} should want weight ${want#*:}"
  done
}
check knl-flat.xml 0:4 1:17
check cxl-expander.xml 0:10 1:3

out=$(LOCI_TOPOLOGY=$topo/knl-flat.xml $loci weights --set 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -q "simulated" <<<"$out" || fail "--set on a simulated machine: exit $rc: $out"
out=$($loci weights --bogus 2>&1); rc=$?
[ "$rc" -eq 2 ] && grep -q "usage: loci weights" <<<"$out" || fail "a bad argument: exit $rc: $out"
echo "check-weights-cli: ok"
