/*
 * loci's UMF provider as a user of both sees it (docs/UMF.md): UMF's pools placing by intent
 * (on a simulated KNL: placement recorded, not applied), what loci adds — moving a provider's
 * memory whole, tier=auto, checkpoints of it, memspaces from intents —, a size limit, split and
 * merge, forced purges, every kind of bad input answered with UMF's documented code and a
 * message (never a crash, nothing changed), threads, and fork.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "scratch.h" /* tests/unit/support */

#include <loci.h>
#include <loci_umf.h>

#include <umf/memory_pool.h>
#include <umf/pools/pool_disjoint.h>
#include <umf/pools/pool_proxy.h>

#include <numaif.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { KIB = 1024, MIB = 1024 * 1024 };

static const char *name_of(const loci_target_t *t)
{
    static __thread loci_target_info_t info;
    return t && loci_target_info(t, &info) == 0 ? info.name : "(none)";
}

/* The thread's last native error: its message, and its code in *code. */
static const char *native(int32_t *code)
{
    const char *message;
    assert_int_equal(umfLociMemoryProviderOps()->get_last_native_error(NULL, &message, code), UMF_RESULT_SUCCESS);
    return message;
}

static void expect_native(int32_t code, const char *needle)
{
    int32_t got;
    const char *message = native(&got);
    if (got != code || !strstr(message, needle))
        fail_msg("native error %d \"%s\"; expected %d saying \"%s\"", got, message, code, needle);
}

static umf_loci_memory_provider_params_handle_t params(const char *intent, size_t max_size,
                                                       umf_memory_visibility_t visibility)
{
    umf_loci_memory_provider_params_handle_t p;
    assert_int_equal(umfLociMemoryProviderParamsCreate(&p), UMF_RESULT_SUCCESS);
    assert_int_equal(umfLociMemoryProviderParamsSetIntent(p, intent), UMF_RESULT_SUCCESS);
    assert_int_equal(umfLociMemoryProviderParamsSetMaxSize(p, max_size), UMF_RESULT_SUCCESS);
    assert_int_equal(umfLociMemoryProviderParamsSetVisibility(p, visibility), UMF_RESULT_SUCCESS);
    return p;
}

static umf_memory_provider_handle_t provider_with(const char *intent, size_t max_size,
                                                  umf_memory_visibility_t visibility)
{
    umf_loci_memory_provider_params_handle_t p = params(intent, max_size, visibility);
    umf_memory_provider_handle_t provider = NULL;
    umf_result_t r = umfMemoryProviderCreate(umfLociMemoryProviderOps(), p, &provider);
    assert_int_equal(umfLociMemoryProviderParamsDestroy(p), UMF_RESULT_SUCCESS);
    if (r != UMF_RESULT_SUCCESS) {
        int32_t code;
        fail_msg("provider \"%s\": UMF error %d: %s", intent, r, native(&code));
    }
    return provider;
}

static umf_memory_provider_handle_t provider(const char *intent)
{
    return provider_with(intent, 0, UMF_MEM_MAP_PRIVATE);
}

/* UMF's disjoint pool over a loci provider of `intent`, owning it. */
static umf_memory_pool_handle_t disjoint_pool(const char *intent)
{
    umf_disjoint_pool_params_handle_t dp;
    assert_int_equal(umfDisjointPoolParamsCreate(&dp), UMF_RESULT_SUCCESS);
    umf_memory_pool_handle_t pool = NULL;
    assert_int_equal(umfPoolCreate(umfDisjointPoolOps(), provider(intent), dp, UMF_POOL_CREATE_FLAG_OWN_PROVIDER,
                                   &pool),
                     UMF_RESULT_SUCCESS);
    umfDisjointPoolParamsDestroy(dp);
    return pool;
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static void *alloc(umf_memory_provider_handle_t p, size_t size, size_t alignment)
{
    void *ptr = NULL;
    umf_result_t r = umfMemoryProviderAlloc(p, size, alignment, &ptr);
    if (r != UMF_RESULT_SUCCESS) {
        int32_t code;
        fail_msg("alloc of %zu: UMF error %d: %s", size, r, native(&code));
    }
    return ptr;
}

/* size bytes of the provider's, each `byte` */
static unsigned char *filled(umf_memory_provider_handle_t p, size_t size, int byte)
{
    unsigned char *ptr = alloc(p, size, 0);
    memset(ptr, byte, size);
    return ptr;
}

/* A block of the pool's, which loci placed on `target` */
static void *block_on(umf_memory_pool_handle_t pool, size_t size, const char *target)
{
    void *p = umfPoolMalloc(pool, size);
    if (!p)
        fail_msg("umfPoolMalloc(%zu): UMF error %d", size, umfPoolGetLastAllocationError(pool));
    assert_string_equal(name_of(loci_ptr_target(p)), target);
    return p;
}

/* Free p, then the pool (and its provider). */
static void release(umf_memory_pool_handle_t pool, void *p)
{
    assert_int_equal(umfFree(p), UMF_RESULT_SUCCESS);
    umfPoolDestroy(pool);
}

/* Simulated KNL: dram0 = node 0 (96 GiB), hbm0 = node 1 (16 GiB, 4x the bandwidth). */
static void use_knl(void) { use_topology("knl-flat.xml", ""); }

static int back_to_this_machine(void **state)
{
    (void)state;
    use_this_machine();
    return 0;
}

/* ---- placement by intent, through UMF's pools ---------------------------------------- */

static void pools_place_by_intent(void **state)
{
    (void)state;
    use_knl();
    umf_memory_pool_handle_t fast = disjoint_pool("bandwidth=high"), big = disjoint_pool("capacity=large");
    void *f = block_on(fast, 1 * MIB, "hbm0"), *small = block_on(fast, 48, "hbm0"), *b = block_on(big, MIB, "dram0");
    /* UMF finds the pool of a pointer as always */
    umf_memory_pool_handle_t found = NULL;
    assert_int_equal(umfPoolByPtr(f, &found), UMF_RESULT_SUCCESS);
    assert_ptr_equal(found, fast);
    assert_int_equal(umfFree(f), UMF_RESULT_SUCCESS);
    assert_int_equal(umfFree(small), UMF_RESULT_SUCCESS);
    assert_int_equal(umfFree(b), UMF_RESULT_SUCCESS);
    umfPoolDestroy(fast);
    umfPoolDestroy(big);
}

/* A provider on the ssd0 file tier, for real: UMF's pool over memory mapped from its files. */
static void pool_on_a_file_tier(void **state)
{
    (void)state;
    umf_memory_pool_handle_t pool = disjoint_pool("kind=ssd");
    unsigned char *p = block_on(pool, 2 * MIB, "ssd0"), *small = block_on(pool, 100, "ssd0");
    memset(p, 0x42, 2 * MIB);
    assert_int_equal(loci_range_flush(p, 2 * MIB), 0);
    assert_int_equal(p[2 * MIB - 1], 0x42);
    umfFree(small);
    release(pool, p);
}

/* A provider is an arena: its memory moves whole, addresses and bytes kept, and the pool goes on. */
static void provider_memory_moves_whole(void **state)
{
    (void)state;
    use_knl();
    umf_memory_pool_handle_t pool = disjoint_pool("capacity=large");
    unsigned char *p = block_on(pool, 3 * MIB, "dram0");
    memset(p, 0x5a, 3 * MIB);
    assert_int_equal(loci_arena_move(loci_ptr_arena(p), loci_target_by_name("hbm0")), 0);
    assert_string_equal(name_of(loci_ptr_target(p)), "hbm0");
    for (size_t i = 0; i < 3 * MIB; i += 4093)
        assert_int_equal(p[i], 0x5a);
    umfFree(block_on(pool, 2 * MIB, "hbm0"));
    release(pool, p);
}

/* tier=auto: the provider's memory is one auto-tiered arena. */
static void provider_tiered_by_heat(void **state)
{
    (void)state;
    use_knl();
    umf_memory_pool_handle_t pool = disjoint_pool("bandwidth=high,tier=auto");
    void *p = block_on(pool, 1 * MIB, "hbm0");
    loci_tier_stats_t st;
    assert_int_equal(loci_tier_stats(loci_ptr_arena(p), &st), 0);
    assert_ptr_equal(st.target, loci_target_by_name("hbm0"));
    release(pool, p);
}

/* A checkpoint of memory a UMF pool handed out restores it bit-exact. */
static void checkpoint_of_pool_memory(void **state)
{
    (void)state;
    umf_memory_pool_handle_t pool = disjoint_pool("");
    unsigned char *p = umfPoolMalloc(pool, 200 * KIB);
    assert_non_null(p);
    for (size_t i = 0; i < 200 * KIB; i++)
        p[i] = (unsigned char)(i * 7);
    const char *var = unique_name("umf-pool-var"), *ckpt = unique_name("umf-ckpt");
    assert_int_equal(loci_ckpt_register(var, p, 200 * KIB), 0);
    assert_int_equal(loci_ckpt_save(ckpt), 0);
    memset(p, 0, 200 * KIB);
    assert_int_equal(loci_ckpt_restore(ckpt), 0);
    for (size_t i = 0; i < 200 * KIB; i++)
        if (p[i] != (unsigned char)(i * 7))
            fail_msg("byte %zu: %d after restore", i, p[i]);
    assert_int_equal(loci_ckpt_unregister(var), 0);
    assert_int_equal(loci_ckpt_remove(ckpt), 0);
    release(pool, p);
}

/* ---- memspaces from intents --------------------------------------------------------- */

static unsigned first_node(umf_const_memspace_handle_t m)
{
    unsigned id = ~0u;
    assert_true(umfMemspaceMemtargetNum(m) > 0);
    assert_int_equal(umfMemtargetGetId(umfMemspaceMemtargetGet(m, 0), &id), UMF_RESULT_SUCCESS);
    return id;
}

static void memspace_from_intent(void **state)
{
    (void)state;
    umf_memspace_handle_t m = NULL;
    assert_int_equal(umfLociMemspaceCreate("latency=low", &m), UMF_RESULT_SUCCESS);
    loci_allocator_t *a = loci_allocator_create("latency=low");
    const loci_target_t *best;
    assert_true(loci_allocator_targets(a, &best, 1) >= 1);
    loci_target_info_t info;
    assert_int_equal(loci_target_info(best, &info), 0);
    assert_int_equal(first_node(m), (unsigned)info.numa_node);
    /* each of its nodes is a node UMF knows on this machine */
    umf_const_memspace_handle_t all = umfMemspaceHostAllGet();
    assert_non_null(all);
    for (size_t i = 0; i < umfMemspaceMemtargetNum(m); i++) {
        unsigned id, other;
        bool known = false;
        assert_int_equal(umfMemtargetGetId(umfMemspaceMemtargetGet(m, (unsigned)i), &id), UMF_RESULT_SUCCESS);
        for (size_t k = 0; k < umfMemspaceMemtargetNum(all); k++)
            known |= umfMemtargetGetId(umfMemspaceMemtargetGet(all, (unsigned)k), &other) == UMF_RESULT_SUCCESS &&
                     other == id;
        assert_true(known);
    }
    /* UMF's own provider made from it places there */
    umf_memory_provider_handle_t os = NULL;
    assert_int_equal(umfMemoryProviderCreateFromMemspace(m, NULL, &os), UMF_RESULT_SUCCESS);
    char *p = alloc(os, 64 * KIB, 0);
    p[0] = 1;
    int node = -1;
    void *page = p;
    assert_int_equal(move_pages(0, 1, &page, NULL, &node, 0), 0);
    assert_int_equal(node, info.numa_node);
    assert_int_equal(umfMemoryProviderFree(os, p, 64 * KIB), UMF_RESULT_SUCCESS);
    umfMemoryProviderDestroy(os);
    umfMemspaceDestroy(m);
}

static void memspace_bad_input(void **state)
{
    (void)state;
    umf_memspace_handle_t m = NULL;
    assert_int_equal(umfLociMemspaceCreate(NULL, &m), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemspaceCreate("", NULL), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemspaceCreate("bandwith=high", &m), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "did you mean 'bandwidth'");
    assert_int_equal(umfLociMemspaceCreate("persist", &m), UMF_RESULT_ERROR_NOT_SUPPORTED);
    expect_native(LOCI_ENOTSUP, "no NUMA node");
    use_knl(); /* an injected machine's nodes are not this one's */
    assert_int_equal(umfLociMemspaceCreate("bandwidth=high!", &m), UMF_RESULT_ERROR_NOT_SUPPORTED);
    expect_native(LOCI_ENOTSUP, "injected topology");
    assert_null(m);
}

/* ---- the provider's contract ------------------------------------------------------- */

static void size_limit(void **state)
{
    (void)state;
    umf_memory_provider_handle_t p = provider_with("", 1 * MIB, UMF_MEM_MAP_PRIVATE);
    void *blocks[64];
    int n = 0;
    for (; n < 64; n++) {
        void *ptr = NULL;
        umf_result_t r = umfMemoryProviderAlloc(p, 64 * KIB, 0, &ptr);
        if (r != UMF_RESULT_SUCCESS) {
            assert_int_equal(r, UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY);
            assert_null(ptr);
            break;
        }
        blocks[n] = ptr;
    }
    assert_int_equal(n, 16);
    assert_int_equal(umfMemoryProviderFree(p, blocks[3], 64 * KIB), UMF_RESULT_SUCCESS);
    blocks[3] = alloc(p, 64 * KIB, 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(umfMemoryProviderFree(p, blocks[i], 64 * KIB), UMF_RESULT_SUCCESS);
    umfMemoryProviderDestroy(p);
}

/* Cases on one private provider of local DRAM, made before and destroyed after. */
static int provider_setup(void **state)
{
    *state = provider("");
    return 0;
}

static int provider_teardown(void **state)
{
    umfMemoryProviderDestroy(*state);
    return 0;
}

/* A block split in two lives until both halves are freed; merged pieces free as one. */
static void split_and_merge(void **state)
{
    umf_memory_provider_handle_t p = *state;
    size_t page = page_size();
    unsigned char *a = filled(p, 4 * page, 7);
    assert_int_equal(umfMemoryProviderAllocationSplit(p, a, 4 * page, page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderFree(p, a, page), UMF_RESULT_SUCCESS);
    assert_true(loci_usable_size(a) >= 4 * page); /* the block stays: its second piece is live */
    assert_int_equal(a[3 * page], 7);
    /* the second piece, split again and merged back */
    assert_int_equal(umfMemoryProviderAllocationSplit(p, a + page, 3 * page, 2 * page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderAllocationMerge(p, a + page, a + 3 * page, 3 * page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderFree(p, a + page, 3 * page), UMF_RESULT_SUCCESS);
    assert_int_equal(loci_usable_size(a), 0); /* now it went */

    /* bad splits and merges (those UMF's own checks let through) change nothing */
    unsigned char *b = alloc(p, 3 * page, 0);
    assert_int_equal(umfMemoryProviderAllocationSplit(p, b, 4 * page, page), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfMemoryProviderAllocationSplit(p, b + 1, page, 1), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "no such piece");
    assert_int_equal(umfMemoryProviderAllocationSplit(p, b, 3 * page, page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderAllocationSplit(p, b + page, 2 * page, page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderAllocationMerge(p, b, b + page, 3 * page), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfMemoryProviderAllocationMerge(p, b, b + 2 * page, 3 * page), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "not two adjacent pieces");
    assert_int_equal(umfMemoryProviderAllocationMerge(p, b + page, b + 2 * page, 2 * page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderFree(p, b + page, 0), UMF_RESULT_SUCCESS);
    assert_int_equal(loci_usable_size(b) > 0, 1);
    assert_int_equal(umfMemoryProviderFree(p, b, 2 * page), UMF_RESULT_ERROR_INVALID_ARGUMENT); /* it has 1 page */
    assert_int_equal(umfMemoryProviderFree(p, b, page), UMF_RESULT_SUCCESS);
    assert_int_equal(loci_usable_size(b), 0);
}

static void forced_purge_zeroes(void **state)
{
    umf_memory_provider_handle_t p = *state;
    size_t page = page_size();
    unsigned char *a = filled(p, 8 * page, 0xee);
    assert_int_equal(umfMemoryProviderPurgeForce(p, a + 2 * page, 3 * page), UMF_RESULT_SUCCESS);
    for (size_t i = 0; i < 8 * page; i++)
        assert_int_equal(a[i], i >= 2 * page && i < 5 * page ? 0 : 0xee);
    assert_int_equal(umfMemoryProviderPurgeLazy(p, a, 8 * page), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderPurgeForce(p, a + 7 * page, 2 * page), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "not inside memory it handed out");
    assert_int_equal(a[7 * page], 0xee);
    assert_int_equal(umfMemoryProviderFree(p, a, 8 * page), UMF_RESULT_SUCCESS);
}

/* ---- bad input ---------------------------------------------------------------------- */

static void bad_params(void **state)
{
    (void)state;
    umf_memory_provider_handle_t prov = NULL;
    const umf_memory_provider_ops_t *ops = umfLociMemoryProviderOps();
    assert_int_equal(umfMemoryProviderCreate(ops, NULL, &prov), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "not made by umfLociMemoryProviderParamsCreate");
    /* params of another type: UMF's disjoint pool's (never read) */
    umf_disjoint_pool_params_handle_t other;
    assert_int_equal(umfDisjointPoolParamsCreate(&other), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderCreate(ops, other, &prov), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsSetIntent((umf_loci_memory_provider_params_handle_t)other, ""),
                     UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsDestroy((umf_loci_memory_provider_params_handle_t)other),
                     UMF_RESULT_ERROR_INVALID_ARGUMENT);
    umfDisjointPoolParamsDestroy(other);
    /* params destroyed already */
    umf_loci_memory_provider_params_handle_t gone = params("", 0, UMF_MEM_MAP_PRIVATE);
    assert_int_equal(umfLociMemoryProviderParamsDestroy(gone), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderCreate(ops, gone, &prov), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsSetMaxSize(gone, 1), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsDestroy(gone), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_null(prov);

    umf_loci_memory_provider_params_handle_t p = params("", 0, UMF_MEM_MAP_PRIVATE);
    assert_int_equal(umfLociMemoryProviderParamsCreate(NULL), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsSetVisibility(p, (umf_memory_visibility_t)42),
                     UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "neither UMF_MEM_MAP_PRIVATE");
    assert_int_equal(umfLociMemoryProviderParamsSetName(p, "no spaces"), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsSetName(p, NULL), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfLociMemoryProviderParamsSetName(p, ""), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "is not 1-64 of [A-Za-z0-9_-]");
    /* intents are resolved when the provider is made */
    assert_int_equal(umfLociMemoryProviderParamsSetIntent(p, "bandwith=high"), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderCreate(ops, p, &prov), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "did you mean 'bandwidth'");
    assert_int_equal(umfLociMemoryProviderParamsSetIntent(p, "target=nosuch!"), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderCreate(ops, p, &prov), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_ENOENT, "nosuch");
    /* a shared provider stays on its node: no tier=auto */
    assert_int_equal(umfLociMemoryProviderParamsSetIntent(p, "tier=auto"), UMF_RESULT_SUCCESS);
    assert_int_equal(umfLociMemoryProviderParamsSetVisibility(p, UMF_MEM_MAP_SHARED), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderCreate(ops, p, &prov), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "tier=auto");
    assert_null(prov);
    assert_int_equal(umfLociMemoryProviderParamsDestroy(p), UMF_RESULT_SUCCESS);
}

/* UMF upgrades an ops table a program built for UMF 1.0 declares; one it does not know is refused. */
static void ops_versions(void **state)
{
    (void)state;
    umf_memory_provider_ops_t ops = *umfLociMemoryProviderOps();
    umf_loci_memory_provider_params_handle_t p = params("", 0, UMF_MEM_MAP_PRIVATE);
    umf_memory_provider_handle_t prov = NULL;
    ops.version = UMF_MAKE_VERSION(1, 0);
    assert_int_equal(umfMemoryProviderCreate(&ops, p, &prov), UMF_RESULT_SUCCESS);
    void *ptr = alloc(prov, 100, 0);
    assert_int_equal(umfMemoryProviderFree(prov, ptr, 100), UMF_RESULT_SUCCESS);
    umfMemoryProviderDestroy(prov);
    prov = NULL;
    ops.version = UMF_MAKE_VERSION(1, 99);
    assert_int_equal(umfMemoryProviderCreate(&ops, p, &prov), UMF_RESULT_ERROR_NOT_SUPPORTED);
    assert_null(prov);
    assert_int_equal(umfLociMemoryProviderParamsDestroy(p), UMF_RESULT_SUCCESS);
}

static void bad_allocations_and_frees(void **state)
{
    (void)state;
    umf_memory_provider_handle_t p = provider(""), q = provider("");
    void *ptr = (void *)1;
    assert_int_equal(umfMemoryProviderAlloc(p, 4096, 3 * 4096, &ptr), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_null(ptr);
    expect_native(LOCI_EINVAL, "alignment 12288 is not a power of two");
    assert_int_equal(umfMemoryProviderAlloc(p, 0, 0, &ptr), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "0 bytes");

    unsigned char *a = filled(p, 10000, 3);
    assert_int_equal(umfMemoryProviderFree(p, a, 9999), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "which has 10000");
    assert_int_equal(umfMemoryProviderFree(q, a, 10000), UMF_RESULT_ERROR_INVALID_ARGUMENT); /* not q's */
    assert_int_equal(umfMemoryProviderFree(p, a + 16, 0), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    int on_stack;
    assert_int_equal(umfMemoryProviderFree(p, &on_stack, sizeof on_stack), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "did not hand out");
    assert_int_equal(a[9999], 3); /* refusals left it alone */
    assert_int_equal(umfMemoryProviderFree(p, a, 10000), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderFree(p, a, 10000), UMF_RESULT_ERROR_INVALID_ARGUMENT); /* twice */
    umfMemoryProviderDestroy(p);
    umfMemoryProviderDestroy(q);
}

static void bad_ipc_input(void **state)
{
    (void)state;
    umf_memory_provider_handle_t priv = provider(""), shared = provider_with("", 4 * MIB, UMF_MEM_MAP_SHARED);
    size_t size = 0;
    assert_int_equal(umfMemoryProviderGetIPCHandleSize(priv, &size), UMF_RESULT_ERROR_NOT_SUPPORTED);
    expect_native(LOCI_ENOTSUP, "UMF_MEM_MAP_SHARED");
    assert_int_equal(umfMemoryProviderGetIPCHandleSize(shared, &size), UMF_RESULT_SUCCESS);
    unsigned char *data = calloc(1, size), *ptr = alloc(shared, 1000, 0);
    void *opened = NULL;
    assert_int_equal(umfMemoryProviderOpenIPCHandle(shared, data, &opened), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "not an IPC handle of a loci provider");
    assert_int_equal(umfMemoryProviderPutIPCHandle(shared, data), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfMemoryProviderGetIPCHandle(shared, ptr + 500, 1000, data), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    assert_int_equal(umfMemoryProviderCloseIPCHandle(shared, ptr, 1000), UMF_RESULT_ERROR_INVALID_ARGUMENT);
    expect_native(LOCI_EINVAL, "open_ipc_handle did not return");
    /* a real handle, opened: a view of its own, on the same bytes */
    memset(ptr, 9, 1000);
    assert_int_equal(umfMemoryProviderGetIPCHandle(shared, ptr, 1000, data), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderOpenIPCHandle(shared, data, &opened), UMF_RESULT_SUCCESS);
    assert_ptr_not_equal(opened, ptr);
    assert_int_equal(((unsigned char *)opened)[999], 9);
    ((unsigned char *)opened)[0] = 1;
    assert_int_equal(ptr[0], 1);
    assert_int_equal(umfMemoryProviderCloseIPCHandle(shared, opened, 1000), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderPutIPCHandle(shared, data), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderFree(shared, ptr, 1000), UMF_RESULT_SUCCESS);
    free(data);
    umfMemoryProviderDestroy(priv);
    umfMemoryProviderDestroy(shared);
}

/* ---- threads and fork --------------------------------------------------------------- */

enum { THREADS = 4, ROUNDS = 3000 };

static void *churn(void *arg)
{
    umf_memory_provider_handle_t p = arg;
    void *held[16] = {0};
    size_t sizes[16] = {0};
    unsigned seed = (unsigned)(uintptr_t)&held;
    for (int i = 0; i < ROUNDS; i++) {
        int k = (int)(rand_r(&seed) % 16);
        if (held[k]) {
            if (((unsigned char *)held[k])[sizes[k] - 1] != (unsigned char)k ||
                umfMemoryProviderFree(p, held[k], sizes[k]) != UMF_RESULT_SUCCESS)
                return "a block changed under another thread, or its free failed";
            held[k] = NULL;
        }
        else {
            sizes[k] = 1 + rand_r(&seed) % (3 * 4096);
            if (umfMemoryProviderAlloc(p, sizes[k], 0, &held[k]) != UMF_RESULT_SUCCESS)
                return "an allocation failed";
            memset(held[k], k, sizes[k]);
        }
    }
    for (int k = 0; k < 16; k++)
        if (held[k] && umfMemoryProviderFree(p, held[k], sizes[k]) != UMF_RESULT_SUCCESS)
            return "a free failed";
    return NULL;
}

static void threads_share_providers(void **state)
{
    (void)state;
    umf_memory_provider_handle_t p[2] = {provider(""), provider_with("", 64 * MIB, UMF_MEM_MAP_SHARED)};
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, p[i % 2]), 0);
    for (int i = 0; i < THREADS; i++) {
        void *failure;
        assert_int_equal(pthread_join(t[i], &failure), 0);
        if (failure)
            fail_msg("thread %d: %s", i, (const char *)failure);
    }
    umfMemoryProviderDestroy(p[0]);
    umfMemoryProviderDestroy(p[1]);
}

/* fork while other threads allocate: the child allocates and frees through the same provider. */
static void fork_while_threads_allocate(void **state)
{
    (void)state;
    umf_memory_provider_handle_t p = provider("");
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, p), 0);
    for (int round = 0; round < 5; round++) {
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
            _exit(churn(p) ? 1 : 0);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (int i = 0; i < 2; i++) {
        void *failure;
        assert_int_equal(pthread_join(t[i], &failure), 0);
        assert_null(failure);
    }
    umfMemoryProviderDestroy(p);
}

/* ---- GPU memory (`test_umf_loci gpu`, under the CUDA driver stand-in, docs/GPU.md) ----- */

/* UMF's pool on device memory: placed on the GPU, never touched by the CPU (the stand-in's
 * device memory faults on a CPU access); a forced purge, which would have to write it, is refused. */
static void pool_on_gpu_memory(void **state)
{
    (void)state;
    umf_memory_pool_handle_t pool = disjoint_pool("use=gpu");
    void *p = block_on(pool, 1 * MIB, "gpu0");
    assert_int_equal(umfFree(p), UMF_RESULT_SUCCESS);
    umfPoolDestroy(pool);

    umf_memory_provider_handle_t prov = provider("use=gpu");
    void *block = alloc(prov, 64 * KIB, 0);
    assert_string_equal(name_of(loci_ptr_target(block)), "gpu0");
    assert_int_equal(umfMemoryProviderPurgeForce(prov, block, 64 * KIB), UMF_RESULT_ERROR_NOT_SUPPORTED);
    expect_native(LOCI_ENOTSUP, "which the CPU cannot zero");
    assert_int_equal(umfMemoryProviderPurgeLazy(prov, block, 64 * KIB), UMF_RESULT_SUCCESS);
    assert_int_equal(umfMemoryProviderFree(prov, block, 64 * KIB), UMF_RESULT_SUCCESS);
    umfMemoryProviderDestroy(prov);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) {
        const struct CMUnitTest gpu[] = {cmocka_unit_test(pool_on_gpu_memory)};
        return cmocka_run_group_tests(gpu, scratch_setup, scratch_teardown);
    }

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(pools_place_by_intent, back_to_this_machine),
        cmocka_unit_test(pool_on_a_file_tier),
        cmocka_unit_test_teardown(provider_memory_moves_whole, back_to_this_machine),
        cmocka_unit_test_teardown(provider_tiered_by_heat, back_to_this_machine),
        cmocka_unit_test(checkpoint_of_pool_memory),
        cmocka_unit_test(memspace_from_intent),
        cmocka_unit_test_teardown(memspace_bad_input, back_to_this_machine),
        cmocka_unit_test(size_limit),
        cmocka_unit_test_setup_teardown(split_and_merge, provider_setup, provider_teardown),
        cmocka_unit_test_setup_teardown(forced_purge_zeroes, provider_setup, provider_teardown),
        cmocka_unit_test(bad_params),
        cmocka_unit_test(ops_versions),
        cmocka_unit_test(bad_allocations_and_frees),
        cmocka_unit_test(bad_ipc_input),
        cmocka_unit_test(threads_share_providers),
        cmocka_unit_test(fork_while_threads_allocate),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
