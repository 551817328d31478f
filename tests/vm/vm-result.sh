#!/usr/bin/env bash
# One ctest test of a VM suite: print the test's output collected by run-vm.sh and exit with
# the status it had in the guest.
# usage: vm-result.sh OUTDIR NAME
set -euo pipefail
outdir=$1 name=$2
if [[ ! -f $outdir/$name.rc ]]; then
    echo "vm: no result for '$name' in $outdir: its suite's boot test (vm.<suite>.boot) did not" \
         "run or failed -- see its output" >&2
    exit 1
fi
cat "$outdir/$name.log"
rc=$(<"$outdir/$name.rc")
[[ $rc == 0 ]] || echo "vm: '$name' exited with status $rc in the VM (console: $outdir/console.log)" >&2
exit "$rc"
