/*
 * Seeing tiering from outside (docs/TIERING.md "Seeing it"): the table a
 * tiering process publishes each interval in /dev/shm/loci-tier-UID-PID
 * (0600, removed at loci_fini and exit, a forked child's its own) and what
 * `loci tier PID` reads of it: every auto arena with its site, target and
 * size, whole copies while the writer keeps writing, and refusals that read
 * nothing — a process that is gone, one without loci, another user's, a
 * file loci did not make, a FIFO another user planted at the name (it hung
 * the reader; as root and as nobody), a table whose text runs past its
 * field (read past the record). Simulated KNL (hbm0 first for
 * bandwidth=high).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/child.h"
#include "support/planted.h"
#include "support/scratch.h"
#include "tiering/tiering.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#define MiB (1ull << 20)

static const char *const config = "[tiering]\ninterval = 20ms\n[target hbm0]\nnuma_node = 1\ntiering_budget = 8MiB\n";

static void table_path(pid_t pid, char *buf, size_t len)
{
    snprintf(buf, len, "%s/loci-tier-%u-%ld", TIERING_TABLE_DIR, (unsigned)geteuid(), (long)pid);
}

/* pid's table once it has `arenas` entries (2 s at most). */
static int wait_table(pid_t pid, uint64_t arenas, tiering_table_t *t)
{
    int rc = LOCI_ENOENT;
    for (int i = 0; i < 200; i++) {
        rc = tiering_table_read(pid, t);
        if (rc == 0 && t->header.nentries == arenas)
            return 0;
        if (rc == 0)
            tiering_table_free(t);
        usleep(10000);
    }
    return rc == 0 ? LOCI_EBUSY : rc;
}

/* Until process pid is uid's (it became it after fork): 20 s at most. */
static void wait_owner(pid_t pid, uid_t uid)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/%ld", (long)pid);
    struct stat st;
    for (int i = 0; i < 2000 && (stat(proc, &st) != 0 || st.st_uid != uid); i++)
        usleep(10000);
    assert_int_equal(stat(proc, &st), 0);
    assert_int_equal(st.st_uid, uid);
}

/* Until process pid runs `program` (its exec done after fork): 20 s at most. */
static void wait_exec(pid_t pid, const char *program)
{
    char proc[64], exe[PATH_MAX], real[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/%ld/exe", (long)pid);
    assert_non_null(realpath(program, real));
    for (int i = 0; i < 2000; i++) {
        ssize_t n = readlink(proc, exe, sizeof exe - 1);
        if (n > 0 && (exe[n] = '\0', strcmp(exe, real) == 0))
            return;
        usleep(10000);
    }
    fail_msg("process %ld never ran %s", (long)pid, program);
}

static void expect_refused(pid_t pid, int code, const char *words)
{
    tiering_table_t t;
    assert_int_equal(tiering_table_read(pid, &t), code);
    if (!strstr(loci_last_error(), words))
        fail_msg("process %ld: \"%s\" lacks \"%s\"", (long)pid, loci_last_error(), words);
    assert_null(t.entries);
}

static void the_table_shows_every_auto_arena(void **state)
{
    use_topology("knl-flat.xml", config);
    loci_arena_t *ar[3];
    for (int i = 0; i < 3; i++) {
        ar[i] = loci_arena_create("bandwidth=high,tier=auto", 0);
        assert_non_null(loci_arena_alloc(ar[i], 4 * MiB - 4096));
    }
    tiering_table_t t;
    int rc = wait_table(getpid(), 3, &t);
    if (rc != 0)
        fail_msg("no table with 3 arenas: %s", loci_last_error());
    char path[128];
    table_path(getpid(), path, sizeof path);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(t.header.pid, getpid());
    assert_true(t.header.interval_ms == 20 && t.header.intervals >= 1);
    int on_hbm = 0;
    char *exe = tiering_executable_path();
    for (uint64_t i = 0; i < t.header.nentries; i++) {
        const tiering_table_entry_t *e = &t.entries[i];
        assert_string_equal(e->intent, "bandwidth=high,tier=auto");
        assert_true(e->bytes >= 4 * MiB - 4096);
        on_hbm += strcmp(e->target, "hbm0") == 0;
        assert_true(strncmp(e->site, strrchr(exe, '/') + 1, strlen(strrchr(exe, '/') + 1)) == 0); /* its name */
        assert_true(e->ordinal < 3);
    }
    assert_int_equal(on_hbm, 2); /* its budget: two of three */
    free(exe);
    tiering_table_free(&t);

    loci_fini(); /* gone with tiering */
    assert_int_equal(lstat(path, &st), -1);
    expect_refused(getpid(), LOCI_ENOENT, "does not use loci");
}

/* Arenas come and go while a reader copies: every copy it gets is whole. */
static atomic_int stop;
static _Atomic int whole, torn;
static void *reader(void *arg)
{
    while (!atomic_load(&stop)) {
        tiering_table_t t;
        if (tiering_table_read(getpid(), &t) != 0)
            continue;
        bool ok = true;
        for (uint64_t i = 0; i < t.header.nentries; i++)
            ok &= strcmp(t.entries[i].intent, "bandwidth=high,tier=auto") == 0 && t.entries[i].ordinal < 9;
        tiering_table_free(&t);
        ok ? whole++ : torn++;
    }
    return NULL;
}

static void readers_never_see_half_an_update(void **state)
{
    use_topology("knl-flat.xml", "[tiering]\ninterval = 10ms\n");
    loci_arena_t *keep = loci_arena_create("bandwidth=high,tier=auto", 0);
    tiering_table_t t;
    assert_int_equal(wait_table(getpid(), 1, &t), 0);
    tiering_table_free(&t);
    pthread_t th;
    atomic_store(&stop, 0);
    whole = torn = 0;
    pthread_create(&th, NULL, reader, NULL);
    /* the table grows and shrinks, published here too, not only each 10 ms; until 50 copies were read */
    for (int i = 0; i < 20000 && whole < 50; i++) {
        loci_arena_t *more[8];
        for (int k = 0; k < 8; k++)
            more[k] = loci_arena_create("bandwidth=high,tier=auto", 0);
        tiering_publish(10, 0);
        for (int k = 0; k < 8; k++)
            loci_arena_destroy(more[k]);
        tiering_publish(10, 0);
    }
    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    assert_int_equal(torn, 0);
    if (whole < 50)
        fail_msg("only %d whole copies read", whole);
    loci_arena_destroy(keep);
}

static void a_forked_child_has_its_own(void **state)
{
    if (child_threads_unsupported_after_fork("a_forked_child_has_its_own"))
        skip();
    use_topology("knl-flat.xml", config);
    loci_arena_t *ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    tiering_table_t t;
    assert_int_equal(wait_table(getpid(), 1, &t), 0);
    tiering_table_free(&t);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        loci_arena_t *two = loci_arena_create("bandwidth=high,tier=auto", 0);
        tiering_table_t mine;
        char ok = two && wait_table(getpid(), 2, &mine) == 0 ? 'y' : 'n'; /* its own file, both arenas */
        assert_int_equal(write(pipefd[1], &ok, 1), 1);
        exit(0); /* removes its file, not the parent's */
    }
    close(pipefd[1]); /* a child that dies before answering: EOF, not a wait forever */
    char ok = 0;
    assert_int_equal(read(pipefd[0], &ok, 1), 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(ok, 'y');
    char path[128];
    struct stat st;
    table_path(pid, path, sizeof path);
    assert_int_equal(lstat(path, &st), -1);
    table_path(getpid(), path, sizeof path);
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(wait_table(getpid(), 1, &t), 0);
    tiering_table_free(&t);
    close(pipefd[0]);
    loci_arena_destroy(ar);
}

static void refusals_read_nothing(void **state)
{
    use_topology("knl-flat.xml", config);
    /* gone */
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    expect_refused(pid, LOCI_ENOENT, "no process");
    /* a process without loci */
    pid = fork();
    if (pid == 0) {
        execl("/bin/sleep", "sleep", "10", (char *)NULL);
        _exit(1);
    }
    wait_exec(pid, "/bin/sleep"); /* before its exec it is a copy of this process, which maps libloci */
    expect_refused(pid, LOCI_ENOENT, "does not use loci");
    /* another user's */
    pid_t other = 1;
    if (geteuid() == 0) { /* as root, init is ours: a process of nobody's */
        const char *args[] = {"sleep", NULL};
        child_t k = child_spawn(args, NULL, 65534);
        wait_owner(k.pid, 65534); /* a fixed 200 ms was not always enough on a loaded machine */
        expect_refused(k.pid, LOCI_EPERM, "not yours");
        kill(k.pid, SIGKILL);
        child_reap(&k);
    } else {
        expect_refused(other, LOCI_EPERM, "not yours");
    }
    /* a file loci did not make, in the place of a live process's table */
    char path[128];
    table_path(pid, path, sizeof path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not a table", f);
    fclose(f);
    chmod(path, 0644);
    expect_refused(pid, LOCI_EPERM, "is readable by others (mode 0644); loci trusts it only at mode 0600 or less");
    unlink(path);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    expect_refused(pid, LOCI_EPERM, "nothing read");
    unlink(path);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* A FIFO planted by `planter` where the table of `victim`'s process goes:
 * `victim` reading it is refused at once, and the FIFO stays. */
static void fifo_refused(int planter, int victim)
{
    const char *sleep_args[] = {"sleep", NULL};
    child_t sleeper = child_spawn(sleep_args, NULL, victim); /* the victim's own process */
    wait_owner(sleeper.pid, (uid_t)victim);
    char path[128], pid[16], out[4096];
    snprintf(path, sizeof path, "%s/loci-tier-%d-%ld", TIERING_TABLE_DIR, victim, (long)sleeper.pid);
    snprintf(pid, sizeof pid, "%ld", (long)sleeper.pid);
    assert_int_equal(plant(path, 'p', planter), 0);
    const char *read_args[] = {"read", pid, NULL};
    child_t reader = child_spawn(read_args, NULL, victim);
    int status = child_wait_for(&reader, 60, out, sizeof out);
    kill(sleeper.pid, SIGKILL);
    child_reap(&sleeper);
    assert_untouched(path, 'p', planter);
    unlink(path);
    if (status != 0)
        fail_msg("a FIFO of uid %d read by uid %d: %s: %s", planter, victim,
                 status < 0 ? "hung (killed after 60 s)" : "failed", out);
    if (!strstr(out, "is a FIFO, not a regular file of yours: loci leaves it alone; nothing read"))
        fail_msg("a FIFO of uid %d read by uid %d: %s", planter, victim, out);
}

static void a_planted_fifo_hangs_no_reader(void **state)
{
    if (!planted_users_available("a_planted_fifo_hangs_no_reader"))
        skip();
    fifo_refused(NOBODY, 0);
    fifo_refused(0, NOBODY);
}

/* The table a process of ours published, with one text filled to the end
 * of its field and the checksum made again: refused, never printed past
 * the record. */
static void texts_must_end_inside_their_fields(void **state)
{
    use_topology("knl-flat.xml", config);
    loci_arena_t *ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    tiering_table_t t;
    assert_int_equal(wait_table(getpid(), 1, &t), 0);
    tiering_table_free(&t);
    char mine[128], path[128];
    table_path(getpid(), mine, sizeof mine);
    static char table[1 << 16];
    FILE *f = fopen(mine, "r");
    assert_non_null(f);
    size_t n = fread(table, 1, sizeof table, f);
    fclose(f);
    tiering_table_header_t *h = (tiering_table_header_t *)table;
    tiering_table_entry_t *e = (tiering_table_entry_t *)(h + 1);
    assert_true(n >= sizeof *h + sizeof *e && h->nentries == 1 && !(h->generation & 1));
    pid_t other = fork();
    if (other == 0) {
        pause();
        _exit(0);
    }
    const size_t from = offsetof(tiering_table_header_t, pid); /* what the checksum covers, as publish.c sums it */
    for (int field = 0; field < 2; field++) {
        tiering_table_header_t keep = *h;
        tiering_table_entry_t keep_e = *e;
        h->pid = other;
        if (field == 0)
            memset(e->intent, 'A', sizeof e->intent);
        else
            memset(h->source, 'S', sizeof h->source);
        h->checksum = XXH3_64bits_withSeed(e, sizeof *e, XXH3_64bits((const char *)h + from, sizeof *h - from));
        table_path(other, path, sizeof path);
        f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(fwrite(table, 1, n, f), n);
        fclose(f);
        assert_int_equal(chmod(path, 0600), 0);
        expect_refused(other, LOCI_EINVAL, "a text that does not end inside its record");
        unlink(path);
        *h = keep;
        *e = keep_e;
    }
    kill(other, SIGKILL);
    waitpid(other, NULL, 0);
    loci_arena_destroy(ar);
}

static int child_sleep(char **a)
{
    sleep(10);
    return 0;
}

/* tiering_table_read(PID): what it says. */
static int child_read(char **a)
{
    tiering_table_t t;
    int rc = tiering_table_read((pid_t)atol(a[0]), &t);
    printf("%d %s\n", rc, rc ? loci_last_error() : "read");
    if (rc == 0)
        tiering_table_free(&t);
    return 0;
}

static const child_role_t roles[] = {{"sleep", 0, child_sleep}, {"read", 1, child_read}, {NULL, 0, NULL}};

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_table_shows_every_auto_arena),
        cmocka_unit_test(readers_never_see_half_an_update),
        cmocka_unit_test(a_forked_child_has_its_own),
        cmocka_unit_test(refusals_read_nothing),
        cmocka_unit_test(a_planted_fifo_hangs_no_reader),
        cmocka_unit_test(texts_must_end_inside_their_fields),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
