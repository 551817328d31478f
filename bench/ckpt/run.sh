#!/usr/bin/env bash
# Run the checkpoint benchmark with its defaults (DRAM 256 MiB, SSD 0.5/1/2/4 GiB, 3 repeats:
# about 3 minutes, up to ~10 GiB on ssd0's file system) and write bench/results/ckpt.json and
# ckpt.txt. Builds nothing: build first, e.g. cmake -S . -B build -G Ninja && ninja -C build.
# BUILD_DIR picks the build directory (default: build), LOCI_STORE_DIR the SSD directory (default:
# loci's, /var/tmp/loci-$UID). Extra arguments go to bench_ckpt (e.g. --repeats 5, --sizes 1,2).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_ckpt
if [[ ! -x $exe ]]; then
  echo "run.sh: $exe not found; build first: cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2
  exit 2
fi
mkdir -p "$root/bench/results"
echo "run.sh: $exe --json $root/bench/results/ckpt.json $*" >&2
"$exe" --json "$root/bench/results/ckpt.json" "$@" | tee "$root/bench/results/ckpt.txt"
