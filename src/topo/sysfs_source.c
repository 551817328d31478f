/*
 * Source "sysfs" (live machine only): what Linux says directly.
 *  - which nodes have CPUs: nodeN/cpulist non-empty (hwloc's node cpuset is
 *    locality, not ownership of CPUs);
 *  - HMAT: nodeN/access0 (any initiator) and access1 (CPU initiators) list
 *    the best initiators of each target with read bandwidth and latency;
 *  - kernel memory tiers, free memory per node, DAX (pmem) nodes;
 *  - the driver a dax device is bound to (topo_dax_bound_to), which
 *    devdax_source.c asks too: it sits above this file.
 */
#include "topo/topo_internal.h"
#include "dir.h"
#include "text_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool read_u64(const char *path, uint64_t *v)
{
    char buf[64];
    if (!text_first_line(path, buf, sizeof buf))
        return false;
    char *end;
    *v = strtoull(buf, &end, 10);
    return end != buf;
}

static void mark_has_cpus(topo_t *t, const char *root)
{
    for (int i = 0; i < t->nnodes; i++) {
        char path[256], list[4096];
        snprintf(path, sizeof path, "%s/devices/system/node/node%d/cpulist", root, t->nodes[i].os_index);
        if (text_first_line(path, list, sizeof list))
            t->nodes[i].has_cpus = list[strspn(list, " \t")] != '\0';
    }
}

static void read_free_memory(topo_t *t, const char *root)
{
    for (int i = 0; i < t->ntargets; i++) {
        struct loci_target *tg = &t->targets[i];
        char path[256], line[256];
        snprintf(path, sizeof path, "%s/devices/system/node/node%d/meminfo", root, tg->numa_node);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            unsigned long long kb;
            int node;
            if (sscanf(line, "Node %d MemFree: %llu kB", &node, &kb) == 2)
                topo_attr_offer(&tg->available, kb * 1024ull, SRC_OS);
        }
        fclose(f);
    }
}

/* fn for each entry of the sysfs directory `dir`; none where it is missing
 * (no such kernel feature, or no such device). */
static void each_entry(const char *dir, int (*fn)(int dirfd, const char *path, const char *entry, void *arg),
                       void *arg)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    dir_each_entry(fd, dir, fn, arg);
    close(fd);
}

/* memory_tierN/nodelist: each node listed is in tier N (a larger N is slower
 * memory: the kernel demotes pages toward it) along with the others listed. */
static int read_memory_tier(int dirfd, const char *dir, const char *entry, void *arg)
{
    (void)dirfd;
    topo_t *t = arg;
    int tier;
    if (sscanf(entry, "memory_tier%d", &tier) != 1 || tier < 0)
        return 0;
    char path[800], list[4096];
    snprintf(path, sizeof path, "%s/%s/nodelist", dir, entry);
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    if (nodes && text_first_line(path, list, sizeof list) && hwloc_bitmap_list_sscanf(nodes, list) == 0) {
        int node;
        hwloc_bitmap_foreach_begin(node, nodes)
            topo_node_t *n = topo_node(t, node);
            if (n && !n->memtier_nodes && (n->memtier_nodes = hwloc_bitmap_dup(nodes))) {
                n->memtier = tier;
                n->memtier_source = SRC_OS;
            }
        hwloc_bitmap_foreach_end();
    }
    hwloc_bitmap_free(nodes);
    return 0;
}

static void read_memory_tiers(topo_t *t, const char *root)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/devices/virtual/memory_tiering", root);
    each_entry(dir, read_memory_tier, t);
}

bool topo_dax_bound_to(const char *dir, const char *driver)
{
    char path[PATH_MAX], link[PATH_MAX];
    snprintf(path, sizeof path, "%s/driver", dir);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return false;
    link[n] = '\0';
    const char *name = strrchr(link, '/');
    return strcmp(name ? name + 1 : link, driver) == 0;
}

/* A node onlined from a DAX device (kmem) is the memory of that device's
 * region: a CXL memory device's when the region hangs under the CXL root
 * (ACPI0017, cxl_acpi: a CXL region, volatile or persistent, made by `cxl
 * create-region`), onlined as system RAM it is far memory (kind cxl);
 * otherwise an NVDIMM's (persistent memory). A device bound to device_dax
 * is no node's memory (devdax_source.c): its target_node may be a DRAM
 * node's proximity domain. */
static int mark_dax_node(int dirfd, const char *dir, const char *entry, void *arg)
{
    (void)dirfd;
    if (entry[0] == '.')
        return 0;
    char path[800], real[PATH_MAX];
    uint64_t node;
    snprintf(path, sizeof path, "%s/%s", dir, entry);
    if (!topo_dax_bound_to(path, "kmem"))
        return 0;
    bool cxl = realpath(path, real) && strstr(real, "/ACPI0017:");
    snprintf(path, sizeof path, "%s/%s/target_node", dir, entry);
    struct loci_target *tg = read_u64(path, &node) ? topo_target_of_node(arg, (int)node) : NULL;
    /* hwloc says NVM for any dax node under an nvdimm bus, which a CXL pmem
     * region's is too */
    if (tg && (!tg->subtype[0] || (cxl && strcmp(tg->subtype, "NVM") == 0)))
        snprintf(tg->subtype, sizeof tg->subtype, "%s", cxl ? "CXL" : "NVM");
    return 0;
}

static void mark_dax_nodes(topo_t *t, const char *root)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/bus/dax/devices", root);
    each_entry(dir, mark_dax_node, t);
}

void topo_source_sysfs(topo_t *t, const char *root)
{
    mark_has_cpus(t, root);
    read_free_memory(t, root);
    read_memory_tiers(t, root);
    mark_dax_nodes(t, root);
}

/* HMAT: the best initiators of a target, each a "node<N>" entry, with the
 * class's read bandwidth and latency. */
struct initiators {
    topo_t *t;
    struct loci_target *tg;
    uint64_t bw, lat;
};

static int offer_initiator(int dirfd, const char *dir, const char *entry, void *arg)
{
    (void)dirfd, (void)dir;
    const struct initiators *in = arg;
    int ini;
    if (sscanf(entry, "node%d", &ini) == 1 && ini >= 0 && ini < in->t->node_span) {
        topo_attr_offer(&in->tg->bandwidth[ini], in->bw, SRC_HMAT);
        topo_attr_offer(&in->tg->latency[ini], in->lat, SRC_HMAT);
    }
    return 0;
}

void topo_sysfs_hmat_target(topo_t *t, struct loci_target *tg, int node, const char *root)
{
    /* access1 (CPU initiators only) last, so it wins over access0 */
    static const char *const classes[] = {"access0", "access1"};
    for (int c = 0; c < 2; c++) {
        char dir[256], path[300];
        snprintf(dir, sizeof dir, "%s/devices/system/node/node%d/%s/initiators", root, node, classes[c]);
        uint64_t bw = 0, lat = 0;
        snprintf(path, sizeof path, "%s/read_bandwidth", dir);
        read_u64(path, &bw);
        snprintf(path, sizeof path, "%s/read_latency", dir);
        read_u64(path, &lat);
        each_entry(dir, offer_initiator, &(struct initiators){t, tg, bw, lat});
    }
}

void topo_source_sysfs_hmat(topo_t *t, const char *root)
{
    for (int i = 0; i < t->ntargets; i++)
        if (t->targets[i].numa_node >= 0)
            topo_sysfs_hmat_target(t, &t->targets[i], t->targets[i].numa_node, root);
}
