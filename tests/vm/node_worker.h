/*
 * One worker of vm_node_tiering, however its arenas were made (auto arenas
 * through loci_arena_create, or MPI_Alloc_mem with tier=auto): it fills
 * them, says so on the board, and updates them — its arenas 2-3 hot while
 * the board says so, every arena a little always — until told to stop;
 * then it checks its data and writes its tiering totals on the board.
 */
#ifndef LOCI_VM_NODE_WORKER_H
#define LOCI_VM_NODE_WORKER_H

#include "node_board.h"

/** Run worker `index` on arenas arena[0..NODE_ARENAS-1] of NODE_ARENA_BYTES each: 0 when
 *  its data stayed intact, 1 otherwise. */
int node_worker_run(node_board_t *b, int index, uint64_t *arena[NODE_ARENAS]);

#endif
