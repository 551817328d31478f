/*
 * partition=interleave under the real kernel: how many pages of a 64 MiB block each node got,
 * for the intent "bandwidth=high,partition=interleave" (every NUMA target is a candidate; alone,
 * partition=interleave spreads over the DRAM nodes only, one node in the VM).
 *
 *   vm_interleave alloc  W0,W1,...   loci_alloc through an allocator for the intent
 *   vm_interleave range  W0,W1,...   loci_place_range(..., intent) on memory mapped by someone
 *                                    else (an MPI window)
 *   vm_interleave malloc W0,W1,...   plain malloc: what `loci run --intent <the intent>`
 *                                    promises a program that knows nothing of loci
 *
 * Wi is the weight node i should get. On a kernel with MPOL_WEIGHTED_INTERLEAVE (Linux 6.9+:
 * decided from uname, not from loci's own probe) every node's share of the pages must be within
 * ±2 % of Wi / sum(W); before 6.9 the kernel can only interleave evenly, so every node with
 * Wi > 0 must get an even share. Nodes with Wi = 0 (or beyond the list) must get no page.
 *
 * Transparent huge pages are off for this process: with them the kernel interleaves whole
 * 2 MiB pages, and 64 MiB is 32 of them, too few for ±2 % of an 11-page cycle (docs/INTENTS.md).
 * Runs on CPU 0 (initiator node 0). Exit 0 ok, 1 a check failed, 2 setup error.
 */
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>

#define INTENT "bandwidth=high,partition=interleave"
#define SIZE ((size_t)64 << 20)
#define MAX_NODES 8

static int die(const char *what)
{
    fprintf(stderr, "vm_interleave: %s failed: %s (loci: %s)\n", what, strerror(errno), loci_last_error());
    return 2;
}

/* Linux 6.9 or later (MPOL_WEIGHTED_INTERLEAVE and its sysfs weights). */
static int kernel_weighs(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
        return -1;
    return major > 6 || (major == 6 && minor >= 9);
}

static int check(const char *mode, const char *p, const unsigned *weights, int nweights)
{
    size_t n = page_count(p, SIZE);
    int *nodes = malloc(n * sizeof *nodes);
    if (!nodes || page_nodes(p, SIZE, nodes) != 0)
        return die("move_pages");
    size_t count[MAX_NODES] = {0}, elsewhere = 0;
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] >= 0 && nodes[i] < MAX_NODES)
            count[nodes[i]]++;
        else
            elsewhere++;
    }
    free(nodes);
    int weighs = kernel_weighs();
    double total = 0;
    for (int i = 0; i < nweights; i++)
        total += weighs ? weights[i] : weights[i] > 0;
    int bad = elsewhere > 0;
    printf("%s: %zu pages, kernel %s interleave\n", mode, n, weighs ? "weighted" : "plain (even)");
    for (int i = 0; i < MAX_NODES; i++) {
        double want = i < nweights ? (weighs ? weights[i] : weights[i] > 0) / total : 0;
        double got = (double)count[i] / (double)n;
        if (want == 0 && count[i] == 0)
            continue;
        int ok = want > 0 ? got >= want * 0.98 && got <= want * 1.02 : count[i] == 0;
        bad |= !ok;
        printf("  node %d: %6zu pages = %6.2f %%, expected %6.2f %% (±2 %% of it)  %s\n", i, count[i], got * 100,
               want * 100, ok ? "ok" : "WRONG");
    }
    if (elsewhere)
        printf("  %zu pages not resident or on a node beyond %d  WRONG\n", elsewhere, MAX_NODES - 1);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: vm_interleave alloc|range|malloc W0,W1,...\n");
        return 2;
    }
    unsigned weights[MAX_NODES];
    int nweights = 0;
    for (char *s = argv[2], *end; *s && nweights < MAX_NODES; s = *end ? end + 1 : end) {
        weights[nweights++] = (unsigned)strtoul(s, &end, 10);
        if (end == s || (*end && *end != ','))
            return fprintf(stderr, "vm_interleave: bad weight list '%s'\n", argv[2]), 2;
    }
    cpu_set_t cpu0;
    CPU_ZERO(&cpu0);
    CPU_SET(0, &cpu0);
    if (sched_setaffinity(0, sizeof cpu0, &cpu0) != 0 || prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
        return die("setup");
    if (loci_init() != 0)
        return die("loci_init");
    const char *mode = argv[1];
    char *p;
    if (strcmp(mode, "alloc") == 0) {
        loci_allocator_t *a = loci_allocator_create(INTENT);
        if (!a || !(p = loci_alloc(a, SIZE)))
            return die("loci_alloc(" INTENT ")");
    } else if (strcmp(mode, "range") == 0) {
        p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return die("mmap");
        if (loci_place_range(p, SIZE, INTENT) != 0)
            return die("loci_place_range(" INTENT ")");
    } else if (strcmp(mode, "malloc") == 0) {
        if (!(p = malloc(SIZE)))
            return die("malloc");
    } else {
        fprintf(stderr, "vm_interleave: unknown mode '%s'\n", mode);
        return 2;
    }
    memset(p, 0x5a, SIZE);
    int rc = check(mode, p, weights, nweights);
    loci_fini();
    return rc;
}
