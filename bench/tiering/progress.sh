# shellcheck shell=sh disable=SC2154 # me is the sourcing script's
# What bench/tiering's guest scripts say (POSIX sh, sourced; $me names the script): on stderr,
# the run's record, and — when PROGRESS names a file, the VM's /dev/console, whose lines the
# host shows as they come (vm_bench.sh) — there too, as "progress: ..." lines.
say() {
  echo "$me: $*" >&2
  [ -z "${PROGRESS:-}" ] || echo "progress: $me: $*" >>"$PROGRESS"
}
# show: stdin to stdout, and each line as progress too.
show() {
  while IFS= read -r line; do
    echo "$line"
    [ -z "${PROGRESS:-}" ] || echo "progress: $line" >>"$PROGRESS"
  done
}
