/*
 * A plain OpenMP 5 program (it knows nothing of loci) that checks where its
 * memory lands, page by page, when run under libloci-omp.so. Built twice:
 * with gcc -fopenmp (libgomp) and clang -fopenmp (libomp).
 *
 *   omp_check place ALLOC NODE        8 B to 64 MiB from predefined allocator ALLOC
 *                                     ("default": omp_null_allocator, i.e. OMP_ALLOCATOR)
 *                                     land on NODE
 *   omp_check pool NODE               alignment=2MiB, pool_size=16MiB, null_fb on high_bw:
 *                                     aligned blocks on NODE, then NULL once the pool is full
 *   omp_check abort                   a 4 MiB pool with abort_fb: a message, then abort()
 *   omp_check fallback NODE FB_NODE   a pool with allocator_fb -> omp_large_cap_mem_alloc:
 *                                     blocks on NODE until it is full, then on FB_NODE
 *   omp_check interleave N,N,...      partition=interleaved on low_lat: pages on every node
 *   omp_check blocked N,N,...         partition=blocked on low_lat: one part per node, in order
 *   omp_check nearest NODE            partition=nearest on high_bw lands on NODE
 *   omp_check clause NODE             allocate clause (and Clang's allocate directive) with
 *                                     omp_high_bw_mem_alloc: private copies on NODE
 *   omp_check inherit NODE            omp_set_default_allocator(high_bw) in the master: every
 *                                     thread's omp_alloc(omp_null_allocator) lands on NODE
 *   omp_check semantics               OpenMP 5.1 semantics through the real interposition
 *
 * Exit 0 ok, 1 a check failed, 2 bad usage.
 */
#include "page_nodes.h"

#include <dlfcn.h>
#include <omp.h>
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

#include "check.h"

static void *touched(void *p, size_t size)
{
    if (p)
        memset(p, 0x5a, size);
    return p;
}

static omp_allocator_handle_t predefined(const char *name)
{
    static const struct {
        const char *name;
        omp_allocator_handle_t a;
    } all[] = {
        {"default", omp_null_allocator},
        {"omp_default_mem_alloc", omp_default_mem_alloc},
        {"omp_large_cap_mem_alloc", omp_large_cap_mem_alloc},
        {"omp_const_mem_alloc", omp_const_mem_alloc},
        {"omp_high_bw_mem_alloc", omp_high_bw_mem_alloc},
        {"omp_low_lat_mem_alloc", omp_low_lat_mem_alloc},
    };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (strcmp(name, all[i].name) == 0)
            return all[i].a;
    fprintf(stderr, "omp_check: unknown allocator %s\n", name);
    exit(2);
}

static omp_allocator_handle_t make(omp_memspace_handle_t space, int n, omp_alloctrait_t *traits)
{
    omp_allocator_handle_t a = omp_init_allocator(space, n, traits);
    if (a == omp_null_allocator) {
        fprintf(stderr, "omp_check: omp_init_allocator refused the traits\n");
        exit(1);
    }
    return a;
}

/* "0,1,2" -> nodes */
static int node_list(const char *s, int *nodes, int max)
{
    int n = 0;
    for (char *end; *s && n < max; s = *end ? end + 1 : end)
        nodes[n++] = (int)strtol(s, &end, 10);
    return n;
}

static int place(const char *name, int node)
{
    static const size_t sizes[] = {8, 4096, 1 * MiB, 64 * MiB};
    omp_allocator_handle_t a = predefined(name);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *p = touched(omp_alloc(sizes[i], a), sizes[i]);
        CHECK(p, "%s: %zu bytes: NULL", name, sizes[i]);
        if (p && pages_on_node(name, p, sizes[i], node))
            printf("ok   %-24s %9zu B on node %d\n", name, sizes[i], node);
        else
            failures++;
        omp_free(p, a);
    }
    return failures;
}

/* A pool of 16 MiB with 2 MiB alignment on high_bw; fallback as given. */
static omp_allocator_handle_t hbw_pool(omp_uintptr_t fallback, omp_uintptr_t pool, omp_uintptr_t fb_data)
{
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 2 * MiB},
                                 {omp_atk_pool_size, pool},
                                 {omp_atk_fallback, fallback},
                                 {omp_atk_fb_data, fb_data}};
    return make(omp_high_bw_mem_space, fb_data ? 4 : 3, traits);
}

static int pool(int node)
{
    enum { POOL = 16 * MiB, BLOCK = 3 * MiB, MAX = 16 };
    omp_allocator_handle_t a = hbw_pool(omp_atv_null_fb, POOL, 0);
    char *blocks[MAX];
    int n = 0;
    while (n < MAX && (blocks[n] = touched(omp_alloc(BLOCK, a), BLOCK))) {
        CHECK((uintptr_t)blocks[n] % (2 * MiB) == 0, "block %d at %p is not 2 MiB aligned", n, (void *)blocks[n]);
        if (!pages_on_node("pool block", blocks[n], BLOCK, node))
            failures++;
        n++;
    }
    CHECK(n >= 1 && (size_t)n * BLOCK <= POOL && n < MAX, "%d blocks of 3 MiB from a 16 MiB pool", n);
    omp_free(blocks[--n], a);
    blocks[n] = omp_alloc(BLOCK, a);
    CHECK(blocks[n], "no room again after a free");
    for (int i = 0; i <= n; i++)
        omp_free(blocks[i], a);
    omp_destroy_allocator(a);
    if (!failures)
        printf("ok   pool: %d aligned blocks of 3 MiB on node %d, then NULL (null_fb)\n", n + 1, node);
    return failures;
}

/* In a child: fill the pool until abort_fb fires; the parent checks the signal and message. */
static int abort_fb(void)
{
    int err[2];
    if (pipe(err) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(err[1], 2);
        omp_alloctrait_t traits[] = {{omp_atk_pool_size, 4 * MiB}, {omp_atk_fallback, omp_atv_abort_fb}};
        omp_allocator_handle_t a = make(omp_default_mem_space, 2, traits);
        for (int i = 0; i < 64; i++)
            touched(omp_alloc(1 * MiB, a), 1 * MiB);
        _exit(0); /* the pool never filled: wrong */
    }
    close(err[1]);
    char msg[4096] = "";
    size_t got = 0;
    for (ssize_t r; got < sizeof msg - 1 && (r = read(err[0], msg + got, sizeof msg - 1 - got)) > 0;)
        got += (size_t)r;
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "child status %#x, expected SIGABRT", status);
    CHECK(strstr(msg, "abort_fb"), "no abort_fb message: \"%s\"", msg);
    if (!failures)
        printf("ok   abort_fb: \"%.*s\"\n", (int)strcspn(msg, "\n"), msg);
    return failures;
}

static int fallback(int node, int fb_node)
{
    enum { BLOCK = 2 * MiB, COUNT = 8 };
    /* a 2 MiB-aligned block costs a pool 4 MiB + 24 bytes (libgomp's accounting): room for 2 */
    omp_allocator_handle_t a = hbw_pool(omp_atv_allocator_fb, 9 * MiB, omp_large_cap_mem_alloc);
    char *blocks[COUNT];
    int on_node = 0, on_fb = 0, nodes[BLOCK / 4096];
    for (int i = 0; i < COUNT; i++) {
        blocks[i] = touched(omp_alloc(BLOCK, a), BLOCK);
        CHECK(blocks[i], "block %d: NULL despite allocator_fb", i);
        if (!blocks[i] || page_nodes(blocks[i], BLOCK, nodes) != 0)
            continue;
        bool first = on_fb == 0 && nodes[0] == node;
        CHECK(first || nodes[0] == fb_node, "block %d on node %d, expected %d then %d", i, nodes[0], node,
              fb_node);
        on_node += first;
        on_fb += !first && nodes[0] == fb_node;
        if (!pages_on_node("block", blocks[i], BLOCK, nodes[0]))
            failures++;
    }
    CHECK(on_node >= 1 && on_fb >= 1, "%d blocks in the pool, %d in the fallback", on_node, on_fb);
    for (int i = 0; i < COUNT; i++)
        omp_free(blocks[i], a);
    omp_destroy_allocator(a);
    if (!failures)
        printf("ok   allocator_fb: %d blocks on node %d, then %d on node %d\n", on_node, node, on_fb, fb_node);
    return failures;
}

static char *spread(omp_uintptr_t partition, size_t size)
{
    omp_alloctrait_t traits[] = {{omp_atk_partition, partition}};
    return touched(omp_alloc(size, make(omp_low_lat_mem_space, 1, traits)), size);
}

static int interleave(const char *list)
{
    enum { SIZE = 64 * MiB, PAGES = SIZE / 4096 };
    int want[8], n = node_list(list, want, 8), count[64] = {0}, *nodes = malloc(PAGES * sizeof *nodes);
    char *p = spread(omp_atv_interleaved, SIZE);
    CHECK(p && page_nodes(p, SIZE, nodes) == 0, "no interleaved block");
    for (int i = 0; p && i < PAGES; i++)
        count[nodes[i] >= 0 && nodes[i] < 64 ? nodes[i] : 0]++;
    for (int k = 0; k < n; k++) {
        CHECK(count[want[k]] >= PAGES / n / 2, "node %d has %d of %d pages", want[k], count[want[k]], PAGES);
        printf("%s node %d: %d pages\n", count[want[k]] >= PAGES / n / 2 ? "ok  " : "FAIL", want[k], count[want[k]]);
    }
    free(nodes);
    return failures;
}

static int blocked(const char *list)
{
    enum { SIZE = 48 * MiB };
    int want[8], n = node_list(list, want, 8);
    char *p = spread(omp_atv_blocked, SIZE);
    CHECK(p, "no blocked block");
    size_t part = SIZE / n / 4096 * 4096;
    for (int k = 0; p && k < n; k++) {
        if (pages_on_node("part", p + k * part, part, want[k]))
            printf("ok   part %d (%zu MiB) on node %d\n", k, part / MiB, want[k]);
        else
            failures++;
    }
    return failures;
}

static int nearest(int node)
{
    omp_alloctrait_t traits[] = {{omp_atk_partition, omp_atv_nearest}};
    char *p = touched(omp_alloc(4 * MiB, make(omp_high_bw_mem_space, 1, traits)), 4 * MiB);
    CHECK(p && pages_on_node("nearest", p, 4 * MiB, node), "partition=nearest not on node %d", node);
    if (!failures)
        printf("ok   partition=nearest on node %d\n", node);
    return failures;
}

static int clause(int node)
{
    enum { N = 64 * 1024 }; /* 512 KiB private copies */
    double buf[N];
    int bad = 0;
#pragma omp parallel private(buf) allocate(omp_high_bw_mem_alloc : buf) num_threads(2) reduction(+ : bad)
    {
        memset(buf, 0, sizeof buf);
        bad += !pages_on_node("allocate clause", buf, sizeof buf, node);
    }
#ifdef __clang__ /* GCC 12 has no allocate directive yet */
    {
        double local[N];
#pragma omp allocate(local) allocator(omp_high_bw_mem_alloc)
        memset(local, 0, sizeof local);
        bad += !pages_on_node("allocate directive", local, sizeof local, node);
    }
#endif
    CHECK(!bad, "allocate clause/directive memory not on node %d", node);
    if (!failures)
        printf("ok   allocate clause%s: private copies on node %d\n",
#ifdef __clang__
               " and directive",
#else
               "",
#endif
               node);
    return failures;
}

/* loci's answer to "is this yours?", found in the process only when the shim is in it. */
static bool is_loci(const void *p)
{
    const void *(*target)(const void *) = (const void *(*)(const void *))dlsym(RTLD_DEFAULT, "loci_ptr_target");
    return target && target(p);
}

/* After a block landed elsewhere: whether loci made it, and the last error loci has for this
 * thread (a refusal the allocator's fallback then hid, as OpenMP has it, says why). */
static void explain(const char *what, const void *p)
{
    const char *(*last_error)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "loci_last_error");
    const char *e = last_error ? last_error() : NULL;
    fprintf(stderr, "%s: %s; loci's last error in this thread: %s\n", what,
            is_loci(p) ? "loci's memory" : "not loci's memory", e && *e ? e : "none");
}

/* def-allocator-var is inherited: the master sets omp_high_bw_mem_alloc as its default and
 * every thread of the region that follows allocates with omp_null_allocator, also from a
 * user allocator on high_bw set the same way. */
static int inherit(int node)
{
    enum { THREADS = 2, SIZE = 4 * MiB };
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 4096}};
    omp_allocator_handle_t defaults[] = {omp_high_bw_mem_alloc, make(omp_high_bw_mem_space, 1, traits)};
    for (int d = 0; d < 2; d++) {
        omp_set_default_allocator(defaults[d]);
        int bad = 0, threads = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : bad, threads)
        {
            char *p = touched(omp_alloc(SIZE, omp_null_allocator), SIZE);
            const char *what = omp_get_thread_num() ? "worker's block" : "master's block";
            bool here = p && pages_on_node(what, p, SIZE, node);
            if (p && !here)
                explain(what, p);
            bad += !here;
            omp_free(p, omp_null_allocator);
            threads++;
        }
        CHECK(!bad && threads == THREADS, "%d of %d threads' blocks not on node %d (%s default)", bad, threads, node,
              d ? "a high_bw allocator as" : "omp_high_bw_mem_alloc as");
    }
    omp_set_default_allocator(omp_default_mem_alloc);
    omp_destroy_allocator(defaults[1]);
    if (!failures)
        printf("ok   inherited default allocator: every thread's blocks on node %d\n", node);
    return failures;
}

static int semantics(void)
{
    CHECK(omp_alloc(0, omp_default_mem_alloc) == NULL, "omp_alloc(0) is not NULL");
    CHECK(omp_calloc(0, 8, omp_default_mem_alloc) == NULL, "omp_calloc(0, 8) is not NULL");
    CHECK(omp_calloc(SIZE_MAX / 2, 4, omp_default_mem_alloc) == NULL, "an overflowing omp_calloc succeeded");
    int *z = omp_calloc(1000, sizeof *z, omp_high_bw_mem_alloc);
    int zero = 1;
    for (int i = 0; z && i < 1000; i++)
        zero &= z[i] == 0;
    CHECK(z && zero && is_loci(z), "omp_calloc: not loci's zeroed memory");
    z = omp_realloc(z, 4000 * sizeof *z, omp_null_allocator, omp_null_allocator);
    CHECK(z && z[999] == 0 && is_loci(z), "omp_realloc grew wrong");
    omp_free(z, omp_null_allocator);
    CHECK(omp_realloc(NULL, 64, omp_low_lat_mem_alloc, omp_null_allocator) != NULL, "realloc(NULL) failed");

    omp_alloctrait_t traits[] = {{omp_atk_alignment, 4096}, {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t a = make(omp_default_mem_space, 2, traits);
    CHECK((uintptr_t)a >= 1024 && (uintptr_t)a < 65536, "handle %#lx is not loci's", (unsigned long)a);
    void *p = omp_aligned_alloc(64, 100, a);
    CHECK(p && (uintptr_t)p % 4096 == 0 && is_loci(p), "alignment trait not applied");
    omp_free(p, a);

    omp_alloctrait_t bad_key[] = {{(omp_alloctrait_key_t)99, 1}};
    omp_alloctrait_t bad_value[] = {{omp_atk_fallback, omp_atv_interleaved}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad_key) == omp_null_allocator, "unknown key accepted");
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad_value) == omp_null_allocator, "bad value accepted");
    CHECK(omp_init_allocator((omp_memspace_handle_t)7, 0, NULL) == omp_null_allocator, "memspace 7 accepted");

    char *m = malloc(16);
    omp_free(m, omp_null_allocator); /* reported, ignored: must not crash */
    free(m);

    int bad = 0;
    double buf[1024];
#pragma omp parallel private(buf) allocate(omp_high_bw_mem_alloc : buf) num_threads(2) reduction(+ : bad)
    bad += !is_loci(buf);
    CHECK(!bad, "allocate clause memory is not loci's");
    omp_destroy_allocator(a);
    if (!failures)
        printf("ok   OpenMP 5.1 semantics through the shim (%s)\n",
#ifdef __clang__
               "clang, libomp"
#else
               "gcc, libgomp"
#endif
        );
    return failures;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    int node = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(cmd, "place") == 0 && argc == 4)
        return place(argv[2], atoi(argv[3])) != 0;
    if (strcmp(cmd, "pool") == 0 && argc == 3)
        return pool(node) != 0;
    if (strcmp(cmd, "abort") == 0 && argc == 2)
        return abort_fb() != 0;
    if (strcmp(cmd, "fallback") == 0 && argc == 4)
        return fallback(node, atoi(argv[3])) != 0;
    if (strcmp(cmd, "interleave") == 0 && argc == 3)
        return interleave(argv[2]) != 0;
    if (strcmp(cmd, "blocked") == 0 && argc == 3)
        return blocked(argv[2]) != 0;
    if (strcmp(cmd, "nearest") == 0 && argc == 3)
        return nearest(node) != 0;
    if (strcmp(cmd, "clause") == 0 && argc == 3)
        return clause(node) != 0;
    if (strcmp(cmd, "inherit") == 0 && argc == 3)
        return inherit(node) != 0;
    if (strcmp(cmd, "semantics") == 0 && argc == 2)
        return semantics() != 0;
    fprintf(stderr, "usage: see the comment at the top of omp_check.c\n");
    return 2;
}
