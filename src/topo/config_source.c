/*
 * A config file as a discovery source: SRC_CONFIG for LOCI_CONFIG,
 * SRC_MEASURED for saved measurements, so that an admin's figure outweighs a
 * measured one and both outweigh the machine's. discover.c applies it at
 * three points: NUMA targets' figures and kinds before classification; after
 * naming, the store targets, then renames, the figures of named targets and
 * new file tiers.
 */
#include "topo/topo_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The node whose view figures are given from when `initiator` is not set:
 * the node itself if it has CPUs, else the nearest one that has. */
static int nearest_initiator(topo_t *t, int node)
{
    topo_node_t *n = topo_node(t, node);
    if (n && n->has_cpus)
        return node;
    int best = -1, best_d = 0;
    for (int i = 0; i < t->nnodes; i++) {
        int d = topo_distance(t, t->nodes[i].os_index, node);
        if (t->nodes[i].has_cpus && (best < 0 || (d && d < best_d))) {
            best = t->nodes[i].os_index;
            best_d = d;
        }
    }
    return best;
}

static int apply_attributes(const topo_config_t *c, const topo_config_target_t *e, topo_t *t,
                            struct loci_target *tg)
{
    topo_attr_offer(&tg->capacity, e->capacity, c->source);
    if (e->kind != KIND_COUNT && c->source >= tg->kind_source) {
        tg->kind = e->kind;
        tg->kind_source = c->source;
    }
    if (!e->bandwidth && !e->latency)
        return 0;
    int ini = e->initiator >= 0 ? e->initiator : nearest_initiator(t, tg->numa_node);
    topo_node_t *n = topo_node(t, ini);
    if (!n || !n->has_cpus)
        return loci__fail(LOCI_ECONFIG,
                          "%s:%d: [target %s]: initiator = %d is not a NUMA node with CPUs here", c->path,
                          topo_config_line(e, "initiator"), e->name, ini);
    topo_attr_offer(&tg->bandwidth[ini], e->bandwidth, c->source);
    topo_attr_offer(&tg->latency[ini], e->latency, c->source);
    return 0;
}

int topo_config_apply_nodes(const topo_config_t *c, topo_t *t)
{
    for (int i = 0; i < c->ntargets; i++) {
        const topo_config_target_t *e = &c->targets[i];
        if (e->numa_node < 0)
            continue;
        struct loci_target *tg = topo_target_of_node(t, e->numa_node);
        if (!tg)
            return loci__fail(LOCI_ECONFIG,
                              "%s:%d: [target %s]: numa_node = %d, but %s has NUMA nodes %d to %d", c->path,
                              topo_config_line(e, "numa_node"), e->name, e->numa_node, t->origin, t->nodes[0].os_index,
                              t->nodes[t->nnodes - 1].os_index);
        int rc = apply_attributes(c, e, t, tg);
        if (rc)
            return rc;
    }
    return 0;
}

static struct loci_target *find_named(topo_t *t, const char *name)
{
    for (int i = 0; i < t->ntargets; i++)
        if (strcasecmp(t->targets[i].name, name) == 0)
            return &t->targets[i];
    return NULL;
}

int topo_config_add_stores(const topo_config_t *c, topo_t *t)
{
    for (int i = 0; i < c->ntargets; i++) {
        const topo_config_target_t *e = &c->targets[i];
        if (e->kind != KIND_STORE)
            continue;
        if (find_named(t, e->name))
            return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: that name is taken by another target; choose another "
                                            "name for the store (e.g. agg0)", c->path, e->line, e->name);
        int rc = topo_add_store(t, e->name, &e->rados);
        if (rc)
            return rc;
    }
    return 0;
}

static void list_names(topo_t *t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < t->ntargets; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->targets[i].name);
    }
}

/* A path that exists and is no directory: meant as a device-DAX node (a
 * missing directory stays a file tier the admin has yet to create). */
static bool is_device_path(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static int apply_devdax(const topo_config_t *c, const topo_config_target_t *e, topo_t *t)
{
    char where[600];
    bool kind_ok = e->kind == KIND_COUNT || e->kind == KIND_PMEM || e->kind == KIND_CXL;
    snprintf(where, sizeof where, "%s:%d", c->path, topo_config_line(e, "path"));
    int rc = topo_config_devdax(t, where, e->name, kind_ok ? e->kind : KIND_COUNT, e->path, "/sys", c->source);
    if (rc == 0 && !kind_ok) /* after the path: a file meant as a tier is told so first */
        rc = loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: a device-DAX target is kind pmem or cxl, not %s", c->path,
                        topo_config_line(e, "kind"), e->name, topo_kind_name(e->kind));
    struct loci_target *tg = rc ? NULL : find_named(t, e->name);
    snprintf(where, sizeof where, "%s:%d", c->path, topo_config_line(e, "capacity"));
    if (tg && e->capacity && (rc = topo_devdax_check_capacity(tg, e->capacity, where)) == 0)
        topo_attr_offer(&tg->capacity, e->capacity, c->source);
    return rc;
}

int topo_config_apply_named(const topo_config_t *c, topo_t *t)
{
    for (int i = 0; i < c->ntargets; i++) {
        const topo_config_target_t *e = &c->targets[i];
        struct loci_target *named = find_named(t, e->name);
        if (e->numa_node >= 0) {
            struct loci_target *tg = topo_target_of_node(t, e->numa_node);
            if (c->source != SRC_CONFIG) /* saved measurements never rename */
                continue;
            if (named && named != tg)
                return loci__fail(LOCI_ECONFIG,
                                  "%s:%d: [target %s]: that name is already taken by NUMA node %d; "
                                  "choose another name",
                                  c->path, e->line, e->name, named->numa_node);
            snprintf(tg->name, sizeof tg->name, "%s", e->name);
        } else if (e->path && is_device_path(e->path)) {
            int rc = apply_devdax(c, e, t);
            if (rc)
                return rc;
        } else if (e->path) {
            topo_kind_t kind = e->kind != KIND_COUNT ? e->kind : KIND_SSD;
            if (kind != KIND_SSD && kind != KIND_PMEM)
                return loci__fail(LOCI_ECONFIG,
                                  "%s:%d: [target %s]: a path tier is kind ssd or pmem, not %s", c->path,
                                  topo_config_line(e, "kind"), e->name, topo_kind_name(kind));
            if (named && named->dax_align) {
                return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: that name is device-DAX %s's", c->path,
                                  e->line, e->name, named->path);
            } else if (named && named->path) { /* e.g. moving ssd0 elsewhere */
                free(named->path);
                named->path = strdup(e->path);
                named->kind = kind;
            } else if (named) {
                return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: that name is NUMA node %d's",
                                  c->path, e->line, e->name, named->numa_node);
            } else {
                int rc = topo_add_file_tier(t, e->name, kind, e->path, c->source);
                if (rc)
                    return rc;
                named = find_named(t, e->name);
            }
            topo_attr_offer(&named->capacity, e->capacity, c->source);
        } else if (e->kind == KIND_STORE && named && named->kind == KIND_STORE) {
            topo_attr_offer(&named->capacity, e->capacity, c->source);
            int rc = apply_attributes(c, e, t, named);
            if (rc)
                return rc;
        } else if (!named) {
            char names[512];
            list_names(t, names, sizeof names);
            return loci__fail(LOCI_ECONFIG,
                              "%s:%d: unknown target '%s'; this machine has %s (add numa_node = N or "
                              "path = DIR to define a new one)",
                              c->path, e->line, e->name, names);
        } else {
            int rc = apply_attributes(c, e, t, named);
            if (rc)
                return rc;
        }
        if ((named = find_named(t, e->name)) && e->dirty_limit) /* mode=paged's write-behind there */
            named->dirty_limit = e->dirty_limit;
        if (named && e->dirty_background)
            named->dirty_background = e->dirty_background;
    }
    for (int i = 0; i < c->ntargets; i++) { /* by name, now that names are given */
        struct loci_target *tg = c->targets[i].tiering_budget.set ? find_named(t, c->targets[i].name) : NULL;
        if (tg)
            tg->tiering_budget = c->targets[i].tiering_budget;
    }
    return 0;
}
