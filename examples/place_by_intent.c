/*
 * Place data by intent and show where it landed.
 *
 *   place_by_intent ["intent" ...]
 *
 * For each intent: create an allocator, allocate 64 MiB, touch it, and print
 * the ranked candidate targets, the target loci chose, and the NUMA node the
 * kernel actually put each page on (move_pages). With no arguments, a set of
 * typical intents is used.
 */
#include <loci.h>

#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SIZE = 64 << 20 };

/* Count the pages of [p, p+len) per NUMA node, as the kernel reports them. */
static void print_page_nodes(const char *p, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t n = len / (size_t)page;
    void **pages = malloc(n * sizeof *pages);
    int *status = malloc(n * sizeof *status);
    int counts[64] = {0}, other = 0;
    for (size_t i = 0; i < n; i++)
        pages[i] = (void *)(p + i * (size_t)page);
    if (pages && status && move_pages(0, (unsigned long)n, pages, NULL, status, 0) == 0) {
        for (size_t i = 0; i < n; i++)
            if (status[i] >= 0 && status[i] < 64)
                counts[status[i]]++;
            else
                other++;
        printf("    pages by NUMA node (move_pages):");
        for (int node = 0; node < 64; node++)
            if (counts[node])
                printf(" node %d: %d", node, counts[node]);
        if (other)
            printf(" not placed: %d", other);
        printf("\n");
    } else {
        printf("    move_pages: not available here\n");
    }
    free(pages);
    free(status);
}

static void place(const char *intent)
{
    printf("intent \"%s\"\n", intent);
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a) {
        printf("    refused: %s\n", loci_last_error());
        return;
    }
    const loci_target_t *ranked[8];
    int n = loci_allocator_targets(a, ranked, 8);
    printf("    candidates:");
    for (int i = 0; i < n && i < 8; i++) {
        loci_target_info_t info;
        loci_target_info(ranked[i], &info);
        printf(" %s", info.name);
    }
    printf("\n");
    char *data = loci_alloc(a, SIZE);
    if (!data) {
        printf("    allocation failed: %s\n", loci_last_error());
        return;
    }
    memset(data, 1, SIZE);
    loci_target_info_t where;
    loci_target_info(loci_ptr_target(data), &where);
    printf("    64 MiB placed on %s (%s, node %d)%s\n", where.name, where.kind, where.numa_node,
           where.flags & LOCI_TARGET_SIMULATED ? " [simulated: recorded, not bound]" : "");
    if (!(where.flags & LOCI_TARGET_SIMULATED) && where.numa_node >= 0)
        print_page_nodes(data, SIZE);
    loci_free(data);
}

int main(int argc, char **argv)
{
    static const char *const typical[] = {"", "bandwidth=high", "latency=low", "capacity=large",
                                          "kind=cxl", "near=nic", "bandwidth=high!,fallback=null",
                                          "persist"};
    if (loci_init() != 0) {
        fprintf(stderr, "loci: %s\n", loci_last_error());
        return 1;
    }
    if (argc > 1)
        for (int i = 1; i < argc; i++)
            place(argv[i]);
    else
        for (size_t i = 0; i < sizeof typical / sizeof *typical; i++)
            place(typical[i]);
    loci_fini();
    return 0;
}
