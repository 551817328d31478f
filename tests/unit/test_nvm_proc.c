/*
 * Persistent regions across processes. Each child is this program run again
 * ("--child ROLE ..."), a fresh process, as a program using loci would be:
 *  - write, sync, kill -9, reopen: what was synced is there (mmap and paged);
 *  - two processes open a region read-only and shared: one copy of its pages
 *    (their smaps count every page as shared); a store to it faults;
 *  - a full file system (a small tmpfs mounted here): clear ENOSPC errors, and
 *    the regions made before, written and synced after, lose nothing;
 *  - a process without userfaultfd permission: mode=paged falls back to mmap
 *    with a message naming what to allow; mode=paged! still pages, with the
 *    user-mode-only descriptor the kernel leaves to such a process; and a
 *    tier directory it may not write is refused saying so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "pool/pool.h"
#include "provider/paged.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB ((size_t)1 << 20)
#define PAGED "persist,mode=paged,cache=1MiB,chunk=64KiB"

extern char **environ;

static uint64_t word(size_t i, int gen) { return (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)gen; }

static void fill(uint64_t *p, size_t from, size_t to, int gen)
{
    for (size_t i = from / 8; i < to / 8; i++)
        p[i] = word(i, gen);
}

/* Index of the first word of [from, to) that is not gen's, or SIZE_MAX. */
static size_t first_bad(const uint64_t *p, size_t from, size_t to, int gen)
{
    for (size_t i = from / 8; i < to / 8; i++)
        if (p[i] != word(i, gen))
            return i;
    return SIZE_MAX;
}

/* ---- the children ------------------------------------------------------------ */

#define CHECK(cond, ...)                                                                                  \
    do {                                                                                                  \
        if (!(cond)) {                                                                                    \
            fprintf(stderr, "child line %d: %s: ", __LINE__, #cond);                                      \
            fprintf(stderr, __VA_ARGS__);                                                                 \
            fprintf(stderr, " (last error: %s)\n", loci_last_error());                                    \
            return 1;                                                                                     \
        }                                                                                                 \
    } while (0)

/* crash INTENT NAME SIZE: sync the first half, say so, then write the second
 * half (pushing it out) until killed. */
static int child_crash(char **a)
{
    size_t size = strtoull(a[2], NULL, 10);
    uint64_t *p = loci_persist_open(a[1], size, a[0], LOCI_CREATE);
    CHECK(p, "open");
    fill(p, 0, size / 2, 1);
    CHECK(loci_persist_sync(p) == 0, "sync");
    CHECK(write(1, "S", 1) == 1, "tell");
    for (int gen = 2;; gen++) {
        fill(p, size / 2, size, gen);
        loci_nvm_evict(p + size / 16, size / 4); /* unsynced data reaches the store too */
    }
}

/* reader NAME: map it read-only and shared, read it all, say so, wait. */
static int child_reader(char **a)
{
    uint64_t *p = loci_persist_open(a[0], 0, NULL, LOCI_READONLY | LOCI_SHARED);
    CHECK(p, "open");
    size_t size = loci_persist_size(p);
    CHECK(first_bad(p, 0, size, 5) == SIZE_MAX, "contents");
    CHECK(write(1, "R", 1) == 1, "tell");
    char c;
    CHECK(read(0, &c, 1) == 1, "wait");
    return 0;
}

static void on_segv(int sig) { _exit(77); }

/* store NAME: a store to a read-only region must fault (SIGSEGV: exit 77,
 * through our handler so that sanitizers do not count it as a crash). */
static int child_store(char **a)
{
    volatile char *p = loci_persist_open(a[0], 0, NULL, LOCI_READONLY);
    CHECK(p, "open");
    struct sigaction sa = {.sa_handler = on_segv};
    sigaction(SIGSEGV, &sa, NULL);
    p[100] = 1;
    return 2;
}

/* diskfull: ssd0 is an 8 MiB tmpfs. */
static int child_diskfull(char **a)
{
    uint64_t *keep = loci_persist_open("keep", 3 * MB, NULL, LOCI_CREATE);
    CHECK(keep, "keep");
    fill(keep, 0, 3 * MB, 7);
    CHECK(loci_persist_sync(keep) == 0, "sync keep");
    errno = 0;
    CHECK(!loci_persist_open("big", 6 * MB, NULL, LOCI_CREATE) && errno == ENOSPC, "big: errno %d", errno);
    CHECK(strstr(loci_last_error(), "no space for 6.0 MiB"), "message: %s", loci_last_error());
    loci_allocator_t *al = loci_allocator_create("kind=ssd!,mode=paged,cache=1MiB,chunk=64KiB,fallback=null");
    CHECK(al, "allocator");
    CHECK(!loci_alloc(al, 6 * MB) && errno == ENOSPC, "paged block: errno %d", errno);
    uint64_t *pg = loci_persist_open("pg", 2 * MB, PAGED, LOCI_CREATE);
    CHECK(pg, "pg");
    fill(pg, 0, 2 * MB, 7);
    CHECK(loci_persist_sync(pg) == 0, "sync pg");

    char path[600];
    snprintf(path, sizeof path, "%s/filler", a[0]); /* fill the file system up */
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    static char junk[65536];
    memset(junk, 0xAB, sizeof junk);
    while (write(fd, junk, sizeof junk) > 0)
        ;
    CHECK(errno == ENOSPC, "filler: %s", strerror(errno));
    close(fd);

    /* what was reserved can still be written and synced */
    fill(keep, 0, 3 * MB, 8);
    fill(pg, 0, 2 * MB, 8);
    CHECK(loci_persist_sync(keep) == 0, "sync keep when full");
    CHECK(loci_persist_sync(pg) == 0, "sync pg when full");
    CHECK(!loci_persist_open("late", MB, NULL, LOCI_CREATE) && errno == ENOSPC, "late: errno %d", errno);
    CHECK(loci_persist_close(keep) == 0 && loci_persist_close(pg) == 0, "close");
    keep = loci_persist_open("keep", 0, NULL, LOCI_READONLY);
    pg = loci_persist_open("pg", 0, PAGED, 0);
    CHECK(keep && pg, "reopen");
    CHECK(first_bad(keep, 0, 3 * MB, 8) == SIZE_MAX, "keep after reopen");
    CHECK(first_bad(pg, 0, 2 * MB, 8) == SIZE_MAX, "pg after reopen");
    return 0;
}

/* noperm: run as an unprivileged user (vm.unprivileged_userfaultfd = 0). */
static int child_noperm(char **a)
{
    const char *why;
    CHECK(paged_check_access(&why) == LOCI_EPERM, "access");
    CHECK(strstr(why, "vm.unprivileged_userfaultfd") && strstr(why, "CAP_SYS_PTRACE") && strstr(why, "/dev/userfaultfd"),
          "message: %s", why);
    loci_allocator_t *soft = loci_allocator_create("kind=ssd!,mode=paged");
    char *p = soft ? loci_alloc(soft, 4 * MB) : NULL;
    CHECK(p, "soft");
    CHECK(pool_heap_ops(pool_heap_of(p)) == &provider_file, "soft: %s", pool_heap_ops(pool_heap_of(p))->name);
    loci_allocator_t *hard = loci_allocator_create("kind=ssd!,mode=paged!,cache=1MiB,chunk=64KiB,fallback=null");
    char *q = hard ? loci_alloc(hard, 4 * MB) : NULL;
    if (!q) { /* a kernel without user-mode-only userfaultfd: the reason at least */
        CHECK(strstr(loci_last_error(), "vm.unprivileged_userfaultfd"), "hard: %s", loci_last_error());
        return 0;
    }
    CHECK(pool_heap_ops(pool_heap_of(q)) == &provider_paged, "hard");
    memset(q, 9, 4 * MB);
    CHECK(loci_nvm_evict(q, 4 * MB) == 0, "evict");
    CHECK(q[3 * MB] == 9, "data");
    return 0;
}

/* unwritable: a tier directory of ours we may not write (only a user other
 * than root can meet this). */
static int child_unwritable(char **a)
{
    CHECK(chmod(a[0], 0500) == 0, "chmod");
    errno = 0;
    CHECK(!loci_persist_open("nope", MB, NULL, LOCI_CREATE) && errno == EPERM, "errno %d", errno);
    CHECK(strstr(loci_last_error(), "make the directory writable"), "message: %s", loci_last_error());
    loci_allocator_t *al = loci_allocator_create("kind=ssd!,fallback=null");
    CHECK(al && !loci_alloc(al, 4 * MB), "alloc");
    CHECK(strstr(loci_last_error(), "Permission denied"), "message: %s", loci_last_error());
    return chmod(a[0], 0700);
}

static int child(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[0], "crash") == 0)
        return child_crash(argv + 1);
    if (argc >= 2 && strcmp(argv[0], "reader") == 0)
        return child_reader(argv + 1);
    if (argc >= 2 && strcmp(argv[0], "store") == 0)
        return child_store(argv + 1);
    if (argc >= 2 && strcmp(argv[0], "diskfull") == 0)
        return child_diskfull(argv + 1);
    if (argc >= 1 && strcmp(argv[0], "noperm") == 0)
        return child_noperm(argv + 1);
    if (argc >= 2 && strcmp(argv[0], "unwritable") == 0)
        return child_unwritable(argv + 1);
    fprintf(stderr, "unknown child role\n");
    return 1;
}

/* ---- the parent ---------------------------------------------------------------- */

typedef struct {
    pid_t pid;
    int in, out; /* the child's stdin (write end), stdout (read end) */
} kid_t;

/* This program again with args, its stdin and stdout piped to us; store_dir:
 * its LOCI_STORE_DIR (NULL: ours); uid >= 0: run as that user. */
static kid_t spawn(const char *const *args, const char *store_dir, int uid)
{
    char *argv[12] = {"test_nvm_proc", "--child"};
    int n = 2;
    for (; args[n - 2]; n++)
        argv[n] = (char *)args[n - 2];
    argv[n] = NULL;
    char *envp[256], store[600];
    int e = 0;
    for (char **v = environ; *v && e < 250; v++)
        if (!store_dir || strncmp(*v, "LOCI_STORE_DIR=", 15) != 0)
            envp[e++] = *v;
    if (store_dir) {
        snprintf(store, sizeof store, "LOCI_STORE_DIR=%s", store_dir);
        envp[e++] = store;
    }
    envp[e] = NULL;
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0))
            _exit(97);
        execve("/proc/self/exe", argv, envp);
        _exit(98);
    }
    close(to[0]);
    close(from[1]);
    return (kid_t){pid, to[1], from[0]};
}

/* The child's exit status (or 128 + its signal). */
static int reap(kid_t *k)
{
    int st;
    close(k->in);
    close(k->out);
    assert_int_equal(waitpid(k->pid, &st, 0), k->pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void expect_byte(kid_t *k, char c)
{
    char got = 0;
    if (read(k->out, &got, 1) != 1 || got != c)
        fail_msg("child %d did not answer '%c' (status %d)", (int)k->pid, c, reap(k));
}

static const char *nm(const char *base)
{
    static char buf[2][64];
    static int next;
    char *b = buf[next++ % 2];
    snprintf(b, 64, "%s-%ld", base, (long)getpid());
    return b;
}

static void synced_data_survives_kill_9(void **state)
{
    const char *intents[] = {"persist", PAGED};
    for (int k = 0; k < 2; k++) {
        const char *name = nm(k ? "crash-paged" : "crash");
        size_t size = 8 * MB; /* 8x the paged cache: evictions before and after the sync */
        char sz[32];
        snprintf(sz, sizeof sz, "%zu", size);
        kid_t kid = spawn((const char *[]){"crash", intents[k], name, sz, NULL}, NULL, -1);
        expect_byte(&kid, 'S');
        usleep(100 * 1000); /* let it write unsynced data for a while */
        kill(kid.pid, SIGKILL);
        assert_int_equal(reap(&kid), 128 + SIGKILL);

        uint64_t *p = loci_persist_open(name, size, intents[k], 0);
        if (!p)
            fail_msg("%s: %s", intents[k], loci_last_error());
        size_t bad = first_bad(p, 0, size / 2, 1);
        if (bad != SIZE_MAX)
            fail_msg("%s: synced word %zu lost: %#llx", intents[k], bad, (unsigned long long)p[bad]);
        for (size_t i = size / 16; i < size / 8; i++) /* unsynced: old or new, never garbage */
            if (p[i] != 0 && (p[i] - (uint64_t)i * 0x9E3779B97F4A7C15ull) > 1000000)
                fail_msg("%s: unsynced word %zu is garbage: %#llx", intents[k], i, (unsigned long long)p[i]);
        assert_int_equal(loci_persist_close(p), 0);
        assert_int_equal(loci_persist_remove(name, intents[k]), 0);
    }
}

/* Shared_Clean kB of the mappings of `name` in process pid. */
static size_t shared_clean_kb(pid_t pid, const char *name)
{
    char path[64], line[700];
    snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    bool in = false;
    size_t kb = 0, v;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && strchr(line, ' '))
            in = strstr(line, name) != NULL;
        else if (in && sscanf(line, "Shared_Clean: %zu kB", &v) == 1)
            kb += v;
    }
    fclose(f);
    return kb;
}

static void readonly_shared_by_two_processes(void **state)
{
    const char *name = nm("shared-b");
    size_t size = 4 * MB;
    uint64_t *b = loci_persist_open(name, size, NULL, LOCI_CREATE);
    assert_non_null(b);
    fill(b, 0, size, 5);
    assert_int_equal(loci_persist_close(b), 0);

    kid_t r1 = spawn((const char *[]){"reader", name, NULL}, NULL, -1);
    kid_t r2 = spawn((const char *[]){"reader", name, NULL}, NULL, -1);
    expect_byte(&r1, 'R');
    expect_byte(&r2, 'R');
    size_t kb1 = shared_clean_kb(r1.pid, name), kb2 = shared_clean_kb(r2.pid, name);
    print_message("  two readers: %zu and %zu KiB of the region's pages shared\n", kb1, kb2);
    assert_int_equal(kb1, size / 1024); /* every page mapped by both: one copy */
    assert_int_equal(kb2, size / 1024);
    assert_int_equal(write(r1.in, "x", 1), 1);
    assert_int_equal(write(r2.in, "x", 1), 1);
    assert_int_equal(reap(&r1), 0);
    assert_int_equal(reap(&r2), 0);

    kid_t s = spawn((const char *[]){"store", name, NULL}, NULL, -1);
    assert_int_equal(reap(&s), 77);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
}

static void full_file_system(void **state)
{
    char dir[] = "/var/tmp/loci-test-full-XXXXXX";
    assert_non_null(mkdtemp(dir));
    if (mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=0700") != 0) {
        print_message("  skipped: cannot mount a small tmpfs at %s (%s); needs CAP_SYS_ADMIN\n", dir, strerror(errno));
        rmdir(dir);
        skip();
    }
    kid_t k = spawn((const char *[]){"diskfull", dir, NULL}, dir, -1);
    int st = reap(&k);
    umount2(dir, MNT_DETACH);
    rmdir(dir);
    assert_int_equal(st, 0);
}

static void without_userfaultfd_permission(void **state)
{
    FILE *f = fopen("/proc/sys/vm/unprivileged_userfaultfd", "r");
    int allowed = f && fscanf(f, "%d", &allowed) == 1 ? allowed : -1;
    if (f)
        fclose(f);
    if (geteuid() != 0 || allowed != 0) {
        print_message("  skipped: needs root (to become an unprivileged user) and vm.unprivileged_userfaultfd=0 "
                      "(euid %u, sysctl %d)\n", (unsigned)geteuid(), allowed);
        skip();
    }
    char dir[] = "/var/tmp/loci-test-noperm-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chown(dir, 65534, 65534), 0);
    kid_t k = spawn((const char *[]){"noperm", NULL}, dir, 65534);
    int st = reap(&k);
    if (st == 0) {
        k = spawn((const char *[]){"unwritable", dir, NULL}, dir, 65534);
        st = reap(&k);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    if (st == 98)
        fail_msg("the unprivileged child could not run %s (permissions of its directories?)", "/proc/self/exe");
    assert_int_equal(st, 0);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--child") == 0)
        return child(argc - 2, argv + 2);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synced_data_survives_kill_9),
        cmocka_unit_test(readonly_shared_by_two_processes),
        cmocka_unit_test(full_file_system),
        cmocka_unit_test(without_userfaultfd_permission),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
