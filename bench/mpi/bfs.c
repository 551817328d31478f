/*
 * Graph500-style BFS (SharP §6.3) with MPI one-sided communication, its
 * data placed near=pe and near=nic side by side.
 *
 * Graph: Kronecker (R-MAT a=0.57 b=0.19 c=0.19), 2^scale vertices,
 * edgefactor * 2^scale undirected edges, labels permuted; every process
 * generates the same edges from the seed and keeps those of its vertices
 * (vertex v belongs to process v % P). Data by intent: the adjacency
 * (CSR), the predecessor array and the send buffers come from
 * MPI_Alloc_mem, the receive buffer is an MPI_Win_allocate window — all
 * with the variant's loci_intent.
 * BFS: level-synchronous; a frontier vertex's local neighbours are
 * visited at once, remote ones are sent as (vertex, parent) pairs: per
 * destination an MPI_Fetch_and_op reserves room in its window, an MPI_Put
 * writes the pairs. TEPS = edges of the traversed component / time; per
 * variant the harmonic mean over the roots (as Graph500). Every tree is
 * checked: each visited vertex's parent is one of its neighbours, and both
 * variants visit the same vertices.
 *
 * usage: mpirun -np P bench_mpi_bfs [--quick] [--scale 16] [--edgefactor 16] [--roots 64] [--seed 1]
 */
#include "arguments.h"
#include "graph500.h" /* bench/common */
#include "timing.h"

#include <loci.h>
#include <mpi.h>

enum { NVARIANTS = 2, MAX_ROOTS = G500_MAX_ROOTS };
static const char *intents[NVARIANTS] = {"near=pe", "near=nic"};

static int rank, nprocs;

/* One variant: the local graph and the BFS arrays in its memory, and its window. */
typedef struct {
    g500_bfs_t b;  /* room: degsum pairs per destination */
    int64_t *recv; /* window: [0] = pairs received, then the pairs as int32 */
    MPI_Win win;
} graph_t;

static void *alloc_by(const char *intent, size_t bytes)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "loci_intent", intent);
    void *p;
    if (MPI_Alloc_mem((MPI_Aint)(bytes ? bytes : 1), info, &p) != MPI_SUCCESS) {
        fprintf(stderr, "bench_mpi_bfs: %zu bytes by \"%s\" refused\n", bytes, intent);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Info_free(&info);
    return p;
}

/* The local CSR of kg, into the variant's memory. */
static void build(graph_t *g, const char *intent, const kron_graph_t *kg)
{
    int64_t nlocal = kg->nlocal, degsum = kg->degsum;
    int64_t *xoff = alloc_by(intent, (size_t)(nlocal + 1) * sizeof *xoff);
    int32_t *adj = alloc_by(intent, (size_t)degsum * sizeof *adj);
    memcpy(xoff, kg->xoff, (size_t)(nlocal + 1) * sizeof *xoff);
    memcpy(adj, kg->adj, (size_t)degsum * sizeof *adj);
    g->b = (g500_bfs_t){
        .xoff = xoff,
        .adj = adj,
        .pred = alloc_by(intent, (size_t)nlocal * sizeof(int32_t)),
        .front = alloc_by(intent, (size_t)nlocal * sizeof(int32_t)),
        .next = alloc_by(intent, (size_t)nlocal * sizeof(int32_t)),
        .send = alloc_by(intent, (size_t)nprocs * 2 * (size_t)degsum * sizeof(int32_t)),
        .room = (size_t)degsum,
        .rank = rank,
        .nprocs = nprocs,
    };
    memset(g->b.send, 0, (size_t)nprocs * 2 * (size_t)degsum * sizeof(int32_t));
    /* what this process can receive in one level: one pair per edge of its vertices */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "loci_intent", intent);
    /* the same size on every process, whole pages: MPICH 4.0.2 (Debian 12) addresses
     * other processes' parts of MPI_Win_allocate windows wrongly when a size is not a
     * multiple of the page size (a plain MPI program, no loci, shows it) */
    MPI_Aint bytes = (MPI_Aint)(sizeof(int64_t) + 2 * (size_t)degsum * sizeof(int32_t)), most;
    MPI_Allreduce(&bytes, &most, 1, MPI_AINT, MPI_MAX, MPI_COMM_WORLD);
    bytes = (most + 4095) / 4096 * 4096;
    if (MPI_Win_allocate(bytes, 1, info, MPI_COMM_WORLD, &g->recv, &g->win) != MPI_SUCCESS) {
        fprintf(stderr, "bench_mpi_bfs: window by \"%s\" refused\n", intent);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(g->recv, 0, (size_t)bytes);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, g->win);
}

static void destroy(graph_t *g)
{
    MPI_Win_unlock_all(g->win);
    MPI_Win_free(&g->win);
    void *blocks[] = {(void *)g->b.xoff, (void *)g->b.adj, g->b.pred, g->b.front, g->b.next, g->b.send};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        MPI_Free_mem(blocks[i]);
}

/* One BFS from root over nlocal local vertices; returns seconds (the slowest process's). */
static double bfs(graph_t *g, int64_t nlocal, int32_t root)
{
    g500_bfs_t *b = &g->b;
    int64_t nfront = g500_start(b, nlocal, root), *count = calloc((size_t)nprocs, sizeof *count);
    int32_t *pairs = (int32_t *)(g->recv + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = clock_mono_s();
    for (;;) {
        int64_t nnext = g500_expand(b, nfront, count);
        for (int d = 0; d < nprocs; d++) {
            if (!count[d])
                continue;
            int64_t at;
            MPI_Fetch_and_op(&count[d], &at, MPI_INT64_T, d, 0, MPI_SUM, g->win);
            MPI_Win_flush(d, g->win);
            MPI_Put(b->send + (size_t)d * 2 * b->room, (int)(2 * count[d]), MPI_INT32_T, d,
                    (MPI_Aint)(sizeof(int64_t) + 2 * (size_t)at * sizeof(int32_t)), (int)(2 * count[d]),
                    MPI_INT32_T, g->win);
        }
        MPI_Win_flush_all(g->win);
        MPI_Win_sync(g->win);
        MPI_Barrier(MPI_COMM_WORLD); /* every pair for this process is in its window */
        MPI_Win_sync(g->win);
        int64_t received = g->recv[0];
        for (int64_t i = 0; i < received; i++)
            g500_visit(b, pairs[2 * i], pairs[2 * i + 1], &nnext);
        g->recv[0] = 0;
        MPI_Win_sync(g->win);
        int64_t total;
        MPI_Allreduce(&nnext, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD); /* also: counters reset */
        nfront = g500_advance(b, nnext);
        if (total == 0)
            break;
    }
    double mine = clock_mono_s() - t0, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(count);
    return slowest;
}

/* Check the tree (each visited vertex's parent is a neighbour, the root its
 * own parent); returns the edges of the component (both ends counted once
 * each, halved) and the visited vertices through *visited. */
static int64_t check(graph_t *g, int64_t nlocal, int32_t root, int64_t *visited)
{
    long long in[3], out[3];
    g500_check(&g->b, nlocal, root, in);
    MPI_Allreduce(in, out, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (out[2]) {
        if (rank == 0)
            fprintf(stderr, "bench_mpi_bfs: root %d: %lld vertices with a parent that is not a neighbour\n", root,
                    out[2]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    *visited = out[1];
    return out[0] / 2;
}

static graph_t g[NVARIANTS];
static int64_t nlocal;

/* What g500_compare calls: the variants by number, the reduction, the stop. */
static double bfs_of(int k, int32_t root) { return bfs(&g[k], nlocal, root); }
static int64_t check_of(int k, int32_t root, int64_t *visited) { return check(&g[k], nlocal, root, visited); }

static int64_t sum_all(int64_t v)
{
    int64_t sum;
    MPI_Allreduce(&v, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

static void differ(int32_t root, const int64_t visited[2])
{
    if (rank == 0)
        fprintf(stderr, "bench_mpi_bfs: root %d: %lld vertices visited near=pe, %lld near=nic\n", root,
                (long long)visited[0], (long long)visited[1]);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int scale = 16, edgefactor = 16, nroots = 64;
static uint64_t seed = 1;

static void quick(void)
{
    scale = 12;
    nroots = 4;
}

/* How a wrong command line ends the job (bench_arguments, bench_sizes). */
static void stop(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const bench_opt_t opts[] = {{"--scale", 'i', &scale}, {"--edgefactor", 'i', &edgefactor},
                                {"--roots", 'i', &nroots}, {"--seed", 'u', &seed}, {NULL, 0, NULL}};
    bench_arguments(argc, argv, opts, quick, "bench_mpi_bfs [--quick] [--scale 16] [--edgefactor 16] [--roots 64] "
                    "[--seed 1]", rank == 0, stop);
    if (scale < 1 || scale > 30 || edgefactor < 1 || nroots < 1 || nroots > MAX_ROOTS) {
        if (rank == 0)
            fprintf(stderr, "bench_mpi_bfs: --scale 1..30, --edgefactor >= 1, --roots 1..%d\n", MAX_ROOTS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double tg = clock_mono_s();
    kron_graph_t kg = {0};
    if (kron_build(&kg, scale, edgefactor, seed, rank, nprocs) != 0) {
        fprintf(stderr, "bench_mpi_bfs: out of memory building the graph\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t nverts = kg.nverts;
    nlocal = kg.nlocal;
    for (int k = 0; k < NVARIANTS; k++)
        build(&g[k], intents[k], &kg);
    tg = clock_mono_s() - tg;
    int32_t roots[MAX_ROOTS];
    g500_roots(&kg, seed, rank, nprocs, sum_all, roots, nroots);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n,")] = '\0';
    if (rank == 0) {
        printf("BFS scale %d edgefactor %d (%lld vertices, %lld edges), %d processes, %d roots; %s; "
               "graph built in %.1f s\n", scale, edgefactor, (long long)nverts, (long long)kg.nedges, nprocs,
               nroots, version, tg);
        printf("%5s %10s %10s %12s %12s %10s %8s\n", "root", "vertices", "edges", "pe MTEPS", "nic MTEPS",
               "nic/pe", "ms (pe)");
    }
    g500_compare_t compare = {{"near=pe", "near=nic"}, "nic/pe", bfs_of, check_of, differ, rank == 0};
    g500_compare(&compare, roots, nroots);
    for (int k = 0; k < NVARIANTS; k++)
        destroy(&g[k]);
    kron_free(&kg);
    MPI_Finalize();
    return 0;
}
