/*
 * fork() with tier=auto arenas under the faults heat source (docs/TIERING.md,
 * "Shared memory"): their memory is shared memory (memfd, MAP_SHARED), used
 * privately, and a child must get what malloc's memory gives it — a copy as
 * of the fork — and never see its parent's later stores, nor its parent the
 * child's. Asserted through pipes that order the two processes: the child
 * sees the bytes written before the fork and not those written right after
 * fork() returned in the parent; its own stores stay its own; with the
 * tiering thread sampling (pages unmapped by the sampler copied too); a
 * child that forks again; fork while another thread of the parent writes
 * and allocates. An access=node arena's and allocator's memory is copied for
 * the child too: were it shared, the child's copy of loci's tables would
 * hand out blocks its parent uses (memory shared on purpose is a shared
 * arena's). Skipped, saying why, where the faults source cannot run.
 * Also prints what a fork costs with 64 MiB of auto arenas (LOCI_TEST_FORK_MIB
 * sets another size).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/scratch.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)
#define BLOCK (4 * MiB)

/* The faults source forced (interval: the thread's; a minute: it never
 * samples meanwhile), or skip saying why. */
static void use_faults_source(const char *interval)
{
    char config[256];
    snprintf(config, sizeof config,
             "[tiering]\nsource = faults\ninterval = %s\nsample = 50%%\n[target hbm0]\nnuma_node = 1\n", interval);
    use_topology("knl-flat.xml", config);
    loci_arena_t *probe = loci_arena_create("bandwidth=high,tier=auto", 0);
    if (!probe) {
        print_message("skipped: the faults heat source cannot run here: %s\n", loci_last_error());
        skip();
    }
    loci_tier_totals_t tot;
    assert_int_equal(loci_tier_totals(&tot), 0);
    loci_arena_destroy(probe);
    if (strcmp(tot.source, "faults") != 0) {
        print_message("skipped: the faults heat source cannot run here (see the warning above)\n");
        skip();
    }
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 64)
        p[i] = (unsigned char)(i / 64 * 7 + seed);
}

/* Is [p, p+n) all as fill(seed) left it? */
static bool holds(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 64)
        if (p[i] != (unsigned char)(i / 64 * 7 + seed))
            return false;
    return true;
}

/* A new arena for `intent` and a block of n bytes in it. */
static unsigned char *arena_block(const char *intent, size_t n, loci_arena_t **ar)
{
    *ar = loci_arena_create(intent, 0);
    assert_non_null(*ar);
    unsigned char *block = loci_arena_alloc(*ar, n);
    assert_non_null(block);
    return block;
}

static void say(int fd, char c) { assert_int_equal(write(fd, &c, 1), 1); }

static char hear(int fd)
{
    char c = 0;
    return read(fd, &c, 1) == 1 ? c : 0;
}

static int reap(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Pages of [p, p+n) mapped in this process now (/proc/self/pagemap's present
 * bit): the faults source's sampled pages are not. */
static size_t mapped_pages(const void *p, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), count = 0;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    for (size_t i = 0; i < n / page; i++) {
        uint64_t e = 0;
        assert_int_equal(pread(fd, &e, sizeof e, (off_t)(((uintptr_t)p / page + i) * sizeof e)), sizeof e);
        count += e >> 63;
    }
    close(fd);
    return count;
}

/* Parent and child, ordered by pipes: the child's view is the data as of
 * fork(), its stores are its own, the parent's after fork() never reach it.
 * `grandchild`: the child forks in turn, and its child must see the child's
 * data, not the parent's. Returns the child's exit status. */
static int fork_and_check(unsigned char *block, size_t n, bool grandchild)
{
    int to_child[2], to_parent[2];
    assert_int_equal(pipe(to_child), 0);
    assert_int_equal(pipe(to_parent), 0);
    fill(block, n, 1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(to_child[1]);
        close(to_parent[0]);
        if (!holds(block, n, 1))
            _exit(2); /* not the data as of fork(), or the parent's store after it */
        fill(block, n, 2);
        say(to_parent[1], 'w');
        if (hear(to_child[0]) != 'p')
            _exit(3);
        if (!holds(block, n, 2))
            _exit(4); /* the parent's store after fork() reached the child */
        if (grandchild) {
            pid_t g = fork();
            if (g == 0) {
                if (!holds(block, n, 2))
                    _exit(5); /* not the child's data */
                fill(block, n, 4);
                _exit(0);
            }
            int status;
            if (waitpid(g, &status, 0) != g || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                _exit(6);
            if (!holds(block, n, 2))
                _exit(7); /* the grandchild's store reached the child */
        }
        _exit(0);
    }
    /* right after fork() returned: this store must not reach the child */
    fill(block, n / 2, 3);
    close(to_child[0]);
    close(to_parent[1]); /* a child that fails early: EOF, not a wait */
    bool written = hear(to_parent[0]) == 'w'; /* the child has written all of its copy */
    if (written)
        say(to_child[1], 'p');
    close(to_child[1]);
    close(to_parent[0]);
    int status = reap(pid);
    if (status != 0)
        return status;
    assert_true(written);
    assert_true(holds(block, n / 2, 3));
    if (!holds(block + n / 2, n - n / 2, 1))
        fail_msg("the child's stores reached the parent's auto arena");
    return 0;
}

static void a_child_gets_a_copy(void **state)
{
    use_faults_source("60s");
    loci_arena_t *ar;
    unsigned char *block = arena_block("bandwidth=high,tier=auto", BLOCK, &ar);
    assert_int_equal(fork_and_check(block, BLOCK, false), 0);
    /* and again: the parent's memory is still its own shared memory, copied anew */
    assert_int_equal(fork_and_check(block, BLOCK, false), 0);
    loci_arena_destroy(ar);
}

static void a_child_of_a_child_gets_a_copy(void **state)
{
    use_faults_source("60s");
    loci_arena_t *ar;
    unsigned char *block = arena_block("bandwidth=high,tier=auto", BLOCK, &ar);
    assert_int_equal(fork_and_check(block, BLOCK, true), 0);
    loci_arena_destroy(ar);
}

/* The thread samples (pages unmapped, still in the memory file): the child
 * gets all of its data all the same. */
static void a_child_gets_pages_the_sampler_unmapped(void **state)
{
    use_faults_source("10ms");
    loci_arena_t *ar;
    unsigned char *block = arena_block("bandwidth=high,tier=auto", BLOCK, &ar);
    fill(block, BLOCK, 1);
    size_t pages = BLOCK / (size_t)sysconf(_SC_PAGESIZE), mapped = pages;
    for (int i = 0; i < 300 && mapped > pages / 2; i++) { /* half of them sampled, untouched */
        struct timespec ms10 = {0, 10000000};
        nanosleep(&ms10, NULL);
        mapped = mapped_pages(block, BLOCK);
    }
    if (mapped > pages / 2)
        fail_msg("the sampler left %zu of %zu pages mapped after 3 s", mapped, pages);
    pid_t pid = fork();
    if (pid == 0)
        _exit(holds(block, BLOCK, 1) ? 0 : 2);
    assert_int_equal(reap(pid), 0);
    print_message("%zu of %zu pages unmapped by the sampler at fork(): the child read them all\n", pages - mapped,
                  pages);
    /* and the protocol of the other tests, the sampler running */
    assert_int_equal(fork_and_check(block, BLOCK, false), 0);
    loci_arena_destroy(ar);
}

/* Another thread of the parent writes and allocates in auto arenas while
 * the main thread forks: each child sees its copy stay still. */
typedef struct {
    loci_arena_t *ar;
    _Atomic uint64_t *counter;
    atomic_bool stop;
} churn_t;

static void *churn(void *arg)
{
    churn_t *c = arg;
    while (!atomic_load(&c->stop)) {
        atomic_fetch_add(c->counter, 1);
        unsigned char *p = loci_arena_alloc(c->ar, 256 * 1024);
        if (p) {
            memset(p, 9, 256 * 1024);
            loci_free(p);
        }
    }
    return NULL;
}

static void fork_in_a_multithreaded_parent(void **state)
{
    use_faults_source("60s");
    loci_arena_t *ar;
    unsigned char *block = arena_block("bandwidth=high,tier=auto", BLOCK, &ar);
    churn_t c = {.ar = ar, .counter = loci_arena_alloc(ar, sizeof(uint64_t))};
    assert_non_null(c.counter);
    atomic_store(c.counter, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churn, &c), 0);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(fork_and_check(block, BLOCK, false), 0);
        pid_t pid = fork();
        if (pid == 0) { /* the parent's thread goes on counting; the child's copy stays still */
            uint64_t seen = atomic_load(c.counter);
            struct timespec ms20 = {0, 20000000};
            nanosleep(&ms20, NULL);
            _exit(atomic_load(c.counter) == seen ? 0 : 2);
        }
        assert_int_equal(reap(pid), 0);
    }
    atomic_store(&c.stop, true);
    pthread_join(t, NULL);
    assert_true(atomic_load(c.counter) > 0);
    loci_arena_destroy(ar);
}

/* access=node memory (the shm provider's, like auto arenas under the faults
 * source) is a copy in the child: the child reads what its parent wrote,
 * and what it writes, allocates and frees there never reaches its parent —
 * the blocks its parent hands out after the fork included. */
static void access_node_memory_is_copied_for_the_child(void **state)
{
    use_topology("knl-flat.xml", ""); /* no heat source needed: this is the shm provider's own */
    loci_arena_t *ar;
    unsigned char *block = arena_block("bandwidth=high,access=node", BLOCK, &ar);
    loci_allocator_t *a = loci_allocator_create("access=node");
    assert_non_null(a);
    unsigned char *small[8];
    for (int i = 0; i < 8; i++)
        memset(small[i] = loci_alloc(a, 100), 'P', 100);
    loci_free(small[7]); /* a slot free in both processes' tables at the fork */
    fill(block, BLOCK, 1);
    pid_t pid = fork();
    if (pid == 0) {
        bool saw = holds(block, BLOCK, 1) && small[0][0] == 'P';
        fill(block, BLOCK, 2);
        unsigned char *mine = loci_alloc(a, 100), *more = loci_arena_alloc(ar, 100);
        if (mine)
            memset(mine, 'C', 100);
        if (more)
            memset(more, 'C', 100);
        _exit(saw && mine && more ? 0 : 1);
    }
    assert_int_equal(reap(pid), 0);
    assert_true(holds(block, BLOCK, 1));
    unsigned char *next = loci_alloc(a, 100); /* the slot the child took in its own copy */
    assert_non_null(next);
    assert_int_not_equal(next[0], 'C');
    for (int i = 0; i < 7; i++)
        assert_int_equal(small[i][99], 'P');
    loci_free(next);
    for (int i = 0; i < 7; i++)
        loci_free(small[i]);
    loci_arena_destroy(ar);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds from fork() to its return in the parent, the best of 3 (the
 * child checks the last byte). */
static double fork_seconds(const unsigned char *last)
{
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        double t0 = now_s();
        pid_t pid = fork();
        if (pid == 0)
            _exit(*last == 1 ? 0 : 2);
        double dt = now_s() - t0;
        assert_int_equal(reap(pid), 0);
        best = dt < best ? dt : best;
    }
    return best;
}

/* What a fork costs with auto arenas (the child's copy included), against
 * the same bytes of private memory (malloc). */
static void fork_cost(void **state)
{
    use_faults_source("60s");
    const char *env = getenv("LOCI_TEST_FORK_MIB");
    size_t bytes = (env && atoi(env) > 0 ? (size_t)atoi(env) : 64) * MiB;
    unsigned char *plain = malloc(bytes);
    assert_non_null(plain);
    memset(plain, 1, bytes);
    double with_plain = fork_seconds(plain + bytes - 1);
    free(plain);
    loci_arena_t *ar;
    unsigned char *block = arena_block("bandwidth=high,tier=auto", bytes, &ar);
    memset(block, 1, bytes);
    double with_auto = fork_seconds(block + bytes - 1);
    loci_arena_destroy(ar);
    print_message("fork() with %zu MiB of auto arenas (faults source): %.1f ms, the child's copy at %.0f MiB/s; "
                  "with %zu MiB of malloc'd memory: %.1f ms\n", bytes / MiB, with_auto * 1e3,
                  (double)bytes / MiB / with_auto, bytes / MiB, with_plain * 1e3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_child_gets_a_copy),
        cmocka_unit_test(a_child_of_a_child_gets_a_copy),
        cmocka_unit_test(a_child_gets_pages_the_sampler_unmapped),
        cmocka_unit_test(fork_in_a_multithreaded_parent),
        cmocka_unit_test(access_node_memory_is_copied_for_the_child),
        cmocka_unit_test(fork_cost),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
