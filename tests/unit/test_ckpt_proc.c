/*
 * Checkpoints across processes. Each child is this program run again
 * ("--child ROLE ..."), a fresh process as a restarted program would be:
 *  - restart: one process saves DRAM variables and a paged region, a later
 *    one restores them bit for bit;
 *  - kill -9: a child saving in a loop (the data carries a generation
 *    number) is killed at random moments, 50 times; each time the last
 *    complete checkpoint verifies and restores to one whole generation, no
 *    older than the last one reported saved, and GC leaves exactly the
 *    referenced chunks;
 *  - full disk: in a private mount namespace with an 8 MiB tmpfs as ssd0,
 *    a save that runs out of space fails with LOCI_ENOSPC, leaves no chunk
 *    behind, and the previous checkpoint still verifies and restores.
 * The child roles "save" and "save-many" also make checkpoints for the CLI
 * test (tests/tools/check-ckpt.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ckpt_testlib.h"
#include "support/child.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define PAGED "persist,mode=paged,cache=1MiB,chunk=64KiB"
#define VAR_SIZE (2 * MB)
#define REGION_SIZE MB
#define KILLS 50

/* ---- the children ------------------------------------------------------------ */

/* A DRAM variable "data" and a paged region, both registered or open. */
typedef struct {
    char *var, *region;
} state_t;

static int attach(state_t *s, const char *region)
{
    s->var = malloc(VAR_SIZE);
    CHECK(s->var, "malloc");
    memset(s->var, 0, VAR_SIZE);
    CHECK(loci_ckpt_register("data", s->var, VAR_SIZE) == 0, "register");
    s->region = loci_persist_open(region, REGION_SIZE, PAGED, LOCI_CREATE);
    CHECK(s->region, "open region %s", region);
    return 0;
}

static void fill_all(state_t *s, uint64_t gen)
{
    fill(s->var, VAR_SIZE, gen);
    fill(s->region, REGION_SIZE, gen);
}

/* save NAME GEN REGION: generation GEN saved as NAME. */
static int child_save(char **a)
{
    state_t s;
    if (attach(&s, a[2]) != 0)
        return 1;
    fill_all(&s, strtoull(a[1], NULL, 10));
    CHECK(loci_ckpt_save(a[0]) == 0, "save");
    return 0;
}

/* save-many PREFIX COUNT REGION: generations 1..COUNT saved as PREFIX-1 ..
 * PREFIX-COUNT by one process (a process each costs a second apiece under
 * the sanitizers; the CLI test wants 70 of them). */
static int child_save_many(char **a)
{
    state_t s;
    if (attach(&s, a[2]) != 0)
        return 1;
    unsigned long count = strtoul(a[1], NULL, 10);
    for (unsigned long i = 1; i <= count; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s-%lu", a[0], i);
        fill_all(&s, i);
        CHECK(loci_ckpt_save(name) == 0, "save %s", name);
    }
    return 0;
}

/* restore NAME GEN REGION: NAME restores generation GEN. */
static int child_restore(char **a)
{
    state_t s;
    if (attach(&s, a[2]) != 0)
        return 1;
    fill_all(&s, 999);
    CHECK(loci_ckpt_restore(a[0]) == 0, "restore");
    uint64_t want = strtoull(a[1], NULL, 10), g1 = gen_of(s.var, VAR_SIZE), g2 = gen_of(s.region, REGION_SIZE);
    CHECK(g1 == want && g2 == want, "generations %llu and %llu, expected %llu", (unsigned long long)g1,
          (unsigned long long)g2, (unsigned long long)want);
    return 0;
}

/* saver FIRST: save "k" for generations FIRST, FIRST+1, ... forever, writing
 * each generation to stdout once its save returned. */
static int child_saver(char **a)
{
    state_t s;
    if (attach(&s, "killed") != 0)
        return 1;
    for (uint64_t gen = strtoull(a[0], NULL, 10);; gen++) {
        fill_all(&s, gen);
        CHECK(loci_ckpt_save("k") == 0, "save %llu", (unsigned long long)gen);
        CHECK(write(1, &gen, sizeof gen) == sizeof gen, "tell");
    }
}

/* diskfull DIR: ssd0 is DIR, where this child mounts an 8 MiB tmpfs in a
 * mount namespace of its own. Exit 77: cannot (not root). */
static int child_diskfull(char **a)
{
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", a[0], "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=0700") != 0) {
        fprintf(stderr, "cannot mount a private tmpfs at %s: %s\n", a[0], strerror(errno));
        return 77;
    }
    char *v = malloc(3 * MB);
    fill(v, 3 * MB, 1);
    CHECK(loci_ckpt_register("v", v, 3 * MB) == 0, "register");
    CHECK(loci_ckpt_save("before") == 0, "first save");

    char path[600];
    snprintf(path, sizeof path, "%s/filler", a[0]);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    static char junk[65536];
    memset(junk, 0xAB, sizeof junk);
    while (write(fd, junk, sizeof junk) > 0)
        ;
    CHECK(errno == ENOSPC, "filler: %s", strerror(errno));
    close(fd);

    fill(v, 3 * MB, 2);
    size_t temps, files = pool_files(&temps);
    int rc = loci_ckpt_save("after");
    CHECK(rc == LOCI_ENOSPC, "save on a full disk: %d", rc);
    CHECK(strstr(loci_last_error(), "\"after\" not saved") && strstr(loci_last_error(), "variable \"v\""),
          "message: %s", loci_last_error());
    fprintf(stderr, "  full disk: %s\n", loci_last_error());
    CHECK(pool_files(&temps) == files && temps == 0, "chunks left behind: %zu files (were %zu), %zu temps",
          pool_files(&temps), files, temps);
    CHECK(loci_ckpt_save("before") == LOCI_ENOSPC, "overwriting the old checkpoint on a full disk");
    CHECK(loci_ckpt_verify("before") == 0, "the old checkpoint verifies");
    CHECK(loci_ckpt_restore("before") == 0, "restore");
    CHECK(gen_of(v, 3 * MB) == 1, "restored generation %llu", (unsigned long long)gen_of(v, 3 * MB));
    CHECK(loci_ckpt_restore("after") == LOCI_ENOENT, "no checkpoint \"after\"");
    unlink(path);
    fill(v, 3 * MB, 2);
    CHECK(loci_ckpt_save("after") == 0, "with space again");
    return 0;
}

static const child_role_t roles[] = {
    {"save", 3, child_save},
    {"save-many", 3, child_save_many},
    {"restore", 3, child_restore},
    {"saver", 1, child_saver},
    {"diskfull", 1, child_diskfull},
    {NULL, 0, NULL},
};

/* ---- the parent ---------------------------------------------------------------- */

static void restored_after_restart(void **state)
{
    assert_int_equal(child_run((const char *[]){"save", "restart-1", "81", "restart", NULL}), 0);
    assert_int_equal(child_run((const char *[]){"save", "restart-2", "82", "restart", NULL}), 0);
    assert_int_equal(child_run((const char *[]){"restore", "restart-1", "81", "restart", NULL}), 0);
    assert_int_equal(child_run((const char *[]){"restore", "restart-2", "82", "restart", NULL}), 0);
    assert_int_equal(loci_ckpt_remove("restart-1"), 0);
    assert_int_equal(loci_ckpt_remove("restart-2"), 0);
    assert_int_equal(loci_persist_remove("restart", PAGED), 0);
}

/* Whether a save was cut short after it made files: a temporary manifest,
 * or a pool file changed after the manifest of "k" was renamed into place
 * (replaced checkpoints leave older, unreferenced files: those do not count). */
static bool interrupted_save_left_files(void)
{
    char path[4400];
    struct stat m, st;
    size_t temps;
    pool_files(&temps);
    snprintf(path, sizeof path, "%s/k.manifest", ckpt_dir());
    if (temps > 0 || stat(path, &m) != 0)
        return temps > 0;
    snprintf(path, sizeof path, "%s/chunks", ckpt_dir());
    DIR *d = opendir(path);
    bool newer = false;
    for (struct dirent *e; d && !newer && (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/chunks/%s", ckpt_dir(), e->d_name);
        newer = e->d_name[0] != '.' && stat(path, &st) == 0 &&
                (st.st_ctim.tv_sec > m.st_ctim.tv_sec ||
                 (st.st_ctim.tv_sec == m.st_ctim.tv_sec && st.st_ctim.tv_nsec > m.st_ctim.tv_nsec));
    }
    if (d)
        closedir(d);
    return newer;
}

/* The killed saver's last checkpoint, restored into this process: one whole
 * generation, the last reported or the one after (saved, not yet told). */
static uint64_t restore_killed(int kill_no, char *var, uint64_t reported)
{
    char *region = loci_persist_open("killed", REGION_SIZE, PAGED, 0);
    if (!region)
        fail_msg("kill %d: reopen: %s", kill_no, loci_last_error());
    if (loci_ckpt_verify("k") != 0 || loci_ckpt_restore("k") != 0)
        fail_msg("kill %d: %s", kill_no, loci_last_error());
    uint64_t g1 = gen_of(var, VAR_SIZE), g2 = gen_of(region, REGION_SIZE);
    if (g1 != g2 || (g1 != reported && g1 != reported + 1))
        fail_msg("kill %d: restored generations %llu (DRAM) and %llu (region); last reported %llu", kill_no,
                 (unsigned long long)g1, (unsigned long long)g2, (unsigned long long)reported);
    assert_int_equal(loci_persist_close(region), 0); /* the next saver opens it */
    return g1;
}

static void killed_saves_leave_the_last_checkpoint(void **state)
{
    unsigned seed = (unsigned)time(NULL);
    print_message("  seed %u\n", seed);
    srand(seed);
    char *var = malloc(VAR_SIZE);
    assert_non_null(var);
    assert_int_equal(loci_ckpt_register("data", var, VAR_SIZE), 0);
    uint64_t first = 1, got = 0;
    int torn = 0;    /* kills that came after a save had finished, before it was told */
    int garbage = 0; /* kills in the middle of a save: it left files for the GC */
    for (int kill_no = 0; kill_no < KILLS; kill_no++) {
        char from[32];
        snprintf(from, sizeof from, "%llu", (unsigned long long)first);
        child_t k = child_spawn((const char *[]){"saver", from, NULL}, NULL, -1);
        uint64_t gen = 0, reported;
        if (read(k.out, &gen, sizeof gen) != sizeof gen) /* one save done: now kill it mid-save */
            fail_msg("the saver died before its first save (status %d)", child_reap(&k));
        reported = gen;
        struct timespec delay = {0, (long)(rand() % 20000) * 1000}; /* 0 to 20 ms */
        nanosleep(&delay, NULL);
        kill(k.pid, SIGKILL);
        while (read(k.out, &gen, sizeof gen) == sizeof gen)
            reported = gen;
        assert_int_equal(child_reap(&k), 128 + SIGKILL);

        garbage += interrupted_save_left_files();
        got = restore_killed(kill_no, var, reported);
        torn += got == reported + 1;
        loci_ckpt_gc_t g;
        assert_int_equal(loci_ckpt_gc(&g), 0);
        size_t temps, files = pool_files(&temps);
        long refs = referenced_chunks();
        if ((long)files != refs || temps != 0)
            fail_msg("kill %d: after gc %zu pool files but %ld referenced, %zu temporary", kill_no, files, refs, temps);
        first = got + 1000; /* generations never repeat */
    }
    print_message("  %d kills: %d in the middle of a save (files left for the GC), %d after a save had finished "
                  "but before it was reported\n", KILLS, garbage, torn);
    assert_true(garbage > 0); /* else no kill landed inside a save: this test tested nothing */
    char want[32]; /* and a fresh process sees the same */
    snprintf(want, sizeof want, "%llu", (unsigned long long)got);
    assert_int_equal(child_run((const char *[]){"restore", "k", want, "killed", NULL}), 0);
    assert_int_equal(loci_ckpt_unregister("data"), 0);
    free(var);
    assert_int_equal(loci_ckpt_remove("k"), 0);
    assert_int_equal(loci_persist_remove("killed", PAGED), 0);
}

static void full_disk_fails_cleanly(void **state)
{
    if (geteuid() != 0) {
        print_message("  skipped: needs root to mount a small tmpfs in a private mount namespace (euid %u)\n",
                      (unsigned)geteuid());
        skip();
    }
    char dir[] = "/var/tmp/loci-ckpt-full-XXXXXX";
    assert_non_null(mkdtemp(dir));
    child_t k = child_spawn((const char *[]){"diskfull", dir, NULL}, dir, -1);
    int st = child_reap(&k);
    rmdir(dir);
    if (st == 77) {
        print_message("  skipped: the child could not mount a tmpfs in a mount namespace of its own (see above)\n");
        skip();
    }
    assert_int_equal(st, 0);
}

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restored_after_restart),
        cmocka_unit_test(killed_saves_leave_the_last_checkpoint),
        cmocka_unit_test(full_disk_fails_cleanly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
