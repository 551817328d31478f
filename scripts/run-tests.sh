#!/usr/bin/env bash
# The whole test suite, as CI runs it (after scripts/install-deps.sh):
#   1. warnings-as-errors build: unit tests, reference topologies, VM placement tests,
#      the aggregate store on a throw-away Ceph cluster with network-namespace hosts
#   2. ASan+UBSan build: unit tests
#   3. TSan build: unit tests
#   4. clang libFuzzer build: each fuzz target for a bounded time
# Ends with one line "tests: N passed, N failed, N skipped" over all stages (a skipped test
# printed why); exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
passed=0 failed=0 skipped=0 stage_failures=()

stage() { # name, build dir, ctest label regex, cmake args...
  local name=$1 dir=$2 labels=$3; shift 3
  echo "=== ${name} ==="
  if ! cmake -S . -B "$dir" -G Ninja -DLOCI_WERROR=ON "$@" >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log" >&2
    echo "${name}: configure FAILED" >&2
    failed=$((failed + 1)); stage_failures+=("$name (configure)")
    return
  fi
  if ! cmake --build "$dir" -j "$jobs"; then
    echo "${name}: build FAILED" >&2
    failed=$((failed + 1)); stage_failures+=("$name (build)")
    return
  fi
  local log="$dir/ctest.log"
  (cd "$dir" && ctest -L "$labels" --output-on-failure -j "$jobs" --timeout 600) 2>&1 | tee "$log"
  local p f s
  p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$log")
  # A test that exits 77 is skipped (it printed why): not a pass, not a failure.
  s=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log")
  f=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*|Failed|Not Run|Timeout)' "$log" | grep -cv '\*\*\*Skipped')
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
    echo "${name}: ran no test (label '${labels}')" >&2
    f=1
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  [ "$f" -eq 0 ] || stage_failures+=("$name")
}

mkdir -p build-ci
stage "release build: unit, topologies, VM, store cluster, benchmark smoke runs" build-ci/release 'unit|vm|store|bench' -DCMAKE_BUILD_TYPE=RelWithDebInfo
stage "ASan+UBSan: unit" build-ci/asan unit -DCMAKE_BUILD_TYPE=Debug -DLOCI_SANITIZE=address,undefined -DLOCI_BUILD_BENCH=OFF
stage "TSan: unit" build-ci/tsan unit -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOCI_SANITIZE=thread -DLOCI_BUILD_BENCH=OFF
if [ -f tests/fuzz/CMakeLists.txt ]; then
  stage "libFuzzer: parsers (bounded)" build-ci/fuzz fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DLOCI_FUZZ=ON -DLOCI_BUILD_BENCH=OFF
fi

echo
if [ ${#stage_failures[@]} -gt 0 ]; then
  echo "failing stages: ${stage_failures[*]}"
fi
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
