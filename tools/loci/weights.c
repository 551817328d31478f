/* `loci weights [--set] [--from NODE]`: the interleave weights the NUMA
 * nodes' bandwidths ask for beside the kernel's, and (root) setting them.
 * The kernel's weights are the whole system's (docs/INTENTS.md): loci never
 * writes them by itself; this command is the administrator's explicit step. */
#include "os/vm.h"
#include "alloc/allocator.h"
#include "commands.h"
#include "format.h"

#include <stdio.h>
#include <string.h>

enum { MAX_NODES = 64 };

int cmd_weights(int argc, char **argv)
{
    bool set = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--set") == 0)
            set = true;
        else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
            int rc = tool_set_initiator(argv[++i]);
            if (rc)
                return rc;
        } else {
            fprintf(stderr, "loci weights: unknown argument '%s'\nusage: loci weights [--set] [--from NODE]\n",
                    argv[i]);
            return 2;
        }
    }
    const topo_t *t = topo_get();
    int initiator = topo_initiator(t);
    uint64_t all[PLACE_MAX_NODES / 64];
    memset(all, 0xff, sizeof all);
    int nodes[MAX_NODES];
    uint64_t bw[MAX_NODES];
    unsigned want[MAX_NODES];
    int n = interleave_nodes(initiator, all, nodes, bw, MAX_NODES);
    if (n == 0) {
        fprintf(stderr, "loci weights: this machine has no NUMA memory targets\n");
        return 1;
    }
    bool known = interleave_weights(bw, n, want) == 0;
    bool kernel = !t->simulated && vm_has_weighted_interleave();

    printf("interleave weights from node %d's view (partition=interleave)%s\n", initiator,
           t->simulated ? ", simulated machine" : "");
    printf("%-6s %-12s %14s %7s %7s\n", "node", "target", "bandwidth", "wanted", "kernel");
    for (int i = 0; i < n; i++) {
        char now[16] = "-";
        unsigned w;
        if (kernel && vm_interleave_weight(nodes[i], &w) == 0)
            snprintf(now, sizeof now, "%u", w);
        char bws[32];
        printf("%-6d %-12s %14s %7u %7s\n", nodes[i], topo_target_of_node((topo_t *)t, nodes[i])->name,
               format_bandwidth_gbps(bw[i], bws, sizeof bws), want[i], now);
    }
    if (!known)
        printf("a bandwidth is unknown: the weights stay even (set figures in LOCI_CONFIG, docs/DISCOVERY.md)\n");
    if (t->simulated) {
        if (set) {
            fprintf(stderr, "loci weights: the machine is simulated (LOCI_TOPOLOGY): its weights are not this "
                            "kernel's; not set\n");
            return 1;
        }
        return 0;
    }
    if (!kernel) {
        printf("this kernel has no MPOL_WEIGHTED_INTERLEAVE (Linux 6.9+): partition=interleave spreads pages "
               "evenly\n");
        if (set) {
            fprintf(stderr, "loci weights: nothing to set on this kernel\n");
            return 1;
        }
        return 0;
    }
    if (!set)
        return 0;
    for (int i = 0; i < n; i++)
        if (vm_set_interleave_weight(nodes[i], want[i]) != 0) {
            fprintf(stderr, "loci weights: %s\n", loci_last_error());
            return 1;
        }
    printf("set: new weighted-interleave allocations on this system follow these weights\n");
    return 0;
}
