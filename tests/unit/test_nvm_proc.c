/*
 * Persistent regions across processes. Each child is this program run again
 * ("--child ROLE ..."), a fresh process, as a program using loci would be:
 *  - write, sync, kill -9, reopen: what was synced is there (mmap and paged);
 *  - two processes open a region read-only and shared: one copy of its pages
 *    (their smaps count every page as shared); a store to it faults;
 *  - a full file system (a small tmpfs mounted here): clear ENOSPC errors, and
 *    the regions made before, written and synced after, lose nothing; a
 *    copy-on-write of a chunk linked elsewhere is refused with ENOSPC at the
 *    next sync, the linked copy intact;
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
#include "support/scratch.h"
#include "support/child.h"
#include "pool/pool.h"
#include "paged/paged.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
        loci_range_evict(p + size / 16, size / 4); /* unsynced data reaches the store too */
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

    /* chunk 0 of pg linked elsewhere, as a checkpoint does: writing it needs a copy, space */
    region_chunks_t rc;
    char saved[600], path[600];
    CHECK(paged_chunks(pg, &rc) == 0, "chunks");
    snprintf(saved, sizeof saved, "%s/saved0", a[0]);
    CHECK(linkat(rc.dirfd, "c0000000000000000", AT_FDCWD, saved, 0) == 0, "link: %s", strerror(errno));
    close(rc.dirfd);

    snprintf(path, sizeof path, "%s/filler", a[0]); /* fill the file system up */
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    static char junk[65536];
    memset(junk, 0xAB, sizeof junk);
    while (write(fd, junk, sizeof junk) > 0)
        ;
    CHECK(errno == ENOSPC, "filler: %s", strerror(errno));
    close(fd);

    /* what was reserved, or has its chunk files, can still be written and synced */
    fill(keep, 0, 3 * MB, 8);
    fill(pg, 64 * 1024, 2 * MB, 8);
    CHECK(loci_persist_sync(keep) == 0, "sync keep when full");
    CHECK(loci_persist_sync(pg) == 0, "sync pg when full");
    CHECK(!loci_persist_open("late", MB, NULL, LOCI_CREATE) && errno == ENOSPC, "late: errno %d", errno);
    /* a copy-on-write finds no space: said by the next sync, naming the chunk; nothing else changes */
    fill(pg, 0, 64 * 1024, 8);
    CHECK(loci_persist_sync(pg) == LOCI_ENOSPC, "sync pg, chunk 0 shared");
    CHECK(strstr(loci_last_error(), "c0000000000000000") && strstr(loci_last_error(), "No space"), "message: %s",
          loci_last_error());
    int sfd = open(saved, O_RDONLY);
    uint64_t *copy = malloc(64 * 1024);
    CHECK(sfd >= 0 && pread(sfd, copy, 64 * 1024, 0) == 64 * 1024, "read the linked copy");
    close(sfd);
    CHECK(first_bad(copy, 0, 64 * 1024, 7) == SIZE_MAX, "the linked copy changed");
    free(copy);
    /* the refused pages stayed dirty in DRAM: with room, the next sync writes them, unasked */
    CHECK(unlink(path) == 0 && unlink(saved) == 0, "make room");
    CHECK(loci_persist_sync(pg) == 0, "sync pg with room: %s", loci_last_error());
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
    CHECK(loci_range_evict(q, 4 * MB) == 0, "evict");
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

/* blocks: allocate one mode=mmap block on ssd0 (its directory is a[0]) and
 * report its file's name; then wait to be killed. */
static int child_blocks(char **a)
{
    loci_allocator_t *al = loci_allocator_create("kind=ssd!");
    char *p = al ? loci_alloc(al, MB) : NULL;
    CHECK(p, "alloc: %s", loci_last_error());
    p[0] = 1;
    char name[64];
    snprintf(name, sizeof name, "loci-%ld-", (long)getpid());
    DIR *d = opendir(a[0]);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, name, strlen(name)) == 0)
            printf("%s\n", e->d_name);
    if (d)
        closedir(d);
    fflush(stdout);
    pause();
    return 0;
}

static const child_role_t roles[] = {
    {"crash", 3, child_crash},
    {"reader", 1, child_reader},
    {"store", 1, child_store},
    {"diskfull", 1, child_diskfull},
    {"noperm", 0, child_noperm},
    {"unwritable", 1, child_unwritable},
    {"blocks", 1, child_blocks},
    {NULL, 0, NULL},
};

/* ---- the parent ---------------------------------------------------------------- */

static void expect_byte(child_t *k, char c)
{
    char got = 0;
    if (read(k->out, &got, 1) != 1 || got != c)
        fail_msg("child %d did not answer '%c' (status %d)", (int)k->pid, c, child_reap(k));
}

static void synced_data_survives_kill_9(void **state)
{
    const char *intents[] = {"persist", PAGED};
    for (int k = 0; k < 2; k++) {
        const char *name = unique_name(k ? "crash-paged" : "crash");
        size_t size = 8 * MB; /* 8x the paged cache: evictions before and after the sync */
        char sz[32];
        snprintf(sz, sizeof sz, "%zu", size);
        child_t kid = child_spawn((const char *[]){"crash", intents[k], name, sz, NULL}, NULL, -1);
        expect_byte(&kid, 'S');
        usleep(100 * 1000); /* let it write unsynced data for a while */
        kill(kid.pid, SIGKILL);
        assert_int_equal(child_reap(&kid), 128 + SIGKILL);

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
    const char *name = unique_name("shared-b");
    size_t size = 4 * MB;
    uint64_t *b = loci_persist_open(name, size, NULL, LOCI_CREATE);
    assert_non_null(b);
    fill(b, 0, size, 5);
    assert_int_equal(loci_persist_close(b), 0);

    child_t r1 = child_spawn((const char *[]){"reader", name, NULL}, NULL, -1);
    child_t r2 = child_spawn((const char *[]){"reader", name, NULL}, NULL, -1);
    expect_byte(&r1, 'R');
    expect_byte(&r2, 'R');
    size_t kb1 = shared_clean_kb(r1.pid, name), kb2 = shared_clean_kb(r2.pid, name);
    print_message("  two readers: %zu and %zu KiB of the region's pages shared\n", kb1, kb2);
    assert_int_equal(kb1, size / 1024); /* every page mapped by both: one copy */
    assert_int_equal(kb2, size / 1024);
    assert_int_equal(write(r1.in, "x", 1), 1);
    assert_int_equal(write(r2.in, "x", 1), 1);
    assert_int_equal(child_reap(&r1), 0);
    assert_int_equal(child_reap(&r2), 0);

    child_t s = child_spawn((const char *[]){"store", name, NULL}, NULL, -1);
    assert_int_equal(child_reap(&s), 77);
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
    child_t k = child_spawn((const char *[]){"diskfull", dir, NULL}, dir, -1);
    int st = child_reap(&k);
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
    child_t k = child_spawn((const char *[]){"noperm", NULL}, dir, 65534);
    int st = child_reap(&k);
    if (st == 0) {
        k = child_spawn((const char *[]){"unwritable", dir, NULL}, dir, 65534);
        st = child_reap(&k);
    }
    assert_int_equal(remove_tree(dir), 0);
    if (st == 98)
        fail_msg("the unprivileged child could not run %s (permissions of its directories?)", "/proc/self/exe");
    assert_int_equal(st, 0);
}

/* A process killed with mode=mmap blocks on a tier leaves their files; the
 * next process to create a block there removes them, and nothing else. */
static void files_of_killed_processes_are_removed(void **state)
{
    char dir[] = "/var/tmp/loci-test-leftover-XXXXXX";
    assert_non_null(mkdtemp(dir));
    child_t k = child_spawn((const char *[]){"blocks", dir, NULL}, dir, -1);
    char name[256] = "", path[600], other[600];
    FILE *out = fdopen(dup(k.out), "r");
    assert_non_null(fgets(name, sizeof name, out));
    fclose(out);
    name[strcspn(name, "\n")] = 0;
    kill(k.pid, SIGKILL);
    assert_int_equal(child_reap(&k), 128 + SIGKILL);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(access(path, F_OK), 0); /* the crash left it */
    snprintf(other, sizeof other, "%s/loci-%ld-notes.txt", dir, (long)k.pid); /* not a block's name */
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fclose(f);

    k = child_spawn((const char *[]){"blocks", dir, NULL}, dir, -1);
    char again[256];
    out = fdopen(dup(k.out), "r");
    assert_non_null(fgets(again, sizeof again, out));
    fclose(out);
    kill(k.pid, SIGKILL);
    child_reap(&k);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(access(other, F_OK), 0);
    assert_int_equal(remove_tree(dir), 0);
}

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(synced_data_survives_kill_9),
        cmocka_unit_test(readonly_shared_by_two_processes),
        cmocka_unit_test(full_file_system),
        cmocka_unit_test(without_userfaultfd_permission),
        cmocka_unit_test(files_of_killed_processes_are_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
