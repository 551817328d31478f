/*
 * A node's room as loci reads it (src/os/node_room.c) against what the
 * kernel does with memory freed there.
 *
 *   vm_room freed NODE MIB   MIB bound to NODE are touched, then unmapped by a
 *                            thread on CPU 0; the room loci reads right after
 *                            must have grown by all of it — also the pages the
 *                            kernel keeps on its CPUs' free lists, which MemFree
 *                            leaves out (on 6.12 they stay there: a tier
 *                            tiering had just emptied read as full, and the hot
 *                            arena it made way for never came); up to three tries
 *   vm_room mover NODE MIB   NODE is filled by moving pages there until the
 *                            kernel gives no more (its zone at the min
 *                            watermark); MIB of them are unmapped by a thread
 *                            on CPU 0 (on 6.12 they stay on CPU 0's list);
 *                            then all the room loci reads on CPU 1 must reach
 *                            the node when a thread there moves pages to it,
 *                            but for what the kernel keeps on CPU 1's lists
 *                            (another CPU's list is no room for it: the
 *                            kernel drains it only after a direct reclaim that
 *                            made progress, none on a node of anonymous memory)
 *
 * Exit 0 ok, 1 a check failed, 2 setup error.
 */
#include "os/vm.h"
#include "node_memory.h"
#include "page_nodes.h"

#include <errno.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

/* The pages on the node's lists of CPU `cpu` (-1: of every CPU), in bytes,
 * as /proc/zoneinfo says now. */
static uint64_t zone_lists(int node, int cpu)
{
    FILE *f = fopen("/proc/zoneinfo", "re");
    if (!f)
        return 0;
    char line[512];
    int cur = -1, on = -1;
    unsigned long long v, lists = 0;
    while (fgets(line, sizeof line, f)) {
        int n;
        const char *t = line + strspn(line, " ");
        if (sscanf(line, "Node %d, zone", &n) == 1)
            cur = n;
        else if (sscanf(t, "cpu: %d", &n) == 1)
            on = n;
        else if (cur == node && (cpu < 0 || on == cpu) && sscanf(t, "count: %llu", &v) == 1)
            lists += v;
    }
    fclose(f);
    return lists * 4096;
}

static uint64_t room(const place_t *p)
{
    uint64_t b = 0;
    usleep(150 * 1000); /* past node_room's 100 ms of zoneinfo */
    if (vm_nodes_free(p, &b) != 0) {
        fprintf(stderr, "vm_room: vm_nodes_free failed\n");
        exit(2);
    }
    return b;
}

/* Run the calling thread on `cpu` only. */
static int run_on(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        fprintf(stderr, "vm_room: cannot run on CPU %d: %m\n", cpu);
        return -1;
    }
    return 0;
}

/* One try of `vm_room freed`: 0 the room grew by all of it, 1 not, 2 setup error. */
static int freed_once(int node, size_t mib)
{
    place_t p = {.policy = PLACE_BIND, .base_pages = true}; /* base pages: the lists hold order-0 pages */
    place_add_node(&p, node);
    size_t size = mib * MiB;
    char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || vm_apply_policy(m, size, &p, 0) != 0) {
        fprintf(stderr, "vm_room: cannot map %zu MiB bound to node %d\n", mib, node);
        return 2;
    }
    memset(m, 1, size);
    uint64_t held = room(&p), lists_before = zone_lists(node, -1);
    munmap(m, size);
    uint64_t back = room(&p), lists_after = zone_lists(node, -1);
    printf("node %d: room %llu KiB with %zu MiB touched, %llu KiB after the unmap (%+lld KiB); the CPUs' lists "
           "%llu -> %llu KiB\n", node, (unsigned long long)(held >> 10), mib, (unsigned long long)(back >> 10),
           ((long long)back - (long long)held) / 1024, (unsigned long long)(lists_before >> 10),
           (unsigned long long)(lists_after >> 10));
    if (back + MiB < held + size) { /* a MiB for what others did meanwhile */
        printf("%llu KiB of the %zu MiB unmapped did not come back as room\n",
               (unsigned long long)((held + size - back) >> 10), mib);
        return 1;
    }
    return 0;
}

/* Three tries: the node with the CPUs is the guest's own, and what it allocates there between
 * the two readings (the console, the harness) once took more than the MiB allowed for it. A
 * room that leaves the lists out misses what they hold at every try. */
static int freed(int node, size_t mib)
{
    if (run_on(0) != 0) /* the lists are per CPU: one CPU's frees */
        return 2;
    for (int try = 1; try <= 3; try++) {
        int rc = freed_once(node, mib);
        if (rc != 1) {
            if (rc == 0)
                printf("ok\n");
            return rc;
        }
    }
    printf("FAIL: at three tries of three, the room did not grow by what was unmapped\n");
    return 1;
}

/* Base pages touched on node 0, `size` bytes of them (MAP_FAILED: none). */
static char *touched(size_t size)
{
    place_t p = {.policy = PLACE_BIND, .base_pages = true};
    place_add_node(&p, 0);
    char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || vm_apply_policy(m, size, &p, 0) != 0)
        return MAP_FAILED;
    memset(m, 1, size);
    vm_reset_policy(m, size);
    return m;
}

/* Move the pages of [m, m + size) to `node`, in batches (the kernel stops
 * at a page it cannot place there, and says so for no page of that batch):
 * how many bytes of it are on `node` then. */
static size_t move_to(char *m, size_t size, int node)
{
    enum { BATCH = 512 };
    void *pages[BATCH];
    int nodes[BATCH], status[BATCH];
    size_t page = 4096, n_pages = size / page, there = 0;
    for (size_t off = 0; off < n_pages; off += BATCH) {
        size_t n = n_pages - off < BATCH ? n_pages - off : BATCH;
        for (size_t i = 0; i < n; i++) {
            pages[i] = m + (off + i) * page;
            nodes[i] = node;
        }
        if (move_pages(0, (unsigned long)n, pages, nodes, status, MPOL_MF_MOVE) < 0 && errno != ENOMEM)
            break;
    }
    int *where = calloc(n_pages + 1, sizeof *where);
    if (where && page_nodes(m, n_pages * page, where) == 0)
        for (size_t i = 0; i < n_pages; i++)
            there += where[i] == node;
    free(where);
    return there * page;
}

static int mover(int node, size_t mib)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        printf("skipped: one CPU, no other CPU's lists\n");
        return 77;
    }
    if (run_on(0) != 0)
        return 2;
    place_t p = {.policy = PLACE_BIND};
    place_add_node(&p, node);
    uint64_t before = room(&p);
    size_t fill = (size_t)(before + 64 * MiB) & ~(size_t)(MiB - 1); /* past the room: to the min watermark */
    char *full = touched(fill);
    if (full == MAP_FAILED) {
        fprintf(stderr, "vm_room: cannot touch %zu MiB on node 0\n", fill / MiB);
        return 2;
    }
    size_t moved = move_to(full, fill, node);
    if (moved < mib * MiB || moved == fill) {
        fprintf(stderr, "vm_room: %zu of %zu MiB moved to node %d: not filled to the kernel's refusal\n",
                moved / MiB, fill / MiB, node);
        return 2;
    }
    uint64_t at_full = room(&p);
    /* the pages that reached the node first: unmap MIB of them on CPU 0 */
    size_t freed_bytes = 0;
    int *where = calloc(fill / 4096, sizeof *where);
    if (!where || page_nodes(full, fill, where) != 0) {
        fprintf(stderr, "vm_room: cannot tell where the %zu MiB moved to node %d are\n", fill / MiB, node);
        return 2;
    }
    for (size_t i = 0; i < fill / 4096 && freed_bytes < mib * MiB; i++)
        if (where[i] == node) {
            munmap(full + i * 4096, 4096);
            freed_bytes += 4096;
        }
    free(where);
    uint64_t on_0 = zone_lists(node, -1);
    if (run_on(1) != 0)
        return 2;
    uint64_t counted = room(&p);
    node_memory(node, "when loci reads the room on CPU 1");
    size_t want = (size_t)counted & ~(size_t)4095;
    char *more = want ? touched(want) : NULL;
    if (more == MAP_FAILED) {
        fprintf(stderr, "vm_room: cannot touch %zu KiB on node 0\n", want >> 10);
        return 2;
    }
    size_t got = want ? move_to(more, want, node) : 0;
    uint64_t kept = zone_lists(node, 1);
    printf("node %d: room %llu KiB, %zu MiB moved there, room %llu KiB then; %zu MiB unmapped on CPU 0 "
           "(the CPUs' lists: %llu KiB); on CPU 1 loci counts %llu KiB of room, a move there got %zu KiB, "
           "and CPU 1's lists hold %llu KiB\n",
           node, (unsigned long long)(before >> 10), moved / MiB, (unsigned long long)(at_full >> 10),
           freed_bytes / MiB, (unsigned long long)(on_0 >> 10), (unsigned long long)(counted >> 10), got >> 10,
           (unsigned long long)(kept >> 10));
    /* what loci counts there must have reached the node or CPU 1's lists: a list the kernel refills
     * from the free pages keeps what it took once they reach the watermark (on 6.12 up to 4 MiB
     * here); a quarter MiB for what others did meanwhile */
    if (got + kept + MiB / 4 < want) {
        node_memory(node, "after the move on CPU 1");
        printf("FAIL: %llu KiB of the room loci counts on CPU 1 is neither on node %d nor on CPU 1's lists\n",
               (unsigned long long)((want - got - kept) >> 10), node);
        return 1;
    }
    printf("ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "freed") == 0)
        return freed(atoi(argv[2]), (size_t)atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "mover") == 0)
        return mover(atoi(argv[2]), (size_t)atoi(argv[3]));
    fprintf(stderr, "usage: vm_room freed NODE MIB | vm_room mover NODE MIB\n");
    return 2;
}
