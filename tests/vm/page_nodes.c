#include "page_nodes.h"

#include <errno.h>
#include <numaif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uintptr_t page_size(void) { return (uintptr_t)sysconf(_SC_PAGESIZE); }

size_t page_count(const void *addr, size_t len)
{
    uintptr_t ps = page_size(), start = (uintptr_t)addr & ~(ps - 1);
    uintptr_t end = ((uintptr_t)addr + len + ps - 1) & ~(ps - 1);
    return (end - start) / ps;
}

int page_nodes(const void *addr, size_t len, int *nodes) { return page_nodes_of(0, addr, len, nodes); }

int page_nodes_of(int pid, const void *addr, size_t len, int *nodes)
{
    size_t n = page_count(addr, len);
    uintptr_t ps = page_size(), start = (uintptr_t)addr & ~(ps - 1);
    void **pages = malloc((n ? n : 1) * sizeof *pages);
    if (!pages)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        pages[i] = (void *)(start + i * ps);
    /* nodes == NULL: query only; status receives the node or a negative errno per page. */
    long rc = move_pages(pid, n, pages, NULL, nodes, 0);
    int err = rc < 0 ? -errno : 0;
    free(pages);
    return err;
}

bool pages_on_node(const char *what, const void *addr, size_t len, int node)
{
    enum { SHOWN = 8, TALLY = 64 };
    size_t n = page_count(addr, len);
    int *nodes = malloc((n ? n : 1) * sizeof *nodes);
    if (!nodes) {
        fprintf(stderr, "%s: out of memory checking %zu pages\n", what, n);
        return false;
    }
    int rc = page_nodes(addr, len, nodes);
    if (rc < 0) {
        fprintf(stderr, "%s: move_pages failed: %s\n", what, strerror(-rc));
        free(nodes);
        return false;
    }

    /* tally[0..TALLY-1]: pages per node; tally[TALLY]: pages with no node (errno status). */
    size_t tally[TALLY + 1] = {0}, wrong = 0;
    uintptr_t ps = page_size(), start = (uintptr_t)addr & ~(ps - 1);
    for (size_t i = 0; i < n; i++) {
        int got = nodes[i];
        tally[got >= 0 && got < TALLY ? got : TALLY]++;
        if (got == node)
            continue;
        if (wrong++ < SHOWN) {
            if (got >= 0)
                fprintf(stderr, "%s: page %zu (%#lx) is on node %d, expected node %d\n", what, i,
                        (unsigned long)(start + i * ps), got, node);
            else
                fprintf(stderr, "%s: page %zu (%#lx) has no node (%s), expected node %d\n", what,
                        i, (unsigned long)(start + i * ps),
                        got == -ENOENT   ? "not present: never touched?"
                        : got == -EFAULT ? "no page of its own: read but never written (the zero page), "
                                           "unmapped, or a NUMA-balancing hint"
                                         : strerror(-got),
                        node);
        }
    }
    if (wrong) {
        fprintf(stderr, "%s: %zu of %zu pages not on node %d; pages per node:", what, wrong, n,
                node);
        for (int k = 0; k < TALLY; k++)
            if (tally[k])
                fprintf(stderr, " node%d=%zu", k, tally[k]);
        if (tally[TALLY])
            fprintf(stderr, " none/other=%zu", tally[TALLY]);
        fputc('\n', stderr);
    }
    free(nodes);
    return wrong == 0;
}
