/*
 * Placement through libloci-mpi under a real kernel (tests/vm, topologies
 * nic1 and nic0): with every process on node PE_NODE, memory asked for
 * near the NIC lands on NIC_NODE and memory asked for near the PE on
 * PE_NODE — page by page, as move_pages reports — for MPI_Alloc_mem (by
 * loci_intent and by mpich_buf_type), MPI_Win_allocate, and
 * MPI_Win_allocate_shared, whose parts process 0 touches for everyone:
 * the binding made by each part's owner must hold for the process that
 * faults the pages in; and both windows again with parts of different
 * sizes, one of them empty. The same binary passes on nic1 (NIC_NODE 1) and
 * nic0 (NIC_NODE 0): SharP's portability check.
 *
 * usage: vm_mpi_place NIC_NODE PE_NODE     (any number of processes, singleton too)
 */
#include "page_nodes.h"

#include <loci.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SIZE = 4 << 20 };

static int rank, nprocs, failures;
static volatile sig_atomic_t verdict; /* the exit status once every check is done */

#ifdef MPICH_VERSION
/* MPICH 4.0's ch4:ucx may never leave MPI_Finalize: a process in its PMI
 * barrier (blocked reading the PMI socket) keeps a peer's ucp_disconnect_nb
 * from completing, and that peer spins (seen in the VM, one emulated CPU,
 * about 1 run in 14 under load: guest-init's where_stuck showed exactly
 * these two states). MPICH removed that barrier (pmodels/mpich#6596, 4.2).
 * Every check has been made by then: the verdict stands, and the hang is
 * said. */
static void finalize_hung(int sig)
{
    (void)sig;
    static const char msg[] = "vm_mpi_place: MPI_Finalize did not return within 60 s (MPICH 4.0 ch4:ucx finalize "
                              "hang, pmodels/mpich#6596); exiting with the checks' verdict\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(verdict);
}
#endif

static void expect(const char *what, void *p, size_t len, int node)
{
    char label[160];
    snprintf(label, sizeof label, "rank %d: %s", rank, what);
    if (pages_on_node(label, p, len, node))
        printf("ok   %-58s on node %d\n", label, node);
    else
        failures++;
}

static MPI_Info info1(const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    return info;
}

static void alloc_mem(const char *key, const char *value, int node)
{
    MPI_Info info = info1(key, value);
    char *p;
    if (MPI_Alloc_mem(SIZE, info, &p) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Alloc_mem(%s=%s) failed\n", rank, key, value);
        exit(1);
    }
    memset(p, 1, SIZE);
    char what[96];
    snprintf(what, sizeof what, "MPI_Alloc_mem %s=%s", key, value);
    expect(what, p, SIZE, node);
    MPI_Free_mem(p);
    MPI_Info_free(&info);
}

static void window(const char *intent, int node)
{
    MPI_Info info = info1("loci_intent", intent);
    char *p;
    MPI_Win win;
    if (MPI_Win_allocate(SIZE, 1, info, MPI_COMM_WORLD, &p, &win) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Win_allocate(%s) failed\n", rank, intent);
        exit(1);
    }
    memset(p, 1, SIZE);
    char what[96];
    snprintf(what, sizeof what, "MPI_Win_allocate loci_intent=%s", intent);
    expect(what, p, SIZE, node);
    MPI_Win_free(&win);
    MPI_Info_free(&info);
}

static void shared_window(const char *intent, int node)
{
    MPI_Info info = info1("loci_intent", intent);
    MPI_Info_set(info, "alloc_shared_noncontig", "true"); /* each part on pages of its own */
    char *p;
    MPI_Win win;
    if (MPI_Win_allocate_shared(SIZE, 1, info, MPI_COMM_WORLD, &p, &win) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Win_allocate_shared(%s) failed\n", rank, intent);
        exit(1);
    }
    if (rank == 0) /* process 0 faults in every part: the policy must come with the memory */
        for (int r = 0; r < nprocs; r++) {
            MPI_Aint size;
            int disp;
            char *part;
            MPI_Win_shared_query(win, r, &size, &disp, &part);
            memset(part, 1, (size_t)size);
            char what[96];
            snprintf(what, sizeof what, "MPI_Win_allocate_shared part %d loci_intent=%s", r, intent);
            expect(what, part, (size_t)size, node);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Info_free(&info);
}

/* Parts of different sizes, one of them empty (process 1's; a singleton's
 * only part): the empty part gets the MPI's own base (MPICH: NULL) and the
 * window is made; every other part lands on `node`. */
static void uneven_windows(const char *intent, int node)
{
    MPI_Info info = info1("loci_intent", intent);
    MPI_Aint size = rank == 1 % nprocs ? 0 : (MPI_Aint)(rank + 1) << 20;
    char *p, what[128];
    MPI_Win win;
    if (MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, &p, &win) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Win_allocate(%lld bytes, %s) failed\n", rank, (long long)size, intent);
        exit(1);
    }
    if (size > 0) {
        memset(p, 1, (size_t)size);
        snprintf(what, sizeof what, "uneven MPI_Win_allocate, %lld bytes, loci_intent=%s", (long long)size, intent);
        expect(what, p, (size_t)size, node);
    } else
        printf("ok   rank %d: uneven MPI_Win_allocate, empty part, base %s\n", rank, p ? "set" : "NULL");
    MPI_Win_free(&win);

    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    if (MPI_Win_allocate_shared(size, 1, info, MPI_COMM_WORLD, &p, &win) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: MPI_Win_allocate_shared(%lld bytes, %s) failed\n", rank, (long long)size, intent);
        exit(1);
    }
    if (rank == 0) /* process 0 faults in every part, the empty one queried too */
        for (int r = 0; r < nprocs; r++) {
            MPI_Aint part_size;
            int disp;
            char *part;
            MPI_Win_shared_query(win, r, &part_size, &disp, &part);
            if (r == 1 % nprocs) {
                if (part_size == 0)
                    printf("ok   rank 0: uneven MPI_Win_allocate_shared, empty part %d, base %s\n", r,
                           part ? "set" : "NULL");
                else {
                    fprintf(stderr, "rank 0: empty part %d queried as %lld bytes\n", r, (long long)part_size);
                    failures++;
                }
                continue;
            }
            memset(part, 1, (size_t)((MPI_Aint)(r + 1) << 20));
            snprintf(what, sizeof what, "uneven MPI_Win_allocate_shared part %d, loci_intent=%s", r, intent);
            expect(what, part, (size_t)(r + 1) << 20, node);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 3) {
        fprintf(stderr, "usage: vm_mpi_place NIC_NODE PE_NODE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int nic = atoi(argv[1]), pe = atoi(argv[2]);
    if (loci_initiator() != pe) {
        fprintf(stderr, "rank %d runs on node %d, expected %d (bind the processes there)\n", rank,
                loci_initiator(), pe);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    alloc_mem("loci_intent", "near=nic", nic);
    alloc_mem("loci_intent", "near=pe", pe);
    alloc_mem("mpich_buf_type", "network", nic);
    window("near=nic", nic);
    window("near=pe", pe);
    shared_window("near=nic", nic);
    shared_window("near=pe", pe);
    uneven_windows("near=nic", nic);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("vm_mpi_place: %s on %d processes (%d misplaced)\n", all ? "FAILED" : "passed", nprocs, all);
    fflush(stdout);
    verdict = all ? 1 : 0;
#ifdef MPICH_VERSION
    signal(SIGALRM, finalize_hung);
    alarm(60);
#endif
    MPI_Finalize();
    return verdict;
}
