#!/bin/sh
# The CI smoke of bench/tiering/redis.sh (VM suite redis-bpo, test smoke): a tiny run of
# redis_guest.sh — `loci run --tier auto` with an explicit intent and threshold, and DAMOS where
# the kernel has DAMON, else first touch — asserting what holds whatever the machine's speed:
# every GET of every mode answered with its own key's value (Redis under loci's malloc
# interposer too), every value found in Redis's memory (the residency measure works), the
# kernel's counters read for each mode, DAMOS's schemes trying regions, and under loci the
# values in auto arenas (`loci tier`).
# POSIX sh (busybox). Exit 0; 1 a check failed; 77 a piece is missing, saying which.
set -u
here=$(dirname "$0")
for p in redis-server zipf_client loci numactl; do
  command -v "$p" >/dev/null || { echo "redis smoke: skipped: no $p in the VM (on the host: scripts/install-deps.sh, then cmake again)"; exit 77; }
done
keys=1024
modes_kernel=first-touch
[ -d /sys/kernel/mm/damon/admin ] && modes_kernel=damos
out=${TMPDIR:-/tmp}/redis-smoke.$$
KEYS=$keys FILLER_KEYS=$keys VALUE_BYTES=4096 PHASE_S=4 INTERVAL_S=2 FAST_MIB=2 SLACK_MIB=16 KMON_S=1 PIN='' \
  MODES="loci-run-intent $modes_kernel" sh "$here/redis_guest.sh" 0 2 1 >"$out" 2>&1
rc=$?
cat "$out"
fail() {
  echo "redis smoke: FAILED: $*"
  exit 1
}
[ "$rc" = 0 ] || fail "redis_guest.sh exit status $rc"
modes="loci-run-intent $modes_kernel"
for m in $modes; do
  grep -q "^located $m found $keys of $keys " "$out" || fail "$m: not every value was found in Redis's memory"
  grep -q "^summary $m .* wrong 0 data intact" "$out" || fail "$m: no summary, or a reply was wrong"
  grep -q "^kernel $m pgpromote_success " "$out" || fail "$m: the kernel's counters were not read"
done
# DAMOS's schemes tried regions: the fast node's cold memory (the kernel's own, the filler) is
# there from the start — a scheme whose ranges match nothing (sysfs's 0-0 defaults) tries none
if [ $modes_kernel = damos ]; then
  tried=$(awk '$1 == "kernel" && $2 == "damos" { for (i = 3; i < NF; i++) if ($i == "migrate_cold_tried_regions") print $(i + 1) }' "$out")
  [ "${tried:-0}" -gt 0 ] || fail "damos: migrate_cold tried ${tried:-no} regions (its statistics unread, or its access pattern matches nothing)"
fi
# loci tier's table: a row per auto arena, INTENT, TARGET, BYTES (a number and a unit), HEAT, MOVED
# (a number and a unit), MOVES and SITE (fields 3 on, after this log's two-word prefix)
arena_mib=$(awk '/^loci-tier loci-run-intent: / && $6 ~ /^(B|KiB|MiB|GiB)$/ {
    u = $6; s += $5 * (u == "GiB" ? 1024 : u == "MiB" ? 1 : u == "KiB" ? 1 / 1024 : 1 / 1048576) }
  END { printf "%d", s }' "$out")
[ "$arena_mib" -ge $((keys * 4 / 1024)) ] || fail "loci-run-intent: auto arenas hold $arena_mib MiB, less than the $((keys * 4 / 1024)) MiB of values"
echo "redis smoke: passed (modes: $modes; $arena_mib MiB in loci's auto arenas)"
rm -f "$out"
