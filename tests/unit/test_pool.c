/* The pool: size classes, alignment, calloc/realloc, big blocks, lookups,
 * bad frees, capacity accounting, purging, stats and heap destruction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pool/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct loci_target dram;   /* a fake NUMA target, no cap */
static struct loci_target capped; /* a fake target with an admin cap */

static place_t place_for(const struct loci_target *t, place_policy_t policy)
{
    place_t p;
    memset(&p, 0, sizeof p);
    p.policy = policy;
    p.target = t;
    if (t && t->numa_node >= 0)
        place_add_node(&p, t->numa_node);
    return p;
}

static pool_heap_t *local_heap(const struct loci_target *t)
{
    place_t pl = place_for(t, PLACE_LOCAL);
    pool_heap_t *h = pool_heap_create(&provider_numa, &pl, (void *)0x1234);
    assert_non_null(h);
    return h;
}

static int setup(void **state)
{
    memset(&dram, 0, sizeof dram);
    strcpy(dram.name, "dram0");
    dram.numa_node = 0;
    memset(&capped, 0, sizeof capped);
    strcpy(capped.name, "hbm0");
    capped.numa_node = 0;
    capped.capacity = (topo_attr_t){1u << 20, SRC_CONFIG};
    return 0;
}

static size_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, rss = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu %lu", &size, &rss), 2);
    fclose(f);
    return rss * (size_t)sysconf(_SC_PAGESIZE);
}

static bool mapped(const void *p, size_t len)
{
    unsigned char vec[64];
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (len > 64 * page)
        len = 64 * page;
    return mincore((void *)((uintptr_t)p & ~(page - 1)), len, vec) == 0;
}

/* ------------------------------------------------------------------------ */

static void size_classes(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    size_t prev_usable = 0;
    for (size_t size = 0; size <= POOL_SMALL_MAX; size += size < 4096 ? 1 : 61) {
        void *p = pool_alloc(h, size);
        assert_non_null(p);
        size_t usable = pool_usable_size(p);
        assert_true(usable >= size);
        assert_true(usable >= 8);
        if (size > 128)
            assert_true((usable - size) * 8 <= size); /* at most 12.5 % more */
        assert_true(usable >= prev_usable);           /* classes grow with sizes */
        prev_usable = usable;
        /* natural alignment: the largest power of two dividing the class */
        size_t natural = usable & -usable;
        assert_int_equal((uintptr_t)p % (natural < 4096 ? natural : 4096), 0);
        if (size >= 16)
            assert_int_equal((uintptr_t)p % (usable % 16 ? 8 : 16), 0);
        assert_int_equal(pool_free(p), 0);
    }
    pool_heap_destroy(h);
}

static void zero_size_unique(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    void *a = pool_alloc(h, 0), *b = pool_alloc(h, 0);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    assert_true(pool_usable_size(a) >= 1);
    assert_int_equal(pool_free(a), 0);
    assert_int_equal(pool_free(b), 0);
    assert_int_equal(pool_free(NULL), 0);
    pool_heap_destroy(h);
}

static void alignment(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    for (size_t align = 1; align <= (2u << 20); align *= 2) {
        size_t sizes[] = {0, 1, align > 1 ? align - 1 : 1, align, align + 1, 3 * align, 100000};
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            void *p = pool_aligned_alloc(h, align, sizes[i]);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % align, 0);
            assert_true(pool_usable_size(p) >= sizes[i]);
            memset(p, 0x5a, sizes[i]);
            assert_int_equal(pool_free(p), 0);
        }
    }
    errno = 0;
    assert_null(pool_aligned_alloc(h, 24, 10));
    assert_int_equal(errno, EINVAL);
    assert_null(pool_aligned_alloc(h, 0, 10));
    pool_heap_destroy(h);
}

static void calloc_zero_and_overflow(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    size_t sizes[] = {8, 100, 4000, 70000, 300000, 3u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        /* dirty a block of that class, free it, so calloc gets it back */
        unsigned char *d = pool_alloc(h, sizes[i]);
        memset(d, 0xab, sizes[i]);
        pool_free(d);
        unsigned char *p = pool_calloc(h, 1, sizes[i]);
        assert_non_null(p);
        for (size_t j = 0; j < sizes[i]; j++)
            if (p[j])
                fail_msg("calloc byte %zu of %zu is %u", j, sizes[i], p[j]);
        pool_free(p);
    }
    errno = 0;
    assert_null(pool_calloc(h, SIZE_MAX / 2, 3));
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "overflow"));
    void *z = pool_calloc(h, 0, 16);
    assert_non_null(z);
    pool_free(z);
    pool_heap_destroy(h);
}

static void realloc_semantics(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    unsigned char *p = pool_alloc(h, 100);
    for (int i = 0; i < 100; i++)
        p[i] = (unsigned char)i;
    /* same class: in place */
    assert_ptr_equal(pool_realloc(p, 104), p);
    assert_ptr_equal(pool_realloc(p, 97), p);
    /* grow through classes and into a dedicated extent */
    size_t sizes[] = {1000, 50000, 400000, 5u << 20, 200, 50};
    size_t have = 100;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        unsigned char *q = pool_realloc(p, sizes[k]);
        assert_non_null(q);
        size_t keep = have < sizes[k] ? have : sizes[k];
        for (size_t i = 0; i < keep && i < 100; i++)
            assert_int_equal(q[i], (unsigned char)i);
        assert_true(pool_usable_size(q) >= sizes[k]);
        assert_ptr_equal(pool_heap_of(q), h);
        p = q;
        have = keep;
    }
    errno = 0;
    assert_null(pool_realloc(NULL, 10));
    assert_int_equal(errno, EINVAL);
    pool_free(p);
    pool_heap_destroy(h);
}

static void large_blocks(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t sizes[] = {POOL_SMALL_MAX + 1, 1u << 20, (3u << 20) + 5, 16u << 20};
    void *blocks[4];
    for (int i = 0; i < 4; i++) {
        blocks[i] = pool_alloc(h, sizes[i]);
        assert_non_null(blocks[i]);
        assert_int_equal((uintptr_t)blocks[i] % page, 0);
        assert_int_equal(pool_usable_size(blocks[i]), (sizes[i] + page - 1) & ~(page - 1));
        memset(blocks[i], i + 1, sizes[i]);
        size_t sz;
        assert_ptr_equal(pool_block_of((char *)blocks[i] + sizes[i] - 1, &sz), blocks[i]);
        assert_true(sz >= sizes[i]);
    }
    pool_stats_t st;
    pool_stats_heap(h, &st);
    assert_int_equal(st.extents_mapped, 3); /* up to 2 MiB carved from one segment */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(((unsigned char *)blocks[i])[sizes[i] - 1], i + 1);
        assert_int_equal(pool_free(blocks[i]), 0);
        /* kept mapped for reuse, but no block of loci's any more */
        assert_null(pool_heap_of(blocks[i]));
        assert_null(pool_target_of(blocks[i]));
        assert_int_equal(pool_usable_size(blocks[i]), 0);
        assert_int_equal(pool_free(blocks[i]), LOCI_ENOENT); /* no block there any more */
    }
    pool_stats_heap(h, &st);
    assert_int_equal(st.extents_mapped, 3); /* dirty slices, and the extent cache */
    assert_int_equal(st.bytes_in_use, 0);
    pool_heap_collect(h); /* gives them back */
    pool_stats_heap(h, &st);
    assert_int_equal(st.extents_mapped, 0);
    assert_int_equal(st.bytes_committed, 0);
    for (int i = 0; i < 4; i++)
        assert_false(mapped(blocks[i], page));
    /* with no purge delay nothing is kept: unmapped at once */
    unsigned old = pool_set_purge_delay_ms(0);
    void *b = pool_alloc(h, 1u << 20);
    assert_int_equal(pool_free(b), 0);
    assert_false(mapped(b, page));
    pool_set_purge_delay_ms(old);
    pool_heap_destroy(h);
}

/* Freed big extents wait in the heap's cache: the next big block of a size
 * that fits (up to 1/8 larger) takes one without mapping anything. */
static void large_extents_are_reused(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    size_t big = 4u << 20; /* above POOL_CARVE_MAX */
    unsigned char *p = pool_alloc(h, big);
    memset(p, 0xcd, big);
    pool_stats_t st;
    pool_stats_heap(h, &st);
    uint64_t total = st.extents_total;
    assert_int_equal(pool_free(p), 0);
    unsigned char *q = pool_alloc(h, big - 1000); /* the same page-rounded size */
    assert_ptr_equal(q, p);
    assert_int_equal(pool_usable_size(q), big);
    assert_ptr_equal(pool_heap_of(q + 5000), h);
    assert_ptr_equal(pool_target_of(q), &dram);
    pool_stats_heap(h, &st);
    assert_int_equal(st.extents_total, total); /* nothing new mapped */
    assert_int_equal(st.bytes_in_use, big);
    assert_int_equal(pool_free(q), 0);
    /* calloc of a reused extent still reads zeros */
    unsigned char *z = pool_calloc(h, 1, big);
    assert_ptr_equal(z, p);
    for (size_t i = 0; i < big; i += 512)
        assert_int_equal(z[i], 0);
    assert_int_equal(pool_free(z), 0);
    /* too big a slack: a new extent */
    unsigned char *r = pool_alloc(h, 3u << 20);
    assert_ptr_not_equal(r, p);
    assert_int_equal(pool_usable_size(r), 3u << 20);
    /* alignment asked beyond what the cached extent has: not reused unless it fits */
    void *a = pool_aligned_alloc(h, 4u << 20, 1u << 20);
    assert_int_equal((uintptr_t)a % (4u << 20), 0);
    assert_int_equal(pool_free(a), 0);
    assert_int_equal(pool_free(r), 0);
    pool_heap_collect(h);
    pool_stats_heap(h, &st);
    assert_int_equal(st.bytes_committed, 0);
    assert_int_equal(st.extents_mapped, 0);
    pool_heap_destroy(h);
}

/* The page holding p is in memory. */
static bool resident(const void *p)
{
    unsigned char vec;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    return mincore((void *)((uintptr_t)p & ~(page - 1)), 1, &vec) == 0 && (vec & 1);
}

/* Big blocks up to POOL_CARVE_MAX are runs of 64 KiB slices of a segment:
 * a freed one's slices stay resident, and the next blocks, of any size that
 * fits, are carved there without mapping or faulting anything; calloc there
 * still reads zeros; collect gives it all back. */
static void carved_blocks_reuse_resident_slices(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    size_t mib = 1u << 20, slice = 64u << 10;
    unsigned char *p = pool_alloc(h, 2 * mib);
    assert_non_null(p);
    memset(p, 0xab, 2 * mib);
    pool_stats_t st;
    pool_stats_heap(h, &st);
    uint64_t total = st.extents_total;
    assert_int_equal(st.extents_mapped, 1); /* one segment */
    assert_int_equal(pool_free(p), 0);
    assert_null(pool_heap_of(p));
    unsigned char *q = pool_alloc(h, 300000), *r = pool_alloc(h, mib);
    assert_ptr_equal(q, p); /* 5 slices */
    assert_ptr_equal(r, p + 5 * slice);
    assert_true(resident(q) && resident(r) && resident(r + mib - 1));
    assert_int_equal(pool_usable_size(q), 300000 + 4096 - 300000 % 4096);
    assert_ptr_equal(pool_block_of(r + mib - 1, NULL), r);
    pool_stats_heap(h, &st);
    assert_int_equal(st.extents_total, total); /* nothing new mapped */
    assert_int_equal(st.bytes_in_use, pool_usable_size(q) + mib);
    assert_int_equal(pool_free(q), 0);
    assert_int_equal(pool_free(r), 0);
    assert_int_equal(pool_free(r), LOCI_ENOENT); /* no block there any more */
    unsigned char *z = pool_calloc(h, 1, 2 * mib);
    assert_ptr_equal(z, p);
    for (size_t i = 0; i < 2 * mib; i += 512)
        assert_int_equal(z[i], 0);
    assert_int_equal(pool_free(z), 0);
    pool_heap_collect(h);
    pool_stats_heap(h, &st);
    assert_int_equal(st.bytes_committed, 0);
    assert_int_equal(st.extents_mapped, 0);
    assert_false(mapped(p, 4096));
    pool_heap_destroy(h);
}

/* The dirty slices of freed carved blocks age like empty slabs: after the
 * delay they go back, and a segment with nothing left is unmapped. */
static void dirty_slices_age(void **state)
{
    unsigned old = pool_set_purge_delay_ms(20);
    pool_heap_t *h = local_heap(&dram);
    unsigned char *b = pool_alloc(h, 1u << 20);
    memset(b, 1, 1u << 20);
    pool_free(b);
    unsigned char *end = b + (1u << 20) - 1; /* (a slab may come to b's first slice) */
    assert_true(resident(end));
    for (int i = 0; i < 500 && resident(end); i++) {
        void *q = pool_alloc(h, 100); /* a slab in the same segment: it stays mapped */
        pool_free(q);
        pool_thread_flush(); /* next time round is a refill: a slow path */
        usleep(2000);
    }
    assert_false(resident(end));
    pool_stats_t st;
    pool_stats_heap(h, &st);
    assert_true(st.purges > 0);
    assert_int_equal(st.bytes_in_use, 0);
    pool_heap_collect(h); /* the slab too: the segment goes */
    assert_false(mapped(b, 4096));
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* Slabs with holes: refills find short runs and scattered blocks; no block
 * may be handed out twice or overlap another. */
static void fragmented_slabs(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    size_t sizes[] = {24, 4096, 40000, 65536, 100000, POOL_SMALL_MAX};
    enum { N = 300 };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        void *p[N];
        for (int i = 0; i < N; i++)
            p[i] = pool_alloc(h, sizes[k]);
        /* holes of 1 to 12 blocks, gaps of 1 to 3 */
        for (int i = 0, run = 1; i < N; i += run + 1 + run % 3, run = run % 12 + 1)
            for (int j = i; j < i + run && j < N; j++) {
                pool_free(p[j]);
                p[j] = NULL;
            }
        pool_thread_flush(); /* the holes go back to the slabs' bitmaps */
        for (int i = 0; i < N; i++)
            if (!p[i])
                p[i] = pool_alloc(h, sizes[k]);
        for (int i = 0; i < N; i++) {
            assert_non_null(p[i]);
            memset(p[i], i & 0xff, 64);
        }
        qsort(p, N, sizeof *p, cmp_ptr);
        for (int i = 1; i < N; i++)
            assert_true((uintptr_t)p[i] >= (uintptr_t)p[i - 1] + sizes[k]); /* distinct, no overlap */
        for (int i = 0; i < N; i++)
            assert_int_equal(pool_free(p[i]), 0);
    }
    pool_stats_t st;
    pool_stats_heap(h, &st);
    assert_int_equal(st.bytes_in_use, 0);
    pool_heap_destroy(h);
}

static void lookups(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    assert_ptr_equal(pool_heap_owner(h), (void *)0x1234);
    char *s = pool_alloc(h, 1000), *l = pool_alloc(h, 1u << 20);
    size_t sz;
    for (size_t off = 0; off < 1000; off += 37) {
        assert_ptr_equal(pool_heap_of(s + off), h);
        assert_ptr_equal(pool_block_of(s + off, &sz), s);
        assert_int_equal(sz, pool_usable_size(s));
    }
    assert_ptr_equal(pool_heap_of(l + 123456), h);
    assert_ptr_equal(pool_block_of(l + 123456, NULL), l);
    assert_ptr_equal(pool_target_of(s), &dram);
    assert_ptr_equal(pool_target_of(l + 5), &dram);
    assert_int_equal(pool_usable_size(s + 8), 0); /* not a block start */
    int local;
    assert_null(pool_heap_of(&local));
    assert_null(pool_target_of(&local));
    assert_int_equal(pool_usable_size(&local), 0);
    assert_null(pool_block_of(&local, NULL));
    void *m = malloc(64);
    assert_null(pool_heap_of(m));
    free(m);
    pool_free(s);
    assert_null(pool_block_of(s, NULL)); /* freed: no live block there */
    pool_free(l);
    assert_null(pool_heap_of(l));
    pool_heap_destroy(h);
}

static void bad_frees_change_nothing(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    char *a = pool_alloc(h, 48), *b = pool_alloc(h, 48), *big = pool_alloc(h, 1u << 20);
    memset(a, 1, 48);
    memset(b, 2, 48);
    pool_stats_t before, after;
    pool_stats_heap(h, &before);

    int local = 0;
    void *m = malloc(32);
    assert_int_equal(pool_free(&local), LOCI_ENOENT); /* stack: not the pool's */
    assert_non_null(strstr(loci_last_error(), "not a pointer loci allocated"));
    assert_int_equal(pool_free(m), LOCI_ENOENT); /* libc heap */
    assert_int_equal(pool_free((void *)(uintptr_t)0xdead0000beefull), LOCI_ENOENT);
    assert_int_equal(pool_free((void *)~(uintptr_t)0xfff), LOCI_ENOENT); /* beyond 48 bits */
    free(m);
    assert_int_equal(pool_free(a + 8), LOCI_EINVAL); /* interior */
    assert_non_null(strstr(loci_last_error(), "inside a block"));
    assert_int_equal(pool_free(big + 4096), LOCI_EINVAL);
    assert_int_equal(pool_free(b), 0);
    assert_int_equal(pool_free(b), LOCI_EINVAL); /* double free, block in the cache */
    assert_non_null(strstr(loci_last_error(), "double free"));
    assert_int_equal(pool_free(big), 0);
    assert_int_equal(pool_free(big), LOCI_ENOENT); /* double free of a gone extent: the pool knows it no more */

    /* state intact: a is still live with its bytes; b's block comes back once */
    for (int i = 0; i < 48; i++)
        assert_int_equal(a[i], 1);
    char *c = pool_alloc(h, 48), *d = pool_alloc(h, 48);
    assert_ptr_not_equal(c, d);
    assert_ptr_not_equal(c, a);
    assert_ptr_not_equal(d, a);
    pool_stats_heap(h, &after);
    assert_int_equal(before.bytes_in_use, 2 * pool_usable_size(a) + (1u << 20));
    assert_int_equal(after.bytes_in_use, pool_usable_size(a) + pool_usable_size(c) + pool_usable_size(d));
    assert_int_equal(after.allocs, before.allocs + 2);
    /* many double frees of a block already flushed back to its slab */
    for (int i = 0; i < 1000; i++) {
        void *x = pool_alloc(h, 48);
        pool_free(x);
    }
    assert_int_equal(pool_free(c), 0);
    pool_thread_flush();
    assert_int_equal(pool_free(c), LOCI_EINVAL);
    assert_int_equal(pool_free(a), 0);
    assert_int_equal(pool_free(d), 0);
    pool_stats_heap(h, &after);
    assert_int_equal(after.bytes_in_use, 0);
    assert_int_equal(after.allocs, after.frees);
    pool_heap_destroy(h);
}

static void stats_count_usable_bytes(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    pool_stats_t st;
    void *p[100];
    size_t sum = 0;
    for (int i = 0; i < 100; i++) {
        p[i] = pool_alloc(h, (size_t)i * 100);
        sum += pool_usable_size(p[i]);
    }
    void *big = pool_alloc(h, 1u << 20);
    sum += 1u << 20;
    pool_stats_heap(h, &st);
    assert_int_equal(st.allocs, 101);
    assert_int_equal(st.frees, 0);
    assert_int_equal(st.bytes_in_use, sum);
    assert_true(st.bytes_peak >= sum);
    assert_true(st.bytes_committed >= sum);
    assert_true(st.bytes_mapped >= st.bytes_committed);
    assert_true(st.extents_mapped >= 2);
    for (int i = 0; i < 50; i++)
        pool_free(p[i]);
    pool_free(big);
    pool_stats_heap(h, &st);
    assert_int_equal(st.frees, 51);
    size_t rest = 0;
    for (int i = 50; i < 100; i++)
        rest += pool_usable_size(p[i]);
    assert_int_equal(st.bytes_in_use, rest);
    assert_true(st.bytes_peak >= sum);
    for (int i = 50; i < 100; i++)
        pool_free(p[i]);

    /* per target: this heap and another one on the same target */
    pool_heap_t *h2 = local_heap(&dram);
    void *q = pool_alloc(h2, 5000);
    pool_stats_t t;
    pool_stats_target(&dram, &t);
    assert_int_equal(t.bytes_in_use, pool_usable_size(q));
    assert_true(t.allocs >= 102);
    pool_free(q);
    pool_heap_destroy(h2);
    pool_heap_destroy(h);
    pool_stats_target(&dram, &t);
    assert_int_equal(t.bytes_in_use, 0);
    assert_int_equal(t.bytes_committed, 0);
    assert_int_equal(t.extents_mapped, 0);
    assert_int_equal(t.allocs, t.frees);
}

static void capacity_cap_refuses(void **state)
{
    pool_heap_t *h = local_heap(&capped);
    void *blocks[8];
    int n = 0;
    errno = 0;
    while (n < 8 && (blocks[n] = pool_alloc(h, 300000)) != NULL)
        n++;
    assert_int_equal(n, 3); /* 3 x 300 KB fit under 1 MiB, a 4th does not */
    assert_int_equal(errno, ENOMEM);
    const char *msg = loci_last_error();
    assert_non_null(strstr(msg, "hbm0"));
    assert_non_null(strstr(msg, "capacity cap of 1.0 MiB"));
    /* small blocks: slabs are charged too */
    void *small = pool_alloc(h, 64);
    assert_non_null(small); /* one 64 KiB slab still fits */
    pool_stats_t st;
    pool_stats_target(&capped, &st);
    assert_true(st.bytes_committed <= capped.capacity.value);
    pool_free(blocks[0]);
    blocks[0] = pool_alloc(h, 300000); /* room again */
    assert_non_null(blocks[0]);
    for (int i = 0; i < n; i++)
        pool_free(blocks[i]);
    pool_free(small);
    pool_heap_destroy(h);
    pool_stats_target(&capped, &st);
    assert_int_equal(st.bytes_committed, 0);
}

static pool_heap_t *spill_to;
static pool_request_t last_req;
static int spills;

static void *spill(pool_heap_t *h, const pool_request_t *req)
{
    assert_int_equal(errno, ENOMEM); /* why the heap said no is still there */
    last_req = *req;
    spills++;
    switch (req->kind) {
    case POOL_REQ_CALLOC: return pool_calloc(spill_to, req->n, req->size);
    case POOL_REQ_ALIGNED: return pool_aligned_alloc(spill_to, req->align, req->size);
    default: return pool_alloc(spill_to, req->size);
    }
}

/* A full heap hands the request to its failure hook (an allocator's fallback). */
static void failure_hook_spills(void **state)
{
    pool_heap_t *h = local_heap(&capped);
    spill_to = local_heap(&dram);
    void *fill[3];
    for (int i = 0; i < 3; i++)
        fill[i] = pool_alloc(h, 300000);
    errno = 0;
    assert_null(pool_alloc(h, 300000)); /* no hook yet: NULL, ENOMEM */
    assert_int_equal(errno, ENOMEM);
    pool_heap_set_on_fail(h, spill);
    void *p = pool_alloc(h, 300000);
    assert_non_null(p);
    assert_ptr_equal(pool_heap_of(p), spill_to);
    assert_int_equal(last_req.kind, POOL_REQ_ALLOC);
    assert_int_equal(last_req.size, 300000);
    unsigned char *z = pool_calloc(h, 1000, 400);
    assert_non_null(z);
    assert_int_equal(last_req.kind, POOL_REQ_CALLOC);
    assert_int_equal(last_req.n, 1000);
    for (int i = 0; i < 400000; i += 4096)
        assert_int_equal(z[i], 0);
    void *a = pool_aligned_alloc(h, 1u << 20, 300000);
    assert_non_null(a);
    assert_int_equal((uintptr_t)a % (1u << 20), 0);
    assert_int_equal(last_req.kind, POOL_REQ_ALIGNED);
    assert_int_equal(last_req.align, 1u << 20);
    assert_int_equal(spills, 3);
    pool_heap_set_on_fail(h, NULL);
    pool_free(p);
    pool_free(z);
    pool_free(a);
    for (int i = 0; i < 3; i++)
        pool_free(fill[i]);
    pool_heap_destroy(h);
    pool_heap_destroy(spill_to);
}

static void strict_placement_checks_node_memory(void **state)
{
    place_t pl = place_for(&dram, PLACE_BIND);
    pool_heap_t *h = pool_heap_create(&provider_numa, &pl, NULL);
    void *p = pool_alloc(h, 1000); /* this machine's node 0 has room */
    assert_non_null(p);
    pool_free(p);
    pool_set_node_margin(1ull << 60); /* pretend the node is almost full */
    errno = 0;
    void *big = pool_alloc(h, 1u << 20);
    assert_null(big);
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "safety margin"));
    assert_non_null(strstr(loci_last_error(), "dram0"));
    pool_set_node_margin(0);
    big = pool_alloc(h, 1u << 20);
    assert_non_null(big);
    pool_free(big);
    pool_heap_destroy(h);
}

static void purge_after_frees(void **state)
{
    unsigned old = pool_set_purge_delay_ms(0);
    pool_heap_t *h = local_heap(&dram);
    enum { N = 16384 };
    void **p = malloc(N * sizeof *p);
    size_t rss0 = rss_bytes();
    for (int i = 0; i < N; i++) {
        p[i] = pool_alloc(h, 1024);
        memset(p[i], 0x77, 1024);
    }
    size_t rss1 = rss_bytes();
    assert_true(rss1 > rss0 + 12 * (1u << 20)); /* 16 MiB touched */
    pool_stats_t st;
    pool_stats_heap(h, &st);
    uint64_t purges0 = st.purges;
    for (int i = 0; i < N; i++)
        pool_free(p[i]);
    /* sustained frees flushed the caches into the slabs, which went back */
    size_t rss2 = rss_bytes();
    assert_true(rss2 + 12 * (1u << 20) < rss1);
    pool_stats_heap(h, &st);
    assert_true(st.purges > purges0);
    /* what is left goes on collect */
    pool_heap_collect(h);
    pool_stats_heap(h, &st);
    assert_int_equal(st.bytes_committed, 0);
    assert_int_equal(st.extents_mapped, 0);
    free(p);
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

static void purge_waits_for_the_delay(void **state)
{
    unsigned old = pool_set_purge_delay_ms(60000);
    pool_heap_t *h = local_heap(&dram);
    void *p[2000];
    for (int i = 0; i < 2000; i++)
        p[i] = pool_alloc(h, 512);
    for (int i = 0; i < 2000; i++)
        pool_free(p[i]);
    pool_stats_t st;
    pool_stats_heap(h, &st);
    assert_int_equal(st.purges, 0); /* empty slabs kept for reuse */
    assert_true(st.bytes_committed > 0);
    pool_heap_collect(h);
    pool_stats_heap(h, &st);
    assert_true(st.purges > 0);
    assert_int_equal(st.bytes_committed, 0);
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

/* A class that resumes allocating keeps its empty slabs (no refaulting on
 * every burst); one left idle gives them back after the delay. */
static void purge_spares_classes_in_use(void **state)
{
    /* A delay long enough that a burst under a sanitizer on busy CPUs stays
     * well inside ten of them. */
    unsigned old = pool_set_purge_delay_ms(100);
    pool_heap_t *h = local_heap(&dram);
    enum { N = 4000 };
    void **p = malloc(N * sizeof *p);
    pool_stats_t st;
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++)
            p[i] = pool_alloc(h, 2000);
        for (int i = 0; i < N; i++)
            pool_free(p[i]);
        pool_thread_flush();
        usleep(250 * 1000); /* older than the delay, younger than 10 delays */
    }
    pool_stats_heap(h, &st);
    assert_int_equal(st.purges, 0); /* the second burst found its slabs */
    /* now leave that class idle, and work in another one */
    for (int i = 0; i < 64 && st.purges == 0; i++) {
        void *q = pool_alloc(h, 100);
        pool_free(q);
        pool_thread_flush(); /* next time round is a refill: a slow path */
        if (i % 8 == 7)
            usleep(60 * 1000);
        pool_stats_heap(h, &st);
    }
    assert_true(st.purges > 0);
    free(p);
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

/* Memory freed for good goes back to the kernel. Past the heap's budget
 * (max(64 MiB, twice its recent peak in use)) it goes at once, oldest first:
 * here a program moves through five sizes, 48 MiB in use at a time. */
static void moving_on_gives_memory_back(void **state)
{
    unsigned old = pool_set_purge_delay_ms(60000); /* the budget alone decides */
    pool_heap_t *h = local_heap(&dram);
    size_t sizes[5] = {40000, 48000, 56000, 64000, 80000}; /* five size classes */
    pool_stats_t st;
    void **p = NULL;
    size_t n = 0;
    for (int k = 0; k < 5; k++) {
        n = (48u << 20) / sizes[k];
        free(p);
        p = malloc(n * sizeof *p);
        for (size_t i = 0; i < n; i++) {
            p[i] = pool_alloc(h, sizes[k]);
            assert_non_null(p[i]);
            memset(p[i], k + 1, sizes[k]);
        }
        for (size_t i = 0; i < n; i++)
            pool_free(p[i]);
        pool_thread_flush();
    }
    /* 240 MiB were touched; about twice 48 MiB stays (the rest was purged:
     * idle_memory_goes_back checks what purging does to RSS) */
    pool_stats_heap(h, &st);
    assert_true(st.purges > 0);
    assert_true(st.bytes_committed <= (112u << 20));
    size_t rss1 = rss_bytes();
    /* what stays is the newest: the last size comes back without faulting */
    for (size_t i = 0; i < n; i++) {
        p[i] = pool_alloc(h, sizes[4]);
        ((volatile char *)p[i])[0] = 1;
    }
    assert_true(rss_bytes() < rss1 + (8u << 20));
    for (size_t i = 0; i < n; i++)
        pool_free(p[i]);
    pool_heap_collect(h);
    pool_stats_heap(h, &st);
    assert_int_equal(st.bytes_committed, 0);
    free(p);
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

/* And memory left unused for the purge delay goes back on later slow paths
 * (here 20 ms; a class still refilling keeps it ten delays). */
static void idle_memory_goes_back(void **state)
{
    unsigned old = pool_set_purge_delay_ms(20);
    pool_heap_t *h = local_heap(&dram);
    enum { N = 1024, SZ = 65536 }; /* 64 MiB */
    void **p = malloc(N * sizeof *p);
    for (int i = 0; i < N; i++) {
        p[i] = pool_alloc(h, SZ);
        memset(p[i], 0x44, SZ);
    }
    size_t rss1 = rss_bytes();
    for (int i = 0; i < N; i++)
        pool_free(p[i]);
    pool_thread_flush();
    size_t rss2 = rss_bytes();
    assert_true(rss2 + (32u << 20) > rss1); /* kept at first (under the budget) */
    for (int i = 0; i < 3000 && rss_bytes() + (48u << 20) > rss1; i++) {
        void *q = pool_alloc(h, 100);
        pool_free(q);
        pool_thread_flush(); /* next time round is a refill: a slow path */
        usleep(1000);
    }
    assert_true(rss_bytes() + (48u << 20) <= rss1);
    pool_stats_t st;
    pool_stats_heap(h, &st);
    assert_true(st.purges > 0);
    free(p);
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

/* Cached big extents age like empty slabs: purged after the delay, then
 * unmapped after another. */
static void cached_extents_age(void **state)
{
    unsigned old = pool_set_purge_delay_ms(20);
    pool_heap_t *h = local_heap(&dram);
    unsigned char *b = pool_alloc(h, 3u << 20);
    memset(b, 1, 3u << 20);
    pool_free(b);
    unsigned char vec;
    assert_int_equal(mincore(b, 4096, &vec), 0);
    assert_true(vec & 1); /* cached, resident */
    bool purged = false;
    for (int i = 0; i < 500 && mapped(b, 4096); i++) {
        void *q = pool_alloc(h, 100);
        pool_free(q);
        pool_thread_flush(); /* next time round is a refill: a slow path */
        usleep(2000);
        purged |= mincore(b, 4096, &vec) == 0 && !(vec & 1);
    }
    assert_true(purged);            /* first its pages went */
    assert_false(mapped(b, 4096)); /* then the extent */
    pool_heap_destroy(h);
    pool_set_purge_delay_ms(old);
}

/* What a heap retains stays charged to its target, but never makes a capped
 * target refuse: a charge that fails gives it back first. */
static void retained_memory_yields_to_the_cap(void **state)
{
    pool_heap_t *h = local_heap(&capped);
    void *b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = pool_alloc(h, 300000);
        assert_non_null(b[i]);
    }
    for (int i = 0; i < 3; i++)
        pool_free(b[i]); /* cached, still charged */
    pool_stats_t st;
    pool_stats_target(&capped, &st);
    assert_true(st.bytes_committed >= 900000);
    void *big = pool_alloc(h, 700000); /* none fits: the cache makes room */
    assert_non_null(big);
    pool_free(big);
    pool_heap_collect(h);
    /* empty slabs: over 600 KiB of slabs of 4 KiB blocks, freed, kept empty */
    void *s[256];
    int n = 0;
    do {
        s[n] = pool_alloc(h, 4000);
        assert_non_null(s[n]);
        pool_stats_target(&capped, &st);
    } while (++n < 256 && st.bytes_committed < 600000);
    for (int i = 0; i < n; i++)
        pool_free(s[i]);
    pool_thread_flush();
    pool_stats_target(&capped, &st);
    assert_true(st.bytes_committed >= 600000);
    big = pool_alloc(h, 700000);
    assert_non_null(big);
    pool_free(big);
    pool_heap_destroy(h);
    pool_stats_target(&capped, &st);
    assert_int_equal(st.bytes_committed, 0);
}

static int count_extent(void *base, size_t size, void *arg)
{
    size_t *acc = arg;
    acc[0]++;
    acc[1] += size;
    assert_true(mapped(base, size));
    return 0;
}

static int stop_at_first(void *base, size_t size, void *arg)
{
    return 7;
}

static void destroy_frees_everything(void **state)
{
    pool_heap_t *h = local_heap(&dram);
    void *keep[300];
    for (int i = 0; i < 300; i++)
        keep[i] = pool_alloc(h, (size_t)(i % 30) * 1500 + (i % 7 == 0 ? 600000 : 0));
    size_t acc[2] = {0, 0};
    assert_int_equal(pool_heap_foreach_extent(h, count_extent, acc), 0);
    pool_stats_t st;
    pool_stats_heap(h, &st);
    assert_int_equal(acc[0], st.extents_mapped);
    assert_int_equal(acc[1], st.bytes_mapped);
    assert_int_equal(pool_heap_foreach_extent(h, stop_at_first, NULL), 7);
    pool_heap_destroy(h); /* live blocks and all */
    for (int i = 0; i < 300; i++) {
        assert_null(pool_heap_of(keep[i]));
        assert_false(mapped(keep[i], 1));
    }
    pool_stats_t t;
    pool_stats_target(&dram, &t);
    assert_int_equal(t.extents_mapped, 0);
    assert_int_equal(t.bytes_committed, 0);
    assert_int_equal(t.bytes_in_use, 0);
    /* a later free of such a pointer is a foreign pointer, detected */
    assert_int_equal(pool_free(keep[1]), LOCI_ENOENT);
}

static void many_heaps(void **state)
{
    pool_heap_t *h[40];
    void *p[40];
    for (int i = 0; i < 40; i++) {
        h[i] = local_heap(i % 2 ? &dram : NULL);
        p[i] = pool_alloc(h[i], 100 + (size_t)i);
        assert_ptr_equal(pool_heap_of(p[i]), h[i]);
    }
    for (int i = 0; i < 40; i += 2) /* ids get reused */
        pool_heap_destroy(h[i]);
    for (int i = 0; i < 40; i += 2) {
        h[i] = local_heap(&dram);
        p[i] = pool_alloc(h[i], 1000);
        assert_ptr_equal(pool_heap_of(p[i]), h[i]);
    }
    for (int i = 0; i < 40; i++) {
        assert_int_equal(pool_free(p[i]), 0);
        pool_heap_destroy(h[i]);
    }
}

static void heap_on_file_tier(void **state)
{
    char dir[] = "/tmp/loci-pool-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct loci_target ssd;
    memset(&ssd, 0, sizeof ssd);
    strcpy(ssd.name, "ssd0");
    ssd.numa_node = -1;
    ssd.path = dir;
    ssd.kind = KIND_SSD;
    assert_ptr_equal(provider_for(&ssd, false), &provider_file);
    place_t pl = place_for(&ssd, PLACE_LOCAL);
    pool_heap_t *h = pool_heap_create(&provider_file, &pl, NULL);
    char *a = pool_alloc(h, 100), *b = pool_alloc(h, 1u << 20);
    assert_non_null(a);
    assert_non_null(b);
    strcpy(a, "hello");
    memset(b, 3, 1u << 20);
    char path[4096];
    size_t off;
    assert_int_equal(provider_file_path(b, path, sizeof path, &off), 0);
    assert_int_equal(off, 0);
    assert_int_equal(access(path, F_OK), 0);
    pool_free(a);
    pool_free(b);
    assert_int_equal(access(path, F_OK), -1); /* its file went with it */
    pool_heap_destroy(h);
    assert_int_equal(rmdir(dir), 0); /* nothing left inside */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_classes),
        cmocka_unit_test(zero_size_unique),
        cmocka_unit_test(alignment),
        cmocka_unit_test(calloc_zero_and_overflow),
        cmocka_unit_test(realloc_semantics),
        cmocka_unit_test(large_blocks),
        cmocka_unit_test(large_extents_are_reused),
        cmocka_unit_test(carved_blocks_reuse_resident_slices),
        cmocka_unit_test(dirty_slices_age),
        cmocka_unit_test(fragmented_slabs),
        cmocka_unit_test(lookups),
        cmocka_unit_test(bad_frees_change_nothing),
        cmocka_unit_test(stats_count_usable_bytes),
        cmocka_unit_test(capacity_cap_refuses),
        cmocka_unit_test(failure_hook_spills),
        cmocka_unit_test(strict_placement_checks_node_memory),
        cmocka_unit_test(purge_after_frees),
        cmocka_unit_test(purge_waits_for_the_delay),
        cmocka_unit_test(purge_spares_classes_in_use),
        cmocka_unit_test(moving_on_gives_memory_back),
        cmocka_unit_test(idle_memory_goes_back),
        cmocka_unit_test(cached_extents_age),
        cmocka_unit_test(retained_memory_yields_to_the_cap),
        cmocka_unit_test(destroy_frees_everything),
        cmocka_unit_test(many_heaps),
        cmocka_unit_test(heap_on_file_tier),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
