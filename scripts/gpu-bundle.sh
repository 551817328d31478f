#!/usr/bin/env bash
# The CUDA provider on a real driver (docs/GPU.md): gathers what a GPU machine without this
# project's packages needs into build/gpu-run — test_cuda, the loci tool, examples/gpu_arena,
# libloci.so.0 and the libraries ldd lists (glibc's own left out: the machine's newer one serves)
# — with run.sh, which runs them there from the repository root and prints what docs/GPU.md
# records. Builds nothing: cmake --build build first (BUILD_DIR: another build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$build/gpu-run
bins=("$build/tests/test_cuda" "$build/tools/loci/loci" "$build/examples/gpu_arena")
for b in "${bins[@]}" "$build/src/libloci.so.0"; do
  [[ -e $b ]] || { echo "gpu-bundle: $b is missing: build the project first (cmake --build build)" >&2; exit 2; }
done
rm -rf "$out" && mkdir -p "$out/lib"
cp "${bins[@]}" "$out/"
cp -L "$build/src/libloci.so.0" "$out/lib/"
ldd "${bins[@]}" | awk '/=> \// { print $3 }' | sort -u |
  grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|libloci|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
cat >"$out/run.sh" <<'RUN'
#!/bin/bash
# On the GPU machine, from the repository root: bash build/gpu-run/run.sh
G=build/gpu-run
export LD_LIBRARY_PATH=$PWD/$G/lib LOCI_STORE_DIR=/tmp/loci-store LOCI_TEST_TOPOLOGIES=$PWD/tests/topologies
mkdir -p /tmp/loci-store && chmod 700 /tmp/loci-store
{ date -u; uname -r; ldd --version | head -1; nproc
  nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,pci.bus_id --format=csv; } 2>&1
echo "== loci info"; timeout 60 $G/loci info 2>&1 | head -60
echo "== resolve"; timeout 30 $G/loci resolve "use=gpu" 2>&1; timeout 30 $G/loci resolve "use=cpu+gpu" 2>&1
echo "== test_cuda (real driver)"; timeout 180 $G/test_cuda 2>&1 | tail -60; echo "rc=${PIPESTATUS[0]}"
echo "== gpu_arena"; timeout 60 $G/gpu_arena 0 2>&1 | tail -20; echo "rc=${PIPESTATUS[0]}"
echo "== after"; nvidia-smi --query-gpu=memory.used --format=csv
RUN
chmod +x "$out/run.sh"
echo "gpu-bundle: $out ($(du -sh "$out" | cut -f1)); on the GPU machine: bash build/gpu-run/run.sh"
