# shellcheck shell=sh disable=SC2154 # me and MODES are the sourcing script's
# How bench/tiering's guest scripts run (POSIX sh, sourced; $me names the script): what they say
# — on stderr, the run's record, and, when PROGRESS names a file (the VM's /dev/console, whose
# lines the host shows as they come: driver.sh), there too as "progress: ..." lines — and the
# order of their runs.
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
# each_mode FUNCTION: FUNCTION MODE for every mode of $MODES, the list REPEATS (1) times over, so
# that the repeats of a mode are spread over the run as the host's load changes.
each_mode() {
  rep=1
  while [ "$rep" -le "${REPEATS:-1}" ]; do
    say "repeat $rep of ${REPEATS:-1}"
    for m in $MODES; do "$1" "$m"; done
    rep=$((rep + 1))
  done
}
