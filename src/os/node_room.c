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
 *     kernel's totalreserve_pages, per node).
 *
 * Free memory near the watermarks is not room: the kernel's own
 * allocations and kswapd live there, and a bound allocation that takes it
 * ends in direct reclaim of what is not reclaimable (anonymous memory
 * without swap), then the OOM killer. Watermarks change rarely (sysctls,
 * memory coming or going), boosts now and then: /proc/zoneinfo, long on a
 * machine of many CPUs, is read at most once a second.
 */
#include "os/vm.h"
#include "clock.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESERVE_REFRESH_MS 1000

static pthread_mutex_t reserve_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t reserve_pages[PLACE_MAX_NODES]; /* under reserve_lock */
static uint64_t reserve_read_ms;                /* 0: never read, or unreadable */

/* One zone's reserve, as the kernel counts it (calculate_totalreserve_pages). */
typedef struct {
    int node;
    uint64_t high, boost, protection, managed;
} zone_t;

static void zone_done(const zone_t *z)
{
    uint64_t r = z->high + z->boost + z->protection;
    if (z->node >= 0 && z->node < PLACE_MAX_NODES)
        reserve_pages[z->node] += r < z->managed ? r : z->managed;
}

/* /proc/zoneinfo into reserve_pages (under reserve_lock): false when it
 * cannot be read (no reserve known: none subtracted). */
static bool read_reserves(void)
{
    FILE *f = fopen("/proc/zoneinfo", "re");
    if (!f)
        return false;
    memset(reserve_pages, 0, sizeof reserve_pages);
    zone_t z = {.node = -1};
    char line[512];
    unsigned long long v;
    while (fgets(line, sizeof line, f)) {
        int node;
        const char *t = line + strspn(line, " ");
        if (sscanf(line, "Node %d, zone", &node) == 1) {
            zone_done(&z);
            z = (zone_t){.node = node};
        } else if (sscanf(t, "high %llu", &v) == 1) {
            z.high = v;
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
    zone_done(&z);
    fclose(f);
    return true;
}

/* The node's reserve in bytes, read again when a second old. */
static uint64_t node_reserve(int node)
{
    pthread_mutex_lock(&reserve_lock);
    uint64_t now = clock_coarse_ms();
    if (reserve_read_ms == 0 || now - reserve_read_ms >= RESERVE_REFRESH_MS)
        reserve_read_ms = read_reserves() ? (now ? now : 1) : 0;
    uint64_t pages = reserve_read_ms && node < PLACE_MAX_NODES ? reserve_pages[node] : 0;
    pthread_mutex_unlock(&reserve_lock);
    return pages * vm_page_size();
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
 * any busy machine), less its reserve. */
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
    uint64_t have = (uint64_t)(free_kb + reclaimable) * 1024, reserve = node_reserve(node);
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
