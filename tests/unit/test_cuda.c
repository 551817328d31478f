/*
 * GPU memory by intent (docs/GPU.md) through the CUDA driver API.
 *
 * Run by ctest twice: unit.test_cuda against the driver stand-in the tests
 * build (tests/cuda/standin.c, LOCI_CUDA_LIBRARY pointing at it) on the
 * dgpu-2s reference topology with two GPUs, and unit.test_cuda_real against
 * this machine's libcuda.so.1, which exits 77 (skipped, saying why) where
 * there is none. What the tests check goes through the driver's own answers
 * (pointer and range attributes, free memory, copies), so the same checks
 * hold on a real GPU; failure injection and the reference topology are the
 * stand-in's alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/child.h"
#include "support/scratch.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;

static struct {
    int (*Init)(unsigned);
    int (*DeviceGetCount)(int *);
    int (*PrimaryCtxRetain)(CUcontext *, int);
    int (*Push)(CUcontext);
    int (*Pop)(CUcontext *);
    int (*Memcpy)(CUdeviceptr, CUdeviceptr, size_t);
    int (*MemGetInfo)(size_t *, size_t *);
    int (*MemAlloc)(CUdeviceptr *, size_t);
    int (*MemFree)(CUdeviceptr);
    int (*PointerGetAttribute)(void *, int, CUdeviceptr);
    int (*RangeGetAttribute)(void *, size_t, int, CUdeviceptr, size_t);
} cu;

static bool standin; /* LOCI_CUDA_LIBRARY names the stand-in: injection and reference topologies work */
static int ngpus;

#define CU_MEMORYTYPE_HOST 1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_DEVICE_CPU (-1)

/* ---- the driver, as the test sees it -------------------------------------- */

static const char *load_driver(void)
{
    const char *path = getenv("LOCI_CUDA_LIBRARY");
    standin = path && *path;
    void *lib = dlopen(standin ? path : "libcuda.so.1", RTLD_NOW);
    if (!lib)
        return dlerror();
    static const struct {
        const char *name;
        size_t offset;
    } syms[] = {
        {"cuInit", offsetof(__typeof__(cu), Init)},
        {"cuDeviceGetCount", offsetof(__typeof__(cu), DeviceGetCount)},
        {"cuDevicePrimaryCtxRetain", offsetof(__typeof__(cu), PrimaryCtxRetain)},
        {"cuCtxPushCurrent_v2", offsetof(__typeof__(cu), Push)},
        {"cuCtxPopCurrent_v2", offsetof(__typeof__(cu), Pop)},
        {"cuMemcpy", offsetof(__typeof__(cu), Memcpy)},
        {"cuMemGetInfo_v2", offsetof(__typeof__(cu), MemGetInfo)},
        {"cuMemAlloc_v2", offsetof(__typeof__(cu), MemAlloc)},
        {"cuMemFree_v2", offsetof(__typeof__(cu), MemFree)},
        {"cuPointerGetAttribute", offsetof(__typeof__(cu), PointerGetAttribute)},
        {"cuMemRangeGetAttribute", offsetof(__typeof__(cu), RangeGetAttribute)},
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *fn = dlsym(lib, syms[i].name);
        if (!fn)
            return syms[i].name;
        memcpy((char *)&cu + syms[i].offset, &fn, sizeof fn);
    }
    if (cu.Init(0) != 0 || cu.DeviceGetCount(&ngpus) != 0 || ngpus == 0)
        return "cuInit failed or no device";
    return NULL;
}

static void enter(int dev)
{
    CUcontext ctx;
    assert_int_equal(cu.PrimaryCtxRetain(&ctx, dev), 0);
    assert_int_equal(cu.Push(ctx), 0);
}

static void leave(void)
{
    CUcontext ctx;
    assert_int_equal(cu.Pop(&ctx), 0);
}

static unsigned memory_type(const void *p)
{
    unsigned type = 0;
    assert_int_equal(cu.PointerGetAttribute(&type, 2, (CUdeviceptr)(uintptr_t)p), 0);
    return type;
}

static int device_ordinal(const void *p)
{
    int dev = -3;
    assert_int_equal(cu.PointerGetAttribute(&dev, 9, (CUdeviceptr)(uintptr_t)p), 0);
    return dev;
}

/* CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION (2) or LAST_PREFETCH_LOCATION (4). */
static int range_location(const void *p, size_t n, int attribute)
{
    int loc = -3;
    enter(0);
    assert_int_equal(cu.RangeGetAttribute(&loc, sizeof loc, attribute, (CUdeviceptr)(uintptr_t)p, n), 0);
    leave();
    return loc;
}

static void to_device(void *dst, const void *src, size_t n)
{
    enter(0);
    assert_int_equal(cu.Memcpy((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n), 0);
    leave();
}

static size_t device_free(int dev)
{
    size_t free_bytes = 0, total = 0;
    enter(dev);
    assert_int_equal(cu.MemGetInfo(&free_bytes, &total), 0);
    leave();
    return free_bytes;
}

static const loci_target_t *target(const char *name)
{
    const loci_target_t *t = loci_target_by_name(name);
    if (!t)
        fail_msg("no target %s: %s", name, loci_last_error());
    return t;
}

static loci_allocator_t *allocator(const char *intent)
{
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a)
        fail_msg("intent \"%s\": %s", intent, loci_last_error());
    return a;
}

static const char *name_of(const loci_target_t *t)
{
    static loci_target_info_t info;
    assert_int_equal(loci_target_info(t, &info), 0);
    return info.name;
}

#define MIB (1024u * 1024u)

/* Stand-in: two GPUs of 64 MiB, CUDA device 0 on package 1's PCI bus
 * (reported with an 8-digit domain, as nvidia-smi writes it), device 1 on
 * package 0's: CUDA's order is not hwloc's. Real driver: this machine. */
static void use_gpus(void)
{
    if (!standin) {
        use_this_machine();
        return;
    }
    setenv("LOCI_FAKE_CUDA_DEVICES", "2", 1);
    setenv("LOCI_FAKE_CUDA_MEM", "64M", 1);
    setenv("LOCI_FAKE_CUDA_BUSIDS", "00000000:b1:00.0,0000:17:00.0", 1);
    unsetenv("LOCI_FAKE_CUDA_FAIL");
    use_topology("dgpu-2s.xml", "");
    assert_int_equal(cu.DeviceGetCount(&ngpus), 0);
    assert_int_equal(ngpus, 2);
}

#define STANDIN_ONLY()                                                                  \
    do {                                                                                \
        if (!standin) {                                                                 \
            printf("skipped: needs the driver stand-in (failure injection or a "        \
                   "reference topology)\n");                                            \
            skip();                                                                     \
        }                                                                               \
    } while (0)

/* ---- discovery --------------------------------------------------------------- */

static void gpus_are_targets_near_their_nodes(void **state)
{
    (void)state;
    STANDIN_ONLY();
    use_gpus();
    for (int i = 0; i < 2; i++) {
        char name[8];
        snprintf(name, sizeof name, "gpu%d", i);
        loci_target_info_t info;
        assert_int_equal(loci_target_info(target(name), &info), 0);
        assert_string_equal(info.kind, "gpu");
        assert_int_equal(info.numa_node, -1);
        assert_int_equal(info.capacity, 64ull * MIB);
        assert_int_equal(info.available, 64ull * MIB);
        assert_true(info.flags & LOCI_TARGET_GPU_ACCESSIBLE);
        assert_false(info.flags & LOCI_TARGET_CPU_ACCESSIBLE);
        char near[64];
        assert_int_equal(loci_target_near_devices(target(name), "gpu", near, sizeof near), 1);
        assert_string_equal(near, i == 0 ? "gpu0(cuda0)" : "gpu1(cuda1)");
    }
    /* CUDA device 0 is the GPU on package 1: its host memory is node 1's */
    const loci_target_t *best;
    assert_true(loci_allocator_targets(allocator("near=gpu:0"), &best, 1) >= 1);
    assert_string_equal(name_of(best), "dram1");
    assert_true(loci_allocator_targets(allocator("near=gpu:1"), &best, 1) >= 1);
    assert_string_equal(name_of(best), "dram0");
    assert_true(loci_allocator_targets(allocator("use=gpu:1"), &best, 1) == 1);
    assert_string_equal(name_of(best), "gpu1");
}

/* Grace Hopper: the GPU's memory is NUMA node 1 (gpu0); the driver's device
 * at the same PCI bus id is that GPU, not a second one. */
static void grace_hopper_gpu_is_one_target(void **state)
{
    (void)state;
    STANDIN_ONLY();
    setenv("LOCI_FAKE_CUDA_DEVICES", "1", 1);
    setenv("LOCI_FAKE_CUDA_BUSIDS", "0009:01:00.0", 1);
    use_topology("grace-hopper.xml", "");
    int gpus = 0;
    for (int i = 0; i < loci_target_count(); i++) {
        loci_target_info_t info;
        assert_int_equal(loci_target_info(loci_target_at(i), &info), 0);
        gpus += strcmp(info.kind, "gpu") == 0;
    }
    assert_int_equal(gpus, 1);
    const loci_target_t *best;
    assert_int_equal(loci_allocator_targets(allocator("use=gpu:0"), &best, 1), 1);
    loci_target_info_t info;
    assert_int_equal(loci_target_info(best, &info), 0);
    assert_string_equal(info.name, "gpu0");
    assert_int_equal(info.numa_node, 1);
    char near[64];
    assert_int_equal(loci_target_near_devices(best, "gpu", near, sizeof near), 1);
    assert_string_equal(near, "gpu0(cuda0)");
}

/* ---- device memory ------------------------------------------------------------ */

static void device_memory_blocks(void **state)
{
    (void)state;
    use_gpus();
    loci_allocator_t *a = allocator("use=gpu:0");
    static const size_t sizes[] = {0, 1, 1000, 100 * 1024, 3 * MIB};
    void *p[5];
    for (int i = 0; i < 5; i++) {
        p[i] = loci_alloc(a, sizes[i]);
        assert_non_null(p[i]);
        assert_true(loci_usable_size(p[i]) >= sizes[i]);
        assert_ptr_equal(loci_ptr_target(p[i]), target("gpu0"));
        assert_int_equal(memory_type(p[i]), CU_MEMORYTYPE_DEVICE);
        assert_int_equal(device_ordinal(p[i]), 0);
    }
    /* calloc is zero, realloc keeps the bytes: read back through the driver */
    unsigned char *z = loci_calloc(a, 1000, 3);
    assert_non_null(z);
    unsigned char back[3000], pattern[3000];
    to_device(back, z, sizeof back);
    for (size_t i = 0; i < sizeof back; i++)
        assert_int_equal(back[i], 0);
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (unsigned char)(i * 7 + 1);
    to_device(z, pattern, sizeof pattern);
    unsigned char *r = loci_realloc(z, 2 * MIB);
    assert_non_null(r);
    assert_ptr_equal(loci_ptr_target(r), target("gpu0"));
    memset(back, 0, sizeof back);
    to_device(back, r, sizeof back);
    assert_memory_equal(back, pattern, sizeof pattern);
    loci_free(r);
    loci_stats_t st;
    assert_int_equal(loci_target_stats(target("gpu0"), &st), 0);
    assert_true(st.bytes_in_use >= 3 * MIB + 100 * 1024);
    for (int i = 0; i < 5; i++)
        loci_free(p[i]);
    assert_int_equal(loci_target_stats(target("gpu0"), &st), 0);
    assert_int_equal(st.bytes_in_use, 0);
    size_t before_fini = device_free(0);
    loci_fini(); /* gives every extent back to the driver */
    assert_true(device_free(0) >= before_fini);
    if (standin)
        assert_int_equal(device_free(0), 64ull * MIB);
}

static void device_memory_full(void **state)
{
    (void)state;
    STANDIN_ONLY();
    use_gpus();
    void *big = loci_alloc(allocator("use=gpu:0,fallback=null"), 48 * MIB);
    assert_non_null(big);
    errno = 0;
    assert_null(loci_alloc(allocator("use=gpu:0,fallback=null"), 48 * MIB));
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "gpu0"));
    assert_non_null(strstr(loci_last_error(), "out of memory"));
    /* use=gpu ranks both GPUs: the next one takes it */
    void *next = loci_alloc(allocator("use=gpu"), 48 * MIB);
    assert_non_null(next);
    const loci_target_t *t = loci_ptr_target(next);
    assert_ptr_equal(t, target("gpu1"));
    assert_int_equal(device_ordinal(next), 1);
    loci_free(big);
    loci_free(next);
}

static void driver_errors_mid_run(void **state)
{
    (void)state;
    STANDIN_ONLY();
    use_gpus();
    loci_allocator_t *a = allocator("use=gpu:0,fallback=null");
    void *small = loci_alloc(a, 100); /* a slab, so that a calloc below zeroes a block of it */
    assert_non_null(small);
    setenv("LOCI_FAKE_CUDA_FAIL", "cuMemAlloc_v2:999", 1);
    errno = 0;
    assert_null(loci_alloc(a, 8 * MIB));
    assert_int_equal(errno, EIO);
    assert_non_null(strstr(loci_last_error(), "cuMemAlloc"));
    assert_non_null(strstr(loci_last_error(), "unknown error"));
    setenv("LOCI_FAKE_CUDA_FAIL", "cuMemsetD8_v2:700", 1);
    assert_null(loci_alloc(a, 8 * MIB));
    assert_non_null(strstr(loci_last_error(), "cuMemsetD8"));
    errno = 0;
    assert_null(loci_calloc(a, 10, 10));
    assert_int_equal(errno, EIO);
    assert_non_null(strstr(loci_last_error(), "cuMemsetD8"));
    loci_free(small);
    unsetenv("LOCI_FAKE_CUDA_FAIL");
    void *p = loci_alloc(a, 8 * MIB); /* nothing leaked or corrupted: all of it still there */
    assert_non_null(p);
    loci_free(p);
    loci_fini();
    assert_int_equal(device_free(0), 64ull * MIB);
}

static void bad_gpu_intents(void **state)
{
    (void)state;
    use_gpus();
    char intent[32];
    snprintf(intent, sizeof intent, "use=gpu:%d", ngpus);
    assert_null(loci_allocator_create(intent));
    assert_non_null(strstr(loci_last_error(), "GPUs count from 0"));
    assert_null(loci_allocator_create("use=gpu,pinned"));
    assert_non_null(strstr(loci_last_error(), "near=gpu:N,pinned"));
    assert_null(loci_allocator_create("use=gpu,persist"));
    assert_non_null(strstr(loci_last_error(), "persist"));
    /* a device pointer loci did not make: reported, nothing happens to it */
    CUdeviceptr mine;
    enter(0);
    assert_int_equal(cu.MemAlloc(&mine, 4096), 0);
    leave();
    loci_free((void *)(uintptr_t)mine);
    assert_null(loci_ptr_target((void *)(uintptr_t)mine));
    assert_int_equal(memory_type((void *)(uintptr_t)mine), CU_MEMORYTYPE_DEVICE);
    /* device memory cannot be checkpointed: the CPU cannot read it */
    void *p = loci_alloc(allocator("use=gpu"), 4096);
    assert_int_equal(loci_ckpt_register("gpu-data", p, 4096), LOCI_ENOTSUP);
    assert_int_equal(loci_ckpt_register("not-loci", (void *)(uintptr_t)mine, 4096), LOCI_ENOTSUP);
    loci_free(p);
    enter(0);
    assert_int_equal(cu.MemFree(mine), 0);
    leave();
}

/* ---- managed memory and arenas ----------------------------------------------- */

static void managed_arena_moves_keeping_addresses(void **state)
{
    (void)state;
    use_gpus();
    void *m = loci_alloc(allocator("use=cpu+gpu:0"), 1000);
    assert_non_null(m);
    memset(m, 0x5a, 1000); /* managed: the CPU writes it directly */
    assert_ptr_equal(loci_ptr_target(m), target("gpu0"));
    int managed = 0;
    assert_int_equal(cu.PointerGetAttribute(&managed, 8, (CUdeviceptr)(uintptr_t)m), 0);
    assert_true(managed);
    loci_free(m);

    loci_arena_t *ar = loci_arena_create("use=cpu+gpu:0", 0);
    assert_non_null(ar);
    size_t n = 3 * MIB;
    unsigned char *a = loci_arena_alloc(ar, n), *b = loci_arena_alloc(ar, 1000);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(range_location(a, n, 2), 0); /* preferred: GPU 0 */
    for (size_t i = 0; i < n; i++)
        a[i] = (unsigned char)(i * 13);
    memset(b, 7, 1000);
    const loci_target_t *host = standin ? target("dram1") : loci_target_at(0);
    assert_int_equal(loci_arena_move(ar, host), 0);
    assert_ptr_equal(loci_arena_target(ar), host);
    assert_int_equal(range_location(a, n, 2), CU_DEVICE_CPU);
    assert_int_equal(range_location(a, n, 4), CU_DEVICE_CPU);
    assert_int_equal(range_location(b, 1000, 4), CU_DEVICE_CPU);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i], (unsigned char)(i * 13));
    void *later = loci_arena_alloc(ar, 5 * MIB); /* new memory follows the arena */
    assert_non_null(later);
    assert_int_equal(range_location(later, 5 * MIB, 2), CU_DEVICE_CPU);
    const loci_target_t *gpu = target(ngpus > 1 ? "gpu1" : "gpu0");
    assert_int_equal(loci_arena_move(ar, gpu), 0);
    assert_int_equal(range_location(a, n, 4), ngpus > 1 ? 1 : 0);
    assert_int_equal(range_location(later, 5 * MIB, 2), ngpus > 1 ? 1 : 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i], (unsigned char)(i * 13));
    assert_int_equal(b[999], 7);
    loci_arena_destroy(ar);
}

static void device_arena_refuses_to_move(void **state)
{
    (void)state;
    use_gpus();
    loci_arena_t *ar = loci_arena_create("use=gpu:0", 0);
    assert_non_null(ar);
    void *p = loci_arena_alloc(ar, 4096);
    assert_non_null(p);
    assert_int_equal(memory_type(p), CU_MEMORYTYPE_DEVICE);
    assert_int_equal(loci_arena_move(ar, loci_target_at(0)), LOCI_ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "device memory"));
    assert_non_null(strstr(loci_last_error(), "use=cpu+gpu"));
    assert_ptr_equal(loci_arena_of(p), ar);
    loci_arena_destroy(ar);
}

/* ---- pinned host memory --------------------------------------------------------- */

static void pinned_host_memory_near_the_gpu(void **state)
{
    (void)state;
    use_gpus();
    loci_allocator_t *a = allocator("near=gpu:0,pinned");
    const loci_target_t *best;
    assert_true(loci_allocator_targets(a, &best, 1) >= 1);
    if (standin)
        assert_ptr_equal(best, target("dram1"));
    char *p = loci_alloc(a, 1 * MIB);
    assert_non_null(p);
    assert_ptr_equal(loci_ptr_target(p), best);
    assert_int_equal(memory_type(p), CU_MEMORYTYPE_HOST); /* registered with the driver */
    memset(p, 1, MIB);
    loci_free(p);
}

/* ---- threads -------------------------------------------------------------------- */

#define THREADS 4
static void *handed[THREADS];
static char why_failed[THREADS][512];

static void *thread_failed(int me, const char *what)
{
    snprintf(why_failed[me], sizeof why_failed[me], "%s: %s", what, loci_last_error());
    return why_failed[me];
}

/* Each thread: device and managed blocks of many sizes, freed by itself, and
 * one big block freed by the next thread. */
static void *churn(void *arg)
{
    int me = (int)(intptr_t)arg;
    loci_allocator_t *dev = loci_allocator_create("use=gpu:0"), *man = loci_allocator_create("use=cpu+gpu:0");
    for (int round = 0; round < 200; round++) {
        size_t size = (size_t)(round * 997 + me * 31) % (600 * 1024) + 1;
        void *d = loci_alloc(dev, size), *m = loci_alloc(man, size);
        if (!d || !m || loci_ptr_target(d) != loci_ptr_target(m))
            return thread_failed(me, "allocation failed or landed elsewhere");
        memset(m, me, size);
        loci_free(d);
        loci_free(m);
    }
    handed[me] = loci_alloc(dev, 2 * MIB);
    return handed[me] ? NULL : thread_failed(me, "big block");
}

static void threads_share_gpus(void **state)
{
    (void)state;
    use_gpus();
    setenv("LOCI_FAKE_CUDA_MEM", "1G", 1); /* room for four threads' caches of every size class */
    pthread_t t[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)i), 0);
    for (int i = 0; i < THREADS; i++) {
        void *why;
        assert_int_equal(pthread_join(t[i], &why), 0);
        if (why)
            fail_msg("thread %d: %s", i, (const char *)why);
    }
    for (int i = 0; i < THREADS; i++)
        loci_free(handed[(i + 1) % THREADS]);
    loci_stats_t st;
    assert_int_equal(loci_target_stats(target("gpu0"), &st), 0);
    assert_int_equal(st.bytes_in_use, 0);
}

/* ---- drivers that cannot serve (child processes: a driver loads once) ----------- */

static int child_no_gpus(char **args)
{
    (void)args;
    CHECK(loci_init() == 0, "loci_init");
    for (int i = 0; i < loci_target_count(); i++) {
        loci_target_info_t info;
        CHECK(loci_target_info(loci_target_at(i), &info) == 0, "info");
        CHECK(strcmp(info.kind, "gpu") != 0, "%s is a GPU target", info.name);
    }
    CHECK(loci_allocator_create("use=gpu") == NULL, "use=gpu resolved");
    CHECK(loci_alloc(loci_allocator_create(""), 100) != NULL, "plain allocation");
    return 0;
}

static void run_without_gpus(const char *var, const char *value)
{
    const char *old = getenv(var);
    char *saved = old ? strdup(old) : NULL;
    setenv(var, value, 1);
    const char *args[] = {"no-gpus", NULL};
    assert_int_equal(child_run(args), 0);
    if (saved)
        setenv(var, saved, 1);
    else
        unsetenv(var);
    free(saved);
}

static void no_driver_no_gpus(void **state)
{
    (void)state;
    STANDIN_ONLY();
    run_without_gpus("LOCI_CUDA_LIBRARY", "/nonexistent/libcuda.so.1");
    run_without_gpus("LOCI_FAKE_CUDA_INIT", "999");  /* cuInit fails */
    run_without_gpus("LOCI_FAKE_CUDA_INIT", "100");  /* no device */
    run_without_gpus("LOCI_FAKE_CUDA_VERSION", "7050"); /* CUDA 7.5: too old */
}

int main(int argc, char **argv)
{
    static const child_role_t roles[] = {{"no-gpus", 0, child_no_gpus}, {NULL, 0, NULL}};
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const char *why = load_driver();
    if (why) {
        if (standin) {
            fprintf(stderr, "the CUDA driver stand-in %s cannot be used: %s\n", getenv("LOCI_CUDA_LIBRARY"), why);
            return 1;
        }
        printf("skipped: no usable CUDA driver on this machine (%s); the stand-in runs as unit.test_cuda\n", why);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpus_are_targets_near_their_nodes),
        cmocka_unit_test(grace_hopper_gpu_is_one_target),
        cmocka_unit_test(device_memory_blocks),
        cmocka_unit_test(device_memory_full),
        cmocka_unit_test(driver_errors_mid_run),
        cmocka_unit_test(bad_gpu_intents),
        cmocka_unit_test(managed_arena_moves_keeping_addresses),
        cmocka_unit_test(device_arena_refuses_to_move),
        cmocka_unit_test(pinned_host_memory_near_the_gpu),
        cmocka_unit_test(threads_share_gpus),
        cmocka_unit_test(no_driver_no_gpus),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
