/* The topology container: nodes, targets, distances, devices, and LOCI_CONFIG as read (freed with it). */
#include "topo/topo_internal.h"

#include <stdlib.h>
#include <string.h>

topo_node_t *topo_node(topo_t *t, int os_index)
{
    for (int i = 0; i < t->nnodes; i++)
        if (t->nodes[i].os_index == os_index)
            return &t->nodes[i];
    return NULL;
}

struct loci_target *topo_target_of_node(topo_t *t, int os_index)
{
    for (int i = 0; i < t->ntargets; i++)
        if (t->targets[i].numa_node == os_index && os_index >= 0)
            return &t->targets[i];
    return NULL;
}

/* Targets are kept in one array; pointers handed out stay valid because the
 * array is sized once (nodes + file tiers + GPUs + those that may appear at
 * run time) before any target is added. */
struct loci_target *topo_add_target(topo_t *t, topo_kind_t kind, int numa_node)
{
    struct loci_target *tg = &t->targets[t->ntargets];
    memset(tg, 0, sizeof *tg);
    tg->index = t->ntargets++;
    tg->kind = kind;
    tg->kind_source = SRC_DEFAULT;
    tg->numa_node = numa_node;
    tg->cuda_device = -1;
    tg->dax_node = -1;
    tg->bandwidth = calloc((size_t)t->node_span, sizeof *tg->bandwidth);
    tg->latency = calloc((size_t)t->node_span, sizeof *tg->latency);
    if (!tg->bandwidth || !tg->latency)
        return NULL;
    return tg;
}

int topo_distance(const topo_t *t, int from, int to)
{
    if (from < 0 || to < 0 || from >= t->node_span || to >= t->node_span)
        return 0;
    return t->distance[from * t->node_span + to];
}

uint64_t topo_bandwidth(const struct loci_target *tg, int initiator)
{
    return initiator >= 0 && tg->bandwidth ? tg->bandwidth[initiator].value : 0;
}

uint64_t topo_latency(const struct loci_target *tg, int initiator)
{
    return initiator >= 0 && tg->latency ? tg->latency[initiator].value : 0;
}

const struct loci_target *topo_local_dram(const topo_t *t, int initiator)
{
    return topo_target_of_node((topo_t *)t, initiator);
}

struct topo_retired {
    void *p;
    void (*free_fn)(void *);
    struct topo_retired *next;
};

void topo_free_later(topo_t *t, void *p, void (*fn)(void *))
{
    struct topo_retired *r = p ? malloc(sizeof *r) : NULL;
    if (!r)
        return; /* kept for good rather than freed under a reader */
    *r = (struct topo_retired){p, fn, t->retired};
    t->retired = r;
}

void topo_free(topo_t *t)
{
    if (!t)
        return;
    while (t->retired) {
        struct topo_retired *next = t->retired->next;
        t->retired->free_fn(t->retired->p);
        free(t->retired);
        t->retired = next;
    }
    for (int i = 0; i < t->ntargets; i++) {
        free(t->targets[i].bandwidth);
        free(t->targets[i].latency);
        free(t->targets[i].path);
        free(t->targets[i].unreachable);
        free((char *)atomic_load(&t->targets[i].gone));
        jobstore_disconnect(t->targets[i].store);
    }
    for (int i = 0; i < t->nnodes; i++) {
        hwloc_bitmap_free(t->nodes[i].cpuset);
        hwloc_bitmap_free(t->nodes[i].memtier_nodes);
    }
    for (int i = 0; i < t->ndevices; i++)
        hwloc_bitmap_free(t->devices[i].locality);
    free(t->targets);
    free(t->nodes);
    free(t->distance);
    free(t->devices);
    topo_config_free(t->config);
    free(t);
}
