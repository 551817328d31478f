#!/usr/bin/env bash
# Run the allocation benchmark with its defaults and write bench/results/alloc.json
# and bench/results/alloc.png. Builds nothing: build first, e.g.
#   cmake -S . -B build -G Ninja && ninja -C build
# BUILD_DIR picks the build directory (default: build, else build-bench).
# Extra arguments go to bench_alloc (e.g. --quick).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-}
if [[ -z $build ]]; then
  for d in build build-bench; do
    if [[ -x $root/$d/bench/bench_alloc ]]; then build=$d; break; fi
  done
fi
[[ $build = /* ]] || build=$root/${build:-build}
exe=$build/bench/bench_alloc
if [[ ! -x $exe ]]; then
  echo "run-alloc.sh: $exe not found; build first:" >&2
  echo "  cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2
  exit 2
fi
mkdir -p "$root/bench/results"
json=$root/bench/results/alloc.json
png=$root/bench/results/alloc.png
echo "run-alloc.sh: $exe --json $json $*" >&2
rc=0
"$exe" --json "$json" "$@" | tee "$root/bench/results/alloc.txt" || rc=$?
# The plot needs matplotlib (Debian: python3-matplotlib); a python3 earlier on
# PATH (pyenv, venv) may lack it, so try the system one too. PYTHON overrides.
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import matplotlib' 2>/dev/null; then py=$cand; break; fi
done
if [[ ! -s $json ]]; then
  echo "run-alloc.sh: no $json, no plot" >&2
elif [[ -z $py ]]; then
  echo "run-alloc.sh: *** no python3 with matplotlib (apt-get install python3-matplotlib): no plot" >&2
  rc=${rc/#0/1}
else
  "$py" "$root/bench/plot_alloc.py" "$json" "$png" || { echo "run-alloc.sh: *** plot failed" >&2; rc=1; }
fi
exit $rc
