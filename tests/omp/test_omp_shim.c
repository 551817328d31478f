/*
 * The OpenMP front end on this host, through the real entry points: this test
 * is built with gcc -fopenmp and linked to libloci-omp.so ahead of libgomp,
 * as LD_PRELOAD would put it (and so sanitizer builds test it too).
 *
 * Cases that need another machine or environment (an injected topology with
 * or without HBM, OMP_ALLOCATOR, LOCI_CONFIG) or that abort run this program
 * again as a child: `test_omp_shim scenario NAME`, its stderr captured.
 */
#include <setjmp.h> /* cmocka needs these first */
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <loci.h>
#include <omp.h>
#include "locked.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1024 * 1024)

/* Bad input on purpose (wrong allocator, double free, malloc'd pointers, overflow): GCC sees
 * some of it at compile time. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuse-after-free"
#pragma GCC diagnostic ignored "-Wmismatched-dealloc"
#pragma GCC diagnostic ignored "-Walloc-size-larger-than="
#endif

/* What GCC emits for allocate clauses (not in omp.h). */
void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator);
void GOMP_free(void *ptr, uintptr_t allocator);

static const char *self;

/* ---- helpers --------------------------------------------------------------- */

static omp_allocator_handle_t make(omp_memspace_handle_t m, int n, omp_alloctrait_t *traits)
{
    omp_allocator_handle_t a = omp_init_allocator(m, n, traits);
    assert_int_not_equal(a, omp_null_allocator);
    return a;
}

static const char *kind_of(const void *p)
{
    loci_target_info_t info;
    const loci_target_t *t = loci_ptr_target(p);
    return t && loci_target_info(t, &info) == 0 ? info.kind : "none";
}

/* stderr of the calling process, captured between begin and end. */
static int saved_stderr = -1;
static FILE *captured;

static void capture_begin(void)
{
    fflush(stderr);
    captured = tmpfile();
    assert_non_null(captured);
    saved_stderr = dup(2);
    dup2(fileno(captured), 2);
}

static char *capture_end(char *buf, size_t len)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(captured);
    size_t n = fread(buf, 1, len - 1, captured);
    buf[n] = '\0';
    fclose(captured);
    return buf;
}

/* Run `self scenario NAME` with extra environment; its stderr in err. Returns the wait status. */
static int scenario(const char *name, const char *const env[], char *err, size_t len)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        for (int i = 0; env[i]; i++)
            putenv((char *)env[i]);
        execl(self, self, "scenario", name, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    size_t got = 0;
    for (ssize_t r; got < len - 1 && (r = read(pipefd[0], err + got, len - 1 - got)) > 0;)
        got += (size_t)r;
    err[got] = '\0';
    close(pipefd[0]);
    int status;
    waitpid(pid, &status, 0);
    return status;
}

#define TOPO(name) "LOCI_TOPOLOGY=" LOCI_TEST_TOPOLOGIES "/" name

static void expect_exit0(const char *name, const char *const env[], const char *needle)
{
    char err[8192];
    int status = scenario(name, env, err, sizeof err);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || (needle && !strstr(err, needle)))
        fail_msg("scenario %s: status %#x, stderr:\n%s\n(expected \"%s\")", name, status, err, needle ? needle : "");
}

static void expect_abort(const char *name, const char *const env[], const char *needle)
{
    char err[8192];
    int status = scenario(name, env, err, sizeof err);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || !strstr(err, needle))
        fail_msg("scenario %s: status %#x (expected SIGABRT), stderr:\n%s\n(expected \"%s\")", name, status, err,
                 needle);
}

/* ---- on this host ------------------------------------------------------------ */

static void test_handles(void **state)
{
    omp_allocator_handle_t a = make(omp_default_mem_space, 0, NULL), b = make(omp_low_lat_mem_space, 0, NULL);
    assert_true(a >= 1024 && a < 65536 && b >= 1024 && b < 65536 && a != b);
    omp_destroy_allocator(a);
    char err[2048];
    capture_begin();
    void *p = omp_alloc(16, a); /* destroyed */
    omp_destroy_allocator(a);   /* twice */
    omp_destroy_allocator(omp_high_bw_mem_alloc);
    capture_end(err, sizeof err);
    assert_null(p);
    assert_non_null(strstr(err, "is not an allocator"));
    assert_non_null(strstr(err, "not a live allocator"));
    assert_non_null(strstr(err, "predefined allocator cannot be destroyed"));
    omp_allocator_handle_t c = make(omp_default_mem_space, 0, NULL);
    assert_int_not_equal(c, a); /* a new handle, even if it reuses the slot */
    omp_destroy_allocator(b);
    omp_destroy_allocator(c);
}

static void test_predefined(void **state)
{
    assert_true(omp_get_max_threads() >= 1); /* and libgomp is in the process, to pass things on to */
    for (omp_allocator_handle_t a = omp_default_mem_alloc; a <= omp_thread_mem_alloc; a++) {
        char *p = omp_alloc(1000, a);
        assert_non_null(p);
        memset(p, 1, 1000);
        assert_non_null(loci_ptr_target(p)); /* loci placed it */
        omp_free(p, omp_null_allocator);
    }
    assert_int_equal(omp_get_default_allocator(), omp_default_mem_alloc);
}

static void test_zero_and_overflow(void **state)
{
    assert_null(omp_alloc(0, omp_default_mem_alloc));
    assert_null(omp_aligned_alloc(64, 0, omp_default_mem_alloc));
    assert_null(omp_calloc(0, 8, omp_default_mem_alloc));
    assert_null(omp_calloc(8, 0, omp_default_mem_alloc));
    char err[2048];
    capture_begin();
    void *p = omp_calloc(SIZE_MAX / 4, 8, omp_default_mem_alloc);
    void *q = omp_aligned_alloc(3, 8, omp_default_mem_alloc); /* both runtimes allocate */
    capture_end(err, sizeof err);
    assert_null(p);
    assert_non_null(q);
    assert_int_equal((uintptr_t)q % 4, 0);
    omp_free(q, omp_default_mem_alloc);
    assert_non_null(strstr(err, "overflows"));
    assert_non_null(strstr(err, "alignment 3 is not a power of two; using 4"));
    int *z = omp_aligned_calloc(256, 1000, sizeof *z, omp_low_lat_mem_alloc);
    assert_non_null(z);
    assert_int_equal((uintptr_t)z % 256, 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(z[i], 0);
    omp_free(z, omp_low_lat_mem_alloc);
}

static void test_reallocation(void **state)
{
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 4096}};
    omp_allocator_handle_t aligned = make(omp_default_mem_space, 1, traits);
    int *p = omp_realloc(NULL, 100 * sizeof *p, aligned, omp_null_allocator); /* NULL: allocates */
    assert_non_null(p);
    for (int i = 0; i < 100; i++)
        p[i] = i;
    p = omp_realloc(p, 10000 * sizeof *p, omp_null_allocator, omp_null_allocator); /* grows, same allocator */
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 4096, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(p[i], i);
    p = omp_realloc(p, 10 * sizeof *p, omp_low_lat_mem_alloc, aligned); /* shrinks, moves */
    assert_non_null(p);
    for (int i = 0; i < 10; i++)
        assert_int_equal(p[i], i);
    assert_null(omp_realloc(p, 0, omp_null_allocator, omp_low_lat_mem_alloc)); /* size 0 frees */

    char err[2048];
    char *m = malloc(32);
    capture_begin();
    void *q = omp_realloc(m, 64, omp_default_mem_alloc, omp_null_allocator);
    capture_end(err, sizeof err);
    assert_null(q);
    assert_non_null(strstr(err, "not a live block from omp_alloc"));
    free(m); /* untouched: still malloc's */
    omp_destroy_allocator(aligned);
}

static void test_alignment(void **state)
{
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 2 * MiB}};
    omp_allocator_handle_t a = make(omp_default_mem_space, 1, traits);
    void *p = omp_alloc(100, a), *q = omp_aligned_alloc(4 * MiB, 100, a), *r = omp_aligned_alloc(64, 100, a);
    assert_int_equal((uintptr_t)p % (2 * MiB), 0);
    assert_int_equal((uintptr_t)q % (4 * MiB), 0); /* the larger of the two */
    assert_int_equal((uintptr_t)r % (2 * MiB), 0);
    omp_free(p, a);
    omp_free(q, a);
    omp_free(r, a);
    omp_destroy_allocator(a);
}

static void test_bad_traits(void **state)
{
    static const struct {
        omp_alloctrait_t trait;
        const char *message;
    } bad[] = {
        {{(omp_alloctrait_key_t)99, 1}, "unknown trait key 99"},
        {{omp_atk_alignment, 3}, "alignment = 3"},
        {{omp_atk_alignment, 0}, "alignment = 0"},
        {{omp_atk_fallback, omp_atv_interleaved}, "fallback = interleaved: expected one of default_mem_fb"},
        {{omp_atk_fallback, 4242}, "fallback = 4242"},
        {{omp_atk_partition, omp_atv_null_fb}, "partition = null_fb"},
        {{omp_atk_sync_hint, omp_atv_all}, "sync_hint = all"},
        {{omp_atk_access, omp_atv_private}, "access = private"},
        {{omp_atk_pinned, 7}, "pinned = all"},
    };
    char err[2048];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        omp_alloctrait_t t = bad[i].trait;
        capture_begin();
        omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, &t);
        capture_end(err, sizeof err);
        assert_int_equal(a, omp_null_allocator);
        if (!strstr(err, bad[i].message))
            fail_msg("trait %zu: expected \"%s\" in \"%s\"", i, bad[i].message, err);
    }
    omp_alloctrait_t fb[] = {{omp_atk_fallback, omp_atv_allocator_fb}, {omp_atk_fb_data, 77}};
    capture_begin();
    assert_int_equal(omp_init_allocator(omp_default_mem_space, 2, fb), omp_null_allocator);
    assert_int_equal(omp_init_allocator((omp_memspace_handle_t)7, 0, NULL), omp_null_allocator);
    capture_end(err, sizeof err);
    assert_non_null(strstr(err, "fb_data = allocator 0x4d is not an allocator"));
    assert_non_null(strstr(err, "memory space 7 is not one of"));
    omp_allocator_handle_t none = omp_init_allocator(omp_default_mem_space, -1, NULL); /* no traits, as both runtimes */
    assert_int_not_equal(none, omp_null_allocator);
    omp_destroy_allocator(none);

    /* omp_atv_default, and the values that are only accepted */
    omp_alloctrait_t fine[] = {{omp_atk_alignment, omp_atv_default}, {omp_atk_sync_hint, omp_atv_private},
                               {omp_atk_access, omp_atv_thread},     {omp_atk_fallback, omp_atv_default},
                               {omp_atk_partition, omp_atv_default}, {omp_atk_pinned, omp_atv_false},
                               {omp_atk_fb_data, omp_atv_default}};
    omp_allocator_handle_t a = make(omp_default_mem_space, 7, fine);
    void *p = omp_alloc(10, a);
    assert_non_null(p);
    omp_free(p, a);
    omp_destroy_allocator(a);
}

static void test_free_mistakes(void **state)
{
    char err[4096];
    void *p = omp_alloc(64, omp_low_lat_mem_alloc);
    void *m = malloc(64);
    void *l = loci_alloc(loci_allocator_create(""), 64);
    capture_begin();
    omp_free(p, omp_high_bw_mem_alloc); /* wrong allocator: reported, freed */
    omp_free(p, omp_null_allocator);    /* now a double free: reported, ignored */
    omp_free(m, omp_null_allocator);    /* plain malloc: reported, ignored */
    omp_free(l, omp_default_mem_alloc); /* a loci block: freed with loci_free */
    GOMP_free(NULL, 0);
    capture_end(err, sizeof err);
    assert_non_null(strstr(err, "allocated with omp_low_lat_mem_alloc; freed all the same"));
    assert_non_null(strstr(err, "freed already, or from malloc?"));
    assert_non_null(strstr(err, "a loci block not allocated through OpenMP"));
    assert_int_equal(loci_usable_size(l), 0);
    free(m);
}

/* pool_size: an arena of that size; null_fb gives NULL once it is full. */
static void test_pool(void **state)
{
    enum { BLOCK = 256 * 1024 };
    omp_alloctrait_t traits[] = {{omp_atk_pool_size, 1 * MiB}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t a = make(omp_default_mem_space, 2, traits);
    void *blocks[8];
    int n = 0;
    char err[2048];
    capture_begin();
    while (n < 8 && (blocks[n] = omp_alloc(BLOCK, a)))
        assert_non_null(loci_arena_of(blocks[n++]));
    capture_end(err, sizeof err);
    assert_true(n >= 1 && n <= 4);
    assert_non_null(strstr(err, "returning NULL"));
    omp_free(blocks[--n], a);
    assert_non_null(blocks[n] = omp_alloc(BLOCK, a)); /* room again */
    n++;

    /* allocator_fb: on into the fallback allocator */
    omp_alloctrait_t fb[] = {{omp_atk_pool_size, 1 * MiB},
                             {omp_atk_fallback, omp_atv_allocator_fb},
                             {omp_atk_fb_data, omp_low_lat_mem_alloc}};
    omp_allocator_handle_t b = make(omp_default_mem_space, 3, fb);
    void *in_pool = omp_alloc(900 * 1024, b), *beyond = omp_alloc(900 * 1024, b);
    assert_non_null(loci_arena_of(in_pool));
    assert_non_null(beyond);
    assert_null(loci_arena_of(beyond));
    omp_free(beyond, b);
    omp_free(in_pool, b);

    omp_destroy_allocator(a); /* releases the pool and forgets its blocks */
    capture_begin();
    omp_free(blocks[0], a);
    capture_end(err, sizeof err);
    assert_non_null(strstr(err, "not a live block"));
    omp_destroy_allocator(b);
}

/* omp_realloc in a pool: in use - old + new (libgomp's count), in place when the block has
 * room, moved otherwise; pinned blocks keep exactly their pages locked through a realloc. */
static void test_pool_realloc_and_pinned(void **state)
{
    omp_alloctrait_t traits[] = {{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t a = make(omp_default_mem_space, 2, traits);
    char *p = omp_alloc(3071, a);
    assert_non_null(p);
    memset(p, 1, 3071);
    assert_ptr_equal(omp_realloc(p, 3072, a, a), p);
    assert_ptr_equal(omp_realloc(p, 100, a, a), p);
    char *q = omp_realloc(p, 3500, a, omp_null_allocator); /* moves: 132 - 132 + 3532 fits */
    assert_non_null(q);
    assert_int_equal(q[99], 1);
    char err[1024];
    capture_begin();
    assert_null(omp_alloc(600, a)); /* 3532 + 632 > 4096 */
    capture_end(err, sizeof err);
    assert_non_null(strstr(err, "the pool of 4096 bytes has 3532 in use"));
    omp_free(q, a);
    assert_non_null(p = omp_alloc(4064, a));
    omp_free(p, a);
    omp_destroy_allocator(a);

    omp_alloctrait_t pin[] = {{omp_atk_pinned, omp_atv_true}, {omp_atk_fallback, omp_atv_null_fb}};
    a = make(omp_default_mem_space, 2, pin);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    long page = 0; /* the sanitizers make mlock a no-op: only the calls are checked */
    print_message("sanitizer build: mlock does nothing here; VmLck is not checked\n");
#else
    long page = sysconf(_SC_PAGESIZE);
#endif
    long before = locked_kib() * 1024;
    p = omp_alloc(100, a);
    assert_non_null(p);
    assert_int_equal(locked_kib() * 1024 - before, page);
    p = omp_realloc(p, 3 * sysconf(_SC_PAGESIZE), a, a);
    assert_non_null(p);
    assert_int_equal(locked_kib() * 1024 - before, 3 * page);
    omp_free(p, a);
    assert_int_equal(locked_kib() * 1024, before);
    omp_destroy_allocator(a);
}

static void test_partition_and_pinned(void **state)
{
    const omp_uintptr_t values[] = {omp_atv_environment, omp_atv_nearest, omp_atv_blocked, omp_atv_interleaved};
    for (int i = 0; i < 4; i++) {
        omp_alloctrait_t traits[] = {{omp_atk_partition, values[i]}, {omp_atk_pinned, omp_atv_true}};
        omp_allocator_handle_t a = make(omp_low_lat_mem_space, 2, traits);
        char *p = omp_alloc(3 * MiB + 5, a); /* pinned may be refused (RLIMIT_MEMLOCK): default_mem_fb */
        assert_non_null(p);
        memset(p, 7, 3 * MiB + 5);
        omp_free(p, a);
        omp_destroy_allocator(a);
    }
}

static void *set_in_thread(void *arg)
{
    omp_set_default_allocator(omp_low_lat_mem_alloc);
    return (void *)(uintptr_t)omp_get_default_allocator();
}

static void test_default_allocator(void **state)
{
    pthread_t t;
    void *seen;
    pthread_create(&t, NULL, set_in_thread, NULL);
    pthread_join(t, &seen);
    assert_int_equal((uintptr_t)seen, omp_low_lat_mem_alloc);
    assert_int_equal(omp_get_default_allocator(), omp_default_mem_alloc); /* per thread */
    char err[1024];
    capture_begin();
    omp_set_default_allocator((omp_allocator_handle_t)5000);
    capture_end(err, sizeof err);
    assert_non_null(strstr(err, "not a live allocator"));
    assert_int_equal(omp_get_default_allocator(), omp_default_mem_alloc);
    omp_set_default_allocator(omp_const_mem_alloc);
    void *p = omp_alloc(8, omp_null_allocator);
    assert_non_null(p);
    omp_free(p, omp_const_mem_alloc);
    omp_set_default_allocator(omp_default_mem_alloc);
}

/* Threads allocating and freeing (and freeing each other's blocks) through
 * predefined, user and pool allocators at once. */
enum { THREADS = 4, ROUNDS = 4000 };
static omp_allocator_handle_t shared_allocators[3];
static void *volatile handoff[THREADS];

static void *churn(void *arg)
{
    int me = (int)(uintptr_t)arg;
    for (int i = 0; i < ROUNDS; i++) {
        omp_allocator_handle_t a = shared_allocators[i % 3];
        char *p = omp_alloc((size_t)(i % 512) + 1, a);
        if (p)
            p[0] = (char)i;
        void *other = __atomic_exchange_n(&handoff[(me + 1) % THREADS], p, __ATOMIC_ACQ_REL);
        omp_free(other, omp_null_allocator);
    }
    return NULL;
}

static void test_threads(void **state)
{
    omp_alloctrait_t pool[] = {{omp_atk_pool_size, 4 * MiB}};
    omp_alloctrait_t align[] = {{omp_atk_alignment, 128}};
    shared_allocators[0] = omp_default_mem_alloc;
    shared_allocators[1] = make(omp_default_mem_space, 1, pool);
    shared_allocators[2] = make(omp_low_lat_mem_space, 1, align);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        omp_free(handoff[i], omp_null_allocator);
    omp_destroy_allocator(shared_allocators[1]);
    omp_destroy_allocator(shared_allocators[2]);
}

/* ---- in a child, with its own environment ------------------------------------ */

static void test_absent_memspace(void **state)
{
    const char *const env[] = {TOPO("cxl-expander.xml"), "LOCI_LOG=info", NULL};
    expect_exit0("absent", env, "omp_high_bw_mem_space (\"bandwidth=high!\", built-in) is absent here");
    expect_exit0("absent", env, "returning omp_null_allocator");
    expect_abort("abort", env, "fallback=abort_fb: aborting");
    expect_abort("directive", env, "null_fb in an allocate directive or clause");
}

static void test_omp_allocator_env(void **state)
{
    const char *const predefined[] = {TOPO("cxl-expander.xml"), "OMP_ALLOCATOR=omp_large_cap_mem_alloc", NULL};
    const char *const traits[] = {TOPO("cxl-expander.xml"),
                                  "OMP_ALLOCATOR= omp_large_cap_mem_space : alignment=65536, fallback=null_fb ",
                                  NULL};
    const char *const bad_name[] = {"OMP_ALLOCATOR=omp_fast_mem_space", NULL};
    const char *const bad_trait[] = {"OMP_ALLOCATOR=omp_default_mem_space:colour=red", NULL};
    const char *const bad_value[] = {"OMP_ALLOCATOR=omp_default_mem_space:partition=sideways", NULL};
    expect_exit0("env_predefined", predefined, NULL);
    expect_exit0("env_traits", traits, NULL);
    expect_exit0("env_default", bad_name, "'omp_fast_mem_space' is neither a predefined allocator");
    expect_exit0("env_default", bad_trait, "unknown trait 'colour'");
    expect_exit0("env_default", bad_value, "trait partition: unknown value 'sideways'");
}

static void test_config(void **state)
{
    char good[] = "/tmp/loci-omp-good-XXXXXX", bad[] = "/tmp/loci-omp-bad-XXXXXX";
    int g = mkstemp(good), b = mkstemp(bad);
    assert_true(g >= 0 && b >= 0);
    dprintf(g, "# high bandwidth is the CXL expander here\n[omp]\nhigh_bw = kind=cxl!\n");
    dprintf(b, "[omp]\nhigh_bw = kind=cxl!\nlow_lat = latency=low, fallback=null\n");
    close(g);
    close(b);
    char good_env[64], bad_env[64], where[80];
    snprintf(good_env, sizeof good_env, "LOCI_CONFIG=%s", good);
    snprintf(bad_env, sizeof bad_env, "LOCI_CONFIG=%s", bad);
    snprintf(where, sizeof where, "%s:3: [omp] low_lat", bad);
    const char *const with_good[] = {TOPO("cxl-expander.xml"), good_env, "LOCI_LOG=info", NULL};
    const char *const with_bad[] = {TOPO("cxl-expander.xml"), bad_env, NULL};
    expect_exit0("config", with_good, ":3)"); /* the origin of the map: file:line */
    expect_exit0("config_bad", with_bad, where);
    unlink(good);
    unlink(bad);
}

/* [omp] maps spaces to GPU memory (docs/GPU.md), here through the CUDA driver stand-in. */
static void test_config_gpu(void **state)
{
    char conf[] = "/tmp/loci-omp-gpu-XXXXXX";
    int c = mkstemp(conf);
    assert_true(c >= 0);
    dprintf(c, "[omp]\n# device memory\nhigh_bw = use=gpu\n# managed memory\nlarge_cap = use=cpu+gpu\n");
    close(c);
    char conf_env[64];
    snprintf(conf_env, sizeof conf_env, "LOCI_CONFIG=%s", conf);
    const char *const env[] = {conf_env, "LOCI_CUDA_LIBRARY=" LOCI_TEST_CUDA_STANDIN, NULL};
    expect_exit0("config_gpu", env, NULL);
    unlink(conf);
}

/* ---- scenarios (run as children) ------------------------------------------------ */

static int check(bool ok, const char *what)
{
    if (!ok)
        fprintf(stderr, "scenario check failed: %s\n", what);
    return !ok;
}

static int scenario_main(const char *name)
{
    int bad = 0;
    if (strcmp(name, "absent") == 0) { /* no HBM: high_bw absent, large_cap is the CXL expander */
        void *p = omp_alloc(4096, omp_high_bw_mem_alloc);
        bad |= check(p && strcmp(kind_of(p), "dram") == 0, "omp_high_bw_mem_alloc falls back to DRAM");
        bad |= check(strcmp(kind_of(omp_alloc(4096, omp_large_cap_mem_alloc)), "cxl") == 0, "large_cap on CXL");
        /* no allocator on an absent space, whatever the traits, as libgomp and libomp answer */
        omp_alloctrait_t null_fb[] = {{omp_atk_fallback, omp_atv_null_fb}};
        bad |= check(!omp_init_allocator(omp_high_bw_mem_space, 1, null_fb), "high_bw with null_fb: none");
        omp_alloctrait_t fb[] = {{omp_atk_fallback, omp_atv_allocator_fb}, {omp_atk_fb_data, omp_large_cap_mem_alloc}};
        bad |= check(!omp_init_allocator(omp_high_bw_mem_space, 2, fb), "high_bw with allocator_fb: none");
        omp_alloctrait_t pool[] = {{omp_atk_pool_size, 1 << 20}, {omp_atk_fallback, omp_atv_default_mem_fb}};
        bad |= check(!omp_init_allocator(omp_high_bw_mem_space, 2, pool), "high_bw pool: none");
        void *q = omp_alloc(64, omp_init_allocator(omp_large_cap_mem_space, 1, null_fb));
        bad |= check(q && strcmp(kind_of(q), "cxl") == 0, "a large_cap allocator lands on CXL");
    } else if (strcmp(name, "abort") == 0) { /* a full pool with abort_fb */
        omp_alloctrait_t abort_fb[] = {{omp_atk_fallback, omp_atv_abort_fb}, {omp_atk_pool_size, 4096}};
        omp_alloc(8192, omp_init_allocator(omp_large_cap_mem_space, 2, abort_fb));
    } else if (strcmp(name, "directive") == 0) {
        omp_alloctrait_t null_fb[] = {{omp_atk_fallback, omp_atv_null_fb}, {omp_atk_pool_size, 4096}};
        GOMP_alloc(8, 8192, omp_init_allocator(omp_large_cap_mem_space, 2, null_fb));
    } else if (strcmp(name, "env_predefined") == 0) {
        bad |= check(omp_get_default_allocator() == omp_large_cap_mem_alloc, "OMP_ALLOCATOR names the default");
        bad |= check(strcmp(kind_of(omp_alloc(64, omp_null_allocator)), "cxl") == 0, "default on CXL");
    } else if (strcmp(name, "env_traits") == 0) {
        void *p = omp_alloc(64, omp_null_allocator);
        bad |= check(omp_get_default_allocator() >= 1024, "OMP_ALLOCATOR with traits makes an allocator");
        bad |= check(p && (uintptr_t)p % 65536 == 0 && strcmp(kind_of(p), "cxl") == 0, "aligned, on CXL");
    } else if (strcmp(name, "env_default") == 0) {
        bad |= check(omp_get_default_allocator() == omp_default_mem_alloc, "a bad OMP_ALLOCATOR is ignored");
    } else if (strcmp(name, "config") == 0) {
        bad |= check(strcmp(kind_of(omp_alloc(64, omp_high_bw_mem_alloc)), "cxl") == 0, "[omp] high_bw = kind=cxl!");
    } else if (strcmp(name, "config_gpu") == 0) {
        void *d = omp_alloc(1 << 20, omp_high_bw_mem_alloc), *m = omp_alloc(4096, omp_large_cap_mem_alloc);
        bad |= check(d && strcmp(kind_of(d), "gpu") == 0, "[omp] high_bw = use=gpu: device memory");
        bad |= check(d && loci_usable_size(d) >= 1 << 20, "its usable size");
        bad |= check(m && strcmp(kind_of(m), "gpu") == 0, "[omp] large_cap = use=cpu+gpu: managed memory");
        if (m)
            memset(m, 1, 4096); /* managed memory: the CPU may write it */
        omp_free(d, omp_high_bw_mem_alloc);
        omp_free(m, omp_large_cap_mem_alloc);
    } else if (strcmp(name, "config_bad") == 0) { /* loci cannot start: the runtime serves, unplaced */
        void *p = omp_alloc(64, omp_high_bw_mem_alloc);
        bad |= check(p && !loci_ptr_target(p), "the runtime's memory");
        omp_free(p, omp_high_bw_mem_alloc);
    } else {
        return check(false, "unknown scenario");
    }
    return bad;
}

int main(int argc, char **argv)
{
    self = "/proc/self/exe";
    if (argc == 3 && strcmp(argv[1], "scenario") == 0)
        return scenario_main(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handles),         cmocka_unit_test(test_predefined),
        cmocka_unit_test(test_zero_and_overflow), cmocka_unit_test(test_reallocation),
        cmocka_unit_test(test_alignment),       cmocka_unit_test(test_bad_traits),
        cmocka_unit_test(test_free_mistakes),   cmocka_unit_test(test_pool),
        cmocka_unit_test(test_pool_realloc_and_pinned), cmocka_unit_test(test_partition_and_pinned), cmocka_unit_test(test_default_allocator),
        cmocka_unit_test(test_threads),         cmocka_unit_test(test_absent_memspace),
        cmocka_unit_test(test_omp_allocator_env), cmocka_unit_test(test_config),
        cmocka_unit_test(test_config_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
