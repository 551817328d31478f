/* What the kernel says of a NUMA node's memory, printed where a VM test missed a goal: a move the
 * room allowed that the kernel could not make shows there. */
#ifndef LOCI_VM_NODE_MEMORY_H
#define LOCI_VM_NODE_MEMORY_H

/* Print `node`'s MemFree, and per zone its free pages, watermarks and the free pages on each
 * CPU's list (/proc/zoneinfo), labelled `when` ("at the start"). */
void node_memory(int node, const char *when);

#endif
