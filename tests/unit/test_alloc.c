/*
 * The allocation API of loci.h as a user sees it: allocator objects and their
 * cache, malloc-like semantics, bad input, every fallback mode when a target
 * is full, and statistics. Placement itself is checked page by page in the VM
 * (tests/vm/vm_placement.c); here a simulated KNL (LOCI_TOPOLOGY) with an
 * admin capacity cap on its MCDRAM makes "full" happen deterministically.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/child.h"
#include "support/scratch.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>


/* Simulated KNL (dram0 = node 0, hbm0 = node 1), hbm0 capped by the admin at 64 MiB. */
static void use_capped_knl(void)
{
    use_topology("knl-flat.xml", "[target hbm0]\nnuma_node = 1\ncapacity = 64MiB\n");
}


static const char *target_name(const void *p)
{
    static loci_target_info_t info;
    const loci_target_t *t = loci_ptr_target(p);
    if (!t || loci_target_info(t, &info) != 0)
        return "(none)";
    return info.name;
}

static void malloc_semantics(void **state)
{
    use_this_machine();
    loci_allocator_t *a = loci_allocator_create("");
    assert_non_null(a);
    void *z1 = loci_alloc(a, 0), *z2 = loci_alloc(a, 0);
    assert_non_null(z1);
    assert_non_null(z2);
    assert_ptr_not_equal(z1, z2); /* malloc(0): unique, freeable */
    loci_free(z1);
    loci_free(z2);
    loci_free(NULL);

    unsigned char *c = loci_calloc(a, 1000, 33);
    assert_non_null(c);
    for (int i = 0; i < 33000; i++)
        assert_int_equal(c[i], 0);
    assert_true(loci_usable_size(c) >= 33000);
    c = loci_realloc(c, 100000);
    assert_non_null(c);
    assert_int_equal(c[32999], 0); /* contents kept */
    assert_string_equal(target_name(c), "dram0");
    assert_null(loci_realloc(c, 0)); /* frees */

    char *r = loci_realloc(NULL, 64); /* like loci_alloc on local DRAM */
    assert_non_null(r);
    loci_free(r);

    for (size_t align = 8; align <= (4u << 20); align <<= 1) {
        void *p = loci_aligned_alloc(a, align, 100);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % align, 0);
        loci_free(p);
    }
}

static void bad_input_is_reported_not_fatal(void **state)
{
    use_this_machine();
    loci_allocator_t *a = loci_allocator_create("");
    errno = 0;
    assert_null(loci_calloc(a, SIZE_MAX / 2, 3));
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "overflows"));

    assert_null(loci_aligned_alloc(a, 48, 10));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "not a power of two"));

    assert_null(loci_alloc(NULL, 10));
    assert_int_equal(errno, EINVAL);

    assert_null(loci_allocator_create("bandwith=high"));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "did you mean 'bandwidth'"));
    assert_null(loci_allocator_create("kind=hbm!"));
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(loci_last_error(), "this machine has dram0"));

    /* foreign pointers and double frees: reported, nothing corrupted */
    int on_stack;
    char *heap = malloc(64);
    loci_free(&on_stack);
    assert_non_null(strstr(loci_last_error(), "not"));
    loci_free(heap);
    free(heap);
    char *p = loci_alloc(a, 48), *q = loci_alloc(a, 48);
    memset(q, 7, 48);
    loci_free(p);
    loci_free(p);
    assert_non_null(strstr(loci_last_error(), "free"));
    char *p2 = loci_alloc(a, 48), *p3 = loci_alloc(a, 48);
    assert_ptr_not_equal(p2, p3); /* the double free did not hand one block out twice */
    assert_int_equal(q[47], 7);
    assert_null(loci_ptr_target(&on_stack));
    assert_int_equal(errno, ENOENT);
    assert_int_equal(loci_usable_size(&on_stack), 0);
    loci_free(p2);
    loci_free(p3);
    loci_free(q);
}

static void cache_returns_one_object_per_meaning(void **state)
{
    use_this_machine();
    loci_allocator_t *a = loci_allocator_create("bandwidth=high, align=2MiB");
    assert_non_null(a);
    assert_ptr_equal(a, loci_allocator_create("bandwidth=high, align=2MiB"));
    assert_ptr_equal(a, loci_allocator_create("  BANDWIDTH = High ,align=2097152"));
    assert_ptr_not_equal(a, loci_allocator_create("bandwidth=high"));
    assert_string_equal(loci_allocator_intent(a), "bandwidth=high,align=2097152");
    loci_allocator_destroy(a);
    const loci_target_t *t[4];
    assert_int_equal(loci_allocator_targets(a, t, 4), 1); /* memory and handle stay valid */
}

struct create_arg {
    loci_allocator_t *got[200];
};

static void *create_many(void *arg)
{
    struct create_arg *c = arg;
    for (int i = 0; i < 200; i++) {
        char intent[64];
        snprintf(intent, sizeof intent, "latency=low,align=%d", 1 << (i % 12));
        c->got[i] = loci_allocator_create(intent);
        void *p = loci_alloc(c->got[i], (size_t)i * 13);
        loci_free(p);
    }
    return NULL;
}

static void concurrent_creation_agrees(void **state)
{
    use_this_machine();
    enum { THREADS = 8 };
    pthread_t tid[THREADS];
    static struct create_arg args[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&tid[i], NULL, create_many, &args[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(tid[i], NULL);
    for (int i = 1; i < THREADS; i++)
        for (int k = 0; k < 200; k++) {
            assert_non_null(args[i].got[k]);
            assert_ptr_equal(args[i].got[k], args[0].got[k]);
        }
}

static void fallback_next_and_default(void **state)
{
    use_capped_knl();
    loci_allocator_t *next = loci_allocator_create("bandwidth=high");
    void *fits = loci_alloc(next, 32 << 20);
    assert_string_equal(target_name(fits), "hbm0");
    void *spills = loci_alloc(next, 48 << 20); /* 32 + 48 > the 64 MiB cap */
    assert_non_null(spills);
    assert_string_equal(target_name(spills), "dram0");

    loci_allocator_t *dflt = loci_allocator_create("kind=hbm!,fallback=default");
    void *d = loci_alloc(dflt, 48 << 20);
    assert_non_null(d);
    assert_string_equal(target_name(d), "dram0"); /* the initiator's DRAM, though not a candidate */
    loci_free(fits);
    loci_free(spills);
    loci_free(d);
}

static void fallback_null(void **state)
{
    use_capped_knl();
    loci_allocator_t *a = loci_allocator_create("bandwidth=high!,fallback=null");
    void *p = loci_alloc(a, 60 << 20);
    assert_non_null(p);
    errno = 0;
    assert_null(loci_alloc(a, 8 << 20));
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "capacity cap of 64.0 MiB"));
    assert_non_null(strstr(loci_last_error(), "fallback=null"));
    loci_free(p);
    void *again = loci_alloc(a, 8 << 20); /* room again once freed */
    assert_non_null(again);
    loci_free(again);
}

static void alloc_aborting(void *arg)
{
    (void)arg;
    loci_alloc(loci_allocator_create("kind=hbm!,fallback=abort"), 100 << 20);
}

static void fallback_abort_says_why(void **state)
{
    use_capped_knl();
    char msg[2048];
    assert_int_equal(child_fork_stderr(alloc_aborting, NULL, msg, sizeof msg), 128 + SIGABRT);
    assert_non_null(strstr(msg, "intent \"kind=hbm!,fallback=abort\": cannot allocate 104857600 bytes"));
}

static void statistics(void **state)
{
    use_capped_knl();
    loci_allocator_t *a = loci_allocator_create("kind=hbm");
    void *p[10];
    for (int i = 0; i < 10; i++)
        p[i] = loci_alloc(a, 1 << 20);
    loci_stats_t st;
    assert_int_equal(loci_allocator_stats(a, &st), 0);
    assert_int_equal(st.allocations, 10);
    assert_true(st.bytes_in_use >= 10u << 20);
    loci_stats_t hbm;
    assert_int_equal(loci_target_stats(loci_target_by_name("hbm0"), &hbm), 0);
    assert_true(hbm.bytes_in_use >= 10u << 20);
    for (int i = 0; i < 10; i++)
        loci_free(p[i]);
    assert_int_equal(loci_allocator_stats(a, &st), 0);
    assert_int_equal(st.frees, 10);
    assert_int_equal(st.bytes_in_use, 0);
    assert_true(st.bytes_peak >= 10u << 20);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    loci_stats_print(f);
    fclose(f);
    assert_non_null(strstr(text, "kind=hbm"));
    assert_non_null(strstr(text, "hbm0"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(malloc_semantics),
        cmocka_unit_test(bad_input_is_reported_not_fatal),
        cmocka_unit_test(cache_returns_one_object_per_meaning),
        cmocka_unit_test(concurrent_creation_agrees),
        cmocka_unit_test(fallback_next_and_default),
        cmocka_unit_test(fallback_null),
        cmocka_unit_test(fallback_abort_says_why),
        cmocka_unit_test(statistics),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
