/*
 * Graph500-style BFS (SharP §6.3) in OpenSHMEM, its data in a partition by
 * intent and in the default symmetric heap side by side.
 *
 * Graph: bench/common/graph500.h (shared with bench/mpi/bfs.c); vertex v belongs to PE
 * v % npes. Every array — the adjacency (CSR), predecessors, frontiers,
 * send buffers and the receive buffer — is a symmetric block of the
 * variant, starting a page: shmem_align for "heap", shmemx_partition_align
 * for "partition" (each of the size of the largest PE's, so that blocks
 * stay symmetric).
 * BFS: level-synchronous; a frontier vertex's local neighbours are visited
 * at once, remote ones are sent as (vertex, parent) pairs: per destination
 * a shmem_long_atomic_fetch_add reserves room in its receive buffer and a
 * shmem_int_put writes the pairs; a barrier ends the level. TEPS = edges of
 * the traversed component / time; per variant the harmonic mean over the
 * roots (as Graph500). Every tree is checked: each visited vertex's parent
 * is one of its neighbours, and both variants visit the same vertices.
 *
 * usage: oshrun -np P bench_shmem_bfs [--quick] [--scale 16] [--edgefactor 16] [--roots 64] [--seed 1]
 *                                     [--intent near=nic]
 */
#include "bench_shmem.h"
#include "graph500.h" /* bench/common */

enum { HEAP, PARTITION, NVARIANTS, MAX_ROOTS = G500_MAX_ROOTS, NSUM = 3 };
static const char *names[NVARIANTS] = {"heap", "partition"};

static int me, npes;
static kron_graph_t graph;
static int64_t maxlocal, maxdeg; /* over every PE: the sizes of the symmetric blocks */

typedef struct {
    int part;         /* -1: the default heap */
    g500_bfs_t b;     /* the arrays, in the variant's memory */
    long long *recv;  /* [0]: pairs received, then the pairs as int32 */
} data_t;

/* --- reductions over every PE (symmetric scratch; two pSyncs used in turn) --- */
static long long red_in[NSUM], red_out[NSUM], red_wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + NSUM];
static double dred_in, dred_out, dred_wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
static int turn;

static long *next_psync(void) { return psync[turn ^= 1]; }

static void sum_all(long long *v, int n)
{
    memcpy(red_in, v, (size_t)n * sizeof *v);
    shmem_longlong_sum_to_all(red_out, red_in, n, 0, 0, npes, red_wrk, next_psync());
    memcpy(v, red_out, (size_t)n * sizeof *v);
}

static double max_all(double v)
{
    dred_in = v;
    shmem_double_max_to_all(&dred_out, &dred_in, 1, 0, 0, npes, dred_wrk, next_psync());
    return dred_out;
}

static long long max_all_ll(long long v)
{
    red_in[0] = v;
    shmem_longlong_max_to_all(red_out, red_in, 1, 0, 0, npes, red_wrk, next_psync());
    return red_out[0];
}

/* Bytes of one variant's blocks. */
static size_t data_bytes(void)
{
    return (size_t)(maxlocal + 1) * 8 + (size_t)maxdeg * 4 + 3 * (size_t)maxlocal * 4 +
           (size_t)npes * 2 * (size_t)maxdeg * 4 + 8 + 2 * (size_t)maxdeg * 4;
}

static void build(data_t *d, int part)
{
    size_t room = (size_t)(maxdeg ? maxdeg : 1); /* pairs one PE can receive or send to one PE in a level */
    d->part = part;
    d->recv = sym_alloc(part, 8 + 2 * room * 4);
    int64_t *xoff = sym_alloc(part, (size_t)(maxlocal + 1) * sizeof *xoff);
    int32_t *adj = sym_alloc(part, room * sizeof *adj);
    d->b = (g500_bfs_t){.xoff = xoff, .adj = adj, .room = room, .rank = me, .nprocs = npes,
                        .pred = sym_alloc(part, (size_t)maxlocal * sizeof(int32_t)),
                        .front = sym_alloc(part, (size_t)maxlocal * sizeof(int32_t)),
                        .next = sym_alloc(part, (size_t)maxlocal * sizeof(int32_t)),
                        .send = sym_alloc(part, (size_t)npes * 2 * room * sizeof(int32_t))};
    memcpy(xoff, graph.xoff, (size_t)(graph.nlocal + 1) * sizeof *xoff);
    memcpy(adj, graph.adj, (size_t)graph.degsum * sizeof *adj);
    memset(d->b.send, 0, (size_t)npes * 2 * room * sizeof(int32_t));
    d->recv[0] = 0;
    shmem_barrier_all();
}

static void destroy(data_t *d)
{
    void *blocks[] = {d->b.send, d->b.next, d->b.front, d->b.pred, (void *)d->b.adj, (void *)d->b.xoff, d->recv};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        sym_free(d->part, blocks[i]);
}

/* One BFS from root; returns seconds (the slowest PE's). */
static double bfs(data_t *d, int32_t root)
{
    g500_bfs_t *b = &d->b;
    int64_t nfront = g500_start(b, graph.nlocal, root), *count = calloc((size_t)npes, sizeof *count);
    int32_t *pairs = (int32_t *)(d->recv + 1);
    shmem_barrier_all();
    double t0 = clock_mono_s();
    for (;;) {
        int64_t nnext = g500_expand(b, nfront, count);
        for (int to = 0; to < npes; to++)
            if (count[to]) { /* room in the destination's buffer, then the pairs */
                long long at = shmem_longlong_atomic_fetch_add(&d->recv[0], count[to], to);
                shmem_int_put(pairs + 2 * at, b->send + 2 * (size_t)to * b->room, (size_t)(2 * count[to]), to);
            }
        shmem_barrier_all(); /* every pair for this PE is in its buffer */
        long long received = d->recv[0];
        for (long long i = 0; i < received; i++)
            g500_visit(b, pairs[2 * i], pairs[2 * i + 1], &nnext);
        d->recv[0] = 0; /* before the sum: nobody adds to it until everybody is past it */
        long long total = nnext;
        sum_all(&total, 1);
        nfront = g500_advance(b, nnext);
        if (total == 0)
            break;
    }
    double mine = clock_mono_s() - t0;
    free(count);
    return max_all(mine);
}

/* Check the tree; returns the edges of the component (each counted once) and
 * the visited vertices through *visited. */
static int64_t check(const data_t *d, int32_t root, int64_t *visited)
{
    long long v3[NSUM];
    g500_check(&d->b, graph.nlocal, root, v3);
    sum_all(v3, NSUM);
    if (v3[2]) {
        if (me == 0)
            fprintf(stderr, "bench_shmem_bfs: root %d: %lld vertices with a parent that is not a neighbour\n", root,
                    v3[2]);
        shmem_global_exit(1);
    }
    *visited = v3[1];
    return v3[0] / 2;
}

static data_t d[NVARIANTS];

/* What g500_compare calls: the variants by number, the reduction, the stop. */
static double bfs_of(int k, int32_t root) { return bfs(&d[k], root); }
static int64_t check_of(int k, int32_t root, int64_t *visited) { return check(&d[k], root, visited); }

static int64_t total(int64_t v)
{
    long long sum = v;
    sum_all(&sum, 1);
    return sum;
}

static void differ(int32_t root, const int64_t visited[2])
{
    if (me == 0)
        fprintf(stderr, "bench_shmem_bfs: root %d: %lld vertices visited in the %s, %lld in the %s\n", root,
                (long long)visited[HEAP], names[HEAP], (long long)visited[PARTITION], names[PARTITION]);
    shmem_global_exit(1);
}

static int scale = 16, edgefactor = 16, nroots = 64;
static uint64_t seed = 1;
static const char *intent = "near=nic";

static void quick(void)
{
    scale = 12;
    nroots = 4;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    const bench_opt_t opts[] = {{"--scale", 'i', &scale}, {"--edgefactor", 'i', &edgefactor},
                                {"--roots", 'i', &nroots}, {"--seed", 'u', &seed}, {"--intent", 's', &intent},
                                {NULL, 0, NULL}};
    bench_arguments(argc, argv, opts, quick,
                  "bench_shmem_bfs [--quick] [--scale 16] [--edgefactor 16] [--roots 64] [--seed 1] "
                  "[--intent near=nic]",
                  shmem_my_pe() == 0, shmem_global_exit);
    if (scale < 1 || scale > 30 || edgefactor < 1 || nroots < 1 || nroots > MAX_ROOTS) {
        if (me == 0)
            fprintf(stderr, "bench_shmem_bfs: --scale 1..30, --edgefactor >= 1, --roots 1..%d\n", MAX_ROOTS);
        shmem_global_exit(2);
    }
    shmem_barrier_all(); /* the pSyncs are ready everywhere */
    double tg = clock_mono_s();
    if (kron_build(&graph, scale, edgefactor, seed, me, npes) != 0) {
        fprintf(stderr, "PE %d: bench_shmem_bfs: out of memory building the graph\n", me);
        shmem_global_exit(1);
    }
    maxlocal = max_all_ll(graph.nlocal);
    maxdeg = max_all_ll(graph.degsum);
    int part = shmemx_hhm_create(intent, data_bytes() + 8 * SYM_ALIGN); /* 7 blocks, each starting a page */
    if (part < 0) {
        fprintf(stderr, "PE %d: bench_shmem_bfs: %s\n", me, shmemx_hhm_last_error());
        shmem_global_exit(2);
    }
    build(&d[HEAP], -1);
    build(&d[PARTITION], part);
    tg = clock_mono_s() - tg;

    int32_t roots[MAX_ROOTS];
    g500_roots(&graph, seed, me, npes, total, roots, nroots);
    if (me == 0) {
        printf("BFS scale %d edgefactor %d (%lld vertices, %lld edges), %d PEs, %d roots; %s; partition \"%s\"; "
               "graph built in %.1f s\n", scale, edgefactor, (long long)graph.nverts, (long long)graph.nedges, npes,
               nroots, oshmem_version(), intent, tg);
        printf("%5s %10s %10s %12s %12s %10s %8s\n", "root", "vertices", "edges", "heap MTEPS", "part MTEPS",
               "part/heap", "ms (heap)");
    }
    g500_compare_t compare = {{names[HEAP], names[PARTITION]}, "partition/heap", bfs_of, check_of, differ, me == 0};
    g500_compare(&compare, roots, nroots);
    shmem_barrier_all();
    destroy(&d[PARTITION]);
    destroy(&d[HEAP]);
    shmemx_hhm_destroy(part);
    kron_free(&graph);
    shmem_finalize();
    return 0;
}
