/*
 * One-sided communication on memory placed by intent: put, get and
 * accumulate across processes into MPI_Alloc_mem'd loci memory (exposed
 * with MPI_Win_create, fence and passive target), into MPI_Win_allocate
 * windows and into MPI_Win_allocate_shared windows (also by load/store).
 * Placement: the window's pages carry the intent's binding (MPOL_BIND on
 * the intent's node for a constraint), in a shared window as seen from
 * every process; a window without a loci key is left alone.
 */
#include "check.h"

#include <numaif.h>

enum { N = 1024 }; /* ints per process */

static int rank, nprocs;

/* The node a constraint intent binds to. */
static int intent_node(const char *intent)
{
    const loci_target_t *t[1];
    CHECK(loci_allocator_targets(loci_allocator_create(intent), t, 1) >= 1, "no target for %s", intent);
    loci_target_info_t ti;
    loci_target_info(t[0], &ti);
    return ti.numa_node;
}

/* The policy the kernel holds for the page at p: expect MPOL_BIND on `node`
 * (node < 0: expect no policy at all). */
static void check_policy(const char *what, void *p, int node)
{
    int mode = -1;
    unsigned long mask[16] = {0};
    CHECK(get_mempolicy(&mode, mask, 16 * 8 * sizeof(unsigned long), p, MPOL_F_ADDR) == 0, "%s: get_mempolicy", what);
    if (node < 0) {
        CHECK(mode == MPOL_DEFAULT, "%s: mode %d, expected MPOL_DEFAULT", what, mode);
        return;
    }
    unsigned long bit = 1ul << (node % (8 * sizeof(unsigned long)));
    CHECK(mode == MPOL_BIND && (mask[node / (8 * sizeof(unsigned long))] & bit), "%s: mode %d mask %#lx, expected MPOL_BIND on node %d",
          what, mode, mask[0], node);
}

/* Every process puts its rank into its right neighbour's slot `rank`, gets
 * slot 0 of its left neighbour, and adds rank+1 into slot N-1 of process 0. */
static void exchange_fence(MPI_Win win, int *mine)
{
    for (int i = 0; i < N; i++)
        mine[i] = -1;
    mine[0] = 1000 + rank;
    mine[N - 1] = 0;
    MPI_Win_fence(0, win);
    int right = (rank + 1) % nprocs, left = (rank + nprocs - 1) % nprocs, one = rank + 1, got = -1;
    MPI_Put(&rank, 1, MPI_INT, right, 1 + rank, 1, MPI_INT, win);
    MPI_Get(&got, 1, MPI_INT, left, 0, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, N - 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(mine[1 + left] == left, "put from %d: %d", left, mine[1 + left]);
    CHECK(got == 1000 + left, "get from %d: %d", left, got);
    if (rank == 0)
        CHECK(mine[N - 1] == nprocs * (nprocs + 1) / 2, "accumulate: %d", mine[N - 1]);
}

/* Passive target: every process adds into process 0 under a shared lock. */
static void exchange_passive(MPI_Win win, int *mine)
{
    mine[2] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int v = 10;
    for (int k = 0; k < 5; k++) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win); /* make the public copy private */
        CHECK(mine[2] == 50 * nprocs, "passive accumulate: %d", mine[2]);
        MPI_Win_unlock(0, win);
    }
}

/* MPI_Alloc_mem by intent, exposed with MPI_Win_create. */
static void alloc_mem_window(void)
{
    MPI_Info info = info1("loci_intent", "near=pe");
    int *mem;
    CHECK(MPI_Alloc_mem(N * sizeof(int), info, &mem) == MPI_SUCCESS, "MPI_Alloc_mem");
    CHECK(loci_ptr_target(mem) != NULL, "not loci memory");
    MPI_Win win;
    MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    exchange_fence(win, mem);
    exchange_passive(win, mem);
    MPI_Win_free(&win);
    CHECK(MPI_Free_mem(mem) == MPI_SUCCESS, "MPI_Free_mem");
    info_free(&info);
}

static void allocate_window(const char *intent)
{
    MPI_Info info = info1(intent ? "loci_intent" : NULL, intent);
    int *mem;
    MPI_Win win;
    CHECK(MPI_Win_allocate(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &mem, &win) == MPI_SUCCESS,
          "MPI_Win_allocate(%s)", intent ? intent : "no intent");
    check_policy("MPI_Win_allocate", mem, intent ? intent_node(intent) : -1);
    exchange_fence(win, mem);
    exchange_passive(win, mem);
    MPI_Win_free(&win);
    info_free(&info);
}

/* Each process binds its part; every process sees every part's binding. */
static void shared_window(const char *intent)
{
    MPI_Info info = info1("loci_intent", intent);
    int *mem;
    MPI_Win win;
    CHECK(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &mem, &win) == MPI_SUCCESS,
          "MPI_Win_allocate_shared(%s)", intent);
    for (int r = 0; r < nprocs; r++) {
        MPI_Aint size;
        int disp, *part;
        MPI_Win_shared_query(win, r, &size, &disp, &part);
        char what[64];
        snprintf(what, sizeof what, "part of process %d seen from %d", r, rank);
        check_policy(what, part + N / 2, intent_node(intent)); /* inside the part: its edges may share a page */
    }
    exchange_fence(win, mem);
    /* load/store through the shared memory */
    MPI_Win_lock_all(0, win);
    mem[3] = rank * 7;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    int left = (rank + nprocs - 1) % nprocs, *theirs;
    MPI_Aint size;
    int disp;
    MPI_Win_shared_query(win, left, &size, &disp, &theirs);
    CHECK(theirs[3] == left * 7, "load from %d's part: %d", left, theirs[3]);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    check_rank = rank;
    uint64_t live = loci_live_bytes();
    alloc_mem_window();
    allocate_window("near=pe!");
    allocate_window(NULL);
    shared_window("near=pe!");
    for (int i = 0; i < 20; i++) { /* windows come and go: nothing leaks, nothing breaks */
        int *mem;
        MPI_Win win;
        MPI_Info info = info1("loci_intent", i % 2 ? "near=pe!" : "latency=low");
        CHECK(MPI_Win_allocate(1 << 16, 1, info, MPI_COMM_WORLD, &mem, &win) == MPI_SUCCESS, "window %d", i);
        MPI_Win_free(&win);
        info_free(&info);
    }
    CHECK(loci_live_bytes() == live, "loci bytes in use: %llu before, %llu after", (unsigned long long)live,
          (unsigned long long)loci_live_bytes());
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_rma: passed on %d processes\n", nprocs);
    MPI_Finalize();
    return 0;
}
