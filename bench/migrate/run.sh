#!/usr/bin/env bash
# SICM Fig. 1 in the tiers3 VM: time to move an arena between NUMA nodes against memmove of the
# same bytes. Writes bench/results/migrate.txt (the table), bench/results/migrate.json and the plot
# bench/results/migrate.png.
# Builds nothing: build first, e.g.
#   cmake -S . -B build -G Ninja && ninja -C build
# BUILD_DIR picks the build directory (default: build). Extra arguments go to bench_migrate
# (e.g. --repeats 3 --max-log2 24). The VM runs under QEMU TCG: only the ratios mean something.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
exe=$build/bench/migrate/bench_migrate
if [[ ! -x $exe ]]; then
  echo "run.sh: $exe not found; build first:" >&2
  echo "  cmake -S $root -B $root/build -G Ninja && ninja -C $root/build" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/loci-migrate.XXXXXX")
trap 'kill $tailer 2>/dev/null || true; rm -rf "$work"' EXIT
# Progress goes to the guest console, which the host sees as it is written.
printf 'file %s\ntimeout %s\nmigrate: bench_migrate --json --progress /dev/console %s\n' \
  "$exe" "${LOCI_BENCH_TIMEOUT:-3000}" "$*" >"$work/migrate.suite"
mkdir -p "$work/out"
: >"$work/out/console.log"
tail -n +1 -F "$work/out/console.log" 2>/dev/null | grep --line-buffered '^bench_migrate:' >&2 &
tailer=$!
echo "run.sh: booting the tiers3 VM (QEMU TCG) for bench_migrate $*" >&2
if ! "$root/tests/vm/run-vm.sh" tiers3 "$work/migrate.suite" "$work/out" >"$work/run.log" 2>&1; then
  cat "$work/run.log" "$work/out/migrate.log" >&2 || true
  echo "run.sh: the benchmark failed in the VM (above)" >&2
  exit 1
fi
mkdir -p "$root/bench/results"
sed '/^--- json ---$/,$d' "$work/out/migrate.log" | tee "$root/bench/results/migrate.txt"
sed '1,/^--- json ---$/d' "$work/out/migrate.log" >"$root/bench/results/migrate.json"
echo "run.sh: wrote bench/results/migrate.txt and bench/results/migrate.json" >&2
# matplotlib: a python3 earlier on PATH (pyenv, venv) may lack it; try the system one too.
for py in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import matplotlib' 2>/dev/null; then
    "$py" "$root/bench/migrate/plot.py" "$root/bench/results/migrate.json" "$root/bench/results/migrate.png"
    echo "run.sh: drew bench/results/migrate.png" >&2
    exit 0
  fi
done
echo "run.sh: *** no python3 with matplotlib (apt-get install python3-matplotlib): no plot" >&2
exit 1
