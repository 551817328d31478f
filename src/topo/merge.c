/*
 * Merging a discovery made at run time into the process's topology, which
 * other threads read meanwhile without a lock (topo_live_refresh, live.c).
 * Nothing there is moved or freed: what appeared is appended (a target, its
 * node) and published by its count; what went away is marked gone with what
 * happened; what came back is unmarked; a capacity or a node's memory tier
 * is updated in place (what it replaced is freed with the topology). A
 * target is the same in both when it is the same NUMA node, the same device
 * or directory (path), or else has the same name (a GPU, a store).
 */
#include "topo/topo_internal.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool same_target(const struct loci_target *a, const struct loci_target *b)
{
    if (a->numa_node >= 0 || b->numa_node >= 0)
        return a->numa_node == b->numa_node;
    if (a->path || b->path)
        return a->path && b->path && (a->dax_align != 0) == (b->dax_align != 0) && strcmp(a->path, b->path) == 0;
    return strcmp(a->name, b->name) == 0;
}

/* A node still listed with none of its memory online (offlined, the node
 * itself not yet gone) holds nothing loci could place. */
static bool present(const struct loci_target *tg)
{
    return tg->numa_node < 0 || tg->capacity.value > 0;
}

static struct loci_target *find(topo_t *t, int count, const struct loci_target *like, bool only_present)
{
    for (int i = 0; i < count; i++)
        if (same_target(&t->targets[i], like) && (!only_present || present(&t->targets[i])))
            return &t->targets[i];
    return NULL;
}

char *topo_what_happened(const struct loci_target *tg)
{
    char *why = NULL;
    int n;
    if (tg->numa_node >= 0)
        n = asprintf(&why, "NUMA node %d has no memory online any more (offlined or removed at run time, e.g. by "
                           "daxctl offline-memory or reconfigure-device --mode=devdax); the kernel moved what was "
                           "there to other nodes",
                     tg->numa_node);
    else if (tg->dax_align)
        n = asprintf(&why, "%s is no device-DAX instance any more (reconfigured, e.g. to system-ram by daxctl "
                           "reconfigure-device, disabled or removed at run time)",
                     tg->path);
    else
        n = asprintf(&why, "%s was not found again when the machine was discovered at run time",
                     tg->path ? tg->path : tg->name);
    return n < 0 ? NULL : why;
}

static bool mark_gone(struct loci_target *tg)
{
    char *why = topo_what_happened(tg);
    if (!why)
        return false;
    atomic_store_explicit(&tg->gone, why, memory_order_release);
    loci__log(LOCI_LOG_WARN, "target %s went away: %s", tg->name, why);
    return true;
}

static void mark_back(topo_t *live, struct loci_target *tg)
{
    const char *why = atomic_exchange_explicit(&tg->gone, NULL, memory_order_acq_rel);
    topo_free_later(live, (char *)why, free);
    loci__log(LOCI_LOG_INFO, "target %s is back", tg->name);
}

static void free_bitmap(void *b) { hwloc_bitmap_free(b); }

/* A node's kernel memory tier changes when nodes join or leave tiers (a
 * kmem-onlined node is put in a slower one). */
static void update_tiers(topo_t *live, topo_t *fresh)
{
    for (int i = 0; i < live->nnodes; i++) {
        topo_node_t *n = &live->nodes[i], *f = topo_node(fresh, n->os_index);
        if (!f || (f->memtier == n->memtier && (f->memtier_nodes == n->memtier_nodes ||
                                                (f->memtier_nodes && n->memtier_nodes &&
                                                 hwloc_bitmap_isequal(f->memtier_nodes, n->memtier_nodes)))))
            continue;
        hwloc_bitmap_t old = n->memtier_nodes;
        __atomic_store_n(&n->memtier_nodes, f->memtier_nodes, __ATOMIC_RELEASE);
        __atomic_store_n(&n->memtier, f->memtier, __ATOMIC_RELAXED);
        n->memtier_source = f->memtier_source;
        f->memtier_nodes = NULL;
        topo_free_later(live, old, free_bitmap);
    }
}

/* The node of a target that appeared, with its distances to the nodes both
 * topologies know, published after them. */
static bool add_node(topo_t *live, topo_t *fresh, int os_index)
{
    if (topo_node(live, os_index))
        return true;
    topo_node_t *f = topo_node(fresh, os_index);
    int n = live->nnodes;
    if (!f || n >= live->cap_nodes || os_index >= live->node_span)
        return false;
    for (int k = 0; k < fresh->nnodes; k++) {
        int o = fresh->nodes[k].os_index;
        if (o < live->node_span) {
            live->distance[os_index * live->node_span + o] = topo_distance(fresh, os_index, o);
            live->distance[o * live->node_span + os_index] = topo_distance(fresh, o, os_index);
        }
    }
    live->nodes[n] = *f;
    f->cpuset = NULL; /* live's now */
    f->memtier_nodes = NULL;
    atomic_store_explicit(&live->nnodes, n + 1, memory_order_release);
    return true;
}

/* Figures per initiator are indexed by node number up to the span. */
static bool fit_span(topo_attr_t **figures, int from, int to)
{
    topo_attr_t *v = calloc((size_t)to, sizeof *v);
    if (!v)
        return false;
    memcpy(v, *figures, (size_t)(from < to ? from : to) * sizeof *v);
    free(*figures);
    *figures = v;
    return true;
}

static bool name_taken(const topo_t *t, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(t->targets[i].name, name) == 0)
            return true;
    return false;
}

/* Names are never reused: a target that went away keeps its own, so one
 * that appeared takes the next free ordinal of its name's prefix. */
static void unique_name(const topo_t *live, int count, struct loci_target *tg)
{
    for (int n = 0; name_taken(live, count, tg->name); n++)
        snprintf(tg->name, sizeof tg->name, "%s%d", topo_name_prefix(tg), n);
}

static bool add_target(topo_t *live, topo_t *fresh, struct loci_target *f)
{
    int n = live->ntargets;
    const char *full = n >= live->cap_targets ? "no room left for targets that appear at run time"
                       : f->numa_node >= 0 && !add_node(live, fresh, f->numa_node)
                           ? "its node number is beyond the kernel's possible nodes at discovery"
                       : fresh->node_span != live->node_span && !(fit_span(&f->bandwidth, fresh->node_span,
                                                                           live->node_span) &&
                                                                  fit_span(&f->latency, fresh->node_span,
                                                                           live->node_span))
                           ? "out of memory"
                           : NULL;
    if (full) {
        loci__log(LOCI_LOG_WARN, "target %s appeared at run time but is not used: %s", f->name, full);
        return false;
    }
    struct loci_target *tg = &live->targets[n];
    memcpy(tg, f, sizeof *tg);
    tg->index = n;
    tg->near_devices = fresh->ndevices == live->ndevices ? f->near_devices : 0;
    unique_name(live, n, tg);
    f->bandwidth = f->latency = NULL; /* live's now */
    f->path = f->unreachable = NULL;
    f->store = NULL;
    atomic_store_explicit(&live->ntargets, n + 1, memory_order_release);
    char cap[32];
    loci__log(LOCI_LOG_INFO, "target %s appeared: kind %s (from %s), %s%s%s", tg->name, topo_kind_name(tg->kind),
              topo_source_name(tg->kind_source), units_format_size(tg->capacity.value, cap, sizeof cap),
              tg->path ? ", " : "", tg->path ? tg->path : "");
    return true;
}

int topo_merge(topo_t *live, topo_t *fresh)
{
    update_tiers(live, fresh);
    int changed = 0, before = live->ntargets;
    for (int i = 0; i < before; i++) {
        struct loci_target *tg = &live->targets[i];
        const struct loci_target *f = find(fresh, fresh->ntargets, tg, true);
        if (!f) {
            changed += !topo_target_gone(tg) && mark_gone(tg);
            continue;
        }
        if (topo_target_gone(tg)) {
            mark_back(live, tg);
            changed++;
        }
        if (f->capacity.source == tg->capacity.source && f->capacity.value != tg->capacity.value) {
            __atomic_store_n(&tg->capacity.value, f->capacity.value, __ATOMIC_RELAXED);
            changed++;
        }
    }
    for (int i = 0; i < fresh->ntargets; i++) {
        struct loci_target *f = &fresh->targets[i];
        if (present(f) && !find(live, before, f, false))
            changed += add_target(live, fresh, f);
    }
    return changed;
}
