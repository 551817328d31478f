#!/bin/sh
# /init of the test VM (PID 1, busybox sh). Runs each test of /etc/loci-vm/plan, whose lines
# are "NAME TIMEOUT_SECONDS COMMAND..." (written by run-vm.sh), then powers off.
#
# Results go to the host over the second serial port (ttyS1), which carries nothing else (the
# kernel console is ttyS0). Each test is framed as
#   @@LOCI-VM-BEGIN NAME
#   <its output, base64: a test can never print something that looks like a marker>
#   @@LOCI-VM-END NAME RC SECONDS [timeout]
# between @@LOCI-VM-START <kernel> and @@LOCI-VM-DONE.

export PATH=/test:/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp TMPDIR=/tmp

# Only /bin/sh exists yet; --install finds busybox through /proc/self/exe.
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# POSIX shared memory (shm_open, MPI/OpenSHMEM shared-memory transports) lives here.
mkdir -p /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /dev/shm

# Automatic NUMA balancing is on by default in a guest with several nodes: about once a second
# it makes default-policy pages PROT_NONE to sample accesses, and move_pages(2) then reports such
# a page as EFAULT instead of its node (6.1; seen as "page N has no node (Bad address)" in a check
# that ran late on a loaded host), and may move it. The suites assert where policies put pages:
# the balancer stays off unless a test turns it on itself (vm_selfcheck proves it is off).
echo 0 >/proc/sys/kernel/numa_balancing 2>/dev/null

# Modules the topology asked for (run-vm.sh: /lib/modules/NN-name.ko), in their order.
for m in /lib/modules/*.ko; do
    [ -e "$m" ] && { insmod "$m" || echo "loci-vm: insmod $m failed" >/dev/console; }
done

results=/dev/ttyS1
log() { echo "loci-vm: $*" >/dev/console; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# Raw mode: no \n -> \r\n translation or echo on the results channel.
stty -F "$results" raw -echo
echo "@@LOCI-VM-START $(uname -r)" >"$results"
nodes=
for n in /sys/devices/system/node/node*; do nodes="$nodes ${n##*/node}"; done
log "booted in $(uptime_s) s; nodes:$nodes"

# What a test that ran out of time was doing: every user process (its own in session $1, and
# others, e.g. daemons it started in a session of their own) and, per thread, its state, where the
# kernel has it waiting and the system call it is in.
where_stuck() {
    for d in /proc/[0-9]*; do
        cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null | cut -c1-100)
        [ -n "$cmd" ] && [ "${d#/proc/}" != 1 ] || continue
        session=$(awk '{ print $6 }' "$d/stat" 2>/dev/null)
        echo "timeout: process ${d#/proc/} ($cmd)$([ "$session" = "$1" ] && echo ", the test's")"
        for t in "$d"/task/*; do
            echo "  thread ${t##*/} $(cat "$t/comm" 2>/dev/null): state $(awk '{ print $3 }' "$t/stat" 2>/dev/null)," \
                 "wchan $(cat "$t/wchan" 2>/dev/null), syscall $(cut -d' ' -f1-3 "$t/syscall" 2>/dev/null)"
            [ "$session" = "$1" ] && sed 's/^/      /' "$t/stack" 2>/dev/null
        done
    done
}

state=/run/loci-vm   # bookkeeping, out of the tests' /tmp
mkdir -p "$state"
cd /test || exit 1
while read -r name timeout cmd; do
    out=$state/$name.out
    log "running $name: $cmd"
    start=$(uptime_s)
    # Own session, so the watchdog can kill the test with everything it started.
    setsid sh -c "$cmd" </dev/null >"$out" 2>&1 &
    pid=$!
    (
        sleep "$timeout" & sleeper=$!
        trap 'kill $sleeper; exit 0' TERM
        wait $sleeper
        touch "$state/$name.timedout"
        where_stuck "$pid" >>"$out" 2>&1
        kill -KILL "-$pid"
    ) &
    watchdog=$!
    wait $pid
    rc=$?
    kill $watchdog 2>/dev/null
    wait $watchdog 2>/dev/null
    kill -KILL "-$pid" 2>/dev/null   # leftovers it started in the background
    secs=$(awk -v a="$start" -v b="$(uptime_s)" 'BEGIN { printf "%.2f", b - a }')
    note=
    [ -e "$state/$name.timedout" ] && note=timeout

    cat "$out" >/dev/console
    log "$name: rc=$rc ${secs}s $note"
    {
        echo "@@LOCI-VM-BEGIN $name"
        base64 "$out"
        echo "@@LOCI-VM-END $name $rc $secs $note"
    } >"$results"
done </etc/loci-vm/plan

echo "@@LOCI-VM-DONE" >"$results"
log "all tests done after $(uptime_s) s, powering off"
sync
poweroff -f
