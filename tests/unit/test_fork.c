/* fork() while other threads allocate, free, make allocators and arenas,
 * place memory (reading a node's room):
 * every child can allocate and free at once (no lock of loci stays held by
 * a thread the child does not have), and its blocks are its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <loci.h>

#include "support/child.h"

#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { WORKERS = 3, FORKS = 150 };
static atomic_bool stop;

static void *churn(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    char intent[64];
    void *held[32] = {0};
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        /* new spellings now and then: the allocator cache takes each as an alias */
        snprintf(intent, sizeof intent, "%*sbandwidth=high", (int)(i % 40), "");
        loci_allocator_t *a = loci_allocator_create(i % 7 ? "" : intent);
        unsigned k = i % 32;
        loci_free(held[k]);
        size_t size = i % 13 ? 16 + (i * 40 + id) % 4000 : (size_t)1 << 20; /* small blocks, large ones */
        held[k] = a ? loci_alloc(a, size) : NULL;
        if (held[k])
            memset(held[k], (int)id, 16);
        if (i % 3 == 0) { /* reads the node's room (/proc/zoneinfo, now and then): its locks */
            static __thread char page[8192] __attribute__((aligned(4096)));
            loci_place_range(page, 4096, "");
        }
        if (i % 97 == 0) {
            loci_arena_t *ar = loci_arena_create("", 0);
            void *p = ar ? loci_arena_alloc(ar, 300) : NULL;
            loci_free(p);
            loci_arena_destroy(ar);
        }
    }
    for (unsigned k = 0; k < 32; k++)
        loci_free(held[k]);
    return NULL;
}

/* A child the alarm stops: where it was, on stderr, then killed by it. */
static void say_where_stuck(int sig)
{
    static const char msg[] = "child stuck for 30 s, at:\n";
    void *frames[32];
    (void)!write(2, msg, sizeof msg - 1);
    backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* In the child: what a program does right after fork. Killed by the alarm
 * if a lock is left held. */
static int child_allocates(void)
{
    signal(SIGALRM, say_where_stuck);
    alarm(30);
    loci_allocator_t *a = loci_allocator_create("latency=low");
    char *p[64];
    for (int i = 0; i < 64; i++) {
        p[i] = loci_alloc(a, (size_t)(i + 1) * 24);
        if (!p[i]) {
            fprintf(stderr, "child: loci_alloc: %s\n", loci_last_error());
            return 2;
        }
        memset(p[i], i, (size_t)(i + 1) * 24);
    }
    for (int i = 0; i < 64; i++) {
        if (p[i][0] != (char)i)
            return 3;
        loci_free(p[i]);
    }
    void *big = loci_alloc(a, (size_t)3 << 20);
    loci_free(big);
    static char page[8192] __attribute__((aligned(4096)));
    if (loci_place_range(page, 4096, "") != 0) { /* the node's room, read in the child */
        fprintf(stderr, "child: loci_place_range: %s\n", loci_last_error());
        return 6;
    }
    loci_arena_t *ar = loci_arena_create("", 0);
    void *q = ar ? loci_arena_alloc(ar, 1000) : NULL;
    if (!q)
        return 4;
    loci_free(q);
    loci_arena_destroy(ar);
    return big ? 0 : 5;
}

static void fork_while_threads_allocate(void **state)
{
    assert_int_equal(loci_init(), 0);
    void *frame;
    backtrace(&frame, 1); /* loads what backtrace needs now, not in a stuck child's signal handler */
    pthread_t t[WORKERS];
    for (uintptr_t i = 0; i < WORKERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)i), 0);
    int stuck = 0, failed = 0; /* the last failure's status */
    bool children_allocate = !child_malloc_unsafe_after_fork("fork_while_threads_allocate");
    for (int n = 0; n < FORKS; n++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(children_allocate ? child_allocates() : 0);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            stuck++;
        else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = status;
    }
    atomic_store(&stop, true);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    if (stuck || failed)
        fail_msg("of %d children, %d hung in loci; wait status of a failed one: %#x", FORKS, stuck, failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fork_while_threads_allocate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
