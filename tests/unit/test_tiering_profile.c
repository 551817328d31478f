/*
 * Tiering profiles (LOCI_TIER_PROFILE, docs/TIERING.md "Profiles") across
 * real runs: each run is this program again ("--child ROLE"), a new
 * process with its own address-space layout, on a simulated KNL (hbm0 =
 * node 1 first for bandwidth=high, dram0 = node 0; hbm0's budget two of
 * four arenas). The first run ends with arenas 2 and 3 on hbm0 and hot;
 * the next starts them there, the others on dram0 — against the default,
 * which starts the first two on hbm0; a profile with more sites on hbm0
 * than its budget holds gives it to the hottest, whenever they are made.
 * A profile that is corrupt, of
 * another program, writable by others or a link is ignored with a
 * warning; a forked child writes none; a front end's sites
 * (loci_arena_create_site) are its callers'. What another user planted at
 * the profile's name (a FIFO, a file of theirs), or a device named there,
 * hangs no run and is left as it was at exit — the run as root and the
 * planter nobody, and the other way round.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#define MiB (1ull << 20)
#define NARENAS 4

static const char *const config = "[tiering]\ninterval = 60s\n[target hbm0]\nnuma_node = 1\ntiering_budget = 8MiB\n";
static char profile[512];

static const char *name_of(const loci_target_t *t)
{
    static __thread loci_target_info_t info;
    return t && loci_target_info(t, &info) == 0 ? info.name : "(none)";
}

/* Four arenas from one line: four sites (ordinals 0-3), 4 MiB each. */
static int make_four(loci_arena_t **ar)
{
    for (int i = 0; i < NARENAS; i++) {
        ar[i] = loci_arena_create("bandwidth=high,tier=auto", 0);
        void *p = ar[i] ? loci_arena_alloc(ar[i], 4 * MiB - 4096) : NULL;
        if (!p)
            return -1;
        memset(p, i, 4 * MiB - 4096);
    }
    return 0;
}

/* ---- the runs ------------------------------------------------------------------ */

/* A run that ends with 2 and 3 on hbm0 at heat 1, 0 and 1 on dram0 at 0:
 * what exit writes to the profile. */
static int child_learn(char **a)
{
    loci_arena_t *ar[NARENAS];
    CHECK(make_four(ar) == 0, "four auto arenas");
    for (int i = 0; i < NARENAS; i++)
        CHECK(loci_arena_move(ar[i], loci_target_by_name(i < 2 ? "dram0" : "hbm0")) == 0, "move %d", i);
    tiering_config_t c;
    CHECK(tiering_config_read(&c) == 0, "config");
    heat_sample_t s[NARENAS];
    tiering_lock();
    for (int i = 0; i < NARENAS; i++)
        s[i] = (heat_sample_t){0, 4 * MiB, tiering_find(ar[i])->id, i < 2 ? 0.0 : 1.0, 10};
    tiering_unlock();
    tiering_step(&c, s, NARENAS);
    return 0; /* exit writes the profile */
}

/* A run that says where its arenas start ("I TARGET HEAT" lines), its
 * warnings on stdout too. */
static int child_place(char **a)
{
    dup2(1, 2);
    loci_arena_t *ar[NARENAS];
    CHECK(make_four(ar) == 0, "four auto arenas");
    for (int i = 0; i < NARENAS; i++) {
        loci_tier_stats_t st;
        CHECK(loci_tier_stats(ar[i], &st) == 0, "stats");
        printf("%d %s %.2f\n", i, name_of(st.target), st.heat);
    }
    return 0;
}

static const child_role_t roles[] = {{"learn", 0, child_learn}, {"place", 0, child_place}, {NULL, 0, NULL}};

/* Run role, its stdout into out. */
static void run(const char *role, char *out, size_t len)
{
    const char *args[] = {role, NULL};
    child_t k = child_spawn(args, NULL, -1);
    size_t n = 0;
    ssize_t got;
    while (n < len - 1 && (got = read(k.out, out + n, len - 1 - n)) > 0)
        n += (size_t)got;
    out[n] = '\0';
    int status = child_reap(&k);
    if (status != 0)
        fail_msg("run \"%s\": exit status %d; it said:\n%s", role, status, out);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void write_file(const char *path, const char *text)
{
    unlink(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, 0600);
}

static void setup_runs(void)
{
    use_topology("knl-flat.xml", config); /* LOCI_TOPOLOGY, LOCI_CONFIG: the children's too */
    snprintf(profile, sizeof profile, "%s/gups.profile", scratch_dir);
    setenv("LOCI_TIER_PROFILE", profile, 1);
    unlink(profile);
}

static void expect(const char *out, const char *line)
{
    if (!strstr(out, line))
        fail_msg("expected \"%s\" in:\n%s", line, out);
}

/* ---- the tests ------------------------------------------------------------------ */

static void the_next_run_starts_where_the_last_ended(void **state)
{
    setup_runs();
    char out[8192];
    run("place", out, sizeof out); /* no profile yet: the first two take hbm0's budget */
    expect(out, "0 hbm0 0.00\n1 hbm0 0.00\n2 dram0 0.00\n3 dram0 0.00\n");

    unlink(profile); /* that run's: its heat 0 would be the next one's first */
    run("learn", out, sizeof out);
    struct stat st;
    assert_int_equal(lstat(profile, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    char *text = read_file(profile);
    assert_true(strncmp(text, "loci-tier-profile 2\nprogram /", 29) == 0);
    int sites = 0;
    for (char *p = text; (p = strstr(p, "\nsite ")); p++)
        sites++;
    assert_int_equal(sites, NARENAS);
    expect(text, " 1.000000 hbm0 hbm ");

    run("place", out, sizeof out); /* a new process, new addresses: the same sites */
    expect(out, "0 dram0 0.00\n1 dram0 0.00\n2 hbm0 1.00\n3 hbm0 1.00\n");
}

/* The profile's text with a new checksum line (body: everything before it). */
static void write_with_checksum(const char *body)
{
    static char text[1 << 16];
    snprintf(text, sizeof text, "%schecksum %016llx\n", body, (unsigned long long)XXH3_64bits(body, strlen(body)));
    write_file(profile, text);
}

/* A profile that puts all four on hbm0, which has room for two: the two
 * hottest get it, though they are made last; the others start below. */
static void the_hottest_sites_get_the_budget(void **state)
{
    setup_runs();
    char out[8192];
    run("learn", out, sizeof out);
    static char body[1 << 16];
    char *text = read_file(profile), *line, *save = NULL;
    size_t n = 0;
    const double heat[NARENAS] = {0.1, 0.2, 0.9, 0.8};
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned long long context;
        unsigned class, ordinal;
        int frames = 0;
        if (sscanf(line, "site %llx %u %u %*u %*f %*s %*s %n", &context, &class, &ordinal, &frames) == 3 && frames)
            n += (size_t)snprintf(body + n, sizeof body - n, "site %016llx %u %u %llu %.6f hbm0 hbm %s\n", context,
                                  class, ordinal, 4 * MiB, heat[ordinal], line + frames);
        else if (strncmp(line, "checksum ", 9) != 0)
            n += (size_t)snprintf(body + n, sizeof body - n, "%s\n", line);
    }
    write_with_checksum(body);
    run("place", out, sizeof out);
    expect(out, "0 dram0 0.00\n1 dram0 0.00\n2 hbm0 0.90\n3 hbm0 0.80\n");
}

/* The profile of the last test with one thing changed: ignored, warned. */
static void expect_ignored(const char *good, const char *changed, const char *warning)
{
    write_file(profile, changed);
    char out[8192];
    run("place", out, sizeof out);
    expect(out, warning);
    expect(out, "0 hbm0 0.00\n1 hbm0 0.00\n"); /* the default placement */
    write_file(profile, good);
}

static void a_profile_not_to_trust_is_ignored(void **state)
{
    setup_runs();
    char out[8192];
    run("learn", out, sizeof out);
    static char good[1 << 16], bad[1 << 16];
    snprintf(good, sizeof good, "%s", read_file(profile));

    snprintf(bad, sizeof bad, "%s", good);
    *strstr(bad, "hbm0") = 'H'; /* one byte changed */
    expect_ignored(good, bad, "its checksum does not match");

    snprintf(bad, sizeof bad, "%.*s", (int)(strlen(good) / 2), good); /* cut short: no checksum line */
    expect_ignored(good, bad, "its checksum does not match");

    /* another program's, checksum and all */
    char *build = strstr(good, "\nbuild ");
    snprintf(bad, sizeof bad, "loci-tier-profile 2\nprogram /bin/true%.*s", (int)(strstr(good, "checksum ") - build),
             build);
    write_with_checksum(bad);
    run("place", out, sizeof out);
    expect(out, "a profile of /bin/true, not of this program");
    expect(out, "0 hbm0 0.00\n1 hbm0 0.00\n");
    write_file(profile, good);

    /* a profile of loci before calling contexts (sites of one frame), checksum and all */
    snprintf(bad, sizeof bad, "loci-tier-profile 1%s", strchr(good, '\n'));
    *strstr(bad, "checksum ") = '\0';
    write_with_checksum(bad);
    run("place", out, sizeof out);
    expect(out, "first line \"loci-tier-profile 1\", expected \"loci-tier-profile 2\"): ignored");
    expect(out, "0 hbm0 0.00\n1 hbm0 0.00\n");
    write_file(profile, good);

    chmod(profile, 0622);
    run("place", out, sizeof out);
    expect(out, "is writable by others (mode 0622); loci trusts it only at mode 0755 or less");
    expect(out, "0 hbm0 0.00\n");

    char real[600];
    snprintf(real, sizeof real, "%s.real", profile);
    write_file(real, good);
    unlink(profile);
    assert_int_equal(symlink(real, profile), 0);
    run("place", out, sizeof out);
    expect(out, "is a symbolic link, not a regular file of yours: loci leaves it alone: ignored");
    expect(out, "0 hbm0 0.00\n");
    unlink(profile);
}

/* A run as `victim` with LOCI_TIER_PROFILE=path, where kind was planted by
 * `planter`: it ends (a FIFO hung it in open, under tiering's lock), says
 * why it ignored the file, writes no profile, and leaves the file as it was
 * (it was replaced at exit). */
static void run_over_planted(const char *path, char kind, int planter, int victim, const char *store,
                             const char *why)
{
    setenv("LOCI_TIER_PROFILE", path, 1);
    const char *args[] = {"place", NULL};
    child_t k = child_spawn(args, store, victim);
    char out[8192];
    int status = child_wait_for(&k, 60, out, sizeof out);
    if (status != 0)
        fail_msg("%c planted by %d at %s, run as %d: %s; it said:\n%s", kind, planter, path, victim,
                 status < 0 ? "hung (killed after 60 s)" : "failed", out);
    expect(out, why);
    expect(out, "loci leaves it alone: ignored");
    expect(out, "no profile written");
    expect(out, "0 hbm0 0.00\n1 hbm0 0.00\n2 dram0 0.00\n3 dram0 0.00\n"); /* the default placement */
    assert_untouched(path, kind, planter);
}

static void planted_profiles_are_left_alone(void **state)
{
    if (!planted_users_available("planted_profiles_are_left_alone"))
        skip();
    setup_runs();
    assert_int_equal(chmod(scratch_dir, 0755), 0); /* nobody's runs read the config there */
    char shared[] = "/tmp/loci-test-shared-XXXXXX", path[700], own[600];
    planted_shared_dir(shared);
    snprintf(own, sizeof own, "%s/nobody", shared);
    planted_own_dir(own, NOBODY); /* nobody's runs' own store; in it, root's file */

    snprintf(path, sizeof path, "%s/fifo-by-nobody", shared);
    assert_int_equal(plant(path, 'p', NOBODY), 0);
    run_over_planted(path, 'p', NOBODY, 0, NULL, "is a FIFO, not a regular file of yours");
    snprintf(path, sizeof path, "%s/file-of-nobody", shared);
    assert_int_equal(plant(path, 'f', NOBODY), 0);
    run_over_planted(path, 'f', NOBODY, 0, NULL, "is owned by uid 65534, not by you (uid 0)");

    snprintf(path, sizeof path, "%s/fifo-by-root", shared);
    assert_int_equal(plant(path, 'p', 0), 0);
    run_over_planted(path, 'p', 0, NOBODY, own, "is a FIFO, not a regular file of yours");
    snprintf(path, sizeof path, "%s/file-of-root", own); /* in nobody's directory: nobody could rename over it */
    assert_int_equal(plant(path, 'f', 0), 0);
    assert_int_equal(chmod(path, 0600), 0);
    run_over_planted(path, 'f', 0, NOBODY, own, "is owned by uid 0, not by you (uid 65534)");

    /* a device, named by the user (as root, LOCI_TIER_PROFILE=/dev/null replaced the system's /dev/null) */
    snprintf(path, sizeof path, "%s/null", scratch_dir);
    int e = plant(path, 'c', 0);
    if (e != 0)
        fprintf(stderr, "planted_profiles_are_left_alone: no device case: mknod: %s\n", strerror(e));
    else
        run_over_planted(path, 'c', 0, 0, NULL, "is a character device, not a regular file of yours");
    assert_int_equal(remove_tree(shared), 0);
    assert_int_equal(chmod(scratch_dir, 0700), 0);
    unsetenv("LOCI_TIER_PROFILE");
}

static void a_forked_child_writes_none(void **state)
{
    if (child_threads_unsupported_after_fork("a_forked_child_writes_none"))
        skip();
    setup_runs();
    char out[8192];
    run("learn", out, sizeof out);
    struct stat before, after;
    assert_int_equal(stat(profile, &before), 0);
    loci_arena_t *ar[NARENAS];
    assert_int_equal(make_four(ar), 0); /* this process reads the profile */
    assert_string_equal(name_of(loci_arena_target(ar[3])), "hbm0");
    pid_t pid = fork();
    if (pid == 0) {
        loci_arena_t *more[NARENAS];
        exit(make_four(more) == 0 ? 0 : 1); /* exit's handlers run: no profile from here */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(stat(profile, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);
    loci_fini(); /* this process writes it */
    assert_int_equal(stat(profile, &after), 0);
    assert_true(before.st_ino != after.st_ino);
    assert_int_equal(after.st_mode & 0777, 0600);
    unsetenv("LOCI_TIER_PROFILE");
}

static void front_end_sites(void **state)
{
    use_topology("knl-flat.xml", config);
    char *exe = tiering_executable_path();
    assert_non_null(exe);
    const void *where = (const void *)front_end_sites;
    loci_arena_t *a = loci_arena_create_site("bandwidth=high,tier=auto", 0, where, 20);
    loci_arena_t *b = loci_arena_create_site("bandwidth=high,tier=auto", 0, where, 20);
    loci_arena_t *c = loci_arena_create_site("bandwidth=high,tier=auto", 0, where, 21);
    loci_arena_t *d = loci_arena_create("bandwidth=high,tier=auto", 64 * MiB);
    assert_true(a && b && c && d);
    tiering_lock();
    const tiering_site_t *sa = &tiering_find(a)->site, *sb = &tiering_find(b)->site, *sc = &tiering_find(c)->site,
                         *sd = &tiering_find(d)->site;
    const char *name = strrchr(exe, '/') + 1;
    assert_true(strncmp(sa->where, name, strlen(name)) == 0 && strncmp(sd->where, name, strlen(name)) == 0);
    assert_int_equal(sa->size_class, 20);
    assert_int_equal(sa->ordinal, 0);
    assert_int_equal(sb->ordinal, 1); /* the same site again */
    assert_int_equal(sc->ordinal, 0); /* another size class: another site */
    assert_int_equal(sd->size_class, 26);
    assert_true(sa->context == sc->context && sa->context != sd->context);
    assert_string_equal(sa->where, sc->where);
    tiering_unlock();
    char text[200];
    assert_int_equal(loci_tier_site_name(a, text, sizeof text), 0);
    assert_true(strncmp(text, sa->where, strlen(sa->where)) == 0 && strstr(text, "/20#0"));
    assert_int_equal(loci_tier_site_name(b, text, sizeof text), 0);
    assert_non_null(strstr(text, "/20#1"));

    /* a calling context: every frame names the site, from run to run */
    loci_frame_t frames[3] = {{.pc = where}, {.pc = (const void *)a_forked_child_writes_none},
                              {.file = "/srv/app/train.py", .line = 12}};
    loci_arena_t *e = loci_arena_create_context("bandwidth=high,tier=auto", 0, frames, 3, 20);
    loci_arena_t *f = loci_arena_create_context("bandwidth=high,tier=auto", 0, frames, 2, 20);
    frames[0] = (loci_frame_t){.file = "/srv/app/train.py", .line = 40};
    loci_arena_t *g = loci_arena_create_context("bandwidth=high,tier=auto", 0, frames, 3, 20);
    assert_true(e && f && g);
    tiering_lock();
    const tiering_site_t *se = &tiering_find(e)->site, *sf = &tiering_find(f)->site, *sg = &tiering_find(g)->site;
    assert_true(se->context != sf->context && se->context != sa->context && sf->context != sa->context);
    assert_int_equal(se->ordinal, 0);
    assert_true(strncmp(se->where, name, strlen(name)) == 0 && strstr(se->where, "<+0x") &&
                strstr(se->where, "<train.py:12"));
    assert_true(strncmp(sg->where, "train.py:40<", 12) == 0);
    tiering_unlock();
    errno = 0;
    assert_null(loci_arena_create_context("bandwidth=high,tier=auto", 0, frames, 0, 20));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "no frame"));
    loci_arena_t *fixed = loci_arena_create("bandwidth=high", 0);
    assert_int_equal(loci_tier_site_name(fixed, text, sizeof text), LOCI_EINVAL); /* not an auto arena */
    loci_arena_destroy(fixed);
    loci_arena_destroy(e);
    loci_arena_destroy(f);
    loci_arena_destroy(g);
    loci_arena_destroy(a);
    loci_arena_destroy(b);
    loci_arena_destroy(c);
    loci_arena_destroy(d);
    free(exe);
}

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_next_run_starts_where_the_last_ended),
        cmocka_unit_test(the_hottest_sites_get_the_budget),
        cmocka_unit_test(a_profile_not_to_trust_is_ignored),
        cmocka_unit_test(planted_profiles_are_left_alone),
        cmocka_unit_test(a_forked_child_writes_none),
        cmocka_unit_test(front_end_sites),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
