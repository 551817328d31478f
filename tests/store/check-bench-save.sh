#!/usr/bin/env bash
# `loci bench --target agg0 --save FILE` measures the store through loci's chunk cache like
# any tier, and discovery then reports agg0's figures as "measured".
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LOCI_BENCH_MB=4 # a 16 MiB region: this checks the plumbing, not the cluster
expect "loci bench --target agg0 --save" 0 "$LOCI_TOOL" bench --target agg0 --save "$tmp/measured.conf"
bw=$(sed -n 's/^bandwidth = \([0-9]*\)MB\/s$/\1/p' "$tmp/measured.conf")
lat=$(sed -n 's/^latency = \([0-9]*\)ns$/\1/p' "$tmp/measured.conf")
expect "agg0 has figures (${bw:-none} MB/s, ${lat:-none} ns)" 0 test "${bw:-0}" -gt 0 -a "${lat:-0}" -gt 0
json=$(LOCI_MEASURED=$tmp/measured.conf "$LOCI_TOOL" info --json)
expect_text "loci info reports them as measured" "\"name\": \"agg0\".*" "$json"
expect_text "...with source measured" "\"bandwidth_mbps\": $bw, \"bandwidth_source\": \"measured\", \"latency_ns\": $lat, \"latency_source\": \"measured\"" "$json"
finish
