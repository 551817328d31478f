/*
 * A NUMA node's room: the bytes an allocation bound there can still get
 * without the kernel reclaiming past its reserve or waking the OOM killer
 * (vm_nodes_free, see vm.h) — the lesser of two:
 *
 *   what the kernel's MemAvailable says for the whole machine, for one node:
 *   free pages + clean file pages + reclaimable slab (meminfo of the node)
 *   + the free pages on every CPU's lists (per-cpu pagesets, "count:" in
 *     /proc/zoneinfo)
 *   - the node's reserve: per zone, its high watermark, its boost and its
 *     protection against allocations that could go higher
 *     (lowmem_reserve), at most the zone's pages (/proc/zoneinfo; the
 *     kernel's totalreserve_pages, per node);
 *
 *   and what an allocation on the caller's CPU gets there: free pages +
 *   clean file pages + reclaimable slab above the zones' min watermarks
 *   (and boost and protection), and that CPU's lists — none at all where
 *   the free pages are below.
 *
 * Free memory near the watermarks is not room: the kernel's own
 * allocations and kswapd live there, and a bound allocation that takes it
 * ends in direct reclaim of what is not reclaimable (anonymous memory
 * without swap), then the OOM killer. The CPUs' lists are: a page freed
 * goes there first, and MemFree leaves it out until the list is drained —
 * on 6.12 (its lists grow with frees) 12 MiB unmapped on the tiers3 VM's
 * node 0 stayed there, out of MemFree, 12 s later and on, 28 MiB in all.
 * Without them a tier that tiering just emptied read as full, and the hot
 * arena that the demotion made way for never came (BENCHMARKS.md, tiering
 * run 7). But a list is room only for an allocation on its CPU, and only
 * while the zone's free pages are above its min watermark: the kernel
 * checks a zone's watermark on its free pages before it takes a page from
 * any list, and it drains another CPU's list only after a direct reclaim
 * that made progress (on a node of anonymous memory without swap it makes
 * none). On the tiers3 VM's node 1, whose CPUs' lists may each hold half
 * its low watermark (10 MiB of the node test's 30), every move to it
 * failed for the 15 intervals left of a phase while the lists held 3,846
 * pages and the zone's free pages sat 15 below its min watermark; counted
 * from the low watermark (tried), the room kept the node test's hot set
 * off node 1 for a whole phase (free pages 4 MiB above the min watermark,
 * 13 MiB in the lists), and the caller's lists alone against the high
 * watermark kept a move the kernel would have made waiting 10 intervals.
 * What this still counts that a move does not get is what the kernel keeps
 * on the mover's own list: a list it refills from the free pages keeps
 * what it took once they reach the watermark (on 6.12 up to 13 MiB of a
 * 25 MiB room there), and the move that finds them so fails — once: the
 * room reads none after (docs/TIERING.md; vm_room mover). A node whose free pages are in the
 * lists is full until the kernel drains them (a CPU-less node's 3 s after
 * a CPU last changed it; from 6.7 on a list's size also decays). A thread
 * that moves to another CPU before it allocates is safe: a move's
 * allocation fails rather than wake the OOM killer (__GFP_RETRY_MAYFAIL,
 * and a copy is populated under the preferred policy), and a new
 * allocation leaves the pool's margin (1/64 of the node, 32 MiB at least).
 * The lists change with every free: /proc/zoneinfo is read at most every
 * 100 ms, by one thread at a time and outside the lock every caller takes
 * — on a machine of many CPUs it is long (a few lines per CPU and zone:
 * some 100 us for 5 KB on 2 CPUs), and allocations reach here (the pool's
 * charge) — while the others use the last reading.
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

/* One reading of /proc/zoneinfo, in pages: per node its reserve, the floor
 * below which the kernel refuses its allocations and the free pages on
 * every CPU's lists, and per node and CPU the free pages on that CPU's lists
 * (listed[node * cpus + cpu], for the nodes below `nodes`; a CPU at or past
 * `cpus` is not counted). */
typedef struct {
    uint64_t reserve[PLACE_MAX_NODES], floor[PLACE_MAX_NODES], all_listed[PLACE_MAX_NODES];
    uint32_t *listed;
    int nodes, cpus;
} zone_counts_t;

static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;
static zone_counts_t readings[2];  /* readings[current] under reserve_lock; the other, refresh_lock's */
static int current;                /* under reserve_lock */
static uint64_t reserve_read_ms;   /* under reserve_lock; 0: never read, or unreadable */
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER; /* the one thread reading it again */

/* One zone's reserve, as the kernel counts it (calculate_totalreserve_pages),
 * and its floor: the min watermark, below which the kernel gives a move no
 * page (its boost and protection too). */
typedef struct {
    int node;
    uint64_t min, high, boost, protection, managed;
} zone_t;

static void zone_done(const zone_t *z, zone_counts_t *into)
{
    if (z->node < 0 || z->node >= PLACE_MAX_NODES)
        return;
    uint64_t r = z->high + z->boost + z->protection, f = z->min + z->boost + z->protection;
    into->reserve[z->node] += r < z->managed ? r : z->managed;
    into->floor[z->node] += f < z->managed ? f : z->managed;
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
    if (node < 0 || node >= PLACE_MAX_NODES)
        return;
    into->all_listed[node] += count;
    if (cpu < 0 || cpu >= into->cpus || !listed_row(into, node))
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
    memset(into->floor, 0, sizeof into->floor);
    memset(into->all_listed, 0, sizeof into->all_listed);
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
        } else if (sscanf(t, "min %llu", &v) == 1) {
            z.min = v;
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

/* A node's zones, in bytes (zone_counts_t): its reserve and floor, the
 * free pages on every CPU's lists and on those of the CPU the caller runs
 * on. All 0 when /proc/zoneinfo cannot be read. */
typedef struct {
    uint64_t reserve, floor, all_listed, own_listed;
} node_zones_t;

static node_zones_t node_zones(int node)
{
    refresh();
    int cpu = sched_getcpu();
    node_zones_t z = {0};
    pthread_mutex_lock(&reserve_lock);
    const zone_counts_t *r = &readings[current];
    if (reserve_read_ms && node < PLACE_MAX_NODES) {
        uint64_t page = vm_page_size();
        z = (node_zones_t){r->reserve[node] * page, r->floor[node] * page, r->all_listed[node] * page, 0};
        if (node < r->nodes && cpu >= 0 && cpu < r->cpus)
            z.own_listed = (uint64_t)r->listed[(size_t)node * (size_t)r->cpus + (size_t)cpu] * page;
    }
    pthread_mutex_unlock(&reserve_lock);
    return z;
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
 * any busy machine), plus the CPUs' lists, less its reserve — at most what
 * the caller's CPU can get (above). */
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
    node_zones_t z = node_zones(node);
    uint64_t base = (uint64_t)(free_kb + reclaimable) * 1024;
    uint64_t available = base + z.all_listed;
    available = available > z.reserve ? available - z.reserve : 0;
    uint64_t mine = base > z.floor ? base - z.floor + z.own_listed : 0; /* (the kernel's watermark check: free pages) */
    *bytes = available < mine ? available : mine;
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
