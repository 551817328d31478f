/*
 * The allocator inside an OpenSHMEM partition (shim/shmem/heap.c), without
 * OpenSHMEM: blocks inside the range and disjoint, alignment, coalescing
 * (everything freed gives the whole range back), exact fits, resizing in
 * place, and determinism — two heaps given the same calls return the same
 * offsets, which is what makes partition blocks symmetric across PEs; and
 * the partition's lock around it, from 4 threads at once (TSan checks it in
 * the sanitizer stage).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "shim.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { MIB = 1 << 20 };

static void whole_range_back(void **state)
{
    (void)state;
    heap_t *h = heap_create(MIB, 0);
    assert_non_null(h);
    assert_int_equal(heap_alloc(h, MIB, 0), 0); /* an exact fit of the whole range */
    assert_int_equal(heap_alloc(h, 1, 0), HEAP_NONE);
    assert_int_equal(heap_block_size(h, 0), MIB);
    assert_true(heap_free(h, 0));
    assert_false(heap_free(h, 0)); /* double free: refused */

    size_t off[64];
    for (int i = 0; i < 64; i++) /* 64 blocks of 16 KiB fill it */
        assert_int_not_equal(off[i] = heap_alloc(h, MIB / 64, 0), HEAP_NONE);
    assert_int_equal(heap_alloc(h, 1, 0), HEAP_NONE);
    for (int i = 0; i < 64; i += 2) /* free every other one, then the rest: all coalesces */
        assert_true(heap_free(h, off[i]));
    size_t used, largest;
    heap_usage(h, &used, &largest);
    assert_int_equal(used, MIB / 2);
    assert_int_equal(largest, MIB / 64);
    for (int i = 1; i < 64; i += 2)
        assert_true(heap_free(h, off[i]));
    heap_usage(h, &used, &largest);
    assert_int_equal(used, 0);
    assert_int_equal(largest, MIB);
    assert_int_equal(heap_alloc(h, MIB, 0), 0);
    heap_destroy(h);
}

static void sizes_and_alignment(void **state)
{
    (void)state;
    heap_t *h = heap_create(16 * MIB, 0);
    size_t a = heap_alloc(h, 0, 0), b = heap_alloc(h, 1, 0), c = heap_alloc(h, 17, 0);
    assert_int_equal(heap_block_size(h, a), HEAP_GRANULE); /* 0 bytes: a unique block all the same */
    assert_int_equal(heap_block_size(h, b), HEAP_GRANULE);
    assert_int_equal(heap_block_size(h, c), 2 * HEAP_GRANULE);
    assert_true(a != b && b != c && a != c);
    for (size_t align = 32; align <= 2 * MIB; align *= 2) {
        size_t o = heap_alloc(h, 100, align);
        assert_int_not_equal(o, HEAP_NONE);
        assert_int_equal(o % align, 0);
        assert_int_equal(heap_block_size(h, o + HEAP_GRANULE), 0); /* inside a block: not a block */
    }
    assert_int_equal(heap_alloc(h, 8, 32 * MIB), HEAP_NONE); /* alignment beyond the range */
    assert_int_equal(heap_alloc(h, 17 * MIB, 0), HEAP_NONE);
    heap_destroy(h);

    h = heap_create(4 * MIB, 0x7f0000001000); /* memory at a page, not at 64 KiB: addresses are aligned */
    for (size_t align = 64; align <= MIB; align *= 4) {
        size_t o = heap_alloc(h, 100, align);
        assert_int_not_equal(o, HEAP_NONE);
        assert_int_equal((0x7f0000001000 + o) % align, 0);
    }
    heap_destroy(h);
}

static void resize_in_place(void **state)
{
    (void)state;
    heap_t *h = heap_create(MIB, 0);
    size_t a = heap_alloc(h, 1000, 0), b = heap_alloc(h, 1000, 0);
    assert_false(heap_resize(h, a, 2000)); /* b is in the way */
    assert_true(heap_resize(h, b, 4000));  /* free space after b */
    assert_int_equal(heap_block_size(h, b), 4000);
    assert_true(heap_resize(h, a, 100)); /* shrinking always works; the rest is free again */
    assert_int_equal(heap_block_size(h, a), 112);
    assert_true(heap_resize(h, a, 1008));
    assert_false(heap_resize(h, a + 16, 8)); /* not a block */
    assert_true(heap_free(h, a));
    assert_true(heap_free(h, b));
    assert_int_equal(heap_alloc(h, MIB, 0), 0);
    heap_destroy(h);
}

/* A random mix of calls; returns a digest of every offset the heap gave,
 * and checks every live block against a byte map of the range. */
static uint64_t workout(uint64_t seed, size_t range)
{
    heap_t *h = heap_create(range, 0);
    unsigned char *owner = calloc(range / HEAP_GRANULE, 1); /* 1: granule in a live block */
    enum { SLOTS = 512 };
    size_t off[SLOTS], len[SLOTS];
    memset(off, 0xff, sizeof off);
    uint64_t digest = 0, s = seed;
    for (int i = 0; i < 20000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int k = (int)((s >> 33) % SLOTS);
        if (off[k] != HEAP_NONE) {
            memset(owner + off[k] / HEAP_GRANULE, 0, len[k] / HEAP_GRANULE);
            assert_true(heap_free(h, off[k]));
            off[k] = HEAP_NONE;
            continue;
        }
        size_t size = (size_t)1 << ((s >> 20) % 17), align = (s >> 40) % 4 ? 0 : (size_t)64 << ((s >> 44) % 6);
        size += (s >> 50) % size;
        off[k] = heap_alloc(h, size, align);
        digest = digest * 31 + off[k];
        if (off[k] == HEAP_NONE)
            continue;
        len[k] = heap_block_size(h, off[k]);
        assert_true(len[k] >= size && off[k] + len[k] <= range);
        if (align)
            assert_int_equal(off[k] % align, 0);
        for (size_t g = off[k] / HEAP_GRANULE; g < (off[k] + len[k]) / HEAP_GRANULE; g++) {
            assert_int_equal(owner[g], 0); /* blocks never overlap */
            owner[g] = 1;
        }
    }
    for (int k = 0; k < SLOTS; k++)
        if (off[k] != HEAP_NONE)
            assert_true(heap_free(h, off[k]));
    assert_int_equal(heap_alloc(h, range, 0), 0); /* all of it coalesced back */
    free(owner);
    heap_destroy(h);
    return digest;
}

static void deterministic(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t a = workout(seed, 8 * MIB), b = workout(seed, 8 * MIB);
        assert_true(a == b); /* same calls, same offsets */
    }
    assert_true(workout(1, 8 * MIB) != workout(2, 8 * MIB)); /* and the digest does see the offsets */
}

enum { THREADS = 4, PER_THREAD = 32 };

static heap_t *shared;
static shim_lock_t shared_lock;
static unsigned char shared_owner[MIB / HEAP_GRANULE]; /* thread + 1 owning each granule, 0 = free */

/* Blocks allocated and freed under the lock, each marked in shared_owner and
 * checked to be still this thread's before it goes. */
static void *hammer(void *arg)
{
    unsigned char me = (unsigned char)(uintptr_t)arg;
    size_t off[PER_THREAD], len[PER_THREAD];
    unsigned s = me;
    for (int round = 0; round < 200; round++) {
        for (int k = 0; k < PER_THREAD; k++) {
            s = s * 1103515245u + 12345u;
            shim_lock(&shared_lock);
            off[k] = heap_alloc(shared, 16 + (s >> 16) % 2000, 0);
            len[k] = off[k] == HEAP_NONE ? 0 : heap_block_size(shared, off[k]);
            for (size_t g = 0; g < len[k] / HEAP_GRANULE; g++) {
                assert_int_equal(shared_owner[off[k] / HEAP_GRANULE + g], 0);
                shared_owner[off[k] / HEAP_GRANULE + g] = me;
            }
            shim_unlock(&shared_lock);
        }
        for (int k = 0; k < PER_THREAD; k++) {
            if (off[k] == HEAP_NONE)
                continue;
            shim_lock(&shared_lock);
            for (size_t g = 0; g < len[k] / HEAP_GRANULE; g++) {
                assert_int_equal(shared_owner[off[k] / HEAP_GRANULE + g], me);
                shared_owner[off[k] / HEAP_GRANULE + g] = 0;
            }
            assert_true(heap_free(shared, off[k]));
            shim_unlock(&shared_lock);
        }
    }
    return NULL;
}

static void threads_under_the_lock(void **state)
{
    (void)state;
    shared = heap_create(MIB, 0);
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, hammer, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(heap_alloc(shared, MIB, 0), 0); /* everything freed, coalesced */
    heap_destroy(shared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_range_back),
        cmocka_unit_test(sizes_and_alignment),
        cmocka_unit_test(resize_in_place),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(threads_under_the_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
