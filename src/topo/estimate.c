/*
 * Figures for (initiator, target) pairs nobody measured. Linux exposes HMAT
 * only for each target's best initiators, so from a remote socket most pairs
 * are unknown; they are scaled from the nearest known pair by the ratio of
 * NUMA distances (source "distance"). A remote pair's bandwidth is also capped
 * by what the initiator gets from the reference socket's own DRAM: the data
 * crosses the same interconnect, however fast the memory behind it is (remote
 * HBM is not faster than remote DRAM). What is still unknown gets a class
 * default (source "default") so that no target ranks first for lack of data.
 */
#include "topo/topo_internal.h"

/* Typical figures per kind, seen from a CPU next to the memory. Used only
 * when no source knows better, and labelled "default" wherever shown. */
static const struct {
    uint64_t latency_ns, bandwidth_mbps;
} class_default[KIND_COUNT] = {
    [KIND_DRAM] = {100, 20000},   [KIND_HBM] = {120, 80000},    [KIND_CXL] = {250, 8000},
    [KIND_PMEM] = {350, 6000},    [KIND_SSD] = {80000, 2000},   [KIND_GPU] = {800, 20000},
    [KIND_GPU_HOST] = {100, 20000}, [KIND_STORE] = {1000000, 500},
};

static topo_kind_t provisional_kind(const struct loci_target *tg)
{
    if (tg->kind_source > SRC_DEFAULT || tg->numa_node < 0)
        return tg->kind;
    if (tg->subtype[0] == 'M' || tg->subtype[0] == 'H') /* MCDRAM, HBM */
        return KIND_HBM;
    if (tg->subtype[0] == 'G')
        return KIND_GPU;
    if (tg->subtype[0] == 'C')
        return KIND_CXL;
    return KIND_DRAM;
}

/* The known pair (K, T) with the smallest distance, or -1. */
static int reference_initiator(const topo_t *t, const topo_attr_t *per_initiator, int target_node)
{
    int best = -1;
    for (int i = 0; i < t->nnodes; i++) {
        int k = t->nodes[i].os_index;
        if (!t->nodes[i].has_cpus || per_initiator[k].source <= SRC_DISTANCE)
            continue;
        if (best < 0 || topo_distance(t, k, target_node) < topo_distance(t, best, target_node))
            best = k;
    }
    return best;
}

static void scale_from_distance(const topo_t *t, const struct loci_target *tg, topo_attr_t *attr,
                                bool higher_is_better)
{
    int k = reference_initiator(t, attr, tg->numa_node);
    if (k < 0)
        return;
    int dk = topo_distance(t, k, tg->numa_node);
    for (int i = 0; i < t->nnodes; i++) {
        int ini = t->nodes[i].os_index;
        int di = topo_distance(t, ini, tg->numa_node);
        if (!t->nodes[i].has_cpus || attr[ini].source > SRC_DISTANCE || !dk || !di)
            continue;
        double ratio = higher_is_better ? (double)dk / di : (double)di / dk;
        uint64_t v = (uint64_t)(attr[k].value * ratio + 0.5);
        const struct loci_target *via = topo_local_dram(t, k);
        if (higher_is_better && via && via != tg && via->bandwidth[ini].value &&
            via->bandwidth[ini].value < v)
            v = via->bandwidth[ini].value;
        attr[ini] = (topo_attr_t){v, SRC_DISTANCE};
    }
}

static void fill_defaults(const topo_t *t, const struct loci_target *tg)
{
    topo_kind_t kind = provisional_kind(tg);
    for (int i = 0; i < t->nnodes; i++) {
        int ini = t->nodes[i].os_index;
        if (!t->nodes[i].has_cpus)
            continue;
        /* remote memory: scale the class figure by distance when known */
        int local = topo_distance(t, ini, ini), far = topo_distance(t, ini, tg->numa_node);
        double ratio = tg->numa_node >= 0 && local && far ? (double)far / local : 1.0;
        if (tg->latency[ini].source <= SRC_DEFAULT)
            tg->latency[ini] = (topo_attr_t){(uint64_t)(class_default[kind].latency_ns * ratio),
                                             SRC_DEFAULT};
        if (tg->bandwidth[ini].source <= SRC_DEFAULT)
            tg->bandwidth[ini] = (topo_attr_t){
                (uint64_t)(class_default[kind].bandwidth_mbps / ratio), SRC_DEFAULT};
    }
}

static bool has_cpus(topo_t *t, const struct loci_target *tg)
{
    topo_node_t *n = topo_node(t, tg->numa_node);
    return n && n->has_cpus;
}

void topo_estimate(topo_t *t)
{
    /* Nodes with CPUs first: their remote figures cap those of CPU-less nodes. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < t->ntargets; i++) {
            struct loci_target *tg = &t->targets[i];
            if (tg->numa_node < 0 || has_cpus(t, tg) != (pass == 0))
                continue;
            scale_from_distance(t, tg, tg->bandwidth, true);
            scale_from_distance(t, tg, tg->latency, false);
        }
    for (int i = 0; i < t->ntargets; i++)
        fill_defaults(t, &t->targets[i]);
}
