/*
 * The board of vm_node_tiering: a file both the checker and its worker
 * processes (plain ones, or the ranks of an MPI job) map shared. The
 * checker writes who is hot and who is to stop; each worker writes where
 * its arenas are in its own address space (the checker asks the kernel,
 * move_pages on the worker's pid, which node their pages are on), its
 * tiering thread's intervals so far, and at exit its tiering totals.
 */
#ifndef LOCI_VM_NODE_BOARD_H
#define LOCI_VM_NODE_BOARD_H

#include <stdint.h>
#include <sys/types.h>

#define NODE_WORKERS_MAX 5
#define NODE_ARENAS 4              /* per worker: 0-1 always cold, 2-3 hot while the worker is hot */
#define NODE_HOT_FIRST 2
#define NODE_ARENA_BYTES (4u << 20)

typedef struct {
    pid_t pid;
    int ready;                      /* 1: arenas made and filled; -1: setup failed (said why) */
    uint64_t *arena[NODE_ARENAS];   /* in the worker's address space */
    uint64_t intervals;             /* its tiering thread's, so far */
    int finished;                   /* 1: the totals below are final, the worker is leaving */
    int data_intact;                /* every arena's words sum to their start plus the updates */
    int paused;                     /* its tiering paused (the heat source stopped) */
    uint64_t promoted, demoted, pingpong; /* final */
    uint64_t moves;                 /* its tiering's, so far */
    char source[16];                /* its heat source */
} node_worker_slot_t;

typedef struct {
    unsigned hot;  /* bit i: worker i's arenas 2-3 are hot */
    unsigned stop; /* bit i: worker i is to report and leave */
    node_worker_slot_t w[NODE_WORKERS_MAX];
} node_board_t;

/** The board in file `path`, mapped shared (created empty with create): NULL on error (said why). */
node_board_t *node_board_map(const char *path, int create);

/** Atomic reads and writes of board fields, which other processes change. */
#define NODE_GET(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)
#define NODE_SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELEASE)

#endif
