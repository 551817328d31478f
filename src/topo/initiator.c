/*
 * The initiator: the NUMA node (with CPUs) from which the calling thread sees
 * the machine. Figures and rankings depend on it.
 */
#include "topo/topo.h"

#include <sched.h>

/* Per-thread choice made with loci_initiator_set(); -1 = follow the CPU. */
static _Thread_local int chosen_initiator = -1;

static int first_with_cpus(const topo_t *t)
{
    for (int i = 0; i < t->nnodes; i++)
        if (t->nodes[i].has_cpus)
            return t->nodes[i].os_index;
    return t->nodes[0].os_index;
}

int topo_initiator(const topo_t *t)
{
    if (chosen_initiator >= 0)
        return chosen_initiator;
    unsigned cpu = 0, node = 0;
    if (getcpu(&cpu, &node) != 0)
        return first_with_cpus(t);
    for (int i = 0; i < t->nnodes; i++) {
        const topo_node_t *n = &t->nodes[i];
        /* live: the kernel's node; injected: the node whose CPUs include ours */
        bool match = t->simulated ? n->has_cpus && hwloc_bitmap_isset(n->cpuset, cpu)
                                  : n->os_index == (int)node && n->has_cpus;
        if (match)
            return n->os_index;
    }
    return first_with_cpus(t);
}

int loci_initiator(void)
{
    int rc = topo_ensure();
    return rc ? rc : topo_initiator(topo_get());
}

int loci_initiator_set(int node)
{
    int rc = topo_ensure();
    if (rc)
        return rc;
    if (node < 0) {
        chosen_initiator = -1;
        return 0;
    }
    topo_node_t *n = topo_node(topo_get(), node);
    if (!n || !n->has_cpus)
        return loci__fail(LOCI_EINVAL, "loci_initiator_set(%d): %s; an initiator is a NUMA node with CPUs",
                          node, n ? "that node has no CPUs" : "no such NUMA node");
    chosen_initiator = node;
    return 0;
}
