/* Proves the VM test bed itself: the guest has the NUMA nodes the topology promises, the kernel
 * honours MPOL_BIND on each of them, and move_pages reports where pages really are. If this
 * fails, no placement test in the same VM can be trusted.
 *
 * usage: vm_selfcheck [EXPECTED_NODE_COUNT]     exit 0 ok, 1 check failed, 2 setup error */
#include "page_nodes.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { PAGES = 16, MAX_NODES = 1024 };

/* Sorted list of the node ids under /sys/devices/system/node (entries "nodeN"). */
static int list_nodes(int *ids, int max)
{
    DIR *d = opendir("/sys/devices/system/node");
    if (!d) {
        fprintf(stderr, "vm_selfcheck: cannot open /sys/devices/system/node: %s\n",
                strerror(errno));
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        char *end;
        if (strncmp(e->d_name, "node", 4) != 0)
            continue;
        long id = strtol(e->d_name + 4, &end, 10);
        if (end != e->d_name + 4 && *end == '\0' && id >= 0 && id < MAX_NODES)
            ids[n++] = (int)id;
    }
    closedir(d);
    for (int i = 1; i < n; i++)   /* insertion sort: a handful of nodes */
        for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
            int t = ids[j];
            ids[j] = ids[j - 1];
            ids[j - 1] = t;
        }
    return n;
}

/* Bind a fresh mapping to `node`, fault it in, and check every page landed there. */
static int check_node(int node)
{
    size_t len = PAGES * (size_t)sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "vm_selfcheck: mmap of %zu bytes: %s\n", len, strerror(errno));
        return 2;
    }
    unsigned long mask[MAX_NODES / (sizeof(unsigned long) * CHAR_BIT)] = {0};
    mask[node / (sizeof mask[0] * CHAR_BIT)] |= 1UL << (node % (sizeof mask[0] * CHAR_BIT));
    /* The kernel reads maxnode - 1 bits, hence the + 1. */
    if (mbind(p, len, MPOL_BIND, mask, sizeof mask * CHAR_BIT + 1, 0) != 0) {
        fprintf(stderr, "vm_selfcheck: mbind(MPOL_BIND, node %d): %s\n", node, strerror(errno));
        munmap(p, len);
        return 1;
    }
    memset(p, 0xa5, len);   /* first touch: this is when the kernel picks the node */

    char what[64];
    snprintf(what, sizeof what, "vm_selfcheck: node %d", node);
    int rc = pages_on_node(what, p, len, node) ? 0 : 1;
    if (rc == 0)
        printf("node %d: %d/%d pages bound with MPOL_BIND are on node %d\n", node, PAGES, PAGES,
               node);
    munmap(p, len);
    return rc;
}

/* Written default-policy memory still reports a node for every page after its process has run
 * for a few seconds. With the guest's automatic NUMA balancing on, its scanner (first pass after
 * 1 s of the task's CPU time, hence a busy wait and not a sleep) would have made these pages
 * PROT_NONE hints, which move_pages reports as EFAULT on 6.1: a placement check that runs late
 * would then fail (guest-init.sh turns the balancer off). */
static int check_still_reported(void)
{
    size_t len = 64 << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "vm_selfcheck: mmap of %zu bytes: %s\n", len, strerror(errno));
        return 2;
    }
    memset(p, 0x5a, len);
    for (time_t until = time(NULL) + 3; time(NULL) < until;)
        ;
    size_t n = page_count(p, len), unreported = 0;
    int *nodes = malloc(n * sizeof *nodes), why = 0;
    int rc = nodes ? page_nodes(p, len, nodes) : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (nodes[i] < 0 && unreported++ == 0)
            why = -nodes[i];
    if (rc != 0)
        fprintf(stderr, "vm_selfcheck: move_pages: %s\n", strerror(-rc));
    else if (unreported)
        fprintf(stderr, "vm_selfcheck: %zu of %zu written pages report no node 3 s later (e.g. %s): "
                        "is automatic NUMA balancing on (/proc/sys/kernel/numa_balancing)?\n",
                unreported, n, strerror(why));
    else
        printf("64 MiB written 3 s of CPU time ago: every page still reports its node\n");
    free(nodes);
    munmap(p, len);
    return rc != 0 ? 2 : unreported != 0;
}

int main(int argc, char **argv)
{
    int expected = argc > 1 ? atoi(argv[1]) : 0;
    int ids[MAX_NODES];
    int n = list_nodes(ids, MAX_NODES);
    if (n < 0)
        return 2;
    printf("vm_selfcheck: %d NUMA node(s) in /sys/devices/system/node\n", n);
    if (expected > 0 && n != expected) {
        fprintf(stderr, "vm_selfcheck: expected %d NUMA nodes, the guest has %d: the VM topology "
                        "is not what the suite assumes\n", expected, n);
        return 1;
    }

    int rc = 0;
    for (int i = 0; i < n; i++) {
        int r = check_node(ids[i]);
        rc = r > rc ? r : rc;
    }
    int r = check_still_reported();
    rc = r > rc ? r : rc;
    printf("vm_selfcheck: %s\n", rc == 0 ? "ok" : "FAILED");
    return rc;
}
