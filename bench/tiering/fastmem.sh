# shellcheck shell=sh
# The fast-memory size of a bench/tiering run (POSIX sh, sourced by guest.sh and redis_guest.sh;
# the VM has busybox): a node's memory beyond a size is taken out of play by reserving it as
# 2 MiB huge pages (no LRU pages: no kernel mode can demote or migrate them, and loci's budgets
# see it as used), so that every placement gets the same room. Needs say().

fastmem_hugepages() { echo "/sys/devices/system/node/node$1/hugepages/hugepages-2048kB/nr_hugepages"; }
fastmem_free_kb() { awk '/MemFree/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"; }
fastmem_watermark_kb() { # node, min|low|high|promo
  awk -v n="$1," -v w="$2" '/^Node/ { node = $2 } node == n && $1 == w { s += $2 } END { print s * 4 }' /proc/zoneinfo
}

# fastmem_loci_reserve_kb NODE: what loci's moves leave alone of NODE's free memory (its move
# room, docs/TIERING.md "Room"): per zone its high watermark, boost and largest protection, at most
# the zone's pages (src/os/node_room.c). (Where an arena starts, the pool's margin is left too:
# arenas start lower and tiering brings the hot ones up.)
fastmem_loci_reserve_kb() {
  awk -v n="$1," '
    function zone_done() { if (node == n) { r = high + boost + prot; reserve += r < managed ? r : managed } }
    /^Node/ { zone_done(); node = $2; high = boost = prot = managed = 0; next }
    $1 == "high" { high = $2 } $1 == "boost" { boost = $2 } $1 == "managed" { managed = $2 }
    $1 == "protection:" { gsub(/[(),]/, " "); for (i = 2; i <= NF; i++) if ($i + 0 > prot) prot = $i + 0 }
    END { zone_done(); print reserve * 4 }' /proc/zoneinfo
}

# fastmem_keep_free NODE KIB [compact]: huge pages reserved on NODE until about KIB are free
# there. A node whose free memory is scattered gets fewer than asked for; with "compact" it is
# compacted and asked again while that gains huge pages (the fast node: its size is the point).
fastmem_keep_free() {
  fm_try=0 fm_had=-1
  while :; do
    fm_cur=$(cat "$(fastmem_hugepages "$1")")
    fm_want=$((fm_cur + ($(fastmem_free_kb "$1") - $2) / 2048))
    [ "$fm_want" -lt 0 ] && fm_want=0
    echo "$fm_want" >"$(fastmem_hugepages "$1")" 2>/dev/null
    fm_got=$(cat "$(fastmem_hugepages "$1")")
    [ $(($(fastmem_free_kb "$1") - $2)) -lt 4096 ] || [ "${3:-}" != compact ] || [ "$fm_got" -le "$fm_had" ] || [ $fm_try -ge 3 ] && break
    fm_had=$fm_got
    echo 1 >"/sys/devices/system/node/node$1/compact" 2>/dev/null
    fm_try=$((fm_try + 1))
  done
  say "node $1: $(($(fastmem_free_kb "$1") / 1024)) MiB free, $((($(fastmem_free_kb "$1") - $2) / 1024)) MiB more than asked ($fm_got huge pages reserved)"
}

# fastmem_limit FAST MIB [OTHER_NODE...]: node FAST keeps MIB free above its low watermark —
# where the page allocator's fast path moves on to the next node, so about what a program can
# place there before the kernel spills to slower memory —, the other nodes nothing.
fastmem_limit() {
  fm_f=$1 fm_mib=$2
  shift 2
  for fm_n in "$@"; do fastmem_keep_free "$fm_n" 0; done
  fastmem_keep_free "$fm_f" $((fm_mib * 1024 + $(fastmem_watermark_kb "$fm_f" low))) compact
  say "node $fm_f watermarks (KiB): min $(fastmem_watermark_kb "$fm_f" min) low $(fastmem_watermark_kb "$fm_f" low) high $(fastmem_watermark_kb "$fm_f" high) promo $(fastmem_watermark_kb "$fm_f" promo)"
}

# fastmem_unlimit NODE...: the reservations given back.
fastmem_unlimit() { for fm_n in "$@"; do echo 0 >"$(fastmem_hugepages "$fm_n")"; done; }

# fastmem_loci_targets FAST MIB [OTHER_NODE...]: LOCI_CONFIG's target sections giving loci's
# auto arenas the same room: MIB of FAST (tiering_budget), nothing of the others.
fastmem_loci_targets() {
  printf '[target benchfast]\nnuma_node = %s\ntiering_budget = %sMiB\n' "$1" "$2"
  shift 2
  for fm_n in "$@"; do printf '[target benchout%s]\nnuma_node = %s\ntiering_budget = 0%%\n' "$fm_n" "$fm_n"; done
}
