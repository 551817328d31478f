/*
 * A NUMA node's room: the bytes an allocation bound there can still get
 * without the kernel reclaiming past its reserve or waking the OOM killer
 * (vm_nodes_free, see vm.h). What the kernel's MemAvailable says for the
 * whole machine, for one node:
 *
 *   free pages + clean file pages + reclaimable slab (meminfo of the node)
 *   - the node's reserve: per zone, its high watermark, its boost and its
 *     protection against allocations that could go higher
 *     (lowmem_reserve), at most the zone's pages (/proc/zoneinfo; the
 *     kernel's totalreserve_pages, per node)
 *   + the free pages on the list of the CPU the caller runs on (its
 *     per-cpu pageset, "cpu:" and "count:" in /proc/zoneinfo).
 *
 * Free memory near the watermarks is not room: the kernel's own
 * allocations and kswapd live there, and a bound allocation that takes it
 * ends in direct reclaim of what is not reclaimable (anonymous memory
 * without swap), then the OOM killer. A CPU's list is, for that CPU: a page
 * freed goes there first, and MemFree leaves it out until the list is
 * drained — on 6.12 (its lists grow with frees) 12 MiB unmapped on the
 * tiers3 VM's node 0 stayed there, out of MemFree, 12 s later and on, 28
 * MiB in all. Without them a tier that tiering just emptied read as full,
 * and the hot arena that the demotion made way for never came
 * (BENCHMARKS.md, tiering run 7): the pages a demotion frees go to the
 * mover's own CPU, where its next move takes them. Another CPU's list is
 * not: an allocation takes from its own CPU's list and the zone's free
 * pages only, and the kernel drains the other lists after a direct reclaim
 * that made progress — on a node of anonymous memory without swap it makes
 * none. On the tiers3 VM's node 1 every move to it failed for 15 intervals
 * while the other CPU's list held 2,558 pages and the zone's free pages sat
 * 4 below its min watermark (docs/TIERING.md). A thread that moves to
 * another CPU before it allocates is safe: a move's allocation fails rather
 * than wake the OOM killer (__GFP_RETRY_MAYFAIL, and a copy is populated
 * under the preferred policy), and a new allocation leaves the pool's
 * margin (1/64 of the node, 32 MiB at least). The lists change with every
 * free: /proc/zoneinfo is read at most every 100 ms, by one thread at a
 * time and outside the lock every caller takes — on a machine of many CPUs
 * it is long (a few lines per CPU and zone: some 100 us for 5 KB on 2
 * CPUs), and allocations reach here (the pool's charge) — while the others
 * use the last reading.
 */
#include "os/vm.h"
#include "clock.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZONEINFO_REFRESH_MS 100

/* One reading of /proc/zoneinfo, in pages: per node its reserve, and per
 * node and CPU the free pages on that CPU's lists (listed[node * cpus +
 * cpu], for the nodes below `nodes`; a CPU at or past `cpus` is not
 * counted). */
typedef struct {
    uint64_t reserve[PLACE_MAX_NODES];
    uint32_t *listed;
    int nodes, cpus;
} zone_counts_t;

static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;
static zone_counts_t readings[2];  /* readings[current] under reserve_lock; the other, refresh_lock's */
static int current;                /* under reserve_lock */
static uint64_t reserve_read_ms;   /* under reserve_lock; 0: never read, or unreadable */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER; /* the one thread reading it again */

/* One zone's reserve, as the kernel counts it (calculate_totalreserve_pages). */
typedef struct {
    int node;
    uint64_t high, boost, protection, managed;
} zone_t;

static void zone_done(const zone_t *z, zone_counts_t *into)
{
    if (z->node < 0 || z->node >= PLACE_MAX_NODES)
        return;
    uint64_t r = z->high + z->boost + z->protection;
    into->reserve[z->node] += r < z->managed ? r : z->managed;
}

/* Room in into->listed for `node`'s row: false when it cannot be had (that
 * node's lists are not counted). */
static bool listed_row(zone_counts_t *into, int node)
{
    if (node < into->nodes)
        return true;
    uint32_t *grown = realloc(into->listed, (size_t)(node + 1) * (size_t)into->cpus * sizeof *grown);
    if (!grown)
        return false;
    memset(grown + (size_t)into->nodes * (size_t)into->cpus, 0,
           (size_t)(node + 1 - into->nodes) * (size_t)into->cpus * sizeof *grown);
    into->listed = grown;
    into->nodes = node + 1;
    return true;
}

/* A CPU's list of a zone of `node`: its count, added to that node and CPU. */
static void list_done(zone_counts_t *into, int node, int cpu, unsigned long long count)
{
    if (node < 0 || node >= PLACE_MAX_NODES || cpu < 0 || cpu >= into->cpus || !listed_row(into, node))
        return;
    uint32_t *at = &into->listed[(size_t)node * (size_t)into->cpus + (size_t)cpu];
    *at = count > UINT32_MAX - *at ? UINT32_MAX : *at + (uint32_t)count;
}

/* /proc/zoneinfo into `into`: false when it cannot be read (no reserve
 * known: none subtracted, no list counted). */
static bool read_zoneinfo(zone_counts_t *into)
{
    FILE *f = fopen("/proc/zoneinfo", "re");
    if (!f)
        return false;
    memset(into->reserve, 0, sizeof into->reserve);
    if (into->listed)
        memset(into->listed, 0, (size_t)into->nodes * (size_t)into->cpus * sizeof *into->listed);
    if (into->cpus == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_CONF);
        into->cpus = cpus > 0 && cpus < INT32_MAX / PLACE_MAX_NODES ? (int)cpus : 1;
    }
    zone_t z = {.node = -1};
    int cpu = -1;
    char line[512];
    unsigned long long v;
    while (fgets(line, sizeof line, f)) {
        int node;
        const char *t = line + strspn(line, " ");
        if (sscanf(line, "Node %d, zone", &node) == 1) {
            zone_done(&z, into);
            z = (zone_t){.node = node};
            cpu = -1;
        } else if (sscanf(t, "cpu: %d", &cpu) == 1) {
            /* the list's lines follow */
        } else if (sscanf(t, "high %llu", &v) == 1) { /* (a CPU's list's "high:" is no watermark) */
            z.high = v;
        } else if (sscanf(t, "count: %llu", &v) == 1) {
            list_done(into, z.node, cpu, v);
        } else if (sscanf(t, "boost %llu", &v) == 1) {
            z.boost = v;
        } else if (sscanf(t, "managed %llu", &v) == 1) {
            z.managed = v;
        } else if (strncmp(t, "protection: (", 13) == 0) {
            /* the largest: allocations that may use any zone (user memory) */
            for (char *p = (char *)t + 13, *e; *p && *p != ')'; p = e + (*e == ',')) {
                v = strtoull(p, &e, 10);
                if (e == p)
                    break;
                z.protection = v > z.protection ? v : z.protection;
            }
        }
    }
    zone_done(&z, into);
    fclose(f);
    return true;
}

/* Whether the last reading is older than 100 ms (or there is none). */
static bool stale(uint64_t now, bool *never)
{
    pthread_mutex_lock(&reserve_lock);
    *never = reserve_read_ms == 0;
    bool old = *never || now - reserve_read_ms >= ZONEINFO_REFRESH_MS;
    pthread_mutex_unlock(&reserve_lock);
    return old;
}

/* Read /proc/zoneinfo again when the last reading is stale: one thread does,
 * the others go on with the last reading (but for the first, which every
 * caller waits for). */
static void refresh(void)
{
    uint64_t now = clock_coarse_ms();
    bool never;
    if (!stale(now, &never) || (never ? pthread_mutex_lock(&refresh_lock) : pthread_mutex_trylock(&refresh_lock)) != 0)
        return;
    if (stale(now, &never)) { /* not read by another meanwhile */
        bool ok = read_zoneinfo(&readings[!current]); /* current's other: no reader uses it */
        pthread_mutex_lock(&reserve_lock);
        current = ok ? !current : current;
        reserve_read_ms = ok ? (now ? now : 1) : 0;
        pthread_mutex_unlock(&reserve_lock);
    }
    pthread_mutex_unlock(&refresh_lock);
}

/* The node's reserve, and the free pages on the lists of the CPU the caller
 * runs on, in bytes. */
static void node_zones(int node, uint64_t *reserve, uint64_t *listed)
{
    refresh();
    int cpu = sched_getcpu();
    pthread_mutex_lock(&reserve_lock);
    const zone_counts_t *r = &readings[current];
    bool known = reserve_read_ms && node < PLACE_MAX_NODES;
    *reserve = known ? r->reserve[node] * vm_page_size() : 0;
    bool listed_known = known && node < r->nodes && cpu >= 0 && cpu < r->cpus;
    *listed = listed_known ? (uint64_t)r->listed[(size_t)node * (size_t)r->cpus + (size_t)cpu] * vm_page_size() : 0;
    pthread_mutex_unlock(&reserve_lock);
}

void vm_room_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_PREPARE) { /* the reader first, as refresh takes them */
        loci__fork_mutex(&refresh_lock, phase);
        loci__fork_mutex(&reserve_lock, phase);
    } else {
        loci__fork_mutex(&reserve_lock, phase);
        loci__fork_mutex(&refresh_lock, phase);
    }
}

/* kB of field `name` ("MemFree:") in a node's meminfo text, or -1. */
static long long meminfo_kb(const char *text, const char *name)
{
    const char *m = strstr(text, name);
    return m ? strtoll(m + strlen(name), NULL, 10) : -1;
}

/* The node's room (above): free pages, plus clean file pages and
 * reclaimable slab the kernel drops for a bound allocation (MemFree alone
 * would call a node full of page cache full, and refuse strict placement on
 * any busy machine), less its reserve, plus what the caller's CPU's lists hold. */
static int node_room(int node, uint64_t *bytes)
{
    char path[96], buf[4096];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return LOCI_ENOTSUP;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return LOCI_ENOTSUP;
    buf[n] = '\0';
    long long free_kb = meminfo_kb(buf, "MemFree:");
    if (free_kb < 0)
        return LOCI_ENOTSUP;
    long long reclaimable = 0;
    static const char *const fields[] = {"Active(file):", "Inactive(file):", "SReclaimable:"};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        long long kb = meminfo_kb(buf, fields[i]);
        reclaimable += kb > 0 ? kb : 0;
    }
    long long dirty = meminfo_kb(buf, "Dirty:");
    if (dirty > 0) /* must be written first: not at hand */
        reclaimable = reclaimable > dirty ? reclaimable - dirty : 0;
    uint64_t reserve, listed;
    node_zones(node, &reserve, &listed);
    uint64_t have = (uint64_t)(free_kb + reclaimable) * 1024 + listed;
    *bytes = have > reserve ? have - reserve : 0;
    return 0;
}

int vm_nodes_free(const place_t *place, uint64_t *bytes)
{
    uint64_t sum = 0;
    bool any = false;
    for (int i = 0; i < PLACE_MAX_NODES; i++) {
        if (!(place->nodemask[i / 64] >> (i % 64) & 1))
            continue;
        uint64_t f;
        if (node_room(i, &f) != 0)
            return LOCI_ENOTSUP;
        sum += f;
        any = true;
    }
    *bytes = sum;
    return any ? 0 : LOCI_ENOTSUP;
}
