#!/usr/bin/env bash
# One of memkind's gtest programs on loci's libmemkind.so.0, run as memkind's own test/test.sh
# runs it: every test in a process of its own (hbw_set_policy holds once per process, and some
# tests change the environment). Run under `loci run --memkind`, it first checks that the program
# really loads loci's library (not the system's memkind), then runs every test that the
# exclusion file does not name, and prints each excluded test with the reason.
#   run-suite.sh NAME PROGRAM EXCLUSIONS[:EXCLUSIONS...] ONLY [program arguments...]
# EXCLUSIONS: lines "PATTERN<tab>REASON" (a shell pattern over SUITE.TEST; '#' lines are
# comments). ONLY: the tests to consider, shell patterns separated by ':' ('*': all of them).
# A test that skips itself (GTEST_SKIP: a prerequisite of the machine it lacks) is reported with
# gtest's reason, and counted apart. Ends with "memkind.NAME: N passed, N failed, N skipped,
# N excluded"; exits 1 if any test failed, or none passed.
set -uo pipefail
name=$1 program=$2 exclusions=$3 only=$4
shift 4

loaded=$(LD_TRACE_LOADED_OBJECTS=1 "$program" | awk '$1 == "libmemkind.so.0" {print $3}')
if [[ "$loaded" != */loci/memkind/* && "$loaded" != */shim/memkind/lib/* && "$loaded" != */memkind/libmemkind.so.0 ]] ||
   [[ "$loaded" == /usr/* || "$loaded" == /lib/* ]]; then
  echo "memkind.$name: $program would load libmemkind.so.0 from '${loaded:-nowhere}', not loci's: run it under loci run --memkind" >&2
  exit 1
fi
echo "memkind.$name: libmemkind.so.0 is $loaded"

patterns=() reasons=()
IFS=: read -ra files <<< "$exclusions"
for file in "${files[@]}"; do
  while IFS=$'\t' read -r pattern reason; do
    [[ -z "$pattern" || "$pattern" == \#* ]] && continue
    patterns+=("$pattern") reasons+=("$reason")
  done < "$file"
done
IFS=: read -ra wanted <<< "$only"

passed=0 failed=0 skipped=0 excluded=0 suite=
while IFS= read -r line; do
  if [[ "$line" != " "* ]]; then suite=${line%% *}; continue; fi
  test=${line#  }
  test=${test%% *}
  full=$suite$test
  considered=false
  for w in "${wanted[@]}"; do [[ "$full" == $w ]] && considered=true; done
  $considered || continue
  why=
  for i in "${!patterns[@]}"; do
    if [[ "$full" == ${patterns[$i]} ]]; then why=${reasons[$i]}; break; fi
  done
  if [[ -n "$why" ]]; then
    echo "EXCLUDED $full: $why"
    excluded=$((excluded + 1))
    continue
  fi
  out=$(timeout 300 "$program" "--gtest_filter=$full" "$@" 2>&1)
  if [[ "$out" == *"[  PASSED  ] 1 test"* ]]; then
    echo "PASSED   $full"
    passed=$((passed + 1))
  elif [[ "$out" == *"[  SKIPPED ] 1 test"* ]]; then
    echo "SKIPPED  $full: $(echo "$out" | grep -m1 -A1 ': Skipped$' | tail -n1)"
    skipped=$((skipped + 1))
  else
    echo "FAILED   $full"
    echo "$out" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done < <("$program" --gtest_list_tests "$@" | grep -v '^Running main')

echo "memkind.$name: $passed passed, $failed failed, $skipped skipped, $excluded excluded"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
