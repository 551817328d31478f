/*
 * Discovery: runs the sources in order of increasing trust (DESIGN.md §4),
 * then estimates, classifies and names. Where an attribute came from is kept
 * next to its value.
 */
#include "topo/topo_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Saved measurements: LOCI_MEASURED, else ~/.config/loci/measured.conf if
 * it exists. They describe this machine, so an injected topology skips them. */
static int load_measured(const topo_t *t, topo_config_t **out)
{
    *out = NULL;
    const char *path = env("LOCI_MEASURED");
    char buf[512];
    if (!path && !t->simulated) {
        const char *xdg = env("XDG_CONFIG_HOME"), *home = env("HOME");
        if (xdg)
            snprintf(buf, sizeof buf, "%s/loci/measured.conf", xdg);
        else if (home)
            snprintf(buf, sizeof buf, "%s/.config/loci/measured.conf", home);
        else
            return 0;
        if (access(buf, R_OK) != 0)
            return 0;
        path = buf;
    }
    return path ? topo_config_load(path, SRC_MEASURED, out) : 0;
}

/* A node whose memory is all offline (offlined at run time, before this
 * process started) is listed but holds nothing: gone, as a refresh would
 * have marked it. */
static void mark_nodes_without_memory(topo_t *t)
{
    for (int i = 0; i < t->ntargets; i++)
        if (t->targets[i].numa_node >= 0 && t->targets[i].capacity.value == 0)
            atomic_store(&t->targets[i].gone, topo_what_happened(&t->targets[i]));
}

static int build(topo_t *t, const topo_config_t *config, const topo_config_t *measured)
{
    const char *xml = env("LOCI_TOPOLOGY");
    hwloc_topology_t h;
    int rc = topo_source_hwloc(t, xml, &h);
    if (rc)
        return rc;
    if (!t->simulated)
        topo_source_sysfs(t, "/sys");
    topo_source_hwloc_attrs(t, h);
    hwloc_topology_destroy(h);
    if (!t->simulated)
        topo_source_sysfs_hmat(t, "/sys");
    for (int i = 0; i < t->ntargets; i++) /* a simulated node is as free as it is big */
        topo_attr_offer(&t->targets[i].available, t->targets[i].capacity.value, SRC_DEFAULT);
    if (measured && (rc = topo_config_apply_nodes(measured, t)))
        return rc;
    if (config && (rc = topo_config_apply_nodes(config, t)))
        return rc;
    topo_estimate(t);
    topo_classify(t);
    topo_name(t);
    if ((rc = topo_add_default_store(t)))
        return rc;
    if (!t->simulated && (rc = topo_source_devdax(t, "/sys", "/dev")))
        return rc;
    topo_source_gpus(t);
    if (config && (rc = topo_config_add_stores(config, t)))
        return rc;
    if (measured && (rc = topo_config_apply_named(measured, t)))
        return rc;
    if (config && (rc = topo_config_apply_named(config, t)))
        return rc;
    topo_estimate(t); /* again: named config entries may have brought figures */
    if (!t->simulated)
        mark_nodes_without_memory(t);
    return 0;
}

int topo_discover(topo_t **out)
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return loci__fail(LOCI_ENOMEM, "out of memory");
    const char *xml = env("LOCI_TOPOLOGY");
    t->simulated = xml != NULL;
    snprintf(t->origin, sizeof t->origin, "%s", xml ? xml : "this machine");

    /* LOCI_CONFIG stays with the topology: the front ends ask it until
     * loci_fini (config_query.c). Saved measurements are spent here. */
    topo_config_t *measured = NULL;
    int rc = 0;
    if (env("LOCI_CONFIG"))
        rc = topo_config_load(env("LOCI_CONFIG"), SRC_CONFIG, &t->config);
    if (rc == 0)
        rc = load_measured(t, &measured);
    if (rc == 0)
        rc = build(t, t->config, measured);
    topo_config_free(measured);
    if (rc) {
        topo_free(t);
        return rc;
    }
    *out = t;
    return 0;
}
