#!/bin/sh
# One of memkind's gtest programs on loci's libmemkind.so.0, judged as memkind's own test/test.sh
# judges it: every test by itself (hbw_set_policy holds once per process, and some tests change
# the environment). Run under `loci run --memkind`, it first checks that the program really loads
# loci's library (not the system's memkind), then runs every test that the exclusion files do not
# name — all in one process first, then each one that did not pass there again in a process of
# its own, whose verdict is the test's (a test passes only on its own in memkind's runs too) —
# and prints each excluded test with the reason. POSIX sh: on the host and under the VM's busybox.
#   run-suite.sh NAME PROGRAM EXCLUSIONS[:EXCLUSIONS...] ONLY [program arguments...]
# EXCLUSIONS: lines "PATTERN<tab>REASON" (a shell pattern over SUITE.TEST; '#' lines are
# comments). ONLY: the tests to consider, shell patterns separated by ':' ('*': all of them).
# A test that skips itself (GTEST_SKIP: a prerequisite of the machine it lacks) is reported with
# gtest's reason, and counted apart. Ends with "memkind.NAME: N passed, N failed, N skipped,
# N excluded"; exits 1 if any test failed, or none passed.
name=$1 program=$2 exclusions=$3 only=$4
shift 4
tab=$(printf '\t')
set -f # patterns are for matching test names, never file names

loaded=$(LD_TRACE_LOADED_OBJECTS=1 "$program" | awk '$1 == "libmemkind.so.0" {print $3}')
case "$loaded" in
*/loci/memkind/libmemkind.so.0 | */shim/memkind/lib/libmemkind.so.0 | /test/memkind/libmemkind.so.0)
  echo "memkind.$name: libmemkind.so.0 is $loaded" ;;
*)
  echo "memkind.$name: $program would load libmemkind.so.0 from '${loaded:-nowhere}', not loci's: run it under loci run --memkind" >&2
  exit 1 ;;
esac

# The reason an exclusion file gives for test $1, or nothing.
excluded_why() {
  old_ifs=$IFS IFS=:
  for file in $exclusions; do
    IFS=$tab
    while read -r pattern reason; do
      case "$pattern" in '' | \#*) continue ;; esac
      # shellcheck disable=SC2254 # the pattern is meant as one
      case "$1" in $pattern) IFS=$old_ifs; echo "$reason"; return ;; esac
    done < "$file"
    IFS=:
  done
  IFS=$old_ifs
}

wanted() {
  old_ifs=$IFS IFS=:
  for w in $only; do
    # shellcheck disable=SC2254
    case "$1" in $w) IFS=$old_ifs; return 0 ;; esac
  done
  IFS=$old_ifs
  return 1
}

# Every test considered, then the ones to run, in one process.
suite= run= excluded=0
list=$("$program" --gtest_list_tests "$@") || { echo "memkind.$name: $program does not list its tests" >&2; exit 1; }
for line in $(echo "$list" | sed -n 's/^\([^ ].*\)$/S\1/p; s/^  \([^ ]*\).*$/T\1/p'); do
  case "$line" in S*) suite=${line#S}; continue ;; esac
  full=$suite${line#T}
  wanted "$full" || continue
  why=$(excluded_why "$full")
  if [ -n "$why" ]; then
    echo "EXCLUDED $full: $why"
    excluded=$((excluded + 1))
  else
    run="$run${run:+:}$full"
  fi
done
batch=$(mktemp)
trap 'rm -f "$batch"' EXIT
[ -n "$run" ] && timeout 900 "$program" "--gtest_filter=$run" "$@" > "$batch" 2>&1

passed=0 failed=0 skipped=0
old_ifs=$IFS IFS=:
for full in $run; do
  IFS=$old_ifs
  if grep -qF "[       OK ] $full (" "$batch"; then
    echo "PASSED   $full"
    passed=$((passed + 1))
    continue
  fi
  out=$(timeout 300 "$program" "--gtest_filter=$full" "$@" 2>&1)
  case "$out" in
  *"[  PASSED  ] 1 test"*)
    echo "PASSED   $full (in a process of its own)"
    passed=$((passed + 1)) ;;
  *"[  SKIPPED ] 1 test"*)
    echo "SKIPPED  $full: $(echo "$out" | grep -A1 ': Skipped$' | sed -n 2p)"
    skipped=$((skipped + 1)) ;;
  *)
    echo "FAILED   $full"
    echo "$out" | sed 's/^/    /'
    failed=$((failed + 1)) ;;
  esac
done
IFS=$old_ifs

echo "memkind.$name: $passed passed, $failed failed, $skipped skipped, $excluded excluded"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
