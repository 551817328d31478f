/*
 * Where another process's data is (proc_pages.c): the addresses of values
 * it holds, found by their tags in its memory, the NUMA node of each (what
 * move_pages(2) says for that process), and its resident memory per node
 * (/proc/PID/numa_maps). For a program one cannot change — Redis — whose
 * values sit among everything else of one heap: their pages are what a
 * placement must get right. Needs the right to read and query the process
 * (root, or CAP_SYS_PTRACE and CAP_SYS_NICE).
 */
#ifndef LOCI_BENCH_TIERING_PROC_PAGES_H
#define LOCI_BENCH_TIERING_PROC_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_PAGES_MAX_NODES 64

/* A value is tagged as Redis's DEBUG POPULATE makes them: "value:" and its key's number in
 * decimal, then zero bytes to its size. */
/** Writes the value of key `id`, `len` bytes (at least 32). */
void proc_pages_value(char *value, size_t len, uint64_t id);
/** The key number a value carries, or UINT64_MAX when it has no tag. */
uint64_t proc_pages_id(const char *value, size_t len);

typedef struct {
    size_t found, duplicates; /* keys whose value was found once; tags seen again for a found key */
    double seconds;           /* the scan's */
    double mib;               /* memory read */
} proc_scan_t;

/** Finds, in the resident memory of process `pid`, each value of `value_bytes` bytes with
 *  a tag of a key below `nkeys`, stored as a Redis string (an sds: its header right before
 *  the bytes says that length — which copies in buffers lack, and values of another size
 *  do not say): addr[id] = its address, 0 where none was found. 0, or -1 with errno (the
 *  process's memory unreadable). */
int proc_pages_find(pid_t pid, size_t value_bytes, uint64_t nkeys, uintptr_t *addr, proc_scan_t *scan);

/** node[i] = the NUMA node of the page holding addr[i] in process `pid`; -1 where the
 *  page is not mapped now (not yet touched, or unmapped by a sampler) or addr[i] is 0. */
int proc_pages_nodes(pid_t pid, size_t n, const uintptr_t *addr, int *node);

/** mib[node] = the process's resident memory on each node (numa_maps), for nodes
 *  0..PROC_PAGES_MAX_NODES-1. 0, or -1. */
int proc_pages_per_node(pid_t pid, double *mib);

#endif
