#!/usr/bin/env bash
# Boot a QEMU VM with a NUMA topology and run a suite of tests inside it (see README.md).
#
# usage: run-vm.sh [--fixture] [--kernel stable|bpo] [--init-timeout S] [--boot-tries N]
#                  TOPOLOGY SUITE_FILE OUTDIR [EXTRA_FILE...]
#
# Suite file, one directive per line (# comments, blank lines ignored):
#   file PATH           copy PATH into the guest's /test (on PATH, the tests' working
#                       directory); relative paths are relative to the suite file
#   timeout SECONDS     per-test limit inside the guest for the tests after it (default 60)
#   NAME: COMMAND...    a test; COMMAND runs under the guest's busybox sh
# EXTRA_FILE arguments are copied like `file` lines.
#
# Writes to OUTDIR: NAME.log (the test's output) and NAME.rc (its exit status) for every test,
# console.log (guest kernel console), qemu.log (QEMU's own messages), results.txt (raw result
# channel). A test that did not report (VM failed to boot, crashed, hung) gets rc 1 and a log
# saying why.
#
# Exit status: 0 all tests passed; 1 some test failed or did not report; 2 the VM could not run
# (missing kernel/QEMU, boot failure, bad suite). With --fixture, test failures do not count
# (exit 0 once the VM booted): ctest reports them per test. --kernel picks the kernel that
# scripts/fetch-vm-kernel.sh fetched: stable (the default, the release's own: bookworm 6.1) or
# bpo (its backports: 6.12).
#
# A boot whose guest has not reached /init (its @@LOCI-VM-START line) after --init-timeout
# seconds (LOCI_VM_INIT_TIMEOUT, 180; a boot takes 5 s on an idle host, 50 s on a loaded one) is
# killed and booted again, up to --boot-tries boots in all (LOCI_VM_BOOT_TRIES, 3), and so is one
# whose kernel panicked before /init; each retry is reported, with the stalled boot's console
# kept as console-boot-N.log. A boot that reached /init runs under the host timeout below.
#
# Environment: LOCI_VM_CACHE (/var/tmp/loci-vm), LOCI_VM_KERNEL (the stable kernel,
# $LOCI_VM_CACHE/vmlinuz; the bpo kernel is $LOCI_VM_CACHE/bpo/vmlinuz),
# LOCI_VM_QEMU (qemu-system-x86_64), LOCI_VM_ACCEL (tcg), LOCI_VM_BOOT_TIMEOUT (120: host-side
# allowance for boot and shutdown, on top of the tests' own timeouts), LOCI_VM_APPEND (extra
# kernel arguments).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "run-vm: error: $*" >&2; exit 2; }
need_deps() { die "$* -- run scripts/install-deps.sh (it installs QEMU and fetches the VM kernel)"; }

fixture=0 which=stable init_timeout=${LOCI_VM_INIT_TIMEOUT:-180} tries=${LOCI_VM_BOOT_TRIES:-3}
while [[ ${1:-} == --* ]]; do
    case $1 in
    --fixture) fixture=1; shift ;;
    --kernel) which=${2:-}; shift 2 || die "--kernel needs a name (stable or bpo)" ;;
    --init-timeout) init_timeout=${2:-}; shift 2 || die "--init-timeout needs seconds" ;;
    --boot-tries) tries=${2:-}; shift 2 || die "--boot-tries needs a number" ;;
    *) die "unknown option $1" ;;
    esac
done
[[ $init_timeout =~ ^[1-9][0-9]*$ ]] || die "--init-timeout (LOCI_VM_INIT_TIMEOUT) '$init_timeout': expected seconds, e.g. 180"
[[ $tries =~ ^[1-9][0-9]*$ ]] || die "--boot-tries (LOCI_VM_BOOT_TRIES) '$tries': expected a number of boots, e.g. 3"
[[ $# -ge 3 ]] || die "usage: $0 [--fixture] [--kernel stable|bpo] [--init-timeout S] [--boot-tries N] TOPOLOGY SUITE_FILE OUTDIR [EXTRA_FILE...]"
topo=$1 suite=$2 outdir=$3
shift 3

# shellcheck source-path=SCRIPTDIR
source "$here/topologies.sh"
topology_args "$topo" || exit 2

[[ -f $suite ]] || die "suite file $suite not found"

# ---- parse the suite -------------------------------------------------------------------------
names=() timeouts=() commands=() files=()
declare -A known=()
timeout=60 lineno=0
suitedir=$(cd "$(dirname "$suite")" && pwd)
while IFS= read -r line || [[ -n $line ]]; do
    lineno=$((lineno + 1))
    line=${line#"${line%%[![:space:]]*}"}            # trim leading blanks
    [[ -z $line || $line == \#* ]] && continue
    where="$suite:$lineno"
    if [[ $line =~ ^file[[:space:]]+(.+)$ ]]; then
        f=${BASH_REMATCH[1]}
        [[ $f == /* ]] || f=$suitedir/$f
        files+=("$f")
    elif [[ $line =~ ^timeout[[:space:]]+([0-9]+)[[:space:]]*$ ]]; then
        timeout=${BASH_REMATCH[1]}
    elif [[ $line =~ ^([A-Za-z0-9_.-]+):[[:space:]]*(.*)$ ]]; then
        name=${BASH_REMATCH[1]} cmd=${BASH_REMATCH[2]}
        [[ -n $cmd ]] || die "$where: test '$name' has no command"
        [[ -z ${known[$name]:-} ]] || die "$where: test '$name' defined twice"
        [[ $name != console && $name != qemu && $name != results ]] ||
            die "$where: test name '$name' is reserved (OUTDIR/$name.log is the VM's)"
        known[$name]=1
        names+=("$name") timeouts+=("$timeout") commands+=("$cmd")
    else
        die "$where: cannot parse '$line' (expected 'file PATH', 'timeout SECONDS' or 'NAME: COMMAND')"
    fi
done <"$suite"
[[ ${#names[@]} -gt 0 ]] || die "$suite defines no tests"
files+=("$@")

# Stale results must never pass for new ones, whatever happens next.
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
for name in "${names[@]}" console qemu; do
    rm -f "$outdir/$name.rc" "$outdir/$name.log"
done
rm -f "$outdir/results.txt" "$outdir/initramfs.cpio.gz" "$outdir"/console-boot-*.log

case $which in
stable) kernel=${LOCI_VM_KERNEL:-${LOCI_VM_CACHE:-/var/tmp/loci-vm}/vmlinuz} ;;
bpo) kernel=${LOCI_VM_CACHE:-/var/tmp/loci-vm}/bpo/vmlinuz ;;
*) die "unknown kernel '$which' (known: stable, bpo)" ;;
esac
qemu=${LOCI_VM_QEMU:-qemu-system-x86_64}
[[ -f $kernel ]] || need_deps "no $which VM kernel at $kernel"
command -v "$qemu" >/dev/null || need_deps "$qemu not found"

# ---- build the initramfs ---------------------------------------------------------------------

work=$(mktemp -d "${TMPDIR:-/tmp}/loci-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
total=${LOCI_VM_BOOT_TIMEOUT:-120}
for i in "${!names[@]}"; do
    echo "${names[$i]} ${timeouts[$i]} ${commands[$i]}"
    total=$((total + timeouts[i]))
done >"$work/plan"
# Kernel modules the topology needs (qemu_modules, in load order), from the kernel's own
# modules/ (scripts/fetch-vm-kernel.sh), uncompressed for busybox insmod: /lib/modules/NN-name.ko,
# loaded by guest-init.sh in that order.
for i in "${!qemu_modules[@]}"; do
    mod=$(find "$(dirname "$kernel")/modules" -name "${qemu_modules[$i]}.ko*" | head -n1)
    [[ -n $mod ]] || need_deps "module ${qemu_modules[$i]} not found under $(dirname "$kernel")/modules"
    dest=$work/$(printf %02d "$i")-${qemu_modules[$i]}.ko
    case $mod in
    *.xz) xz -dc "$mod" >"$dest" ;;
    *) cp "$mod" "$dest" ;;
    esac
    files+=("$dest=/lib/modules/${dest##*/}")
done
"$here/mkinitramfs.sh" "$outdir/initramfs.cpio.gz" "$here/guest-init.sh" \
    "$work/plan=/etc/loci-vm/plan" "${files[@]}" || exit 2

# ---- boot --------------------------------------------------------------------------------------
# The kernel console goes to ttyS0 (console.log), results to ttyS1 (results.txt): kernel
# messages can never interleave with results. panic=-1 + -no-reboot: a panic ends QEMU at once.
# cryptomgr.notests: the kernel's crypto self-tests at boot prove nothing loci needs, and on a
# starved vCPU they were seen stuck for minutes (soft lockup in cryptomgr_test, 6.1).
echo "run-vm: booting topology $topo ($which kernel $(cat "$(dirname "$kernel")/package" 2>/dev/null || echo "$kernel")) with ${#names[@]} tests (host timeout ${total}s; /init within ${init_timeout}s, else up to $tries boots)"
start=$(date +%s.%N)
reached_init() { grep -q '^@@LOCI-VM-START' "$outdir/results.txt" 2>/dev/null; }
# One boot. Sets qemu_rc, and stalled=1 when it was killed for not reaching /init in time.
boot() {
    qemu_rc=0 stalled=0
    : >"$outdir/results.txt"
    timeout -k 10 "$total" "$qemu" \
        -nodefaults -display none -no-reboot -accel "${LOCI_VM_ACCEL:-tcg}" -cpu max \
        -kernel "$kernel" -initrd "$outdir/initramfs.cpio.gz" \
        -append "console=ttyS0 quiet panic=-1 cryptomgr.notests ${LOCI_VM_APPEND:-}" \
        -serial "file:$outdir/console.log" -serial "file:$outdir/results.txt" \
        "${qemu_topology[@]}" \
        </dev/null >"$outdir/qemu.log" 2>&1 &
    local pid=$! waited=0
    until reached_init; do
        kill -0 "$pid" 2>/dev/null || break
        if ((waited >= init_timeout)); then
            stalled=1
            kill "$pid" 2>/dev/null || true
            break
        fi
        sleep 1
        waited=$((waited + 1))
    done
    wait "$pid" || qemu_rc=$?
}
# Booted again: a guest that stalled before /init (a starved vCPU), or whose kernel panicked
# there (under TCG, 6.12 sometimes oopses on an int3 while patching its own text at boot,
# sched_clock_cpu): it ran nothing of ours. A panic after /init fails as below.
boots=0
while :; do
    boots=$((boots + 1))
    boot
    reached_init && break
    if ((stalled)); then
        seen=$(grep -m1 -o 'soft lockup.*' "$outdir/console.log" || tail -n1 "$outdir/console.log" 2>/dev/null || true)
        retry_why="did not reach /init within ${init_timeout}s (${seen:-no console output})"
    elif grep -q 'Kernel panic' "$outdir/console.log" 2>/dev/null; then
        retry_why="kernel panicked before /init ($(grep -m1 -o 'RIP: [^ ]*' "$outdir/console.log" || true))"
    else
        break # QEMU itself stopped: booting again would do the same
    fi
    cp "$outdir/console.log" "$outdir/console-boot-$boots.log"
    ((boots < tries)) || break
    echo "run-vm: boot $boots of $tries: the guest $retry_why; booting again (its console: $outdir/console-boot-$boots.log)"
done
wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

# ---- collect results ---------------------------------------------------------------------------
started=0 done_marker=0 current=
while IFS= read -r line; do
    line=${line%$'\r'}
    case $line in
    "@@LOCI-VM-START "*) started=1 ;;
    "@@LOCI-VM-DONE") done_marker=1 ;;
    "@@LOCI-VM-BEGIN "*)
        current=${line#@@LOCI-VM-BEGIN }
        : >"$work/b64" ;;
    "@@LOCI-VM-END "*)
        read -r _ name rc secs note <<<"$line"
        if [[ $name == "$current" && -n ${known[$name]:-} ]]; then
            base64 -d "$work/b64" >"$outdir/$name.log" 2>/dev/null ||
                echo "run-vm: (output of $name arrived corrupted)" >>"$outdir/$name.log"
            if [[ $note == timeout ]]; then
                echo "run-vm: $name was killed by its per-test timeout (ran ${secs}s)" >>"$outdir/$name.log"
            fi
            echo "$rc" >"$outdir/$name.rc"
        fi
        current= ;;
    *) [[ -n $current ]] && echo "$line" >>"$work/b64" ;;
    esac
done < <(cat "$outdir/results.txt" 2>/dev/null)

panic=$(grep -m1 -o 'Kernel panic.*' "$outdir/console.log" 2>/dev/null || true)
if [[ $started -eq 0 && $stalled -eq 1 ]]; then
    why="the guest did not reach /init in $boots boots (each given ${init_timeout}s)"
elif [[ -n $panic ]]; then
    why="the guest kernel panicked ($panic)"
elif [[ $qemu_rc -eq 124 || $qemu_rc -eq 137 ]]; then
    why="the VM was killed by the host timeout (${total}s): a test or the guest hung"
elif [[ $started -eq 0 ]]; then
    why="the VM did not boot to /init (QEMU exit status $qemu_rc)"
else
    why="the VM stopped before this test reported (QEMU exit status $qemu_rc)"
fi

passed=0 failed=0 missing=0
printf '%-24s %s\n' TEST RESULT
for name in "${names[@]}"; do
    if [[ ! -f $outdir/$name.rc ]]; then
        {
            echo "run-vm: $name did not report a result: $why."
            echo "run-vm: last lines of $outdir/console.log:"
            tail -n 20 "$outdir/console.log" 2>/dev/null || true
        } >"$outdir/$name.log"
        echo 1 >"$outdir/$name.rc"
        missing=$((missing + 1))
        printf '%-24s %s\n' "$name" "NO RESULT"
    elif [[ $(<"$outdir/$name.rc") == 0 ]]; then
        passed=$((passed + 1))
        printf '%-24s %s\n' "$name" "passed"
    else
        failed=$((failed + 1))
        printf '%-24s %s\n' "$name" "FAILED (rc $(<"$outdir/$name.rc"))"
    fi
done

boot=$(sed -n 's/.*loci-vm: booted in \([0-9.]*\) s.*/\1/p' "$outdir/console.log" 2>/dev/null | head -n1)
echo "run-vm: $topo: $passed passed, $failed failed, $missing without result;" \
     "wall ${wall}s, guest reached /init after ${boot:-?}s (boot $boots of at most $tries); logs in $outdir"

if [[ $started -eq 0 || $done_marker -eq 0 ]]; then
    echo "run-vm: $why; see $outdir/console.log and $outdir/qemu.log" >&2
    [[ -s $outdir/qemu.log ]] && sed 's/^/qemu: /' "$outdir/qemu.log" >&2
    [[ $started -eq 0 ]] && { tail -n 30 "$outdir/console.log" >&2 2>/dev/null || true; exit 2; }
fi
[[ $fixture -eq 1 ]] && exit 0
[[ $failed -eq 0 && $missing -eq 0 ]]
