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
 *                            arena it made way for never came); read by a
 *                            thread on CPU 1, it must leave out what CPU 0's
 *                            lists hold (an allocation on CPU 1 cannot take
 *                            them: the kernel drains another CPU's list only
 *                            after a direct reclaim that made progress)
 *
 * Exit 0 ok, 1 a check failed, 2 setup error.
 */
#include "os/vm.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB (1ull << 20)

/* The pages on the lists of `cpu` (-1: of every CPU) for the node, in
 * bytes, as /proc/zoneinfo says now. */
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
        return 2;
    }
    return 0;
}

static int freed(int node, size_t mib)
{
    if (run_on(0) != 0) /* the lists are per CPU: one CPU's frees */
        return 2;
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
        printf("FAIL: %llu KiB of the %zu MiB unmapped did not come back as room\n",
               (unsigned long long)((held + size - back) >> 10), mib);
        return 1;
    }
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || run_on(1) != 0) {
        printf("ok (one CPU: no other CPU's lists to leave out)\n");
        return 0;
    }
    uint64_t elsewhere = room(&p), on_0 = zone_lists(node, 0), on_1 = zone_lists(node, 1);
    printf("node %d: room %llu KiB read on CPU 1; CPU 0's lists %llu KiB, CPU 1's %llu KiB\n", node,
           (unsigned long long)(elsewhere >> 10), (unsigned long long)(on_0 >> 10), (unsigned long long)(on_1 >> 10));
    /* On CPU 1 the room is what CPU 0 reads less CPU 0's lists, plus CPU 1's (a MiB for what others did). */
    if (elsewhere + on_0 > back + on_1 + MiB) {
        printf("FAIL: CPU 1 counts %llu KiB of CPU 0's lists as room\n",
               (unsigned long long)((elsewhere + on_0 - back - on_1) >> 10));
        return 1;
    }
    printf("ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "freed") == 0)
        return freed(atoi(argv[2]), (size_t)atoi(argv[3]));
    fprintf(stderr, "usage: vm_room freed NODE MIB\n");
    return 2;
}
