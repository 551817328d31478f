/*
 * An unmodified malloc program, run under libloci-tier.so (`loci run --tier
 * auto`, tests/tier/CMakeLists.txt): it allocates big and small blocks with
 * every call of the malloc family, from several sites and threads, across
 * fork and exec, writes and verifies them, and asks loci where each block
 * landed — a big block in an arena of its own site (loci_ptr_arena), a
 * small one nowhere in loci — and what the interposer counted per site.
 * usage: tier_check sites|threads|fork|threshold|off|overflow
 */
#include <loci.h>
#include <loci_tier.h>

#include "check.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

/* Each one call site; the barrier keeps the call from becoming a jump
 * (then the return address would be the caller's). */
#define SITE(name, call)                                                                                           \
    __attribute__((noinline)) static void *name(size_t n)                                                          \
    {                                                                                                              \
        void *p = call;                                                                                            \
        __asm__ volatile("# " #name ::: "memory"); /* and no two alike: not merged */                           \
        return p;                                                                                                  \
    }
SITE(site_a, malloc(n))
SITE(site_b, malloc(n))
SITE(site_zero, calloc(1, n))

static void fill(void *p, size_t n, unsigned seed)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        c[i] = (unsigned char)(i * 31 + seed);
}

static void verify(const void *p, size_t n, unsigned seed, const char *what)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        CHECK(c[i] == (unsigned char)(i * 31 + seed), "%s: byte %zu changed", what, i);
}

static loci_arena_t *arena(const void *p) { return loci_ptr_arena(p); }

static void require_preloaded(void)
{
    CHECK(loci_tier_sites != NULL, "libloci-tier.so is not loaded: run me under loci run --tier auto");
}

static void sites(void)
{
    CHECK(loci_tier_threshold() == 64 * KiB, "default threshold: %zu", loci_tier_threshold());
    void *a[3];
    static const size_t size[3] = {1 * MiB, 1 * MiB + 4 * KiB, 4 * MiB};
    static volatile int count = 3; /* not unrolled into three calls: one calling context */
    for (int i = 0; i < count; i++)
        a[i] = site_a(size[i]);
    void *a1 = a[0], *a2 = a[1], *a4 = a[2], *b = site_b(1 * MiB), *again = site_a(1 * MiB);
    void *small = malloc(100), *page = malloc(4 * KiB);
    fill(a1, 1 * MiB, 1), fill(a2, 1 * MiB, 2), fill(a4, 4 * MiB, 3), fill(b, 1 * MiB, 4), fill(small, 100, 5);
    CHECK(arena(a1) && arena(a1) == arena(a2), "one site, one size class: one arena (%p, %p)", (void *)arena(a1),
          (void *)arena(a2));
    CHECK(arena(a4) && arena(a4) != arena(a1), "another size class: another arena");
    CHECK(arena(b) && arena(b) != arena(a1) && arena(b) != arena(a4), "another site: another arena");
    CHECK(arena(again) && arena(again) != arena(a1) && site_of(arena(again)).caller == site_of(arena(a1)).caller,
          "site_a called from elsewhere: the same malloc call, another calling context, another arena");
    free(again);
    CHECK(!arena(small) && !loci_ptr_target(small) && !arena(page), "small blocks stay with libc");
    CHECK(loci_arena_target(arena(a1)) != NULL, "the arena lives somewhere");
    CHECK(malloc_usable_size(a1) >= 1 * MiB && malloc_usable_size(small) >= 100, "usable sizes");

    loci_tier_site_t s = site_of(arena(a1));
    CHECK(s.caller && s.size_class == 20 && s.allocations == 2 && s.frees == 0 &&
              s.bytes_live >= 2 * MiB + 4 * KiB, "site a: class %u, %llu allocations, %llu bytes", s.size_class,
          (unsigned long long)s.allocations, (unsigned long long)s.bytes_live);
    verify(a1, 1 * MiB, 1, "a1"), verify(a2, 1 * MiB, 2, "a2"), verify(a4, 4 * MiB, 3, "a4"), verify(b, 1 * MiB, 4, "b");
    loci_arena_t *arena_a = arena(a1);
    free(a1);
    free(a2);
    s = site_of(arena_a);
    CHECK(s.bytes_live == 0 && s.frees == 2, "site a (1 MiB) after its frees: %llu bytes live",
          (unsigned long long)s.bytes_live);
    loci_tier_site_t s4 = site_of(arena(a4));
    CHECK(s4.bytes_live >= 4 * MiB && s4.allocations == 1, "site a (4 MiB) holds a4");

    /* calloc: zero even where a freed block's bytes were */
    void *z = site_zero(2 * MiB);
    fill(z, 2 * MiB, 6);
    free(z);
    z = site_zero(2 * MiB);
    CHECK(arena(z), "calloc's big block in an arena");
    for (size_t i = 0; i < 2 * MiB; i++)
        CHECK(((unsigned char *)z)[i] == 0, "calloc: byte %zu is not zero", i);
    free(z);

    /* realloc: libc -> arena -> arena -> libc, the data along */
    char *r = malloc(1000);
    fill(r, 1000, 7);
    r = realloc(r, 2 * MiB);
    CHECK(r && arena(r), "realloc to 2 MiB: into an arena");
    verify(r, 1000, 7, "realloc up");
    fill(r, 2 * MiB, 8);
    r = realloc(r, 3 * MiB);
    CHECK(r && arena(r), "realloc to 3 MiB: still an arena");
    verify(r, 2 * MiB, 8, "realloc within");
    r = realloc(r, 500);
    CHECK(r && !arena(r), "realloc to 500 bytes: back to libc");
    verify(r, 500, 8, "realloc down");
    free(r);
    r = reallocarray(NULL, 256, 4 * KiB);
    CHECK(r && arena(r), "reallocarray of 1 MiB in an arena");
    CHECK(realloc(r, 0) == NULL, "realloc(p, 0) frees");

    /* the aligned calls */
    void *pm = NULL;
    CHECK(posix_memalign(&pm, 4096, 1 * MiB) == 0 && arena(pm) && (uintptr_t)pm % 4096 == 0, "posix_memalign");
    CHECK(posix_memalign(&pm, 3, 1 * MiB) == 22 /* EINVAL */, "posix_memalign with alignment 3 is EINVAL");
    void *al = aligned_alloc(2 * MiB, 2 * MiB), *ma = memalign(64, 256 * KiB), *va = valloc(128 * KiB),
         *pv = pvalloc(100 * KiB);
    CHECK(al && arena(al) && (uintptr_t)al % (2 * MiB) == 0, "aligned_alloc(2 MiB)");
    CHECK(ma && arena(ma) && (uintptr_t)ma % 64 == 0, "memalign(64)");
    CHECK(va && arena(va) && (uintptr_t)va % 4096 == 0, "valloc");
    CHECK(pv && arena(pv) && malloc_usable_size(pv) >= 100 * KiB, "pvalloc");
    fill(al, 2 * MiB, 9);
    verify(al, 2 * MiB, 9, "aligned_alloc");
    free(pm), free(al), free(ma), free(va), free(pv), free(a4), free(b), free(small), free(page);
    s4 = site_of(s4.arena);
    CHECK(s4.bytes_live == 0 && s4.frees == 1, "site a (4 MiB) after its free: %llu bytes live",
          (unsigned long long)s4.bytes_live);
}

#define THREADS 8
#define ROUNDS 200
SITE(site_thread, malloc(n))

static _Atomic(loci_arena_t *) thread_arena; /* the first block's: every thread's are there */

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    for (unsigned r = 0; r < ROUNDS; r++) {
        size_t n = 256 * KiB + (r % 7) * 4 * KiB;
        void *big = site_thread(n), *small = malloc(64 + r);
        loci_arena_t *first = NULL;
        atomic_compare_exchange_strong(&thread_arena, &first, arena(big));
        CHECK(big && arena(big) == atomic_load(&thread_arena) && !arena(small), "thread %u round %u", id, r);
        fill(big, n, id + r), fill(small, 64 + r, id);
        verify(big, n, id + r, "thread block"), verify(small, 64 + r, id, "thread small block");
        free(big), free(small);
    }
    return NULL;
}

static void threads(void)
{
    pthread_t t[THREADS];
    for (unsigned i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) == 0, "pthread_create");
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    loci_tier_site_t s = site_of(atomic_load(&thread_arena));
    CHECK(s.allocations == THREADS * ROUNDS && s.frees == THREADS * ROUNDS && s.bytes_live == 0,
          "one site for every thread: %llu allocations, %llu frees, %llu bytes live",
          (unsigned long long)s.allocations, (unsigned long long)s.frees, (unsigned long long)s.bytes_live);
}

/* fork while another thread keeps allocating; each child frees what the
 * parent made, makes blocks of its own, and the last one execs. */
static volatile int stop;
static void *churn(void *arg)
{
    (void)arg;
    for (unsigned r = 0; !stop; r++) {
        void *p = site_b(128 * KiB + (r % 3) * MiB);
        CHECK(p && arena(p), "churn");
        fill(p, 128 * KiB, r);
        verify(p, 128 * KiB, r, "churn");
        free(p);
    }
    return NULL;
}

static void fork_exec(void)
{
    const char *self = "/proc/self/exe";
    void *kept = site_a(1 * MiB);
    fill(kept, 1 * MiB, 11);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, churn, NULL) == 0, "pthread_create");
    for (int i = 0; i < 20; i++) {
        pid_t pid = fork();
        CHECK(pid >= 0, "fork");
        if (pid == 0) {
            verify(kept, 1 * MiB, 11, "the parent's block in the child");
            free(kept);
            void *mine = site_b(3 * MiB), *other = site_a(8 * MiB);
            CHECK(mine && arena(mine) && other && arena(other) && arena(mine) != arena(other),
                  "the child's own blocks in arenas of their sites");
            fill(mine, 3 * MiB, 12);
            verify(mine, 3 * MiB, 12, "the child's block");
            free(mine), free(other);
            if (i == 19) {
                execl(self, self, "exec-child", (char *)NULL);
                _exit(2);
            }
            _exit(0);
        }
        int status;
        CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "child %d: status %#x", i, status);
    }
    stop = 1;
    pthread_join(t, NULL);
    verify(kept, 1 * MiB, 11, "the parent's block after the forks");
    free(kept);
}

static void exec_child(void)
{
    require_preloaded(); /* LD_PRELOAD and LOCI_TIER went along */
    void *p = site_a(1 * MiB);
    CHECK(arena(p), "after exec: a big block in an arena");
    free(p);
}

static void threshold(void)
{
    CHECK(loci_tier_threshold() == 1 * MiB, "--tier-threshold 1M: %zu", loci_tier_threshold());
    void *under = site_a(512 * KiB), *at = site_a(1 * MiB);
    CHECK(!arena(under) && arena(at), "512 KiB stays with libc, 1 MiB is placed");
    free(under), free(at);
}

static void off(void)
{
    CHECK(loci_tier_threshold() == SIZE_MAX, "LOCI_TIER=off: threshold %zu", loci_tier_threshold());
    void *p = site_a(4 * MiB);
    CHECK(!arena(p), "LOCI_TIER=off: nothing is placed");
    free(p);
}

/* More sites than the table holds: one call instruction each. */
#define C1 ps[k] = malloc(64 * KiB), k++;
#define C4 C1 C1 C1 C1
#define C16 C4 C4 C4 C4
#define C64 C16 C16 C16 C16
#define C256 C64 C64 C64 C64

static void overflow(void)
{
    enum { N = 1088 };
    static void *ps[N];
    int k = 0;
    C256 C256 C256 C256 C64
    CHECK(k == N, "%d calls", k);
    static loci_tier_site_t s[LOCI_TIER_MAX_SITES + 8];
    int n = loci_tier_sites(s, LOCI_TIER_MAX_SITES + 8);
    CHECK(n == LOCI_TIER_MAX_SITES + 1, "%d sites: expected the table's %d and the overflow", n,
          LOCI_TIER_MAX_SITES);
    loci_tier_site_t last = site_of(arena(ps[N - 1]));
    CHECK(last.caller == NULL && last.allocations >= N - LOCI_TIER_MAX_SITES,
          "the last sites share the overflow arena (%llu allocations)", (unsigned long long)last.allocations);
    for (int i = 0; i < N; i++) {
        CHECK(arena(ps[i]), "block %d in an arena", i);
        free(ps[i]);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    require_preloaded();
    if (strcmp(what, "sites") == 0)
        sites();
    else if (strcmp(what, "threads") == 0)
        threads();
    else if (strcmp(what, "fork") == 0)
        fork_exec();
    else if (strcmp(what, "exec-child") == 0)
        exec_child();
    else if (strcmp(what, "threshold") == 0)
        threshold();
    else if (strcmp(what, "off") == 0)
        off();
    else if (strcmp(what, "overflow") == 0)
        overflow();
    else {
        fprintf(stderr, "usage: tier_check sites|threads|fork|threshold|off|overflow\n");
        return 2;
    }
    printf("tier_check %s: ok\n", what);
    return 0;
}
