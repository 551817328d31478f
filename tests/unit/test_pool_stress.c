/* The pool under threads: random sizes from 0 B to 4 MiB, blocks handed to
 * other threads through a shared queue and freed there, contents checked
 * before every free, interior pointers looked up, stats balanced at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pool/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define OPS 6000
#define QCAP 256

typedef struct {
    unsigned char *p;
    size_t size;
} obj_t;

/* The shared queue: blocks allocated by one thread, freed by another. */
static struct {
    pthread_mutex_t lock;
    obj_t v[QCAP];
    int n;
} queue = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0};

static pool_heap_t *heaps[2];
static atomic_int errors;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t random_size(uint64_t *s)
{
    unsigned r = (unsigned)(rnd(s) % 1000);
    if (r < 5)
        return 0;
    if (r < 700)
        return rnd(s) % 1024 + 1;
    if (r < 960)
        return rnd(s) % (64u << 10) + 1;
    if (r < 995)
        return rnd(s) % POOL_SMALL_MAX + 1;
    return rnd(s) % (4u << 20) + 1;
}

/* A pattern derived from address and size: a block handed out twice, or
 * written by someone else, shows. */
static unsigned char pat(const unsigned char *p, size_t size, size_t i)
{
    uintptr_t a = (uintptr_t)p;
    return (unsigned char)((a >> 4) ^ (a >> 13) ^ size ^ (i * 31));
}

static void fill(obj_t o)
{
    /* whole block for small ones, a sparse sample for big ones (time) */
    size_t step = o.size > 65536 ? 4093 : 1;
    for (size_t i = 0; i < o.size; i += step)
        o.p[i] = pat(o.p, o.size, i);
    if (o.size)
        o.p[o.size - 1] = pat(o.p, o.size, o.size - 1);
}

static void check_and_free(obj_t o)
{
    size_t step = o.size > 65536 ? 4093 : 1;
    for (size_t i = 0; i < o.size; i += step)
        if (o.p[i] != pat(o.p, o.size, i)) {
            atomic_fetch_add(&errors, 1);
            fprintf(stderr, "block %p size %zu: byte %zu corrupted\n", (void *)o.p, o.size, i);
            break;
        }
    if (o.size && o.p[o.size - 1] != pat(o.p, o.size, o.size - 1))
        atomic_fetch_add(&errors, 1);
    /* interior pointers resolve to the block */
    size_t bs = 0;
    const unsigned char *mid = o.p + (o.size ? o.size / 2 : 0);
    if (pool_block_of(mid, &bs) != o.p || bs < o.size || pool_usable_size(o.p) < o.size ||
        (pool_heap_of(mid) != heaps[0] && pool_heap_of(mid) != heaps[1])) {
        atomic_fetch_add(&errors, 1);
        fprintf(stderr, "lookup of %p (block %p, %zu B) failed\n", (const void *)mid, (void *)o.p, o.size);
    }
    if (pool_free(o.p) != 0)
        atomic_fetch_add(&errors, 1);
}

static void *worker(void *arg)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull * (uintptr_t)arg + 1;
    obj_t mine[512];
    int n = 0;
    for (int op = 0; op < OPS; op++) {
        unsigned r = (unsigned)(rnd(&seed) % 100);
        if (r < 55 && n < 512) { /* allocate */
            pool_heap_t *h = heaps[rnd(&seed) % 2];
            obj_t o = {NULL, random_size(&seed)};
            unsigned how = (unsigned)(rnd(&seed) % 10);
            if (how == 0)
                o.p = pool_calloc(h, 1, o.size);
            else if (how == 1)
                o.p = pool_aligned_alloc(h, (size_t)1 << (rnd(&seed) % 13), o.size);
            else
                o.p = pool_alloc(h, o.size);
            if (!o.p) {
                atomic_fetch_add(&errors, 1);
                continue;
            }
            if (how == 0)
                for (size_t i = 0; i < o.size; i += 97)
                    if (o.p[i])
                        atomic_fetch_add(&errors, 1);
            fill(o);
            mine[n++] = o;
        } else if (r < 80 && n > 0) { /* hand one to another thread */
            int k = (int)(rnd(&seed) % (unsigned)n);
            pthread_mutex_lock(&queue.lock);
            if (queue.n < QCAP) {
                queue.v[queue.n++] = mine[k];
                mine[k] = mine[--n];
            }
            pthread_mutex_unlock(&queue.lock);
        } else if (r < 90) { /* free one another thread made */
            obj_t o = {NULL, 0};
            pthread_mutex_lock(&queue.lock);
            if (queue.n > 0)
                o = queue.v[--queue.n];
            pthread_mutex_unlock(&queue.lock);
            if (o.p)
                check_and_free(o);
        } else if (n > 0) { /* free one of mine */
            int k = (int)(rnd(&seed) % (unsigned)n);
            check_and_free(mine[k]);
            mine[k] = mine[--n];
        }
    }
    while (n > 0)
        check_and_free(mine[--n]);
    return NULL;
}

static void threads_cross_free(void **state)
{
    place_t pl;
    memset(&pl, 0, sizeof pl);
    heaps[0] = pool_heap_create(&provider_numa, &pl, NULL);
    heaps[1] = pool_heap_create(&provider_numa, &pl, NULL);
    unsigned old = pool_set_purge_delay_ms(1); /* exercise retirement under load */
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    while (queue.n > 0)
        check_and_free(queue.v[--queue.n]);
    assert_int_equal(atomic_load(&errors), 0);
    /* every thread has exited: their caches went back, the books balance */
    for (int i = 0; i < 2; i++) {
        pool_stats_t st;
        pool_stats_heap(heaps[i], &st);
        assert_int_equal(st.bytes_in_use, 0);
        assert_int_equal(st.allocs, st.frees);
        assert_true(st.allocs > 0);
        pool_heap_collect(heaps[i]);
        pool_stats_heap(heaps[i], &st);
        assert_int_equal(st.bytes_committed, 0);
        pool_heap_destroy(heaps[i]);
    }
    pool_set_purge_delay_ms(old);
}

/* Threads that exit while a heap is destroyed, and heaps destroyed while
 * threads still hold caches for them. */
static void *churn(void *arg)
{
    pool_heap_t *h = arg;
    void *p[64];
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 64; i++)
            p[i] = pool_alloc(h, (size_t)(i * 40 + round));
        for (int i = 0; i < 64; i++)
            pool_free(p[i]);
    }
    return NULL;
}

static void heaps_come_and_go(void **state)
{
    place_t pl;
    memset(&pl, 0, sizeof pl);
    for (int round = 0; round < 10; round++) {
        pool_heap_t *h = pool_heap_create(&provider_numa, &pl, NULL);
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, churn, h);
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
        void *keep = pool_alloc(h, 100); /* this thread's cache stays behind */
        assert_non_null(keep);
        pool_heap_destroy(h);
    }
}

/* Retention under threads: waves of blocks of a new, smaller size each
 * round, so that slabs of the sizes left behind go past the heap's budget
 * and are trimmed, oldest first, while other threads refill and flush; big
 * blocks carved from segments (dirty slices) and going through the extent
 * cache; contents checked, books balanced. The sizes shrink so that the peak
 * in use (which sets the budget) comes in the first round whatever the
 * threads' timing, and what is left behind is about twice the budget: with
 * growing sizes the last round set the peak, and the margin depended on how
 * much the threads overlapped (a test that failed now and then under load). */
static pool_heap_t *rheap;

static void *waves(void *arg)
{
    uint64_t seed = 0x2545F4914F6CDD1Dull * ((uintptr_t)arg + 1);
    enum { N = 400, ROUNDS = 8 };
    obj_t o[N];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) {
            unsigned r = (unsigned)(rnd(&seed) % 100);
            size_t base = 16000 + 12000 * (size_t)(ROUNDS - 1 - round); /* another size class each round */
            o[i].size = r < 99 ? base + rnd(&seed) % 4000 : (1u << 20) + rnd(&seed) % (2u << 20);
            o[i].p = pool_alloc(rheap, o[i].size);
            if (!o[i].p) {
                atomic_fetch_add(&errors, 1);
                o[i].size = 0;
                continue;
            }
            o[i].p[0] = pat(o[i].p, o[i].size, 0);
            o[i].p[o[i].size - 1] = pat(o[i].p, o[i].size, o[i].size - 1);
        }
        for (int i = 0; i < N; i++) {
            if (!o[i].p)
                continue;
            if (o[i].p[0] != pat(o[i].p, o[i].size, 0) ||
                o[i].p[o[i].size - 1] != pat(o[i].p, o[i].size, o[i].size - 1))
                atomic_fetch_add(&errors, 1);
            if (pool_free(o[i].p) != 0)
                atomic_fetch_add(&errors, 1);
        }
        pool_thread_flush();
    }
    return NULL;
}

static void retention_under_threads(void **state)
{
    place_t pl;
    memset(&pl, 0, sizeof pl);
    rheap = pool_heap_create(&provider_numa, &pl, NULL);
    unsigned old = pool_set_purge_delay_ms(60000); /* the budget alone decides */
    pthread_t t[4];
    for (uintptr_t i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, waves, (void *)i), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&errors), 0);
    pool_stats_t st;
    pool_stats_heap(rheap, &st);
    assert_int_equal(st.bytes_in_use, 0);
    assert_int_equal(st.allocs, st.frees);
    /* about 200 MiB in use at the peak (160 MiB of the first round's blocks,
     * 30 MiB of big ones): a budget of ~400 MiB; 700 MiB of sizes left behind */
    assert_true(st.purges > 0);
    assert_true(st.bytes_committed < st.bytes_peak);
    pool_heap_collect(rheap);
    pool_stats_heap(rheap, &st);
    assert_int_equal(st.bytes_committed, 0);
    pool_heap_destroy(rheap);
    pool_set_purge_delay_ms(old);
}

/* Two threads freeing the same small block at the same moment: exactly
 * one free succeeds and the other is reported, so the block is cached once
 * and never handed out twice. Thread 0 allocates each round's block; both
 * spin until the round starts. */
enum { RACE_ROUNDS = 20000 };
static struct {
    pool_heap_t *heap;
    _Atomic(void *) block;
    atomic_int round, arrived, freed, both;
} twice;

static void spin_until(atomic_int *v, int want)
{
    for (unsigned n = 0; atomic_load(v) < want; n++)
        if (n % 64 == 63)
            sched_yield(); /* two cores shared with the rest of the machine */
}

static void *free_same_block(void *arg)
{
    bool leader = arg != NULL;
    uint64_t seed = leader ? 7 : 11;
    for (int i = 1; i <= RACE_ROUNDS; i++) {
        if (leader) {
            atomic_store(&twice.block, pool_alloc(twice.heap, 48));
            atomic_store(&twice.freed, 0);
            atomic_store(&twice.round, i);
        }
        spin_until(&twice.round, i);
        /* a random head start either way: the two frees overlap in some rounds */
        for (volatile unsigned d = (unsigned)(rnd(&seed) % 512); d > 0; d--)
            ;
        if (pool_free(atomic_load(&twice.block)) == 0)
            atomic_fetch_add(&twice.freed, 1);
        atomic_fetch_add(&twice.arrived, 1);
        spin_until(&twice.arrived, 2 * i);
        if (leader)
            twice.both += atomic_load(&twice.freed) != 1;
    }
    return NULL;
}

static void concurrent_double_free_caches_once(void **state)
{
    setenv("LOCI_LOG", "error", 1); /* the refused frees would each log a warning */
    place_t pl;
    memset(&pl, 0, sizeof pl);
    twice.heap = pool_heap_create(&provider_numa, &pl, NULL);
    pthread_t t[2];
    for (uintptr_t i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, free_same_block, (void *)i), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&twice.both), 0);
    pool_heap_destroy(twice.heap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_cross_free),
        cmocka_unit_test(heaps_come_and_go),
        cmocka_unit_test(retention_under_threads),
        cmocka_unit_test(concurrent_double_free_caches_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
