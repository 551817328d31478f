/*
 * The Graph500-style BFS of the benchmarks, without communication — what
 * a front end's BFS needs besides its puts and atomics:
 *   - the graph: Kronecker (R-MAT a=0.57 b=0.19 c=0.19), 2^scale vertices,
 *     edgefactor x 2^scale undirected edges, labels permuted. Every process
 *     generates the same edges from the seed and keeps the adjacency (CSR)
 *     of its own vertices, v % nprocs == rank; bench/mpi/bfs.c and
 *     bench/shmem/bfs.c both use it, so both front ends traverse the same graphs;
 *   - one level's expansion of the local frontier, and the local part of
 *     the tree check;
 *   - the roots, and the comparison of two placements root by root with
 *     the table both front ends print.
 */
#ifndef LOCI_BENCH_GRAPH500_H
#define LOCI_BENCH_GRAPH500_H

#include "median.h"
#include "random.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G500_MAX_ROOTS = 64 };

typedef struct {
    int64_t nverts, nedges; /* whole graph */
    int64_t nlocal, degsum; /* this process's vertices, their total degree */
    int64_t *xoff;          /* nlocal + 1 offsets into adj */
    int32_t *adj;           /* neighbours of the local vertices (malloc'd) */
} kron_graph_t;

/* Edge i before the label permutation: one quadrant choice per bit. */
static inline void kron_edge(uint64_t seed, int64_t i, int scale, int64_t *u, int64_t *v)
{
    uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
    int64_t a = 0, b = 0;
    for (int bit = 0; bit < scale; bit++) {
        double r = (double)(bench_splitmix64(&s) >> 11) * 0x1.0p-53;
        a = 2 * a + (r >= 0.76);                                 /* quadrants c (0.19), d (0.05) */
        b = 2 * b + ((r >= 0.57 && r < 0.76) || r >= 0.95);      /* quadrants b (0.19), d */
    }
    *u = a;
    *v = b;
}

/* Build this process's part of the graph; 0, or -1 when out of memory. */
static inline int kron_build(kron_graph_t *g, int scale, int edgefactor, uint64_t seed, int rank, int nprocs)
{
    g->nverts = (int64_t)1 << scale;
    g->nedges = (int64_t)edgefactor * g->nverts;
    g->nlocal = (g->nverts - rank + nprocs - 1) / nprocs;
    int32_t *perm = malloc((size_t)g->nverts * sizeof *perm); /* Fisher-Yates from the seed: the same everywhere */
    g->xoff = calloc((size_t)g->nlocal + 1, sizeof *g->xoff);
    int64_t *fill = malloc(((size_t)g->nlocal + 1) * sizeof *fill);
    if (!perm || !g->xoff || !fill)
        return -1;
    uint64_t s = seed * 0x2545f4914f6cdd1dull;
    for (int64_t i = 0; i < g->nverts; i++)
        perm[i] = (int32_t)i;
    for (int64_t i = g->nverts - 1; i > 0; i--) {
        int64_t j = (int64_t)(bench_splitmix64(&s) % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    g->adj = NULL;
    for (int pass = 0; pass < 2; pass++) { /* degrees, then the adjacency */
        if (pass == 1) {
            for (int64_t l = 0; l < g->nlocal; l++)
                g->xoff[l + 1] += g->xoff[l];
            g->degsum = g->xoff[g->nlocal];
            if (!(g->adj = malloc((size_t)(g->degsum ? g->degsum : 1) * sizeof *g->adj)))
                return -1;
            memcpy(fill, g->xoff, ((size_t)g->nlocal + 1) * sizeof *fill);
        }
        for (int64_t i = 0; i < g->nedges; i++) {
            int64_t a, b;
            kron_edge(seed, i, scale, &a, &b);
            int32_t ends[2] = {perm[a], perm[b]};
            if (ends[0] == ends[1])
                continue;
            for (int side = 0; side < 2; side++) {
                int32_t x = ends[side], y = ends[!side];
                if (x % nprocs != rank)
                    continue;
                if (pass == 0)
                    g->xoff[x / nprocs + 1]++;
                else
                    g->adj[fill[x / nprocs]++] = y;
            }
        }
    }
    free(fill);
    free(perm);
    return 0;
}

static inline void kron_free(kron_graph_t *g)
{
    free(g->xoff);
    free(g->adj);
}

/* One BFS's arrays on this process (wherever the benchmark placed them). */
typedef struct {
    const int64_t *xoff;
    const int32_t *adj;
    int32_t *pred;         /* parent of each local vertex, -1 unvisited */
    int32_t *front, *next; /* this level's local frontier, the next one's */
    int32_t *send;         /* pairs (vertex, parent) for destination d at send + 2 * d * room */
    size_t room;           /* pairs per destination */
    int rank, nprocs;
} g500_bfs_t;

/* A search from root begins: nothing visited yet but the root, its own
 * parent, which makes the frontier of its process. The local frontier's size. */
static inline int64_t g500_start(g500_bfs_t *b, int64_t nlocal, int32_t root)
{
    for (int64_t i = 0; i < nlocal; i++)
        b->pred[i] = -1;
    if (root % b->nprocs != b->rank)
        return 0;
    b->pred[root / b->nprocs] = root;
    b->front[0] = root;
    return 1;
}

static inline void g500_visit(g500_bfs_t *b, int32_t v, int32_t parent, int64_t *nnext)
{
    int64_t l = v / b->nprocs;
    if (b->pred[l] < 0) {
        b->pred[l] = parent;
        b->next[(*nnext)++] = v;
    }
}

/* The level is done: what it found (nnext vertices) is the next frontier. Its size. */
static inline int64_t g500_advance(g500_bfs_t *b, int64_t nnext)
{
    int32_t *t = b->front;
    b->front = b->next;
    b->next = t;
    return nnext;
}

/* One level from the local frontier: neighbours of this process are visited
 * at once, the others queued as pairs per destination (count[d] of them).
 * Returns how many vertices went into next. */
static inline int64_t g500_expand(g500_bfs_t *b, int64_t nfront, int64_t *count)
{
    int64_t nnext = 0;
    memset(count, 0, (size_t)b->nprocs * sizeof *count);
    for (int64_t f = 0; f < nfront; f++) {
        int32_t u = b->front[f];
        int64_t l = u / b->nprocs;
        for (int64_t e = b->xoff[l]; e < b->xoff[l + 1]; e++) {
            int32_t v = b->adj[e];
            int to = v % b->nprocs;
            if (to == b->rank) {
                g500_visit(b, v, u, &nnext);
            } else {
                int32_t *pair = b->send + 2 * ((size_t)to * b->room + (size_t)count[to]++);
                pair[0] = v;
                pair[1] = u;
            }
        }
    }
    return nnext;
}

/* The local part of the tree check: out = {edge ends of the visited
 * vertices, vertices visited, vertices whose parent is not a neighbour}. */
static inline void g500_check(const g500_bfs_t *b, int64_t nlocal, int32_t root, long long out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (int64_t l = 0; l < nlocal; l++) {
        int32_t p = b->pred[l], v = (int32_t)(l * b->nprocs + b->rank);
        if (p < 0)
            continue;
        out[0] += b->xoff[l + 1] - b->xoff[l];
        out[1]++;
        int ok = v == root ? p == root : 0;
        for (int64_t e = b->xoff[l]; e < b->xoff[l + 1] && !ok && v != root; e++)
            ok = b->adj[e] == p;
        out[2] += !ok;
    }
}

/* nroots roots drawn from the seed: vertices with edges, the same on every
 * process (sum_all: a value summed over all processes). */
static inline void g500_roots(const kron_graph_t *g, uint64_t seed, int rank, int nprocs, int64_t (*sum_all)(int64_t),
                              int32_t *roots, int nroots)
{
    uint64_t rs = seed ^ 0x5851f42d4c957f2dull;
    for (int r = 0; r < nroots;) {
        int32_t c = (int32_t)(bench_splitmix64(&rs) % (uint64_t)g->nverts);
        int64_t deg = c % nprocs == rank ? g->xoff[c / nprocs + 1] - g->xoff[c / nprocs] : 0;
        if (sum_all(deg))
            roots[r++] = c;
    }
}

/* Two placements of the same searches, compared root by root. */
typedef struct {
    const char *name[2]; /* the variants in the summary ("near=pe", "near=nic") */
    const char *ratio;   /* the second over the first ("nic/pe") */
    double (*bfs)(int variant, int32_t root);                      /* seconds, the slowest process's */
    int64_t (*check)(int variant, int32_t root, int64_t *visited); /* edges of the tree; its vertices */
    void (*differ)(int32_t root, const int64_t visited[2]);        /* they visited different vertices: stop */
    int report;                                                    /* this process prints (rank 0) */
} g500_compare_t;

/* Per root, both variants (which goes first alternating) and a row of the
 * table; then the harmonic means of their TEPS (as Graph500). */
static inline void g500_compare(const g500_compare_t *c, const int32_t *roots, int nroots)
{
    double inv_sum[2] = {0, 0}, ratios[G500_MAX_ROOTS];
    for (int r = 0; r < nroots; r++) {
        double teps[2], sec[2];
        int64_t edges = 0, visited[2];
        for (int j = 0; j < 2; j++) {
            int k = (j + r) % 2; /* alternate which variant goes first */
            sec[k] = c->bfs(k, roots[r]);
            edges = c->check(k, roots[r], &visited[k]);
            teps[k] = (double)edges / sec[k];
            inv_sum[k] += 1 / teps[k];
        }
        if (visited[0] != visited[1])
            c->differ(roots[r], visited);
        ratios[r] = teps[1] / teps[0];
        if (c->report) {
            printf("%5d %10lld %10lld %12.2f %12.2f %9.3fx %8.2f\n", roots[r], (long long)visited[0],
                   (long long)edges, teps[0] / 1e6, teps[1] / 1e6, ratios[r], sec[0] * 1e3);
            fflush(stdout);
        }
    }
    if (c->report) {
        double h0 = nroots / inv_sum[0], h1 = nroots / inv_sum[1];
        printf("harmonic mean: %s %.2f MTEPS, %s %.2f MTEPS, %s %.3fx (median per root %.3fx)\n", c->name[0],
               h0 / 1e6, c->name[1], h1 / 1e6, c->ratio, h1 / h0, bench_median(ratios, nroots));
    }
}

#endif
