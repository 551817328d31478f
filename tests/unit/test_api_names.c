/*
 * The public API's two spellings (include/loci.h, "Names"; docs/API.md):
 * every consistent name and the older one it replaces are declared with the
 * same type, in C here and in C++ (test_api_names.cpp, linked in), and
 * give the same result on the same input — checked against the expected
 * result too, so an alias that forwarded to the wrong call or dropped an
 * argument fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "loci_shmem.h"
#include "api_names_pairs.h"
#include "support/scratch.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Declared with one type: _Generic is not evaluated, so the shmem names
 * need no libloci-shmem here. */
#define SAME_TYPE(a, b) _Static_assert(_Generic(&(a), __typeof__(&(b)): 1, default: 0), #a " and " #b " differ");
API_NAME_PAIRS(SAME_TYPE)
_Static_assert(_Generic((loci_arena_move_request_t *)0, loci_arena_move_t *: 1, default: 0), "move types differ");
_Static_assert(_Generic((loci_ckpt_gc_stats_t *)0, loci_ckpt_gc_t *: 1, default: 0), "gc types differ");
_Static_assert(_Generic((loci_cache_stats_t *)0, loci_nvm_stats_t *: 1, default: 0), "cache stats types differ");
_Static_assert(API_NAME_FLAGS_AGREE, "region flags differ");

/* test_api_names.cpp: loci_ptr_arena(ptr) as C++ calls it, NULL when loci_arena_of disagrees. */
loci_arena_t *api_names_cxx_arena(const void *ptr);

/* Both setters, node by node, each followed by what loci_initiator() then
 * says, on a machine with two CPU nodes (0, 1) and two CPU-less ones. */
static void initiator_set(void **state)
{
    use_topology("xeonmax-2s.xml", "");
    const int nodes[] = {1, 0, 2, 3, -1, 4095, -7};
    const int rc_expected[] = {0, 0, LOCI_EINVAL, LOCI_EINVAL, 0, LOCI_EINVAL, 0}; /* any node < 0: the CPU's */
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        int rc_new = loci_initiator_set(nodes[i]), view_new = loci_initiator();
        loci_initiator_set(-1);
        int rc_old = loci_set_initiator(nodes[i]), view_old = loci_initiator();
        loci_set_initiator(-1);
        assert_int_equal(rc_new, rc_expected[i]);
        assert_int_equal(rc_new, rc_old);
        assert_int_equal(view_new, view_old);
        if (rc_new == 0 && nodes[i] >= 0)
            assert_int_equal(view_new, nodes[i]);
    }
}

/* Both placement calls on the same inputs: a good intent, refusals of each
 * kind, and the empty range that is nothing to do. Simulated KNL: placement
 * is recorded, not applied. */
static void range_place(void **state)
{
    use_topology("knl-flat.xml", "");
    size_t len = 4 * (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    const struct {
        void *addr;
        size_t len;
        const char *intent;
        int rc;
    } cases[] = {
        {p, len, "kind=hbm!", 0},
        {p, len, "bandwidth=high", 0},
        {p, len, "bandwith=high", LOCI_EINVAL},
        {NULL, len, "", LOCI_EINVAL},
        {p, len, "kind=gpu!", LOCI_ENOENT},
        {p, len, "kind=ssd!", LOCI_ENOTSUP},
        {NULL, 0, "bogus", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char msg_new[512];
        int rc_new = loci_range_place(cases[i].addr, cases[i].len, cases[i].intent);
        snprintf(msg_new, sizeof msg_new, "%s", loci_last_error());
        int rc_old = loci_place_range(cases[i].addr, cases[i].len, cases[i].intent);
        assert_int_equal(rc_new, cases[i].rc);
        assert_int_equal(rc_new, rc_old);
        if (rc_new != 0)
            assert_string_equal(msg_new, loci_last_error());
    }
    munmap(p, len);
}

/* Both pointer-to-arena lookups, from C and from C++: a block's start and
 * inside, memory of an allocator, of no one, and NULL. */
static void ptr_arena(void **state)
{
    use_this_machine();
    loci_arena_t *ar = loci_arena_create("", 0);
    assert_non_null(ar);
    char *block = loci_arena_alloc(ar, 1000);
    loci_allocator_t *a = loci_allocator_create("");
    void *other = loci_alloc(a, 64);
    int local;
    assert_non_null(block);
    assert_non_null(other);
    const void *ptrs[] = {block, block + 999, other, &local, NULL};
    loci_arena_t *const owner[] = {ar, ar, NULL, NULL, NULL};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) {
        errno = 0;
        loci_arena_t *found_new = loci_ptr_arena(ptrs[i]);
        int errno_new = errno;
        errno = 0;
        assert_ptr_equal(found_new, owner[i]);
        assert_ptr_equal(found_new, loci_arena_of(ptrs[i]));
        if (!found_new)
            assert_int_equal(errno_new, errno);
    }
    assert_ptr_equal(api_names_cxx_arena(block), ar);
    loci_free(other);
    loci_allocator_destroy(a);
    loci_arena_destroy(ar);

    /* the move handle under either type name (NULL arena: refused at once) */
    errno = 0;
    loci_arena_move_request_t *req = loci_arena_move_async(NULL, NULL);
    loci_arena_move_t *old = req;
    assert_null(old);
    assert_int_equal(errno, EINVAL);
}

/* A region made, sized, synced, closed, reopened and removed through the new
 * names, each step checked against the old name on the same region. */
static void region_calls(void **state)
{
    use_this_machine();
    const char *name = unique_name("api-names");
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    assert_null(loci_region_open(name, page, NULL, 0)); /* no such region */
    int errno_new = errno;
    assert_null(loci_persist_open(name, page, NULL, 0));
    assert_int_equal(errno_new, ENOENT);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(loci_region_remove(name, NULL), LOCI_ENOENT);
    assert_int_equal(loci_persist_remove(name, NULL), LOCI_ENOENT);

    char *r = loci_region_open(name, 3 * page - 1, NULL, LOCI_REGION_CREATE);
    assert_non_null(r);
    assert_int_equal(loci_region_size(r + page), 3 * page);
    assert_int_equal(loci_persist_size(r + page), 3 * page);
    assert_int_equal(loci_region_size(&name), 0);
    assert_int_equal(loci_persist_size(&name), 0);
    strcpy(r + page, "written under one name");
    assert_int_equal(loci_region_sync(r), 0);
    assert_int_equal(loci_persist_sync(r), 0);
    assert_int_equal(loci_region_remove(name, NULL), LOCI_EBUSY); /* open */
    assert_int_equal(loci_persist_remove(name, NULL), LOCI_EBUSY);
    assert_int_equal(loci_region_close(r), 0);

    r = loci_persist_open(name, 0, NULL, LOCI_READONLY); /* the old name sees the same region */
    assert_non_null(r);
    assert_string_equal(r + page, "written under one name");
    assert_int_equal(loci_persist_close(r), 0);
    assert_int_equal(loci_region_close(r), LOCI_EINVAL); /* closed already, under either name */
    assert_int_equal(loci_persist_close(r), LOCI_EINVAL);
    assert_int_equal(loci_region_remove(name, NULL), 0);
    assert_int_equal(loci_persist_remove(name, NULL), LOCI_ENOENT);

    loci_ckpt_gc_stats_t gc; /* the gc counters under either type name */
    loci_ckpt_gc_t *old = &gc;
    assert_int_equal(loci_ckpt_gc(old), 0);
}

/* Prefetch, flush and evict under both names on the same ranges of a paged
 * region: whole, empty, running past its end, of no loci memory, NULL; then
 * the cache counters of the region, of memory of no cache, and of all. */
static void range_calls(void **state)
{
    use_this_machine();
    const char *name = unique_name("api-names-range");
    const size_t mb = (size_t)1 << 20;
    const char *paged = "persist,mode=paged,cache=1MiB,chunk=64KiB";
    char *r = loci_region_open(name, mb, paged, LOCI_REGION_CREATE);
    assert_non_null(r);
    memset(r + 10, 7, 50000);
    int local;
    const struct {
        const void *addr;
        size_t len;
        int rc;
    } cases[] = {
        {r + 10, 50000, 0}, {r, 0, 0}, {r + 10, 100 * mb, LOCI_EINVAL}, {&local, 4, LOCI_EINVAL}, {NULL, 4, LOCI_EINVAL},
    };
    const struct {
        const char *name;
        int (*new_call)(const void *, size_t), (*old_call)(const void *, size_t);
    } calls[] = {
        {"loci_range_flush", loci_range_flush, loci_nvm_flush},
        {"loci_range_evict", loci_range_evict, loci_nvm_evict},
        {"loci_range_prefetch", loci_range_prefetch, loci_nvm_prefetch},
    };
    for (size_t c = 0; c < sizeof calls / sizeof *calls; c++)
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            char msg_new[512];
            int rc_new = calls[c].new_call(cases[i].addr, cases[i].len);
            snprintf(msg_new, sizeof msg_new, "%s", loci_last_error());
            int rc_old = calls[c].old_call(cases[i].addr, cases[i].len);
            assert_int_equal(rc_new, cases[i].rc);
            assert_int_equal(rc_new, rc_old);
            if (rc_new != 0) {
                assert_string_equal(msg_new, loci_last_error());
                assert_non_null(strstr(msg_new, calls[c].name)); /* errors name the new call */
            }
        }
    assert_int_equal(r[50009], 7); /* written back, dropped and read again */

    const void *addrs[] = {r, &local, NULL};
    const int rc_expected[] = {0, LOCI_ENOENT, 0};
    for (size_t i = 0; i < sizeof addrs / sizeof *addrs; i++) {
        loci_cache_stats_t st_new;
        loci_nvm_stats_t st_old;
        int rc_new = loci_cache_stats(addrs[i], &st_new);
        assert_int_equal(rc_new, rc_expected[i]);
        assert_int_equal(loci_nvm_stats(addrs[i], &st_old), rc_new);
        if (rc_new == 0) {
            assert_int_equal(st_new.cache_bytes, st_old.cache_bytes);
            assert_true(st_new.misses > 0 && st_new.misses == st_old.misses);
        }
    }
    assert_int_equal(loci_cache_stats(r, NULL), LOCI_EINVAL);
    assert_int_equal(loci_nvm_stats(r, NULL), LOCI_EINVAL);
    assert_int_equal(loci_region_close(r), 0);
    assert_int_equal(loci_region_remove(name, paged), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(initiator_set),
        cmocka_unit_test(range_place),
        cmocka_unit_test(ptr_arena),
        cmocka_unit_test(region_calls),
        cmocka_unit_test(range_calls),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
