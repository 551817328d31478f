/* Where the kernel actually put pages: the ground truth that VM placement tests assert on.
 * move_pages(2) with a NULL node array moves nothing and reports each page's current node. */
#ifndef LOCI_VM_PAGE_NODES_H
#define LOCI_VM_PAGE_NODES_H

#include <stdbool.h>
#include <stddef.h>

/* Number of pages that [addr, addr + len) touches (partial pages at either end count). */
size_t page_count(const void *addr, size_t len);

/* Fill nodes[i] with the NUMA node of the i-th page of [addr, addr + len); nodes must hold
 * page_count(addr, len) entries. A page the kernel cannot place gets a negative errno instead:
 * -ENOENT (never touched), -EFAULT (not mapped, only read so far — the zero page — or, with
 * automatic NUMA balancing on, a page made PROT_NONE to sample accesses: guest-init.sh turns it off). Returns 0, or -errno if move_pages failed. */
int page_nodes(const void *addr, size_t len, int *nodes);

/* page_nodes of process pid's address range (0: this process; another's needs the right to
 * ptrace it, e.g. root). */
int page_nodes_of(int pid, const void *addr, size_t len, int *nodes);

/* True when every page of [addr, addr + len) is on `node`. Otherwise prints to stderr, under
 * the label `what`, each misplaced page (first few) and a per-node tally, and returns false. */
bool pages_on_node(const char *what, const void *addr, size_t len, int node);

#endif
