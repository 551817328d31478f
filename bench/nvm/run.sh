#!/usr/bin/env bash
# Run the NVM benchmark with its defaults (a few minutes) and write
# bench/results/nvm.json, nvm.txt and nvm.png. Builds nothing: build first, e.g.
#   cmake -S . -B build -G Ninja && ninja -C build
# BUILD_DIR picks the build directory (default: build). LOCI_STORE_DIR picks
# the SSD directory (default: loci's, /var/tmp/loci-$UID). Extra arguments go
# to bench_nvm (e.g. --quick, --only ab).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/bench_nvm
if [[ ! -x $exe ]]; then
  echo "run.sh: $exe not found; build first: cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2
  exit 2
fi
mkdir -p "$root/bench/results"
json=$root/bench/results/nvm.json
echo "run.sh: $exe --json $json $*" >&2
rc=0
"$exe" --json "$json" "$@" | tee "$root/bench/results/nvm.txt" || rc=$?
# matplotlib: a python3 earlier on PATH (pyenv, venv) may lack it; try the system one too.
py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import matplotlib' 2>/dev/null; then py=$cand; break; fi
done
if [[ -z $py ]]; then
  echo "run.sh: *** no python3 with matplotlib (apt-get install python3-matplotlib): no plot" >&2
  rc=${rc/#0/1}
elif [[ -s $json ]]; then
  "$py" "$root/bench/nvm/plot.py" "$json" "$root/bench/results/nvm.png" || rc=1
fi
exit $rc
