#!/usr/bin/env bash
# `loci bench --save FILE` measures this machine's NUMA targets and writes FILE; with
# LOCI_MEASURED=FILE, `loci info --json` reports those figures with source "measured".
# usage: check-bench-save.sh LOCI_BINARY SCRATCH_DIR
set -euo pipefail
loci=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
export LOCI_BENCH_MB=4   # small arrays: this checks the plumbing, not the machine
"$loci" bench --save "$scratch/measured.conf" | tee "$scratch/bench.txt"
grep -q '^\[target dram0\]' "$scratch/measured.conf"
bw=$(sed -n 's/^bandwidth = \([0-9]*\)MB\/s$/\1/p' "$scratch/measured.conf" | head -1)
lat=$(sed -n 's/^latency = \([0-9]*\)ns$/\1/p' "$scratch/measured.conf" | head -1)
[ -n "$bw" ] && [ "$bw" -gt 0 ] && [ -n "$lat" ] && [ "$lat" -gt 0 ] || {
  echo "check-bench-save: no bandwidth/latency figures in the saved file:" >&2
  cat "$scratch/measured.conf" >&2; exit 1; }
LOCI_MEASURED=$scratch/measured.conf "$loci" info --json >"$scratch/info.json"
want="\"bandwidth_mbps\": $bw, \"bandwidth_source\": \"measured\", \"latency_ns\": $lat, \"latency_source\": \"measured\""
if ! grep -qF "$want" "$scratch/info.json"; then
  echo "check-bench-save: loci info does not report the saved figures as measured; wanted: $want" >&2
  cat "$scratch/info.json" >&2
  exit 1
fi
echo "bench --save: $bw MB/s, $lat ns, reported back as measured"
