/*
 * The workers of `vm_node_tiering mpi` (tests/vm/vm_node_tiering.c) as the
 * ranks of one MPI job: rank i is worker i, its 4 arenas from MPI_Alloc_mem
 * with info loci_intent=MEMORY (e.g. bandwidth=high,tier=auto: each block an
 * auto arena of its own, libloci-mpi; "first-touch": no info, the MPI
 * library's own memory, for the kernel's modes in bench/tiering/node.sh),
 * made one rank after the other as the plain workers start one after the
 * other; then node_worker_run, and each rank's blocks given back with
 * MPI_Free_mem.
 *
 * usage (under mpirun, 4 ranks): vm_node_tiering_mpi_FLAVOUR BOARD MEMORY
 */
#include "node_worker.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    node_board_t *b = argc == 3 && rank < NODE_WORKERS_MAX ? node_board_map(argv[1], 0) : NULL;
    if (!b) {
        fprintf(stderr,
                "vm_node_tiering_mpi: rank %d: usage: vm_node_tiering_mpi BOARD first-touch|INTENT, at most %d ranks\n",
                rank, NODE_WORKERS_MAX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Info info = MPI_INFO_NULL;
    if (strcmp(argv[2], "first-touch")) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "loci_intent", argv[2]);
    }
    uint64_t *arena[NODE_ARENAS];
    for (int turn = 0; turn < size; turn++) {
        for (int a = 0; a < NODE_ARENAS && turn == rank; a++)
            if (MPI_Alloc_mem(NODE_ARENA_BYTES, info, &arena[a]) != MPI_SUCCESS) /* (fatal: MPI aborts) */
                MPI_Abort(MPI_COMM_WORLD, 2);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    int rc = node_worker_run(b, rank, arena);
    for (int a = 0; a < NODE_ARENAS; a++)
        MPI_Free_mem(arena[a]);
    MPI_Finalize();
    return rc;
}
