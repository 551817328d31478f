/*
 * Kinds and names. A kind comes from (most trusted first) the config, an
 * hwloc subtype, or the target's figures relative to the DRAM of its nearest
 * CPUs (DESIGN.md §4): hbm when bandwidth >= 1.5x, cxl when CPU-less and
 * latency >= 1.5x or, with no latency from HMAT, measurement or config, in a
 * slower kernel memory tier than that DRAM. Names are kind+ordinal
 * in NUMA node order, so they are stable across runs on one machine — but
 * a node of kind pmem, an NVDIMM onlined as system RAM, is kmemN: "pmem"
 * names persistent memory only (devdax_source.c names it after its device),
 * so that target=pmem0 never means volatile memory in one process and
 * persistent memory in the next.
 */
#include "topo/topo_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool kind_from_subtype(struct loci_target *tg)
{
    static const struct {
        const char *prefix;
        topo_kind_t kind;
    } map[] = {{"GPUMemory", KIND_GPU}, {"MCDRAM", KIND_HBM}, {"HBM", KIND_HBM},
               {"CXL", KIND_CXL},       {"NVM", KIND_PMEM}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strncasecmp(tg->subtype, map[i].prefix, strlen(map[i].prefix)) == 0) {
            tg->kind = map[i].kind;
            tg->kind_source = SRC_HWLOC;
            return true;
        }
    return false;
}

/* The node with CPUs whose DRAM this target is compared with. */
static int reference_node(topo_t *t, const struct loci_target *tg)
{
    topo_node_t *self = topo_node(t, tg->numa_node);
    if (self && self->has_cpus)
        return tg->numa_node;
    int best = -1;
    for (int i = 0; i < t->nnodes; i++) {
        int n = t->nodes[i].os_index;
        if (t->nodes[i].has_cpus &&
            (best < 0 || topo_distance(t, n, tg->numa_node) < topo_distance(t, best, tg->numa_node)))
            best = n;
    }
    return best;
}

static topo_source_t weaker(topo_source_t a, topo_source_t b) { return a < b ? a : b; }

/* The kernel put node `self` in a slower memory tier than DRAM node `dram`'s
 * (a kmem-onlined device, a CXL expander): evidence of slow memory. The same
 * tier is none: the kernel's default tier holds every node it knows nothing of. */
static bool in_slower_tier(const topo_node_t *self, const topo_node_t *dram)
{
    return self->memtier >= 0 && dram->memtier >= 0 && self->memtier > dram->memtier;
}

static void kind_from_figures(topo_t *t, struct loci_target *tg)
{
    int r = reference_node(t, tg);
    topo_node_t *self = topo_node(t, tg->numa_node), *rn = topo_node(t, r);
    const struct loci_target *dram = r >= 0 ? topo_local_dram(t, r) : NULL;
    tg->kind = KIND_DRAM;
    tg->kind_source = SRC_DEFAULT;
    if (!dram || dram == tg)
        return;
    const topo_attr_t *bw = &tg->bandwidth[r], *dbw = &dram->bandwidth[r];
    const topo_attr_t *lat = &tg->latency[r], *dlat = &dram->latency[r];
    /* latencies estimated from NUMA distance or defaults are less trusted
     * than the kernel's tiers; HMAT, measured and config ones more */
    topo_source_t lat_source = weaker(lat->source, dlat->source);
    if (bw->value && dbw->value && bw->value * 2 >= dbw->value * 3) {
        tg->kind = KIND_HBM;
        tg->kind_source = weaker(bw->source, dbw->source);
    } else if (!self->has_cpus && lat_source < SRC_OS && in_slower_tier(self, rn)) {
        tg->kind = KIND_CXL;
        tg->kind_source = self->memtier_source;
    } else if (!self->has_cpus && lat->value && dlat->value && lat->value * 2 >= dlat->value * 3) {
        tg->kind = KIND_CXL;
        tg->kind_source = lat_source;
    }
}

void topo_classify(topo_t *t)
{
    for (int i = 0; i < t->ntargets; i++) {
        struct loci_target *tg = &t->targets[i];
        if (tg->numa_node < 0 || tg->kind_source == SRC_CONFIG || tg->kind_source == SRC_MEASURED)
            continue;
        if (!kind_from_subtype(tg))
            kind_from_figures(t, tg);
        if (tg->kind == KIND_GPU)
            tg->flags |= LOCI_TARGET_GPU_ACCESSIBLE;
    }
}

const char *topo_name_prefix(const struct loci_target *tg)
{
    return tg->kind == KIND_PMEM && tg->numa_node >= 0 ? "kmem" : topo_kind_name(tg->kind);
}

void topo_name(topo_t *t)
{
    int ordinal[KIND_COUNT] = {0};
    for (int i = 0; i < t->ntargets; i++) {
        struct loci_target *tg = &t->targets[i];
        if (tg->numa_node >= 0)
            snprintf(tg->name, sizeof tg->name, "%s%d", topo_name_prefix(tg), ordinal[tg->kind]++);
    }
}
