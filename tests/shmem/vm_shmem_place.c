/*
 * Placement through libloci-shmem under a real kernel (tests/vm): with every
 * PE on node 0, memory asked for by intent lands, page by page as
 * move_pages reports, on the node the intent chooses — a partition
 * (shmemx_hhm_create) or a block of Open MPI's shmemx_malloc_with_hint:
 *   - pages the symmetric heap had touched before (a block written and
 *     freed first) are moved there when the partition is made;
 *   - pages this PE touches first land there;
 *   - pages first touched by another PE's put land there too: the binding
 *     belongs to the shared memory, not to one process's mapping.
 * The same binary on topologies nic1 and nic0 (near=nic: node 1, node 0)
 * and tiers3 (bandwidth=high: the HBM-like node 1).
 *
 * usage: vm_shmem_place WHAT NODE [WHAT NODE]...
 *   WHAT: an intent (a partition), or hint:high_bw | hint:low_lat | hint:near_nic
 */
#include "page_nodes.h"

#include <loci.h>
#include <loci_shmem.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SIZE = 4 << 20 };

static int me, npes, failures;

static void expect(const char *what, const char *how, const void *p, size_t len, int node)
{
    char label[200];
    snprintf(label, sizeof label, "PE %d: %s: %s", me, what, how);
    if (pages_on_node(label, p, len, node))
        printf("ok   %-72s on node %d\n", label, node);
    else
        failures++;
}

/* Pages the heap has touched: a block written and freed, as a program's earlier
 * data leaves them; the next allocation reuses them. */
static void dirty_heap(void)
{
    char *p = shmem_malloc(2 * SIZE);
    memset(p, 1, 2 * SIZE);
    shmem_free(p);
}

/* What was there before the partition's pages were first touched: the pages
 * already present must be on node already (moved). Returns how many there were. */
static size_t present_pages(const char *what, const char *p, int node)
{
    size_t n = page_count(p, SIZE), present = 0;
    int *nodes = malloc(n * sizeof *nodes);
    if (page_nodes(p, SIZE, nodes) != 0) {
        fprintf(stderr, "PE %d: %s: move_pages failed\n", me, what);
        failures++;
    }
    for (size_t i = 0; i < n; i++)
        if (nodes[i] >= 0) {
            present++;
            if (nodes[i] != node) {
                fprintf(stderr, "PE %d: %s: page %zu, touched before, still on node %d (expected %d)\n", me, what, i,
                        nodes[i], node);
                failures++;
            }
        }
    free(nodes);
    return present;
}

/* This PE writes the first half; the next PE's put writes the second half. */
static void touch(const char *what, char *p, int node)
{
    size_t moved = present_pages(what, p, node);
    if (moved == 0) { /* then the move was not tested: say so, loudly */
        fprintf(stderr, "PE %d: %s: none of its pages was touched before: the heap did not reuse the freed "
                        "block, pages already present were not tested\n", me, what);
        failures++;
    }
    static char src[SIZE / 2];
    memset(src, 'a' + me, sizeof src);
    memset(p, 2, SIZE / 2);
    shmem_barrier_all();
    shmem_putmem(p + SIZE / 2, src, SIZE / 2, (me + 1) % npes);
    shmem_barrier_all();
    int from = (me + npes - 1) % npes;
    if (p[SIZE - 1] != 'a' + from) {
        fprintf(stderr, "PE %d: %s: the put from PE %d did not arrive\n", me, what, from);
        failures++;
    }
    char how[64];
    snprintf(how, sizeof how, "%zu pages touched before", moved);
    expect(what, how, p, SIZE, node);
    expect(what, "written here", p, SIZE / 2, node);
    expect(what, "written by another PE's put", p + SIZE / 2, SIZE / 2, node);
}

static long hint_bit(const char *name)
{
    return !strcmp(name, "high_bw") ? SHMEM_HINT_HIGH_BW_MEM : !strcmp(name, "low_lat") ? SHMEM_HINT_LOW_LAT_MEM
         : !strcmp(name, "near_nic") ? SHMEM_HINT_NEAR_NIC_MEM : 0;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc < 3 || argc % 2 == 0) {
        fprintf(stderr, "usage: vm_shmem_place WHAT NODE [WHAT NODE]...\n");
        shmem_global_exit(2);
    }
    if (loci_initiator() != 0) {
        fprintf(stderr, "PE %d runs on node %d, expected 0 (bind the PEs there)\n", me, loci_initiator());
        shmem_global_exit(2);
    }
    for (int a = 1; a + 1 < argc; a += 2) {
        const char *what = argv[a];
        int node = atoi(argv[a + 1]);
        char label[96];
        dirty_heap();
        if (!strncmp(what, "hint:", 5)) {
            long bit = hint_bit(what + 5);
            if (!bit) {
                fprintf(stderr, "unknown hint %s (high_bw, low_lat, near_nic)\n", what);
                shmem_global_exit(2);
            }
            char *p = shmemx_malloc_with_hint(SIZE, bit);
            snprintf(label, sizeof label, "shmemx_malloc_with_hint %s", what + 5);
            touch(label, p, node);
            shmem_free(p);
        } else {
            int id = shmemx_hhm_create(what, SIZE);
            if (id < 0) {
                fprintf(stderr, "PE %d: %s\n", me, shmemx_hhm_last_error());
                shmem_global_exit(1);
            }
            snprintf(label, sizeof label, "partition \"%s\"", what);
            touch(label, shmemx_partition_malloc(id, SIZE), node);
            shmemx_hhm_destroy(id);
        }
    }
    static long all, mine;
    mine = failures;
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 0; pe < npes; pe++)
            all += shmem_long_g(&mine, pe);
        printf("vm_shmem_place: %s on %d PEs (%ld misplaced)\n", all ? "FAILED" : "passed", npes, all);
    }
    shmem_barrier_all();
    long rc = shmem_long_g(&all, 0);
    shmem_finalize();
    return rc ? 1 : 0;
}
