/*
 * Placement by intent under the real kernel (issue: intent-based allocation).
 *
 *   vm_placement place INTENT NODE   allocations of 8 B, 4 KiB, 1 MiB and 64 MiB made through
 *                                    an allocator for INTENT land, every page, on NUMA node NODE
 *   vm_placement fill  HBM_NODE NEXT_NODE
 *                                    "bandwidth=high!,fallback=null" fills HBM_NODE until loci
 *                                    returns NULL with ENOMEM (never the OOM killer), and then
 *                                    a request of the same size as "bandwidth=high" falls back to
 *                                    its next candidate, NEXT_NODE (smaller ones may still fit)
 *
 *   vm_placement malloc NODE         64 MiB from plain malloc land on NODE: what `loci run`
 *                                    promises for a program that knows nothing of loci
 *
 * The process runs on CPU 0 (initiator node 0) so that "near=pe" and rankings are seen from
 * node 0 on every topology. Exit 0 ok, 1 a check failed, 2 setup error.
 */
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {8, 4096, 1 << 20, 64 << 20};

static loci_allocator_t *allocator(const char *intent)
{
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a) {
        fprintf(stderr, "vm_placement: intent \"%s\" refused: %s\n", intent, loci_last_error());
        exit(1);
    }
    return a;
}

/* Allocate, touch every byte, and check every page and loci's own record. */
static int check_one(loci_allocator_t *a, const char *intent, size_t size, int node)
{
    char *p = loci_alloc(a, size);
    if (!p) {
        fprintf(stderr, "vm_placement: \"%s\": %zu bytes: %s\n", intent, size, loci_last_error());
        return 1;
    }
    memset(p, 0x5a, size);
    char what[128];
    snprintf(what, sizeof what, "\"%s\" %zu bytes", intent, size);
    int bad = !pages_on_node(what, p, size, node);
    loci_target_info_t info;
    if (loci_target_info(loci_ptr_target(p), &info) != 0 || info.numa_node != node) {
        fprintf(stderr, "vm_placement: %s: loci says it placed it on node %d, expected %d\n", what,
                info.numa_node, node);
        bad = 1;
    }
    if (!bad)
        printf("ok   %-40s %9zu B on node %d (%s)\n", intent, size, node, info.name);
    loci_free(p);
    return bad;
}

static int place(const char *intent, int node)
{
    loci_allocator_t *a = allocator(intent);
    int bad = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        bad |= check_one(a, intent, sizes[i], node);
    return bad;
}

static int fill(int hbm, int next)
{
    enum { CHUNK = 32 << 20, MAX_CHUNKS = 256 };
    static char *chunks[MAX_CHUNKS];
    loci_allocator_t *strict = allocator("bandwidth=high!,fallback=null");
    int n = 0, bad = 0;
    for (; n < MAX_CHUNKS; n++) {
        errno = 0;
        if (!(chunks[n] = loci_alloc(strict, CHUNK)))
            break;
        memset(chunks[n], 1, CHUNK);
        char what[64];
        snprintf(what, sizeof what, "fill chunk %d", n);
        bad |= !pages_on_node(what, chunks[n], CHUNK, hbm);
    }
    if (n == MAX_CHUNKS || errno != ENOMEM) {
        fprintf(stderr, "vm_placement: filling node %d: expected NULL with ENOMEM, got %s after %d chunks\n",
                hbm, n == MAX_CHUNKS ? "no failure" : strerror(errno), n);
        return 1;
    }
    printf("ok   node %d full after %d x 32 MiB: NULL, ENOMEM: %s\n", hbm, n, loci_last_error());
    if (n == 0) {
        fprintf(stderr, "vm_placement: not one chunk fitted on node %d\n", hbm);
        bad = 1;
    }
    /* the same need as a hint: the next candidate takes it */
    bad |= check_one(allocator("bandwidth=high"), "bandwidth=high", CHUNK, next);
    for (int i = 0; i < n; i++)
        loci_free(chunks[i]);
    /* and once memory is back, the strict intent fits again */
    bad |= place("bandwidth=high!,fallback=null", hbm);
    return bad;
}

int main(int argc, char **argv)
{
    cpu_set_t cpu0;
    CPU_ZERO(&cpu0);
    CPU_SET(0, &cpu0);
    if (sched_setaffinity(0, sizeof cpu0, &cpu0) != 0 || loci_init() != 0) {
        fprintf(stderr, "vm_placement: setup: %s\n", loci_last_error());
        return 2;
    }
    int rc;
    if (argc == 3 && strcmp(argv[1], "malloc") == 0) {
        size_t size = 64 << 20;
        char *p = malloc(size);
        memset(p, 1, size);
        rc = !pages_on_node("malloc under loci run", p, size, atoi(argv[2]));
        if (!rc)
            printf("ok   64 MiB of malloc on node %s\n", argv[2]);
        free(p);
    } else if (argc == 4 && strcmp(argv[1], "place") == 0)
        rc = place(argv[2], atoi(argv[3]));
    else if (argc == 4 && strcmp(argv[1], "fill") == 0)
        rc = fill(atoi(argv[2]), atoi(argv[3]));
    else {
        fprintf(stderr, "usage: vm_placement place INTENT NODE | fill HBM_NODE NEXT_NODE | malloc NODE\n");
        return 2;
    }
    loci_fini();
    return rc;
}
