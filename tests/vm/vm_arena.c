/*
 * Arena moves under the real kernel (issue: arenas), checked page by page with move_pages.
 *
 *   vm_arena move SRC DST        1,000 mixed-size objects on node SRC move to DST and back: every
 *                                page on the node, addresses unchanged, checksums intact, and new
 *                                memory follows the arena
 *   vm_arena concurrent SRC DST  two threads keep writing and checking the arena's data while it
 *                                moves SRC -> DST -> SRC three times (no store lost); a third
 *                                reads it (no word goes back to an older value); a fourth allocates
 *                                in it
 *   vm_arena isolation NODE DST  two arenas filled in turns on NODE, their memory made huge
 *                                pages where it can; moving one to DST leaves every page of the
 *                                other on NODE
 *   vm_arena maxbytes NODE       max_bytes refuses with ENOMEM; what was given stays on NODE
 *   vm_arena nofit SRC DST       an arena bigger than DST can hold is refused: nothing moves
 *   vm_arena partial SRC DST     (migrating) pages shared with a child process cannot move: the
 *                                move fails, is rolled back (every page on SRC again), and
 *                                succeeds later
 *   vm_arena forked SRC DST      (copying) an arena whose pages a child still shares
 *                                copy-on-write moves whole; the parent's stores after the move do
 *                                not reach the child, which still reads what it inherited
 *   vm_arena lookup NODE         loci_arena_of for interior pointers, and for others' pointers
 *   vm_arena ssd NODE            NODE -> ssd0 -> NODE: same addresses, same bytes, pages on NODE
 *   vm_arena async SRC DST       loci_arena_move_async, polled, waited for
 *   vm_arena fallback HBM NEXT   node HBM filled until less than 96 MiB and the safety margin are
 *                                free: an empty bandwidth=high arena (on HBM) takes its first
 *                                96 MiB, and so all its memory, on NEXT (fallback=next, the next
 *                                ranked candidate); with fallback=null: NULL, ENOMEM, still on HBM
 *
 * Nodes are NUMA node numbers (intent target=node:N). Exit 0 ok, 1 a check failed, 2 setup error.
 * LOCI_ARENA_MOVE (auto, copy, migrate) picks how loci moves the pages: every test holds for both.
 */
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "vm_arena: %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const loci_target_t *node(int n)
{
    char name[32];
    snprintf(name, sizeof name, "node:%d", n);
    const loci_target_t *t = loci_target_by_name(name);
    if (!t) {
        fprintf(stderr, "vm_arena: %s: %s\n", name, loci_last_error());
        exit(2);
    }
    return t;
}

static int numa_of(const loci_target_t *t)
{
    loci_target_info_t info;
    return t && loci_target_info(t, &info) == 0 ? info.numa_node : -2;
}

static loci_arena_t *arena_on(int n, size_t max_bytes)
{
    char intent[32];
    snprintf(intent, sizeof intent, "target=node:%d", n);
    loci_arena_t *ar = loci_arena_create(intent, max_bytes);
    if (!ar) {
        fprintf(stderr, "vm_arena: arena \"%s\": %s\n", intent, loci_last_error());
        exit(2);
    }
    return ar;
}

static int move(loci_arena_t *ar, const loci_target_t *dst, const char *what)
{
    double t0 = now();
    int rc = loci_arena_move(ar, dst);
    if (rc == 0)
        printf("     %s: moved in %.3f s\n", what, now() - t0);
    else
        fprintf(stderr, "vm_arena: %s: %s\n", what, loci_last_error());
    return rc;
}

/* ---- objects of mixed sizes, with a checksum ------------------------------------------ */

enum { NOBJ = 1000 };
typedef struct {
    unsigned char *p[NOBJ];
    size_t size[NOBJ];
    uint64_t sum;
    int n;
} objects_t;

/* Mostly small (slabs), some of several pages, every 97th above 256 KiB (an extent of its own). */
static size_t mixed_size(unsigned i)
{
    unsigned r = i * 2654435761u;
    return i % 97 == 0 ? (300u << 10) + r % (2u << 20) : i % 7 == 0 ? 4096 + r % 60000 : 1 + r % 700;
}

static uint64_t checksum(const objects_t *o)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < o->n; i++)
        for (size_t k = 0; k < o->size[i]; k += 13)
            h = (h ^ o->p[i][k]) * 1099511628211ull;
    return h;
}

static void fill(loci_arena_t *ar, objects_t *o, int n)
{
    o->n = n;
    for (int i = 0; i < n; i++) {
        o->size[i] = mixed_size((unsigned)i);
        if (!(o->p[i] = loci_arena_alloc(ar, o->size[i]))) {
            fprintf(stderr, "vm_arena: object %d (%zu B): %s\n", i, o->size[i], loci_last_error());
            exit(2);
        }
        for (size_t k = 0; k < o->size[i]; k++)
            o->p[i][k] = (unsigned char)(i * 31 + k * 7);
    }
    o->sum = checksum(o);
}

/* Every page of every object on node n; contents and lookups intact. */
static void expect_on(loci_arena_t *ar, const objects_t *o, int n, const char *when)
{
    char what[96];
    int bad = 0;
    for (int i = 0; i < o->n; i++) {
        snprintf(what, sizeof what, "%s: object %d (%zu B)", when, i, o->size[i]);
        bad += !pages_on_node(what, o->p[i], o->size[i], n);
        bad += loci_arena_of(o->p[i] + o->size[i] / 2) != ar;
    }
    CHECK(bad == 0, "%s: %d objects misplaced or not found in their arena", when, bad);
    CHECK(checksum(o) == o->sum, "%s: contents changed", when);
    CHECK(numa_of(loci_arena_target(ar)) == n, "%s: loci says the arena is on node %d, not %d", when,
          numa_of(loci_arena_target(ar)), n);
    if (!bad)
        printf("ok   %s: %d objects, every page on node %d, checksum intact\n", when, o->n, n);
}

/* ---- the tests --------------------------------------------------------------------------- */

static void test_move(int src, int dst)
{
    loci_arena_t *ar = arena_on(src, 0);
    static objects_t o;
    fill(ar, &o, NOBJ);
    unsigned char *first = o.p[0], *last = o.p[NOBJ - 1];
    expect_on(ar, &o, src, "created");
    if (move(ar, node(dst), "there") == 0)
        expect_on(ar, &o, dst, "moved there");
    CHECK(o.p[0] == first && o.p[NOBJ - 1] == last, "addresses changed");
    /* the arena's next extents are on the destination */
    size_t big = 8 << 20;
    char *later = loci_arena_alloc(ar, big);
    CHECK(later != NULL, "allocation after the move: %s", loci_last_error());
    if (later) {
        memset(later, 1, big);
        CHECK(pages_on_node("new memory after the move", later, big, dst), "new memory not on node %d", dst);
        loci_free(later);
    }
    if (move(ar, node(src), "back") == 0)
        expect_on(ar, &o, src, "moved back");
    loci_arena_destroy(ar);
}

/* Writers own half the objects each: check the last value written, write the next. */
enum { CONC_OBJ = 256, CONC_SIZE = 64 << 10 };
struct writer {
    uint64_t *obj[CONC_OBJ];
    int first, step;
    _Atomic int *stop;
    long rounds, bad;
};

static void *writer(void *arg)
{
    struct writer *w = arg;
    uint64_t gen[CONC_OBJ] = {0};
    while (!atomic_load(w->stop)) {
        for (int k = w->first; k < CONC_OBJ; k += w->step) {
            uint64_t *p = w->obj[k];
            for (size_t j = 0; j < CONC_SIZE / 8; j += 61)
                w->bad += p[j] != gen[k];
            gen[k]++;
            for (size_t j = 0; j < CONC_SIZE / 8; j += 61)
                p[j] = gen[k];
        }
        w->rounds++;
    }
    return NULL;
}

/* Each object's first word only grows (the writers store gen + 1 over gen): a read that sees
 * it go back has read memory a move left behind. */
struct reader {
    uint64_t *obj[CONC_OBJ];
    _Atomic int *stop;
    long rounds, regressions;
};

static void *reader(void *arg)
{
    struct reader *r = arg;
    static uint64_t seen[CONC_OBJ];
    while (!atomic_load(r->stop)) {
        for (int k = 0; k < CONC_OBJ; k++) {
            uint64_t v = atomic_load_explicit((_Atomic uint64_t *)r->obj[k], memory_order_relaxed);
            r->regressions += v < seen[k];
            seen[k] = v;
        }
        r->rounds++;
    }
    return NULL;
}

struct allocator_thread {
    loci_arena_t *ar;
    _Atomic int *stop;
    long n, failed;
};

static void *allocate(void *arg)
{
    struct allocator_thread *a = arg;
    while (!atomic_load(a->stop)) {
        char *p = loci_arena_alloc(a->ar, 1000);
        a->failed += p == NULL;
        if (p)
            memset(p, 2, 1000);
        loci_free(p);
        a->n++;
    }
    return NULL;
}

static void test_concurrent(int src, int dst)
{
    loci_arena_t *ar = arena_on(src, 0);
    _Atomic int stop = 0;
    static struct writer w[2];
    static struct reader rd;
    for (int k = 0; k < CONC_OBJ; k++) {
        uint64_t *p = loci_arena_alloc(ar, CONC_SIZE);
        memset(p, 0, CONC_SIZE);
        w[0].obj[k] = w[1].obj[k] = rd.obj[k] = p;
    }
    pthread_t tid[4];
    for (int i = 0; i < 2; i++) {
        w[i].first = i;
        w[i].step = 2;
        w[i].stop = &stop;
        pthread_create(&tid[i], NULL, writer, &w[i]);
    }
    struct allocator_thread al = {ar, &stop, 0, 0};
    pthread_create(&tid[2], NULL, allocate, &al);
    rd.stop = &stop;
    pthread_create(&tid[3], NULL, reader, &rd);
    int at = src;
    for (int i = 0; i < 6; i++) {
        int to = i % 2 ? src : dst;
        usleep(100000);
        long before = w[0].rounds + w[1].rounds;
        if (move(ar, node(to), to == dst ? "there, under writes" : "back, under writes") != 0) {
            failures++;
            break;
        }
        at = to;
        int bad = 0;
        for (int k = 0; k < CONC_OBJ; k++)
            bad += !pages_on_node("object under writes", w[0].obj[k], CONC_SIZE, to);
        CHECK(bad == 0, "%d objects not on node %d after the move", bad, to);
        printf("     writers did %ld rounds meanwhile\n", w[0].rounds + w[1].rounds - before);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++)
        pthread_join(tid[i], NULL);
    CHECK(w[0].bad + w[1].bad == 0, "%ld words read back wrong during the moves", w[0].bad + w[1].bad);
    CHECK(rd.regressions == 0, "the reader saw %ld words go back to older values", rd.regressions);
    CHECK(rd.rounds > 0, "the reader did not run");
    CHECK(al.failed == 0, "%ld allocations failed during the moves", al.failed);
    CHECK(w[0].rounds > 0 && w[1].rounds > 0, "the writers did not run");
    if (w[0].bad + w[1].bad == 0)
        printf("ok   %ld + %ld writer rounds, %ld reader rounds and %ld allocations across 6 moves, every "
               "word as written, none read going back, arena on node %d\n", w[0].rounds, w[1].rounds, rd.rounds,
               al.n, at);
    loci_arena_destroy(ar);
}

/* Make huge pages of every 2 MiB range holding objects of o, as khugepaged or a fault under
 * THP=always may at any time (MADV_COLLAPSE, Linux 6.1): a huge page holding two arenas' memory
 * would move whole. Best effort: ranges not wholly mapped stay as they are. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 (asm-generic/mman-common.h); glibc 2.36 lacks it */
#endif

static void collapse(const objects_t *o, int *tried, int *made)
{
    static uintptr_t seen[NOBJ];
    static int nseen;
    const uintptr_t huge = (uintptr_t)2 << 20;
    for (int i = 0; i < o->n; i++)
        for (uintptr_t r = (uintptr_t)o->p[i] & ~(huge - 1); r < (uintptr_t)o->p[i] + o->size[i]; r += huge) {
            int k = 0;
            while (k < nseen && seen[k] != r)
                k++;
            if (k < nseen || nseen == NOBJ)
                continue;
            seen[nseen++] = r;
            (*tried)++;
            *made += madvise((void *)r, huge, MADV_COLLAPSE) == 0;
        }
}

static void test_isolation(int n, int dst)
{
    loci_arena_t *a = arena_on(n, 0), *b = arena_on(n, 0);
    static objects_t oa, ob;
    /* in turns, so that a shared heap would have put them on shared pages */
    oa.n = ob.n = NOBJ / 2;
    for (int i = 0; i < NOBJ / 2; i++) {
        oa.size[i] = ob.size[i] = mixed_size((unsigned)i);
        oa.p[i] = loci_arena_alloc(a, oa.size[i]);
        ob.p[i] = loci_arena_alloc(b, ob.size[i]);
        memset(oa.p[i], 0xa, oa.size[i]);
        memset(ob.p[i], 0xb, ob.size[i]);
    }
    oa.sum = checksum(&oa);
    ob.sum = checksum(&ob);
    int tried = 0, made = 0;
    collapse(&oa, &tried, &made);
    collapse(&ob, &tried, &made);
    printf("     %d of the %d 2 MiB ranges holding objects made huge pages\n", made, tried);
    if (move(a, node(dst), "arena A") == 0) {
        expect_on(a, &oa, dst, "arena A, moved");
        expect_on(b, &ob, n, "arena B, not moved");
    }
    loci_arena_destroy(a);
    loci_arena_destroy(b);
}

static void test_maxbytes(int n)
{
    const size_t cap = 1 << 20;
    loci_arena_t *ar = arena_on(n, cap);
    static char *p[4096];
    size_t usable = 0;
    int k = 0;
    for (; k < 4096 && (p[k] = loci_arena_alloc(ar, 3000)); k++) {
        memset(p[k], 3, 3000);
        usable += loci_usable_size(p[k]);
    }
    CHECK(k < 4096 && errno == ENOMEM, "no ENOMEM after %d blocks (errno %d)", k, errno);
    CHECK(strstr(loci_last_error(), "max_bytes") != NULL, "message: %s", loci_last_error());
    CHECK(usable <= cap && usable + 4096 > cap, "%zu usable bytes for a max of %zu", usable, cap);
    int bad = 0;
    for (int i = 0; i < k; i++)
        bad += !pages_on_node("capped arena", p[i], 3000, n);
    CHECK(bad == 0, "%d blocks not on node %d", bad, n);
    if (!failures)
        printf("ok   max_bytes 1 MiB: %d blocks (%zu usable bytes) on node %d, then NULL/ENOMEM: %s\n", k, usable,
               n, loci_last_error());
    loci_arena_destroy(ar);
}

static void test_nofit(int src, int dst)
{
    loci_target_info_t info;
    loci_target_info(node(dst), &info);
    size_t chunk = 64 << 20, total = (size_t)info.capacity + (64 << 20);
    loci_arena_t *ar = arena_on(src, 0);
    static char *p[256];
    int k = 0;
    for (size_t got = 0; got < total && k < 256; got += chunk, k++) {
        if (!(p[k] = loci_arena_alloc(ar, chunk))) {
            fprintf(stderr, "vm_arena: filling node %d: %s\n", src, loci_last_error());
            exit(2);
        }
        p[k][0] = (char)k;
    }
    int rc = loci_arena_move(ar, node(dst));
    CHECK(rc == LOCI_ENOMEM, "moving %d MiB to node %d (%llu MiB): rc %d, expected LOCI_ENOMEM", k * 64, dst,
          (unsigned long long)(info.capacity >> 20), rc);
    printf("     refused: %s\n", loci_last_error());
    int bad = 0;
    for (int i = 0; i < k; i++)
        bad += !pages_on_node("arena refused", p[i], chunk, src) || p[i][0] != (char)i;
    CHECK(bad == 0, "%d chunks moved or changed although the move was refused", bad);
    CHECK(numa_of(loci_arena_target(ar)) == src, "the arena's target changed");
    if (!failures)
        printf("ok   %d MiB arena refused by node %d, every page still on node %d\n", k * 64, dst, src);
    loci_arena_destroy(ar);
}

static void test_partial(int src, int dst)
{
    loci_arena_t *ar = arena_on(src, 0);
    static objects_t o;
    fill(ar, &o, 200);
    /* pages shared copy-on-write with a child cannot be moved by this process */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    /* memory of this process alone, in new extents (visited first: newest first) */
    enum { MINE = 6000 };
    static char *mine[MINE];
    for (int i = 0; i < MINE; i++) {
        mine[i] = loci_arena_alloc(ar, 1000);
        memset(mine[i], 5, 1000);
    }
    int rc = loci_arena_move(ar, node(dst));
    CHECK(rc == LOCI_EIO, "moving pages shared with a child: rc %d, expected LOCI_EIO", rc);
    CHECK(strstr(loci_last_error(), "moved back") != NULL, "message: %s", loci_last_error());
    printf("     refused: %s\n", loci_last_error());
    expect_on(ar, &o, src, "after the failed move");
    int bad = 0;
    for (int i = 0; i < MINE; i++)
        bad += !pages_on_node("unshared block after the failed move", mine[i], 1000, src);
    CHECK(bad == 0, "%d unshared blocks not moved back to node %d", bad, src);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (move(ar, node(dst), "once the child is gone") == 0) {
        expect_on(ar, &o, dst, "moved after all");
        for (int i = 0; i < MINE; i++)
            bad += !pages_on_node("unshared block", mine[i], 1000, dst);
        CHECK(bad == 0, "%d unshared blocks not moved to node %d", bad, dst);
    }
    loci_arena_destroy(ar);
}

static void test_forked(int src, int dst)
{
    loci_arena_t *ar = arena_on(src, 0);
    static objects_t o;
    fill(ar, &o, 200);
    int go[2];
    if (pipe(go) != 0) {
        perror("vm_arena: pipe");
        exit(2);
    }
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) { /* once the parent has moved and overwritten its copy: ours is what we inherited */
        char c;
        close(go[1]);
        _exit(read(go[0], &c, 1) == 1 && checksum(&o) == o.sum ? 0 : 1);
    }
    close(go[0]);
    if (move(ar, node(dst), "shared copy-on-write with a child") == 0)
        expect_on(ar, &o, dst, "moved while a child shares its pages");
    for (int i = 0; i < o.n; i++)
        memset(o.p[i], 0x5a, o.size[i]);
    int status = 0;
    CHECK(write(go[1], "g", 1) == 1 && waitpid(child, &status, 0) == child, "child lost");
    close(go[1]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's inherited data changed (status %d)", status);
    if (!failures)
        printf("ok   the child still reads what it inherited after the parent moved and overwrote its arena\n");
    loci_arena_destroy(ar);
}

static void test_lookup(int n)
{
    loci_arena_t *a = arena_on(n, 0), *b = arena_on(n, 0);
    loci_allocator_t *al = loci_allocator_create("");
    char *small = loci_arena_alloc(a, 100), *big = loci_arena_alloc(a, 3 << 20), *other = loci_arena_alloc(b, 100);
    char *plain = loci_alloc(al, 100);
    int on_stack;
    CHECK(loci_arena_of(small) == a && loci_arena_of(small + 99) == a, "small block");
    CHECK(loci_arena_of(big + (2 << 20) + 17) == a, "interior of a big block");
    CHECK(loci_arena_of(other + 50) == b, "the other arena's block");
    CHECK(loci_arena_of(plain) == NULL && errno == ENOENT, "an allocator's block is in no arena");
    CHECK(loci_arena_of(&on_stack) == NULL, "a stack address is in no arena");
    if (!failures)
        printf("ok   loci_arena_of: block starts, interiors, other arenas, allocators, the stack\n");
    loci_free(plain);
    loci_arena_destroy(a);
    loci_arena_destroy(b);
}

static void test_ssd(int n)
{
    const loci_target_t *ssd = loci_target_by_name("ssd0");
    if (!ssd) {
        fprintf(stderr, "vm_arena: no ssd0: %s\n", loci_last_error());
        exit(2);
    }
    loci_arena_t *ar = arena_on(n, 0);
    static objects_t o;
    fill(ar, &o, NOBJ);
    unsigned char *first = o.p[0];
    if (move(ar, ssd, "to ssd0") == 0) {
        CHECK(checksum(&o) == o.sum && o.p[0] == first, "on ssd0: contents or addresses changed");
        CHECK(loci_arena_target(ar) == ssd, "loci says the arena is not on ssd0");
        printf("ok   on ssd0: %d objects, same addresses, checksum intact\n", NOBJ);
    }
    if (move(ar, node(n), "back from ssd0") == 0)
        expect_on(ar, &o, n, "back from ssd0");
    loci_arena_destroy(ar);
}

/* Fill node n (target=node:N, every block written) until loci refuses: less
 * than 64 MiB and the node's safety margin free. The blocks in fill[], how
 * many returned. */
static int fill_node(int n, char **fill, int max)
{
    char intent[48];
    snprintf(intent, sizeof intent, "target=node:%d,fallback=null", n);
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a) {
        fprintf(stderr, "vm_arena: %s: %s\n", intent, loci_last_error());
        exit(2);
    }
    int k = 0;
    for (; k < max && (fill[k] = loci_alloc(a, 64 << 20)); k++)
        memset(fill[k], k, 64 << 20);
    if (k == max || errno != ENOMEM) {
        fprintf(stderr, "vm_arena: filling node %d: %d blocks of 64 MiB, then: %s\n", n, k, loci_last_error());
        exit(2);
    }
    printf("     node %d filled with %d MiB; then: %s\n", n, k * 64, loci_last_error());
    return k;
}

static void test_fallback(int hbm, int next)
{
    static char *fill[64];
    int nfill = fill_node(hbm, fill, 64);
    const size_t size = 96 << 20;

    loci_arena_t *ar = loci_arena_create("bandwidth=high", 0);
    if (!ar || numa_of(loci_arena_target(ar)) != hbm) {
        fprintf(stderr, "vm_arena: bandwidth=high is not node %d: %s\n", hbm, ar ? "" : loci_last_error());
        exit(2);
    }
    char *p = loci_arena_alloc(ar, size);
    CHECK(p != NULL, "first %zu bytes of an empty bandwidth=high arena: %s", size, loci_last_error());
    if (p) {
        memset(p, 7, size);
        CHECK(pages_on_node("fallback=next", p, size, next), "the first block is not on node %d", next);
        CHECK(numa_of(loci_arena_target(ar)) == next, "loci says the arena is on node %d, not %d",
              numa_of(loci_arena_target(ar)), next);
        CHECK(loci_arena_of(p + size / 2) == ar, "the block is not found in its arena");
        char *more = loci_arena_alloc(ar, 1 << 20);
        if (more)
            memset(more, 1, 1 << 20);
        CHECK(more && pages_on_node("the next block", more, 1 << 20, next), "the arena's next block is not on node %d",
              next);
        if (!failures)
            printf("ok   empty bandwidth=high arena, node %d full: its memory is on node %d, and loci says so\n",
                   hbm, next);
    }
    loci_arena_destroy(ar);

    loci_arena_t *null = loci_arena_create("bandwidth=high,fallback=null", 0);
    errno = 0;
    p = null ? loci_arena_alloc(null, size) : NULL;
    CHECK(null && !p && errno == ENOMEM, "fallback=null: %p, errno %d", (void *)p, errno);
    CHECK(numa_of(loci_arena_target(null)) == hbm, "fallback=null: the arena left node %d", hbm);
    if (!p && errno == ENOMEM)
        printf("ok   fallback=null: NULL/ENOMEM: %s\n", loci_last_error());
    loci_arena_destroy(null);
    for (int i = 0; i < nfill; i++)
        loci_free(fill[i]);
}

static void test_async(int src, int dst)
{
    loci_arena_t *ar = arena_on(src, 0);
    static objects_t o;
    fill(ar, &o, NOBJ);
    loci_arena_move_t *m = loci_arena_move_async(ar, node(dst));
    CHECK(m != NULL, "move_async: %s", loci_last_error());
    if (!m)
        return;
    long polls = 0;
    while (!loci_arena_move_done(m)) {
        polls++;
        usleep(1000);
    }
    int rc = loci_arena_move_wait(m);
    CHECK(rc == 0, "async move: %s", loci_last_error());
    printf("     polled %ld times while it ran\n", polls);
    expect_on(ar, &o, dst, "moved asynchronously");
    loci_arena_destroy(ar);
}

int main(int argc, char **argv)
{
    if (loci_init() != 0) {
        fprintf(stderr, "vm_arena: setup: %s\n", loci_last_error());
        return 2;
    }
    const char *t = argc > 1 ? argv[1] : "";
    int a = argc > 2 ? atoi(argv[2]) : -1, b = argc > 3 ? atoi(argv[3]) : -1;
    if (!strcmp(t, "move") && argc == 4)
        test_move(a, b);
    else if (!strcmp(t, "concurrent") && argc == 4)
        test_concurrent(a, b);
    else if (!strcmp(t, "isolation") && argc == 4)
        test_isolation(a, b);
    else if (!strcmp(t, "maxbytes") && argc == 3)
        test_maxbytes(a);
    else if (!strcmp(t, "nofit") && argc == 4)
        test_nofit(a, b);
    else if (!strcmp(t, "partial") && argc == 4)
        test_partial(a, b);
    else if (!strcmp(t, "forked") && argc == 4)
        test_forked(a, b);
    else if (!strcmp(t, "lookup") && argc == 3)
        test_lookup(a);
    else if (!strcmp(t, "ssd") && argc == 3)
        test_ssd(a);
    else if (!strcmp(t, "async") && argc == 4)
        test_async(a, b);
    else if (!strcmp(t, "fallback") && argc == 4)
        test_fallback(a, b);
    else {
        fprintf(stderr, "usage: vm_arena move|concurrent|isolation|nofit|partial|forked|async|fallback SRC DST | "
                        "maxbytes|lookup|ssd NODE\n");
        return 2;
    }
    loci_fini();
    return failures ? 1 : 0;
}
