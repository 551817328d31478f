# shellcheck shell=bash disable=SC2154 # root is the sourcing script's
# One guest command in the tiers3 VM (QEMU TCG) on Debian's 6.12 kernel, for bench/tiering's
# drivers (bash, sourced by run.sh and redis.sh): the files copied into the guest's /test, the
# variables named passed on, the guest's "progress:" lines shown on stderr as they come (the
# guest scripts write them to /dev/console, which the host sees at once), the command's output
# (stdout and stderr) written to a file.
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
  tail -n +1 -F "$work/out/console.log" 2>/dev/null > >(grep --line-buffered '^progress: ' >&2) &
  local tailer=$! # tail's: its end ends grep
  echo "$name: booting the tiers3 VM (QEMU TCG, Debian's 6.12 kernel): $env_words$cmd (host load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
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

# How loaded this host is (the VM's speed depends on it).
vm_bench_load() { echo "host load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"; }
