/*
 * Partitions under oshrun (2..4 PEs): partitions on different intents,
 * their pages bound to each intent's node before first touch; blocks at the
 * same address on every PE; put/get and atomics into another PE's partition
 * blocks, checked where they arrive; realloc (in place and moving, contents
 * kept), align, free and reuse; a partition filled to the byte (metadata
 * lives outside it); blocks allocated and freed from 3 threads at once;
 * partitions destroyed and their ids reused.
 */
#include "check.h"

#include <loci_shmem.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PART = 4 << 20, N = 1024, THREADS = 3 };

static const char *intents[] = {"bandwidth=high", "near=nic", "latency=low", ""};
enum { NPART = sizeof intents / sizeof intents[0] };

static int me, npes, left, right;
static long exchange; /* symmetric: for comparing addresses across PEs */

/* The same address on every PE: compare with the left neighbour's. */
static void check_symmetric(const char *what, const void *p)
{
    exchange = (long)(intptr_t)p;
    shmem_barrier_all();
    long theirs = shmem_long_g(&exchange, left);
    CHECK(theirs == exchange, "%s: %p here, %#lx on PE %d", what, p, theirs, left);
    shmem_barrier_all();
}

static void *checked_malloc(int id, size_t size)
{
    void *p = shmemx_partition_malloc(id, size);
    CHECK(p, "shmemx_partition_malloc(%d, %zu): %s", id, size, shmemx_hhm_last_error());
    return p;
}

/* Puts into the right neighbour's block, gets from the left one's. */
static void put_get(const char *what, long *x, size_t n)
{
    long *src = malloc(n * sizeof *src), *got = malloc(n * sizeof *got);
    for (size_t i = 0; i < n; i++) {
        x[i] = -1;
        src[i] = me * 100000 + (long)i;
    }
    shmem_barrier_all();
    shmem_long_put(x, src, n, right);
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        CHECK(x[i] == left * 100000 + (long)i, "%s: x[%zu] = %ld after the put from PE %d", what, i, x[i], left);
    shmem_long_get(got, x, n, left); /* what the left PE received from its own left */
    int ll = (left + npes - 1) % npes;
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == ll * 100000 + (long)i, "%s: got[%zu] = %ld from PE %d", what, i, got[i], left);
    shmem_barrier_all();
    free(src);
    free(got);
}

/* fetch-add, inc and compare-swap on PE 0's counters in partition id. */
static void atomics(int id)
{
    long *c = checked_malloc(id, 2 * sizeof *c);
    check_symmetric("atomic counters", c);
    c[0] = 0;
    c[1] = -1;
    shmem_barrier_all();
    for (int i = 0; i < 100; i++)
        shmem_long_atomic_fetch_add(&c[0], me + 1, 0);
    shmem_long_atomic_inc(&c[0], 0);
    long won = shmem_long_atomic_compare_swap(&c[1], -1, me, 0) == -1, winners = 0;
    shmem_barrier_all();
    exchange = won;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        winners += shmem_long_g(&exchange, pe);
    long want = 100L * npes * (npes + 1) / 2 + npes, now = shmem_long_atomic_fetch(&c[0], 0);
    CHECK(now == want, "partition %d: counter on PE 0 is %ld, expected %ld", id, now, want);
    CHECK(winners == 1, "partition %d: %ld PEs won the compare-swap", id, winners);
    CHECK(me != 0 || (c[1] >= 0 && c[1] < npes), "partition %d: compare-swap left %ld", id, c[1]);
    shmem_barrier_all();
    shmemx_partition_free(id, c);
}

static void placement_and_remote(const int *ids)
{
    for (int k = 0; k < NPART; k++) {
        CHECK(ids[k] == k, "partition %d (\"%s\") got id %d", k, intents[k], ids[k]);
        char *whole = checked_malloc(ids[k], PART); /* the whole partition: its first byte to its last */
        check_symmetric("whole partition", whole);
        int node = intent_node(intents[k]); /* "": the local node, preferred */
        check_policy(intents[k], whole, node);
        check_policy(intents[k], whole + PART - 1, node);
        shmemx_partition_free(ids[k], whole);
        long *x = checked_malloc(ids[k], N * sizeof *x);
        check_symmetric(intents[k], x);
        put_get(intents[k], x, N);
        atomics(ids[k]);
        shmemx_partition_free(ids[k], x);
    }
    if (me == 0)
        printf("partitions: placed, symmetric, put/get/atomics arrive\n");
}

static void realloc_align_free(int id)
{
    char *p = checked_malloc(id, 1000), *q = checked_malloc(id, 1000);
    for (int i = 0; i < 1000; i++)
        p[i] = (char)i;
    char *r = shmemx_partition_realloc(id, p, 5000); /* q is in the way: moves */
    CHECK(r && r != p, "realloc to 5000 bytes: %p (was %p)", (void *)r, (void *)p);
    for (int i = 0; i < 1000; i++)
        CHECK(r[i] == (char)i, "realloc lost byte %d", i);
    check_symmetric("moved block", r);
    CHECK(shmemx_partition_realloc(id, r, 100) == r, "shrinking moved the block");
    CHECK(shmemx_partition_realloc(id, r, 4000) == r, "growing into the space just freed moved the block");
    for (int i = 0; i < 100; i++)
        CHECK(r[i] == (char)i, "in-place realloc lost byte %d", i);
    put_get("reallocated block", (long *)r, 4000 / sizeof(long));

    char *n = shmemx_partition_realloc(id, NULL, 64); /* = malloc */
    CHECK(n, "realloc(NULL, 64): %s", shmemx_hhm_last_error());
    check_symmetric("realloc(NULL)", n);
    CHECK(shmemx_partition_realloc(id, n, 0) == NULL, "realloc to 0 bytes returned a block");
    shmemx_partition_free(id, n); /* freed by the realloc already: refused, and said so */
    CHECK(strstr(shmemx_hhm_last_error(), "does not start a live block"), "free after realloc(0): \"%s\"",
          shmemx_hhm_last_error());
    CHECK(shmemx_partition_malloc(id, 0) == NULL, "malloc(0) returned a block");

    for (size_t a = 64; a <= (2u << 20); a *= 32) {
        long *x = shmemx_partition_align(id, a, 100 * sizeof *x);
        CHECK(x && (uintptr_t)x % a == 0, "align(%zu): %p: %s", a, (void *)x, shmemx_hhm_last_error());
        check_symmetric("aligned block", x);
        put_get("aligned block", x, 100);
        shmemx_partition_free(id, x);
    }
    shmemx_partition_free(id, q);
    shmemx_partition_free(id, r);

    /* filled to the byte with 64 KiB blocks: no header takes room inside the partition */
    enum { BLK = 64 << 10, NBLK = PART / BLK };
    void *b[NBLK + 1];
    int got = 0;
    while (got <= NBLK && (b[got] = shmemx_partition_malloc(id, BLK)))
        got++;
    CHECK(got == NBLK, "%d blocks of 64 KiB fit in a 4 MiB partition, expected %d", got, NBLK);
    check_symmetric("last block", b[got - 1]);
    for (int i = 0; i < got; i += 2)
        shmemx_partition_free(id, b[i]);
    for (int i = 1; i < got; i += 2)
        shmemx_partition_free(id, b[i]);
    void *all = checked_malloc(id, PART); /* everything freed coalesced back */
    shmemx_partition_free(id, all);
    if (me == 0)
        printf("partitions: realloc, align, free and reuse as documented\n");
}

typedef struct {
    int id, seed;
} job_t;

/* Random blocks, each filled with its owner's mark and checked before it goes. */
static void *churn(void *arg)
{
    const job_t *j = arg;
    enum { LIVE = 64 };
    unsigned char *blk[LIVE] = {0};
    size_t len[LIVE];
    unsigned s = (unsigned)j->seed;
    for (int i = 0; i < 4000; i++) {
        s = s * 1103515245u + 12345u;
        int k = (int)(s >> 16) % LIVE;
        if (blk[k]) {
            for (size_t b = 0; b < len[k]; b++)
                CHECK(blk[k][b] == (unsigned char)(j->seed + k), "thread %d: block %d overwritten", j->seed, k);
            shmemx_partition_free(j->id, blk[k]);
            blk[k] = NULL;
        } else {
            len[k] = 8 + (s >> 8) % 8000;
            blk[k] = shmemx_partition_malloc(j->id, len[k]);
            CHECK(blk[k], "thread %d: %s", j->seed, shmemx_hhm_last_error());
            memset(blk[k], j->seed + k, len[k]);
        }
    }
    for (int k = 0; k < LIVE; k++)
        shmemx_partition_free(j->id, blk[k]);
    return NULL;
}

static void threads(int id)
{
    pthread_t t[THREADS];
    job_t jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job_t){id, 10 * (i + 1)};
        CHECK(pthread_create(&t[i], NULL, churn, &jobs[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    void *all = checked_malloc(id, PART); /* every block freed */
    shmemx_partition_free(id, all);
    if (me == 0)
        printf("partitions: %d threads allocating at once\n", THREADS);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    int ids[NPART];
    for (int k = 0; k < NPART; k++) {
        ids[k] = shmemx_hhm_create(intents[k], PART);
        CHECK(ids[k] >= 0, "shmemx_hhm_create(\"%s\"): %s", intents[k], shmemx_hhm_last_error());
    }
    placement_and_remote(ids);
    realloc_align_free(ids[0]);
    threads(ids[1]);
    CHECK(shmemx_hhm_destroy(ids[1]) == 0, "destroy: %s", shmemx_hhm_last_error());
    int again = shmemx_hhm_create("near=pe", PART); /* the lowest free id again */
    CHECK(again == ids[1], "after destroying id %d, create gave %d", ids[1], again);
    for (int i = 0; i < 20; i++) { /* create/destroy cycles leave nothing behind */
        int t = shmemx_hhm_create("latency=low", 1 << 20);
        CHECK(t == NPART && shmemx_hhm_destroy(t) == 0, "cycle %d: id %d: %s", i, t, shmemx_hhm_last_error());
    }
    for (int k = 0; k < NPART; k++)
        CHECK(shmemx_hhm_destroy(ids[k]) == 0, "destroy %d: %s", ids[k], shmemx_hhm_last_error());
    if (me == 0)
        printf("test_partition: passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
