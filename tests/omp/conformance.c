/*
 * OpenMP allocator conformance: what a program can observe of the memory
 * management routines, derived from OpenMP 5.1 (§2.13, §3.13) and from what
 * Debian's libgomp 12 and libomp 14 do natively (docs/OPENMP.md, "What the
 * runtimes do"). It knows nothing of loci. Each case is run three ways —
 * built by gcc and run on libgomp alone, the same under
 * LD_PRELOAD=libloci-omp.so, built by clang and run on libomp under the shim
 * (tests/omp/CMakeLists.txt) — and asserts the same result each time.
 * (libomp 14 alone is not one of the ways: it crashes on an overflowing
 * omp_calloc and on omp_free with another allocator, which edges checks.)
 *
 *   conformance CASE      exit 0 ok, 1 a check failed, 2 bad usage, 77 skipped (says why)
 *
 * Where the spec lets a runtime refuse a request (pinned memory, a memory
 * space this machine lacks), a case accepts the refusal, and checks the
 * semantics whenever the request is granted.
 */
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define KiB 1024

/* edges overflows omp_calloc on purpose */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Walloc-size-larger-than="
#endif

#include "check.h"
#include "locked.h"

static bool aligned(const void *p, size_t a) { return p && (uintptr_t)p % a == 0; }

/* ---- def-allocator-var: a data-environment ICV ------------------------------- */

/* omp_set_default_allocator in a thread, then a parallel region, a nested one
 * and a task: each implicit task starts with the encountering thread's value
 * (OpenMP 5.1 §2.4.1), so omp_null_allocator means that allocator there. */
static void default_inherited(void)
{
    omp_alloctrait_t traits[] = {{omp_atk_alignment, 64 * KiB}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, traits);
    CHECK(a != omp_null_allocator, "an allocator with alignment 64 KiB was refused");
    omp_set_default_allocator(a);
    CHECK(omp_get_default_allocator() == a, "omp_get_default_allocator does not return what was set");
    enum { THREADS = 4 };
    int same[THREADS] = {0}, placed[THREADS] = {0};
#pragma omp parallel num_threads(THREADS)
    {
        int t = omp_get_thread_num();
        same[t] = omp_get_default_allocator() == a;
        void *p = omp_alloc(24, omp_null_allocator);
        placed[t] = aligned(p, 64 * KiB);
        omp_free(p, omp_null_allocator);
#pragma omp barrier
        if (t == 1) /* a worker's own change stays its own */
            omp_set_default_allocator(omp_high_bw_mem_alloc);
    }
    for (int t = 0; t < THREADS; t++)
        CHECK(same[t] && placed[t], "thread %d: default %s, omp_alloc(null) %s", t, same[t] ? "inherited" : "lost",
              placed[t] ? "aligned" : "not 64 KiB aligned");
    CHECK(omp_get_default_allocator() == a, "a worker's omp_set_default_allocator changed the master's");

    int nested = 0, task = 0;
    omp_set_max_active_levels(2);
    omp_set_default_allocator(omp_default_mem_alloc);
#pragma omp parallel num_threads(2) reduction(+ : nested)
    if (omp_get_thread_num() == 1) {
        omp_set_default_allocator(a);
#pragma omp parallel num_threads(2) reduction(+ : nested)
        nested += omp_get_default_allocator() == a && aligned(omp_alloc(8, omp_null_allocator), 64 * KiB);
    }
    CHECK(nested == 2, "%d of 2 threads of a nested region saw the encountering thread's default", nested);
    omp_set_default_allocator(a);
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task shared(task)
    task = omp_get_default_allocator() == a;
    CHECK(task, "a task did not inherit the default allocator");

    omp_set_default_allocator(omp_null_allocator); /* both runtimes: omp_default_mem_alloc */
    CHECK(omp_get_default_allocator() == omp_default_mem_alloc, "set(omp_null_allocator) gave %lu",
          (unsigned long)omp_get_default_allocator());
    omp_destroy_allocator(a);
}

/* ---- pools -------------------------------------------------------------------- */

static omp_allocator_handle_t pool(size_t bytes, omp_uintptr_t alignment, omp_uintptr_t fallback)
{
    omp_alloctrait_t traits[] = {{omp_atk_pool_size, bytes}, {omp_atk_fallback, fallback},
                                 {omp_atk_alignment, alignment}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 3, traits);
    CHECK(a != omp_null_allocator, "a pool of %zu bytes was refused", bytes);
    return a;
}

/* omp_realloc inside a pool is counted in use - old + new (libgomp), and the
 * block stays where it is when it fits. A pool block costs its bytes, a
 * 32-byte header and its alignment's padding (libgomp 12), so a pool holds
 * as many blocks with the shim as without. */
static void realloc_pool(void)
{
    omp_allocator_handle_t a = pool(4 * KiB, 1, omp_atv_null_fb);
    char *p = omp_alloc(3071, a);
    CHECK(p, "3071 bytes from a 4 KiB pool");
    if (!p)
        return;
    memset(p, 0x5a, 3071);
    char *q = omp_realloc(p, 3072, a, a);
    CHECK(q == p, "realloc 3071 -> 3072 in a 4 KiB pool gave %p, not %p", (void *)q, (void *)p);
    if (q)
        p = q;
    CHECK(p[0] == 0x5a && p[3070] == 0x5a, "bytes lost in the realloc");
    q = omp_realloc(p, 100, a, a);
    CHECK(q == p, "shrinking moved the block");
    p = q ? q : p;
    CHECK(!omp_alloc(4000, a), "4000 more bytes fit beside 100 in a 4 KiB pool (132 + 4032 > 4096)");
    CHECK(!omp_realloc(p, 5000, a, a), "5000 bytes fit a 4 KiB pool");
    CHECK(p[99] == 0x5a, "a failed realloc changed the block");
    omp_free(p, a);
    CHECK(!omp_alloc(4 * KiB, a), "a whole 4 KiB block fits a 4 KiB pool (it has a header)");
    p = omp_alloc(4064, a);
    CHECK(p, "4064 bytes (4096 with the header) in an empty 4 KiB pool");
    omp_free(p, a);
    /* growing past the block's room: 2032 in use - 2032 + 3032 fits, 2032 + 3032 would not */
    p = omp_alloc(2000, a);
    if (p)
        memset(p, 0x33, 2000);
    q = p ? omp_realloc(p, 3000, a, a) : NULL;
    CHECK(q && q[1999] == 0x33, "realloc 2000 -> 3000 in a 4 KiB pool failed");
    omp_free(q ? q : p, a);
    omp_destroy_allocator(a);

    /* default_mem_fb: the pool full, blocks come from the default memory */
    a = pool(4 * KiB, 1, omp_atv_default_mem_fb);
    p = omp_alloc(3000, a);
    q = omp_alloc(3000, a);
    CHECK(p && q, "default_mem_fb did not serve the second block");
    omp_free(p, a);
    omp_free(q, a);
    omp_destroy_allocator(a);
}

/* alignment with a pool: each block aligned, and charged its padding. */
static void align_pool(void)
{
    omp_allocator_handle_t a = pool(1 * KiB, 256, omp_atv_null_fb);
    void *b[8];
    int n = 0;
    while (n < 8 && (b[n] = omp_alloc(100, a))) {
        CHECK(aligned(b[n], 256), "block %d at %p is not 256-aligned", n, b[n]);
        n++;
    }
    CHECK(n == 2, "%d blocks of 100 bytes aligned to 256 in a 1 KiB pool, expected 2 (380 bytes each)", n);
    while (n)
        omp_free(b[--n], a);
    omp_destroy_allocator(a);
    a = pool(4 * KiB, 8 * KiB, omp_atv_null_fb);
    CHECK(!omp_alloc(1, a), "a block aligned to 8 KiB fits a 4 KiB pool");
    omp_destroy_allocator(a);
}

/* What both runtimes accept without complaint: pool_size 0 (a pool nothing
 * fits in), allocator_fb without fb_data (the default allocator takes over),
 * a negative trait count (no traits), the same key twice. */
static void lenient_traits(void)
{
    omp_allocator_handle_t a = pool(0, 1, omp_atv_null_fb);
    CHECK(!omp_alloc(1, a), "a block fits a pool of 0 bytes");
    omp_destroy_allocator(a);
    a = pool(4 * KiB, 1, omp_atv_allocator_fb);
    void *p = omp_alloc(5000, a);
    CHECK(p, "allocator_fb without fb_data: the default allocator did not take over");
    omp_free(p, a);
    omp_destroy_allocator(a);
    omp_alloctrait_t twice[] = {{omp_atk_fallback, omp_atv_default_mem_fb}, {omp_atk_fallback, omp_atv_null_fb}};
    a = omp_init_allocator(omp_default_mem_space, -1, twice);
    CHECK(a != omp_null_allocator, "ntraits = -1 refused");
    omp_destroy_allocator(a);
    a = omp_init_allocator(omp_default_mem_space, 2, twice);
    CHECK(a != omp_null_allocator, "a key given twice refused");
    omp_destroy_allocator(a);
    omp_alloctrait_t bad[] = {{omp_atk_alignment, 3}};
    CHECK(omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator, "alignment 3 accepted");
}

/* ---- memory spaces --------------------------------------------------------------- */

static int numa_nodes(void)
{
    int n = 0;
    char path[64];
    while (snprintf(path, sizeof path, "/sys/devices/system/node/node%d", n), access(path, F_OK) == 0)
        n++;
    return n ? n : 1;
}

/* A memory space this machine has no memory for: omp_null_allocator,
 * whatever the traits ("if an allocator based on the requirements cannot be
 * created then the special omp_null_allocator handle is returned"), and
 * omp_alloc with it takes the default allocator. MPC's portability case
 * (high_bw + default_mem_fb on a DRAM-only machine) still gets memory. The
 * predefined allocator of that space still allocates (both runtimes). */
static int absent_memspace(void)
{
    if (numa_nodes() != 1) {
        printf("skip absent_memspace: %d NUMA nodes; this case needs a DRAM-only machine (one node)\n",
               numa_nodes());
        return 77;
    }
    static const omp_uintptr_t fallbacks[] = {omp_atv_default_mem_fb, omp_atv_null_fb, omp_atv_abort_fb};
    for (int f = 0; f < 3; f++)
        for (int with_pool = 0; with_pool < 2; with_pool++) {
            omp_alloctrait_t t[] = {{omp_atk_fallback, fallbacks[f]}, {omp_atk_pool_size, 1 << 20},
                                    {omp_atk_alignment, 64}};
            omp_allocator_handle_t a = omp_init_allocator(omp_high_bw_mem_space, with_pool ? 3 : 1, t);
            CHECK(a == omp_null_allocator, "high_bw on a DRAM-only machine, fallback %lu%s: an allocator",
                  (unsigned long)fallbacks[f], with_pool ? ", pool" : "");
            if (a == omp_null_allocator) { /* the program's next step: omp_alloc with that handle */
                double *d = omp_alloc(1000 * sizeof *d, a);
                CHECK(d, "omp_alloc(.., omp_null_allocator) after a refused allocator");
                omp_free(d, a);
            }
        }
    void *p = omp_alloc(4 * KiB, omp_high_bw_mem_alloc);
    CHECK(p, "omp_high_bw_mem_alloc gave NULL");
    omp_free(p, omp_high_bw_mem_alloc);
    return 0;
}

/* large_cap on a machine whose largest memory is its DRAM: that DRAM. A pool
 * with null_fb there fills like any other. */
static int large_cap(void)
{
    if (numa_nodes() != 1) {
        printf("skip large_cap: %d NUMA nodes; this case needs a DRAM-only machine (one node)\n", numa_nodes());
        return 77;
    }
    omp_alloctrait_t t[] = {{omp_atk_fallback, omp_atv_null_fb}, {omp_atk_pool_size, 8 * KiB}};
    omp_allocator_handle_t a = omp_init_allocator(omp_large_cap_mem_space, 1, t);
    CHECK(a != omp_null_allocator, "large_cap with null_fb refused on a DRAM-only machine");
    void *p = omp_alloc(1 << 20, a);
    CHECK(p, "large_cap with null_fb returned NULL for 1 MiB");
    omp_free(p, a);
    omp_destroy_allocator(a);
    a = omp_init_allocator(omp_large_cap_mem_space, 2, t);
    int n = 0;
    for (void *b; n < 8 && (b = omp_alloc(1 * KiB, a)); n++)
        ;
    CHECK(n == 7, "%d blocks of 1 KiB in an 8 KiB large_cap pool, expected 7", n);
    omp_destroy_allocator(a); /* releases the pool's blocks */
    p = omp_alloc(4 * KiB, omp_large_cap_mem_alloc);
    CHECK(p, "omp_large_cap_mem_alloc gave NULL");
    omp_free(p, omp_large_cap_mem_alloc);
    return 0;
}

/* ---- pinned ----------------------------------------------------------------------- */

static omp_allocator_handle_t pinned(omp_uintptr_t fallback)
{
    omp_alloctrait_t t[] = {{omp_atk_pinned, omp_atv_true}, {omp_atk_fallback, fallback}};
    return omp_init_allocator(omp_default_mem_space, 2, t);
}

/* A pinned allocator may be refused (libgomp 12 refuses it). Granted, each
 * block's pages are locked while it lives — VmLck grows by the block
 * rounded to pages — realloc keeps them locked, and RLIMIT_MEMLOCK is
 * honoured per block through the fallback trait. */
static void pinned_blocks(void)
{
    omp_allocator_handle_t a = pinned(omp_atv_null_fb);
    if (a == omp_null_allocator) {
        printf("pinned: refused by the runtime (omp_null_allocator), as OpenMP allows\n");
        return;
    }
    long page = sysconf(_SC_PAGESIZE) / KiB, base = locked_kib();
    void *small = omp_alloc(100, a);
    CHECK(small && locked_kib() - base == page, "100 pinned bytes locked %ld KiB", locked_kib() - base);
    char *big = omp_alloc(10000, a);
    CHECK(big && locked_kib() - base == 4 * page, "+10000 pinned bytes: %ld KiB locked, expected %ld",
          locked_kib() - base, 4 * page);
    memset(big, 1, 10000);
    big = omp_realloc(big, 20000, a, a);
    CHECK(big && big[9999] == 1 && locked_kib() - base == 6 * page,
          "realloc to 20000 pinned bytes: %ld KiB locked, expected %ld", locked_kib() - base, 6 * page);
    omp_free(small, a);
    omp_free(big, a);
    CHECK(locked_kib() == base, "%ld KiB still locked after omp_free", locked_kib() - base);

    struct rlimit old, tight;
    getrlimit(RLIMIT_MEMLOCK, &old);
    tight = old;
    tight.rlim_cur = (rlim_t)(base + 64) * KiB;
    CHECK(setrlimit(RLIMIT_MEMLOCK, &tight) == 0, "cannot lower RLIMIT_MEMLOCK");
    CHECK(!omp_alloc(128 * KiB, a), "128 KiB pinned past a 64 KiB RLIMIT_MEMLOCK with null_fb");
    omp_allocator_handle_t fb = pinned(omp_atv_default_mem_fb);
    void *p = omp_alloc(128 * KiB, fb);
    CHECK(p && locked_kib() == base, "default_mem_fb past RLIMIT_MEMLOCK: %s, %ld KiB locked",
          p ? "memory" : "NULL", locked_kib() - base);
    omp_free(p, fb);
    p = omp_alloc(32 * KiB, a);
    CHECK(p && locked_kib() - base == 32, "32 KiB within the limit: %ld KiB locked", locked_kib() - base);
    omp_free(p, a);
    setrlimit(RLIMIT_MEMLOCK, &old);
    omp_destroy_allocator(fb);
    omp_destroy_allocator(a);
    printf("pinned: granted; blocks locked page by page\n");
}

/* ---- the routines' edge cases --------------------------------------------------------- */

static void edges(void)
{
    CHECK(!omp_alloc(0, omp_default_mem_alloc), "omp_alloc(0) is not NULL");
    CHECK(!omp_calloc(0, 8, omp_default_mem_alloc) && !omp_calloc(8, 0, omp_default_mem_alloc),
          "omp_calloc of 0 bytes is not NULL");
    CHECK(!omp_calloc(SIZE_MAX / 2, 4, omp_default_mem_alloc), "an overflowing omp_calloc succeeded");
    int *z = omp_calloc(1000, sizeof *z, omp_default_mem_alloc);
    int sum = 0;
    for (int i = 0; z && i < 1000; i++)
        sum |= z[i];
    CHECK(z && !sum, "omp_calloc memory is not zero");
    omp_free(z, omp_default_mem_alloc);
    omp_free(NULL, omp_default_mem_alloc);
    void *odd = omp_aligned_alloc(3, 10, omp_default_mem_alloc); /* both runtimes allocate */
    CHECK(odd, "omp_aligned_alloc(3, ...) gave NULL");
    omp_free(odd, omp_default_mem_alloc);
    void *big = omp_aligned_alloc(4096, 10, omp_default_mem_alloc);
    CHECK(aligned(big, 4096), "omp_aligned_alloc(4096) at %p", big);
    omp_free(big, omp_default_mem_alloc);

    char *r = omp_realloc(NULL, 64, omp_default_mem_alloc, omp_null_allocator);
    CHECK(r, "omp_realloc(NULL) is not omp_alloc");
    memset(r, 7, 64);
    r = omp_realloc(r, 1 << 20, omp_high_bw_mem_alloc, omp_default_mem_alloc);
    CHECK(r && r[63] == 7, "omp_realloc to another allocator lost the bytes");
    CHECK(!omp_realloc(r, 0, omp_null_allocator, omp_high_bw_mem_alloc), "omp_realloc(p, 0) is not NULL");
    void *x = omp_alloc(100, omp_high_bw_mem_alloc);
    omp_free(x, omp_default_mem_alloc); /* the wrong allocator: libgomp frees it all the same */
    CHECK(omp_init_allocator((omp_memspace_handle_t)7, 0, NULL) == omp_null_allocator, "memory space 7 accepted");
}

/* Allocators made and used by several threads at once: distinct, working. */
static void concurrent(void)
{
    enum { THREADS = 8 };
    omp_allocator_handle_t h[THREADS];
    int bad = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : bad)
    for (int round = 0; round < 50; round++) {
        int t = omp_get_thread_num();
        size_t align = (size_t)64 << (t % 4);
        omp_alloctrait_t tr[] = {{omp_atk_alignment, align}};
        h[t] = omp_init_allocator(omp_default_mem_space, 1, tr);
        void *p = omp_alloc(50, h[t]);
        bad += !aligned(p, align);
        omp_free(p, h[t]);
#pragma omp barrier
        for (int i = 0; i < t; i++)
            bad += h[i] == h[t] || !h[t];
#pragma omp barrier
        omp_destroy_allocator(h[t]);
    }
    CHECK(!bad, "%d failures among allocators made by %d threads at once", bad, THREADS);
}

/* OMP_ALLOCATOR, set by the test: a predefined name both runtimes take; a
 * memory space with traits (OpenMP 5.1) — libgomp 12 alone refuses that form
 * and keeps omp_default_mem_alloc; taken, its traits apply; a bad value is
 * ignored. */
static void environment(void)
{
    const char *env = getenv("OMP_ALLOCATOR");
    omp_allocator_handle_t d = omp_get_default_allocator();
    void *p = omp_alloc(24, omp_null_allocator);
    if (!env) {
        CHECK(false, "run with OMP_ALLOCATOR set");
    } else if (strcmp(env, "omp_large_cap_mem_alloc") == 0) {
        CHECK(d == omp_large_cap_mem_alloc && p, "default %lu", (unsigned long)d);
    } else if (strcmp(env, "omp_default_mem_space:alignment=65536") == 0) {
        CHECK(d == omp_default_mem_alloc || aligned(p, 64 * KiB), "default %lu, block %p", (unsigned long)d, p);
    } else {
        CHECK(d == omp_default_mem_alloc && p, "OMP_ALLOCATOR=%s: default %lu", env, (unsigned long)d);
    }
    int inherited = 0;
#pragma omp parallel num_threads(2) reduction(+ : inherited)
    inherited += omp_get_default_allocator() == d;
    CHECK(inherited == 2, "the initial default is not every thread's");
    omp_free(p, omp_null_allocator);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
        int (*run_or_skip)(void);
    } cases[] = {
        {"default_inherited", default_inherited, NULL},
        {"realloc_pool", realloc_pool, NULL},
        {"align_pool", align_pool, NULL},
        {"lenient_traits", lenient_traits, NULL},
        {"absent_memspace", NULL, absent_memspace},
        {"large_cap", NULL, large_cap},
        {"pinned", pinned_blocks, NULL},
        {"edges", edges, NULL},
        {"concurrent", concurrent, NULL},
        {"environment", environment, NULL},
    };
    setvbuf(stdout, NULL, _IONBF, 0);
    for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof *cases; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            int rc = cases[i].run ? (cases[i].run(), 0) : cases[i].run_or_skip();
            if (rc == 77)
                return 77;
            if (!failures)
                printf("ok   %s\n", cases[i].name);
            return failures != 0;
        }
    fprintf(stderr, "usage: conformance CASE (see the cases in main)\n");
    return 2;
}
