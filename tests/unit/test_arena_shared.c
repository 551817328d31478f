/*
 * Shared arenas (docs/ARENAS.md): one arena for several processes of the
 * same user. Create and attach at the same address, names and permissions,
 * processes allocating and freeing each other's blocks at once, a process
 * killed while it holds the lock (and in the middle of a change), lookups.
 * Segments go to a private directory (LOCI_SHM_DIR). Placement on a NUMA
 * node is checked in the VM (tests/vm/vm_arena.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arena/arena.h"
#include "loci.h"
#include "support/scratch.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static loci_arena_t *create(const char *name, size_t max_bytes)
{
    loci_arena_t *ar = loci_arena_create_shared(name, "", max_bytes);
    if (!ar)
        fail_msg("create_shared(%s): %s", name, loci_last_error());
    return ar;
}

static void path_of(const char *name, const char *ext, char *buf, size_t len)
{
    snprintf(buf, len, "%s/loci-%u-%s.%s", scratch_dir, (unsigned)geteuid(), name, ext);
}

/* Run fn in a child process; its exit status (0 = fine), or 128 + signal. */
static int in_child(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn(arg));
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A child that created an arena and exited without destroying it: the
 * arena stays, as another process of the job would leave it. */
static int create_and_leave(void *name)
{
    loci_arena_t *ar = loci_arena_create_shared(name, "", 1 << 20);
    char *p = ar ? loci_arena_alloc(ar, 100) : NULL;
    if (!p)
        return 1;
    strcpy(p, "left by a child");
    return 0;
}

/* ---- tests ----------------------------------------------------------------------- */

struct pointer_msg {
    char *p;
};

static int child_attaches(void *arg)
{
    loci_arena_t *inherited = arg;
    char *parents = loci_arena_alloc(inherited, 0); /* noise: a block of the child's */
    loci_free(parents);
    loci_arena_destroy(inherited); /* detach what fork gave, then attach for real */
    loci_arena_t *ar = loci_arena_attach("t1");
    if (!ar)
        return fprintf(stderr, "attach: %s\n", loci_last_error()), 1;
    char *mine = loci_arena_alloc(ar, 64);
    strcpy(mine, "from the child");
    /* the parent's first block holds a pointer to its second: valid here too */
    char **first = (char **)((char *)ar->sh->meta->data_base);
    if (strcmp(*first, "hello from the parent") != 0)
        return 2;
    *first = mine;
    loci_arena_destroy(ar);
    return 0;
}

static void create_attach_same_address(void **state)
{
    loci_arena_t *ar = create("t1", 16 << 20);
    char **first = loci_arena_alloc(ar, sizeof(char *));
    assert_ptr_equal(first, (void *)ar->sh->meta->data_base); /* the very first block */
    char *second = loci_arena_alloc(ar, 100);
    strcpy(second, "hello from the parent");
    *first = second;
    assert_ptr_equal(loci_arena_of(second + 50), ar);
    assert_int_equal(loci_usable_size(second), 112);
    assert_string_equal(loci_arena_target(ar) ? "ok" : "none", "ok");
    assert_ptr_equal(loci_ptr_target(second), loci_arena_target(ar));
    assert_int_equal(in_child(child_attaches, ar), 0);
    assert_string_equal(*first, "from the child");
    /* attaching again in this process gives the same handle */
    assert_ptr_equal(loci_arena_attach("t1"), ar);
    loci_arena_destroy(ar);
    loci_free(*first);
    loci_free(second);
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(ar, &st), 0);
    assert_int_equal(st.bytes_in_use, 16); /* `first` */
    assert_int_equal(st.allocations, 4);
    char *grown = loci_realloc(first, 10000); /* realloc stays in the arena */
    assert_ptr_equal(loci_arena_of(grown), ar);
    loci_free(grown);
    loci_arena_destroy(ar);
    char path[600];
    path_of("t1", "meta", path, sizeof path);
    assert_int_not_equal(access(path, F_OK), 0); /* the creator removed the names */
    assert_null(loci_arena_attach("t1"));
    assert_int_equal(errno, ENOENT);
}

static void names_and_sizes(void **state)
{
    static const char *bad[] = {"", "a/b", "..", "x..y", "../etc", ".hidden", "sp ace",
                                "0123456789012345678901234567890123456789012345678901234567890123456789"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        errno = 0;
        assert_null(loci_arena_create_shared(bad[i], "", 1 << 20));
        assert_int_equal(errno, EINVAL);
        assert_null(loci_arena_attach(bad[i]));
        assert_int_equal(errno, EINVAL);
        assert_int_equal(loci_arena_unlink_shared(bad[i]), LOCI_EINVAL);
    }
    assert_null(loci_arena_create_shared(NULL, "", 1 << 20));
    assert_null(loci_arena_create_shared("ok", "", 0));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "max_bytes"));
    assert_null(loci_arena_create_shared("ok", "target=ssd0", 1 << 20));
    assert_int_equal(errno, ENOTSUP);
    assert_null(loci_arena_attach("nothing-here"));
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(loci_last_error(), "no shared arena named \"nothing-here\""));
    assert_int_equal(loci_arena_unlink_shared("nothing-here"), LOCI_ENOENT);

    loci_arena_t *ar = create("twice", 1 << 20);
    assert_null(loci_arena_create_shared("twice", "", 1 << 20));
    assert_int_equal(errno, EEXIST);
    assert_non_null(strstr(loci_last_error(), "loci_arena_attach"));
    assert_int_equal(loci_arena_move(ar, loci_target_by_name("dram0")), LOCI_ENOTSUP);
    loci_arena_destroy(ar);
}

static void full_arena(void **state)
{
    loci_arena_t *ar = create("small", 64 << 10);
    void *p[100];
    int n = 0;
    while (n < 100 && (p[n] = loci_arena_alloc(ar, 4000)))
        n++;
    assert_int_equal(n, 16); /* 64 KiB of 4 KiB pages */
    assert_int_equal(errno, ENOMEM);
    assert_non_null(strstr(loci_last_error(), "shared arena \"small\""));
    assert_null(loci_arena_alloc(ar, 1 << 20));
    loci_free(p[3]);
    loci_free(p[3]); /* a double free is reported, nothing changes */
    assert_non_null(strstr(loci_last_error(), "double free"));
    loci_free((char *)p[4] + 8);
    assert_non_null(strstr(loci_last_error(), "inside a block"));
    assert_non_null(p[3] = loci_arena_alloc(ar, 4000));
    void *a = loci_arena_aligned_alloc(ar, 64, 10);
    assert_null(a); /* no page left for a slab */
    loci_free(p[0]);
    assert_non_null(a = loci_arena_aligned_alloc(ar, 64, 10));
    assert_int_equal((uintptr_t)a % 64, 0);
    loci_arena_destroy(ar);
}

static void permissions(void **state)
{
    char meta[600], data[600];
    path_of("perm", "meta", meta, sizeof meta);
    path_of("perm", "data", data, sizeof data);
    assert_int_equal(in_child(create_and_leave, "perm"), 0);
    loci_arena_t *ar = loci_arena_attach("perm"); /* the same user: fine */
    assert_non_null(ar);
    assert_string_equal((char *)ar->sh->meta->data_base, "left by a child");
    loci_arena_destroy(ar); /* not the creator: the names stay */
    assert_int_equal(access(meta, F_OK), 0);

    chmod(data, 0640);
    assert_null(loci_arena_attach("perm"));
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(loci_last_error(), "0600"));
    chmod(data, 0600);

    char real[620];
    snprintf(real, sizeof real, "%s.real", meta);
    rename(meta, real);
    assert_int_equal(symlink(real, meta), 0);
    assert_null(loci_arena_attach("perm"));
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(loci_last_error(), "symbolic link"));
    unlink(meta);
    rename(real, meta);

    if (geteuid() == 0) { /* another user's arena */
        assert_int_equal(chown(meta, 65534, 65534), 0);
        assert_null(loci_arena_attach("perm"));
        assert_int_equal(errno, EPERM);
        assert_non_null(strstr(loci_last_error(), "belongs to uid 65534"));
        assert_int_equal(loci_arena_unlink_shared("perm"), LOCI_EPERM);
        assert_int_equal(chown(meta, 0, 0), 0);
    } else {
        print_message("[ SKIPPED  ] another user's arena: needs root to chown a file to another user\n");
    }
    assert_int_equal(loci_arena_unlink_shared("perm"), 0);
    assert_int_not_equal(access(meta, F_OK), 0);
    assert_int_not_equal(access(data, F_OK), 0);
}

static int take_the_range(void *arg)
{
    loci_arena_t *inherited = arg;
    uintptr_t base = inherited->sh->meta->data_base;
    loci_arena_destroy(inherited);
    void *p = mmap((void *)base, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != (void *)base)
        return 1;
    loci_arena_t *ar = loci_arena_attach("taken");
    if (ar || errno != EBUSY || !strstr(loci_last_error(), "taken in this process"))
        return 2;
    return 0;
}

static void attach_where_the_range_is_taken(void **state)
{
    loci_arena_t *ar = create("taken", 1 << 20);
    assert_int_equal(in_child(take_the_range, ar), 0);
    loci_arena_destroy(ar);
}

/* ---- two processes at once -------------------------------------------------------- */

enum { ROUNDS = 3000 };

struct peer {
    loci_arena_t *ar;
    int to, from; /* pipes: blocks handed to the other process, blocks received */
    unsigned tag;
};

/* Allocate, stamp and hand over blocks; check and free the other's. */
static int converse(struct peer *pe)
{
    int bad = 0;
    for (unsigned i = 0; i < ROUNDS; i++) {
        size_t n = 16 + (i * 2654435761u) % (i % 50 == 0 ? 20000 : 900);
        unsigned *p = loci_arena_alloc(pe->ar, n);
        if (!p)
            return fprintf(stderr, "alloc: %s\n", loci_last_error()), 10;
        for (size_t k = 0; k < n / sizeof *p; k++)
            p[k] = pe->tag ^ (unsigned)k;
        if (write(pe->to, &p, sizeof p) != sizeof p)
            return 11;
        unsigned *q;
        if (read(pe->from, &q, sizeof q) != sizeof q)
            return 12;
        size_t m = loci_usable_size(q) / sizeof *q;
        bad |= m == 0 || loci_arena_of(q) != pe->ar;
        for (size_t k = 0; k < m && k < 4; k++) /* the start is always stamped */
            bad |= q[k] != ((pe->tag ^ 1) ^ (unsigned)k);
        loci_free(q);
    }
    return bad ? 13 : 0;
}

static int peer_main(void *arg)
{
    struct peer *pe = arg;
    loci_arena_destroy(pe->ar);
    if (!(pe->ar = loci_arena_attach("pair")))
        return 9;
    return converse(pe);
}

static void two_processes_at_once(void **state)
{
    loci_arena_t *ar = create("pair", 64 << 20);
    int a[2], b[2];
    assert_int_equal(pipe(a), 0);
    assert_int_equal(pipe(b), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct peer child = {ar, b[1], a[0], 0x5a5a0001};
        _exit(peer_main(&child));
    }
    struct peer parent = {ar, a[1], b[0], 0x5a5a0000};
    assert_int_equal(converse(&parent), 0);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    loci_stats_t s;
    assert_int_equal(loci_arena_stats(ar, &s), 0);
    assert_int_equal(s.bytes_in_use, 0);
    assert_int_equal(s.allocations, 2 * ROUNDS);
    assert_int_equal(s.frees, 2 * ROUNDS);
    for (int i = 0; i < 2; i++) {
        close(a[i]);
        close(b[i]);
    }
    loci_arena_destroy(ar);
}

/* ---- processes that die holding the lock -------------------------------------------- */

struct dying {
    loci_arena_t *ar;
    int ready;        /* pipe: the child says it holds the lock */
    void (*before)(sh_meta_t *m, void *arg);
    void *arg;
};

/* Take the lock, leave the state as `before` says, then wait to be killed. */
static int die_holding_lock(void *arg)
{
    struct dying *d = arg;
    sh_meta_t *m = d->ar->sh->meta;
    if (shheap_lock(m) != 0)
        return 1;
    if (d->before)
        d->before(m, d->arg);
    char c = 1;
    if (write(d->ready, &c, 1) != 1)
        return 2;
    pause();
    return 3;
}

/* Fork a child that dies (SIGKILL) holding the lock, after `before`. */
static void kill_holding_lock(loci_arena_t *ar, void (*before)(sh_meta_t *, void *), void *arg)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct dying d = {ar, p[1], before, arg};
        _exit(die_holding_lock(&d));
    }
    char c;
    assert_int_equal(read(p[0], &c, 1), 1);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFSIGNALED(st));
    close(p[0]);
    close(p[1]);
}

static void killed_holding_the_lock(void **state)
{
    loci_arena_t *ar = create("robust", 4 << 20);
    char *mine = loci_arena_alloc(ar, 300);
    strcpy(mine, "still here");
    kill_holding_lock(ar, NULL, NULL);
    /* the next caller repairs and goes on */
    char *more = loci_arena_alloc(ar, 300);
    assert_non_null(more);
    assert_string_equal(mine, "still here");
    loci_free(mine);
    loci_free(more);
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(ar, &st), 0);
    assert_int_equal(st.bytes_in_use, 0);
    /* and again: the lock is consistent, not poisoned */
    kill_holding_lock(ar, NULL, NULL);
    assert_non_null(mine = loci_arena_alloc(ar, 10));
    loci_free(mine);
    loci_arena_destroy(ar);
}

/* The state a process leaves when killed just before the end of an
 * allocation: every change made, the journal still open. */
static void died_allocating(sh_meta_t *m, void *arg)
{
    void **got = arg;
    *got = shheap_alloc(m, 0, 200);
    uintptr_t off = (uintptr_t)*got - m->data_base;
    size_t block = shheap_usable(m, *got);
    m->journal = (sh_journal_t){SH_OP_ALLOC_SMALL, (uint32_t)(off / SH_PAGE), 0, (uint32_t)(off % SH_PAGE / block)};
}

/* ... and at the start of a free: the journal written, nothing changed. */
static void died_freeing(sh_meta_t *m, void *arg)
{
    uintptr_t off = (uintptr_t)arg - m->data_base;
    uint32_t n = (uint32_t)(shheap_usable(m, arg) / SH_PAGE);
    m->journal = (sh_journal_t){SH_OP_FREE_RUN, (uint32_t)(off / SH_PAGE), n, 0};
}

static void killed_in_the_middle_of_a_change(void **state)
{
    loci_arena_t *ar = create("journal", 4 << 20);
    char *keep = loci_arena_alloc(ar, 200); /* same size class as the dead allocation */
    strcpy(keep, "kept");
    loci_stats_t before, after;
    assert_int_equal(loci_arena_stats(ar, &before), 0);

    /* shared memory: what the child allocated is visible here */
    void **got = mmap(NULL, sizeof *got, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    kill_holding_lock(ar, died_allocating, got);
    assert_non_null(*got);
    assert_int_equal(loci_arena_stats(ar, &after), 0); /* repaired: the allocation is undone */
    assert_int_equal(after.bytes_in_use, before.bytes_in_use);
    assert_int_equal(loci_usable_size(*got), 0);
    assert_int_equal(loci_usable_size(keep), 224);
    munmap(got, sizeof *got);

    char *big = loci_arena_alloc(ar, 100000);
    memset(big, 1, 100000);
    assert_int_equal(loci_arena_stats(ar, &before), 0);
    kill_holding_lock(ar, died_freeing, big);
    assert_int_equal(loci_arena_stats(ar, &after), 0); /* the free is finished */
    assert_int_equal(after.bytes_in_use, before.bytes_in_use - 25 * 4096);
    assert_int_equal(loci_usable_size(big), 0);
    char *again = loci_arena_alloc(ar, 100000); /* its pages are free again */
    assert_ptr_equal(again, big);
    assert_int_equal(again[0], 0); /* given back to the system, not leaking old data */
    assert_string_equal(keep, "kept");
    loci_free(again);
    loci_free(keep);
    loci_arena_destroy(ar);
}

/* ---- threads of one process ----------------------------------------------------------- */

static void *thread_churn(void *arg)
{
    loci_arena_t *ar = arg;
    void *p[32] = {0};
    for (unsigned i = 0; i < 20000; i++) {
        unsigned k = i % 32;
        loci_free(p[k]);
        p[k] = loci_arena_alloc(ar, 1 + (i * 40503u) % (i % 64 ? 1500 : 30000));
        if (!p[k])
            return (void *)1;
        memset(p[k], (int)k, 1);
    }
    for (unsigned k = 0; k < 32; k++)
        loci_free(p[k]);
    return NULL;
}

static void threads_share_it_too(void **state)
{
    enum { THREADS = 4 };
    loci_arena_t *ar = create("threads", 32 << 20);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, thread_churn, ar);
    for (int i = 0; i < THREADS; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        assert_null(rc);
    }
    loci_stats_t st;
    assert_int_equal(loci_arena_stats(ar, &st), 0);
    assert_int_equal(st.bytes_in_use, 0);
    loci_arena_destroy(ar);
}

static int setup(void **state)
{
    if (scratch_setup(state) != 0)
        return -1;
    setenv("LOCI_SHM_DIR", scratch_dir, 1);
    return loci_init();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_attach_same_address),
        cmocka_unit_test(names_and_sizes),
        cmocka_unit_test(full_arena),
        cmocka_unit_test(permissions),
        cmocka_unit_test(attach_where_the_range_is_taken),
        cmocka_unit_test(two_processes_at_once),
        cmocka_unit_test(killed_holding_the_lock),
        cmocka_unit_test(killed_in_the_middle_of_a_change),
        cmocka_unit_test(threads_share_it_too),
    };
    return cmocka_run_group_tests(tests, setup, scratch_teardown);
}
