/* The public target functions of loci.h. */
#include "topo/topo_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int loci_target_count(void)
{
    int rc = topo_ensure();
    return rc ? rc : topo_get()->ntargets;
}

const loci_target_t *loci_target_at(int index)
{
    if (topo_ensure())
        return NULL;
    topo_t *t = topo_get();
    if (index < 0 || index >= t->ntargets)
        return loci__fail_null(LOCI_EINVAL, "loci_target_at(%d): this machine has targets 0 to %d", index,
                               t->ntargets - 1);
    return &t->targets[index];
}

const loci_target_t *loci_target_by_name(const char *name)
{
    if (topo_ensure())
        return NULL;
    topo_t *t = topo_get();
    if (!name)
        return loci__fail_null(LOCI_EINVAL, "loci_target_by_name(NULL)");
    int node;
    char end;
    if (strncasecmp(name, "node:", 5) == 0 && sscanf(name + 5, "%d%c", &node, &end) == 1) {
        struct loci_target *tg = topo_target_of_node(t, node);
        if (tg)
            return tg;
    } else {
        for (int i = 0; i < t->ntargets; i++)
            if (strcasecmp(t->targets[i].name, name) == 0)
                return &t->targets[i];
    }
    char names[512] = "";
    for (int i = 0; i < t->ntargets; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", t->targets[i].name);
    }
    return loci__fail_null(LOCI_ENOENT, "unknown target '%s'; %s has %s (or node:N for a NUMA node)",
                           name, t->origin, names);
}

static int check_target(const loci_target_t *tg)
{
    int rc = topo_ensure();
    if (rc)
        return rc;
    topo_t *t = topo_get();
    if (!tg || tg < t->targets || tg >= t->targets + t->ntargets)
        return loci__fail(LOCI_EINVAL, "not a target of the current topology (was loci_fini called?)");
    return 0;
}

int loci_target_info(const loci_target_t *tg, loci_target_info_t *out)
{
    int rc = check_target(tg);
    if (rc)
        return rc;
    if (!out)
        return loci__fail(LOCI_EINVAL, "loci_target_info: NULL output");
    int ini = topo_initiator(topo_get());
    const topo_attr_t *bw = &tg->bandwidth[ini], *lat = &tg->latency[ini];
    *out = (loci_target_info_t){
        .name = tg->name,
        .kind = topo_kind_name(tg->kind),
        .numa_node = tg->numa_node,
        .capacity = tg->capacity.value,
        .available = tg->available.value,
        .bandwidth_mbps = bw->value,
        .latency_ns = lat->value,
        /* one field for both figures: name the less trusted of the two */
        .source = topo_source_name(bw->source < lat->source ? bw->source : lat->source),
        .flags = tg->flags | (topo_target_gone(tg) ? LOCI_TARGET_GONE : 0),
    };
    return 0;
}

int loci_target_sources(const loci_target_t *tg, const char **capacity_src, const char **bandwidth_src,
                        const char **latency_src, const char **kind_src)
{
    int rc = check_target(tg);
    if (rc)
        return rc;
    int ini = topo_initiator(topo_get());
    if (capacity_src)
        *capacity_src = topo_source_name(tg->capacity.source);
    if (bandwidth_src)
        *bandwidth_src = topo_source_name(tg->bandwidth[ini].source);
    if (latency_src)
        *latency_src = topo_source_name(tg->latency[ini].source);
    if (kind_src)
        *kind_src = topo_source_name(tg->kind_source);
    return 0;
}

const char *loci_target_path(const loci_target_t *tg) { return check_target(tg) ? NULL : tg->path; }

const char *loci_target_unreachable(const loci_target_t *tg) { return check_target(tg) ? NULL : tg->unreachable; }

const char *loci_target_gone(const loci_target_t *tg) { return check_target(tg) ? NULL : topo_target_gone(tg); }

int loci_target_near_devices(const loci_target_t *tg, const char *device_kind, char *buf, size_t buflen)
{
    int rc = check_target(tg);
    if (rc)
        return rc;
    if (!device_kind || !buf || buflen == 0)
        return loci__fail(LOCI_EINVAL, "loci_target_near_devices: NULL argument");
    topo_device_kind_t want;
    if (strcmp(device_kind, "nic") == 0)
        want = DEV_NIC;
    else if (strcmp(device_kind, "gpu") == 0)
        want = DEV_GPU;
    else
        return loci__fail(LOCI_EINVAL, "device kind '%s': expected \"nic\" or \"gpu\"", device_kind);
    topo_t *t = topo_get();
    int count = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->ndevices; i++) {
        const topo_device_t *d = &t->devices[i];
        if (d->kind != want || !(tg->near_devices & (1ull << i)))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, buflen - used, "%s%s%s%s%s", count ? "," : "", d->name,
                 d->osdev[0] ? "(" : "", d->osdev, d->osdev[0] ? ")" : "");
        count++;
    }
    return count;
}

int loci_target_cpus(const loci_target_t *tg, char *buf, size_t buflen)
{
    int rc = check_target(tg);
    if (rc)
        return rc;
    if (!buf || buflen == 0)
        return loci__fail(LOCI_EINVAL, "loci_target_cpus: NULL buffer");
    topo_node_t *n = topo_node(topo_get(), tg->numa_node);
    buf[0] = '\0';
    if (n)
        hwloc_bitmap_list_snprintf(buf, buflen, n->cpuset);
    return 0;
}

int loci_target_memory_tier(const loci_target_t *tg, char *nodes, size_t len, const char **source)
{
    int rc = check_target(tg);
    if (rc)
        return rc;
    if (nodes && len == 0)
        return loci__fail(LOCI_EINVAL, "loci_target_memory_tier: empty buffer");
    const topo_node_t *n = topo_node(topo_get(), tg->numa_node);
    if (!n || n->memtier < 0)
        return loci__fail(LOCI_ENOENT, "%s: no kernel memory tier known (%s)", tg->name,
                          tg->numa_node < 0 ? "not a NUMA node"
                          : topo_get()->simulated
                              ? "a simulated topology"
                              : "the kernel has no /sys/devices/virtual/memory_tiering: Linux 6.1 or later");
    if (nodes)
        hwloc_bitmap_list_snprintf(nodes, len, n->memtier_nodes);
    if (source)
        *source = topo_source_name(n->memtier_source);
    return n->memtier;
}
