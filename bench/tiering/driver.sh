# shellcheck shell=bash
# What bench/tiering's drivers share (bash, sourced by run.sh and redis.sh): the run in the VM,
# the host's load, and the results file with its tables and plot. Sourcing it notes the start
# and the driver's arguments, and sets root (the source tree), here (bench/tiering) and build
# (BUILD_DIR, default build).
driver_started=$(date +%s) driver_args="$*"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-build}
[[ $build = /* ]] || build=$root/$build
mkdir -p "$root/bench/results"
# The kernel modes' settings (kernel_modes.sh), passed to the guest scripts.
# shellcheck disable=SC2034 # read by the drivers that source this
driver_kernel_vars="NB_SCAN_DELAY_MS NB_SCAN_PERIOD_MIN_MS NB_SCAN_PERIOD_MAX_MS NB_SCAN_SIZE_MB NB_HOT_THRESHOLD_MS
  NB_PROMOTE_RATE_MBPS DAMOS_SAMPLE_US DAMOS_AGGR_US DAMOS_MIN_REGIONS DAMOS_HOT_ACCESSES DAMOS_COLD_AGE DAMOS_QUOTA_MIB
  DAMOS_QUOTA_MS KMON_S"

# driver_need DRIVER FILE...: every FILE is there, else how to build them, and exit 2.
driver_need() {
  local driver=$1 f
  shift
  for f in "$@"; do
    [[ -e $f ]] || { echo "$driver: $f not found; build first: cmake -S $root -B $build -G Ninja -DLOCI_BUILD_BENCH=ON && ninja -C $build (scripts/install-deps.sh installs what it needs)" >&2; exit 2; }
  done
}

# How loaded this host is (the VM's speed depends on it).
host_load() { echo "host load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"; }
driver_load_before=$(host_load)

# One guest command in the tiers3 VM (QEMU TCG) on Debian's 6.12 kernel: the files copied into
# the guest's /test, the variables named passed on, the guest's "progress:" lines shown on
# stderr as they come (the guest scripts write them to /dev/console, which the host sees at
# once), the command's output (stdout and stderr) written to a file.
#   vm_bench NAME OUT TIMEOUT_S "VAR..." "COMMAND" FILE...
# Returns 0, or 1 when the VM or the command failed (the VM's log and the output on stderr).
vm_bench() {
  local name=$1 out=$2 timeout=$3 vars=$4 cmd=$5 env_words="" v f work rc=0
  shift 5
  for v in $vars; do [[ -n ${!v:-} ]] && env_words+="$v='${!v}' "; done
  work=$(mktemp -d "${TMPDIR:-/tmp}/loci-$name.XXXXXX")
  {
    for f in "$@"; do echo "file $f"; done
    echo "timeout $timeout"
    echo "$name: ${env_words}PROGRESS=/dev/console $cmd"
  } >"$work/$name.suite"
  mkdir -p "$work/out"
  : >"$work/out/console.log"
  # (the substitution first: it takes the stderr tail has when it is made; the guest kernel's
  # OOM-killer lines too: a mode that ends with status 137 says why)
  tail -n +1 -F "$work/out/console.log" > >(grep --line-buffered -E '^progress: |Out of memory|oom-kill|Killed process' >&2) 2>/dev/null &
  local tailer=$! # tail's: its end ends grep
  echo "$name: booting the tiers3 VM (QEMU TCG, Debian's 6.12 kernel): $env_words$cmd ($(host_load))" >&2
  LOCI_VM_BOOT_TIMEOUT=${LOCI_VM_BOOT_TIMEOUT:-300} "$root/tests/vm/run-vm.sh" --kernel bpo tiers3 "$work/$name.suite" "$work/out" >"$work/run.log" 2>&1 || rc=1
  kill "$tailer" 2>/dev/null
  wait "$tailer" 2>/dev/null
  if [[ -f $work/out/$name.log ]]; then cp "$work/out/$name.log" "$out"; fi
  if [[ $rc != 0 ]]; then
    cat "$work/run.log" "$work/out/$name.log" >&2 || true
    echo "$name: the benchmark failed in the VM (above)" >&2
  fi
  rm -rf "$work"
  return $rc
}

# bench_results DRIVER OUT TABLES: OUT.raw, the run's lines, becomes OUT: a header (the
# command, when, how long, the host's load before and after), the lines, then the tables (the
# function TABLES of a file), which are shown on stdout too; and OUT's plot, OUT with .png.
bench_results() {
  local driver=$1 out=$2 tables=$3 py
  {
    echo "# bench/tiering/$driver $driver_args: $(date -u +%FT%TZ), $(($(date +%s) - driver_started)) s; $driver_load_before at the start, $(host_load) at the end"
    cat "$out.raw"
    echo
    "$tables" "$out.raw"
  } >"$out"
  rm -f "$out.raw"
  "$tables" "$out"
  echo "$driver: wrote $out" >&2
  # matplotlib: a python3 earlier on PATH (pyenv, venv) may lack it; try the system one too.
  for py in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import matplotlib' 2>/dev/null; then
      "$py" "$root/bench/tiering/plot.py" "$out" "${out%.txt}.png" && echo "$driver: drew ${out%.txt}.png" >&2
      return 0
    fi
  done
  echo "$driver: *** no python3 with matplotlib (apt-get install python3-matplotlib): no plot" >&2
}
