/*
 * Access measurement (src/heat, issue 29.1) under each VM kernel.
 *
 *   vm_heat rank [SOURCE]   the source heat_open picks (auto) — as root damon where the kernel has
 *                           DAMON's sysfs interface (6.12), else faults (the TCG VM has no PMU); as
 *                           anyone else dirty, the only one an ordinary user gets on Debian's
 *                           defaults — or SOURCE alone (perf, damon, faults, dirty) ranks a range a
 *                           thread writes in a loop above one nobody touches within 20 intervals;
 *                           both keep their data; after heat_close no thread of the source is left,
 *                           and no kdamond runs for this process
 *   vm_heat --user UID ...  any of these as user UID (root drops its privileges first)
 *   vm_heat --user UID exec CMD...   CMD as user UID (loci info as an ordinary user)
 *   vm_heat crash           (where DAMON is) a process killed while its damon source runs leaves
 *                           its kdamond set up; the next process's damon source takes it back
 *                           (no kdamond added) and measures
 *   vm_heat granules        (where the damon source works) DAMON is handed a watched range of eight
 *                           granules as eight regions at the granules' bounds (given whole, it read
 *                           as one heat until DAMON had split it, several intervals)
 *
 * Exit 0 ok, 1 a check failed, 2 setup error, 77 skipped (said why).
 */
#include "heat/heat.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "threads.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RANGE ((size_t)16 << 20)
/* Under TCG a fault's round trip to the sampler takes ms: few samples per
 * interval and long intervals, or the writer cannot reach its sampled pages
 * within one (the heat then measures the fault rate, not the writer). */
#define INTERVAL_MS 500
#define SHARE 0.01
#define DAMON_ADMIN "/sys/kernel/mm/damon/admin/kdamonds"

static size_t page;

/* A range of memory of the kind h's source watches in tier=auto arenas — shared memory for the
 * faults source, private anonymous memory for the others (in base pages, as tiering keeps them) —
 * every page written with its index and `seed`. */
static uint64_t *watched_range(const heat_t *h, uint64_t seed)
{
    uint64_t *p = MAP_FAILED;
    if (heat_needs_shared_memory(h)) {
        int fd = shared_map_memfd("vm_heat");
        if (fd < 0 || ftruncate(fd, (off_t)RANGE) != 0)
            return NULL;
        p = shared_map_file(fd, RANGE, true);
        close(fd);
    } else {
        p = vm_map_aligned(RANGE, page, -1, 0);
        if (p != MAP_FAILED)
            madvise(p, RANGE, MADV_NOHUGEPAGE);
    }
    if (p == MAP_FAILED)
        return NULL;
    for (size_t i = 0; i < RANGE / page; i++)
        p[i * page / 8] = seed + i;
    return p;
}

static bool intact(const uint64_t *p, uint64_t seed)
{
    for (size_t i = 0; i < RANGE / page; i++)
        if (p[i * page / 8] != seed + i)
            return false;
    return true;
}

static atomic_bool stop;

static void *write_loop(void *arg)
{
    uint64_t *p = arg;
    for (uint64_t pass = 1; !atomic_load(&stop); pass++)
        for (size_t i = 0; i < RANGE / page; i++)
            p[i * page / 8 + 1] = pass;
    return NULL;
}

/* Mean heat of the granules tagged `tag`; *obs their observations. */
static double heat_of(const heat_sample_t *v, size_t n, uint64_t tag, uint64_t *obs)
{
    double sum = 0;
    int k = 0;
    *obs = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].tag == tag) {
            sum += v[i].heat;
            *obs += v[i].observations;
            k++;
        }
    return k ? sum / k : 0;
}

/* File `rel` of DAMON's sysfs tree (kdamond kd's, or the tree's own for kd < 0) read as a number:
 * 0, or -1. */
static int damon_number(int kd, const char *rel, unsigned long long *out)
{
    char path[192];
    if (kd < 0)
        snprintf(path, sizeof path, DAMON_ADMIN "/%s", rel);
    else
        snprintf(path, sizeof path, DAMON_ADMIN "/%d/%s", kd, rel);
    FILE *f = fopen(path, "r");
    int ok = f && fscanf(f, "%llu", out) == 1;
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

static int nr_kdamonds(void)
{
    unsigned long long n;
    return damon_number(-1, "nr_kdamonds", &n) == 0 ? (int)n : -1;
}

/* The kdamond set up for this process (others' are none of our business), or -1. */
static int our_kdamond(void)
{
    int n = nr_kdamonds();
    for (int kd = 0; kd < n; kd++) {
        unsigned long long pid;
        if (damon_number(kd, "contexts/0/targets/0/pid_target", &pid) == 0 && pid == (unsigned long long)getpid())
            return kd;
    }
    return -1;
}

/* Does a kdamond still run for this process? */
static bool kdamond_running(void)
{
    int kd = our_kdamond();
    char path[128], state[16] = "";
    snprintf(path, sizeof path, DAMON_ADMIN "/%d/state", kd);
    FILE *s = kd >= 0 ? fopen(path, "r") : NULL;
    if (s && !fgets(state, sizeof state, s))
        state[0] = '\0';
    if (s)
        fclose(s);
    return strncmp(state, "on", 2) == 0;
}

static int rank(const char *name)
{
    heat_source_t want;
    if (heat_source_parse(name, &want) != 0) {
        fprintf(stderr, "vm_heat: %s\n", loci_last_error());
        return 2;
    }
    /* The oracle for auto: what the kernel offers, and to whom, read apart from loci's probes. */
    heat_source_t expect = want != HEAT_SOURCE_NONE          ? want
                           : geteuid() != 0                  ? HEAT_SOURCE_DIRTY
                           : access(DAMON_ADMIN, F_OK) == 0 ? HEAT_SOURCE_DAMON
                                                            : HEAT_SOURCE_FAULTS;
    int threads_before = count_threads();
    heat_config_t cfg = {.interval_ms = INTERVAL_MS, .sample_share = SHARE, .only = want};
    heat_t *h;
    if (heat_open(&cfg, &h) != 0) {
        fprintf(stderr, "vm_heat: heat_open: %s\n", loci_last_error());
        return 1;
    }
    printf("source %s%s%s%s, as uid %u (skipped: %s)\n", heat_source_name(heat_source(h)), *heat_how(h) ? " (" : "",
           heat_how(h), *heat_how(h) ? ")" : "", (unsigned)geteuid(), *heat_skipped(h) ? heat_skipped(h) : "none");
    if (heat_source(h) != expect) {
        fprintf(stderr, "vm_heat: expected the %s source\n", heat_source_name(expect));
        return 1;
    }
    uint64_t *hot = watched_range(h, 1000), *cold = watched_range(h, 2000);
    if (!hot || !cold || heat_watch(h, hot, RANGE, 1) != 0 || heat_watch(h, cold, RANGE, 2) != 0) {
        fprintf(stderr, "vm_heat: setup: %s\n", loci_last_error());
        return 2;
    }
    pthread_t t;
    pthread_create(&t, NULL, write_loop, hot);
    bool ranked = false;
    for (int i = 0; i < 20 && !ranked; i++) {
        struct timespec ts = {0, INTERVAL_MS * 1000000L};
        nanosleep(&ts, NULL);
        heat_sample_t *v;
        size_t n;
        if (heat_collect(h, &v, &n) != 0) {
            fprintf(stderr, "vm_heat: heat_collect: %s\n", loci_last_error());
            return 1;
        }
        uint64_t ho, co;
        double hh = heat_of(v, n, 1, &ho), ch = heat_of(v, n, 2, &co);
        free(v);
        printf("interval %d: hot %.2f (%llu observations), cold %.2f (%llu); window %.1f ms\n", i, hh,
               (unsigned long long)ho, ch, (unsigned long long)co, (double)heat_window_us(h) / 1e3);
        ranked = ho && co && hh > 0.2 && hh > ch + 0.15;
    }
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    printf("source CPU %.3f s\n", heat_cpu_seconds(h));
    heat_close(h);
    int fails = 0;
    if (!ranked)
        fails += fprintf(stderr, "vm_heat: the hot range never ranked above the cold one\n") > 0;
    if (!intact(hot, 1000) || !intact(cold, 2000))
        fails += fprintf(stderr, "vm_heat: data changed\n") > 0;
    int threads_after = threads_now_or(threads_before);
    if (threads_after != threads_before)
        fails += fprintf(stderr, "vm_heat: %d threads after close, %d before\n", threads_after, threads_before) > 0;
    if (kdamond_running())
        fails += fprintf(stderr, "vm_heat: a kdamond still runs for this process after close\n") > 0;
    return fails ? 1 : 0;
}

/* Open the damon source and watch a range: 0, else a message and 1. */
static int damon_watching(heat_t **h, uint64_t **p)
{
    heat_config_t cfg = {.interval_ms = INTERVAL_MS, .only = HEAT_SOURCE_DAMON};
    if (heat_open(&cfg, h) != 0 || !(*p = watched_range(*h, 5)) || heat_watch(*h, *p, RANGE, 1) != 0) {
        fprintf(stderr, "vm_heat: damon source: %s\n", loci_last_error());
        return 1;
    }
    return 0;
}

static int crash(void)
{
    if (access(DAMON_ADMIN, F_OK) != 0) {
        printf("skipped: this kernel has no DAMON sysfs interface\n");
        return 77;
    }
    int ready[2];
    if (pipe(ready) != 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        heat_t *h;
        uint64_t *p;
        if (damon_watching(&h, &p) != 0)
            _exit(1);
        (void)!write(ready[1], "x", 1);
        pause(); /* killed here, its kdamond running */
        _exit(0);
    }
    char c;
    if (read(ready[0], &c, 1) != 1) {
        fprintf(stderr, "vm_heat: the child could not start its damon source\n");
        return 1;
    }
    int before = nr_kdamonds();
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    heat_t *h;
    uint64_t *p;
    if (damon_watching(&h, &p) != 0)
        return 1;
    printf("kdamonds: %d with the killed process's, %d now\n", before, nr_kdamonds());
    int fails = 0;
    if (nr_kdamonds() != before)
        fails += fprintf(stderr, "vm_heat: a kdamond was added instead of taking back the dead one's\n") > 0;
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
    heat_sample_t *v;
    size_t n;
    if (heat_collect(h, &v, &n) != 0 || n == 0 || v[0].observations == 0)
        fails += fprintf(stderr, "vm_heat: the damon source taken back does not measure: %s\n", loci_last_error()) > 0;
    if (n)
        free(v);
    heat_close(h);
    if (kdamond_running())
        fails += fprintf(stderr, "vm_heat: a kdamond still runs for this process after close\n") > 0;
    return fails ? 1 : 0;
}

/* What the damon source hands DAMON for a range of eight granules: a region per granule, at
 * the granules' bounds. (DAMON starts from the regions it is given and splits each in two or
 * three per aggregation: a range given whole read as one heat for several intervals.) */
static int granules(void)
{
    heat_config_t cfg = {.interval_ms = INTERVAL_MS, .sample_share = SHARE, .only = HEAT_SOURCE_DAMON};
    heat_t *h;
    if (heat_open(&cfg, &h) != 0) {
        printf("skipped: %s\n", loci_last_error());
        return 77;
    }
    uint64_t *p = watched_range(h, 7);
    if (!p || heat_watch(h, p, RANGE, 1) != 0) {
        fprintf(stderr, "vm_heat: setup: %s\n", loci_last_error());
        return 2;
    }
    int kd = -1;
    for (int i = 0; i < 50 && (kd < 0 || !kdamond_running()); i++) { /* the reporter starts it */
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
        kd = our_kdamond();
    }
    int fails = 0;
    unsigned long long n = 0, start, end;
    if (kd < 0 || damon_number(kd, "contexts/0/targets/0/regions/nr_regions", &n) != 0)
        fails += fprintf(stderr, "vm_heat: no kdamond runs for this process 5 s after the range was watched\n") > 0;
    else if (n != RANGE / HEAT_GRANULE)
        fails += fprintf(stderr, "vm_heat: DAMON was handed %llu regions for a range of %zu granules\n", n,
                         RANGE / HEAT_GRANULE) > 0;
    for (unsigned long long k = 0; !fails && k < n; k++) {
        char rel[96];
        snprintf(rel, sizeof rel, "contexts/0/targets/0/regions/%llu/start", k);
        int rc = damon_number(kd, rel, &start);
        snprintf(rel, sizeof rel, "contexts/0/targets/0/regions/%llu/end", k);
        rc |= damon_number(kd, rel, &end);
        uintptr_t want = (uintptr_t)p + k * HEAT_GRANULE;
        if (rc != 0 || start != want || end != want + HEAT_GRANULE)
            fails += fprintf(stderr, "vm_heat: region %llu is [%#llx, %#llx), not granule %llu's [%#lx, %#lx)\n", k,
                             start, end, k, (unsigned long)want, (unsigned long)(want + HEAT_GRANULE)) > 0;
    }
    printf("kdamond %d was handed %llu regions for the range's %zu granules\n", kd, n, RANGE / HEAT_GRANULE);
    heat_close(h);
    return fails ? 1 : 0;
}

/* --user UID ARGS...: this program again as that user (from root: groups, gid and uid, then exec,
 * as a login would — a process that changed its uid without an exec is not dumpable, and its
 * /proc/self files are root's), with ARGS; returns only to say why it could not. */
static void become(const char *uid_text, char **args)
{
    uid_t uid = (uid_t)atoi(uid_text);
    if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid(uid) != 0)
        fprintf(stderr, "vm_heat: setup: becoming uid %u: %s\n", (unsigned)uid, strerror(errno));
    else
        execv("/proc/self/exe", args);
    fprintf(stderr, "vm_heat: setup: running again as uid %u: %s\n", (unsigned)uid, strerror(errno));
}

int main(int argc, char **argv)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    if (argc >= 3 && !strcmp(argv[1], "--user")) {
        const char *uid = argv[2];
        argv[2] = argv[0]; /* the arguments again, without --user UID */
        become(uid, argv + 2);
        return 2;
    }
    if (argc >= 3 && strcmp(argv[1], "exec") == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "vm_heat: exec %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    if (argc >= 2 && strcmp(argv[1], "rank") == 0)
        return rank(argc >= 3 ? argv[2] : "auto");
    if (argc == 2 && strcmp(argv[1], "crash") == 0)
        return crash();
    if (argc == 2 && strcmp(argv[1], "granules") == 0)
        return granules();
    fprintf(stderr, "usage: vm_heat [--user UID] rank [auto|perf|damon|faults|dirty] | crash | granules | exec CMD...\n");
    return 2;
}
