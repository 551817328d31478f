/*
 * tier=auto under the real kernel (issue 29, docs/TIERING.md): HeMem's hot-set GUPS.
 *
 *   vm_tiering gups FAST SLOW   16 auto arenas of 4 MiB ("bandwidth=high,tier=auto"), the fast
 *                               node FAST budgeted at 16 MiB ([target] tiering_budget: a quarter
 *                               of the working set); 90 % of the updates go to a hot set of two
 *                               arenas, which switches to two others halfway. Asserted: within 10
 *                               intervals (of work: work_phase.h) of each phase's start every mapped page of the hot
 *                               arenas is on FAST (move_pages; at least half of them mapped: the
 *                               faults source keeps sampled pages unmapped while a window is open), and
 *                               stays there; the auto arenas' pages on FAST never pass the budget;
 *                               the data intact (each arena's sum of words), the addresses
 *                               unchanged (each block still its arena's, at the same address).
 *                               Cold arenas start on FAST until its budget is taken, then on SLOW
 *                               (the next candidate).
 *
 *   vm_tiering flat FAST MID SLOW   the residency goal for a program that never sleeps: the same
 *                               16 arenas updated flat out (no pause), FAST and MID budgeted at
 *                               16 MiB each, so that the cold arenas fill FAST first (0-3), then
 *                               MID (4-7), and the hot set starts on the slowest node SLOW (arenas
 *                               12-13, then 14-15). Asserted: within 10 intervals of each phase's
 *                               start at least 90 % of the hot set's mapped pages are on FAST, and
 *                               stay so; FAST never over its budget; data and addresses intact.
 *                               Printed: the heat source, updates a second, the tiering CPU
 *                               (loci_tier_totals: the thread's and its heat source's).
 *   vm_tiering flat-run FAST MID SLOW   the same through `loci run --tier auto --intent
 *                               bandwidth=high` (libloci-tier.so beside the loci command): this
 *                               program again as flat-malloc, its 16 arrays from 16 malloc calls
 *                               of its own (one arena per allocation site), the budgets in the
 *                               LOCI_CONFIG it writes for it.
 *   vm_tiering --user UID MODE...   any of these as user UID (root drops its privileges first):
 *                               what an ordinary user on a default node gets (the dirty source).
 *
 *   vm_tiering fork FAST        an auto arena on FAST, its pages partly unmapped by the faults
 *                               source's sampler; a child made without fork handlers (raw
 *                               fork syscall) reads them through the mapping (the kernel drops
 *                               the userfaultfd registration in a child); then fork(): the child reads the data as of the
 *                               fork (the sampled pages too), its copy's pages all on FAST (placed
 *                               like the parent's), its stores unseen by the parent, the parent's
 *                               after fork() unseen by the child.
 *   vm_tiering spill FAST SLOW  FAST capped at 16 MiB: an auto arena there holding 8 MiB, half of
 *                               its pages unmapped by the sampler, asks for 12 MiB more and moves
 *                               down whole: right after, every page of it that is mapped is on
 *                               SLOW, those the sampler had unmapped too (the move holds them
 *                               still: heat_hold), and within 10 s at least a quarter of them
 *                               are mapped.
 *
 *   vm_tiering paused FAST      (where DAMON is: 6.12) the damon source's kdamond turned off by
 *                               someone else (its sysfs state written "off") while an auto arena
 *                               on FAST is watched: within 10 s tiering says it paused (totals),
 *                               the arena's data intact, it still allocates, and destroying it
 *                               leaves no kdamond on for this process.
 *
 * gups paces its updates (a batch of 1,000, then 10 ms asleep: ~35,000 per 400 ms interval), flat
 * never sleeps: every cold page is touched several times a second, and the sources must tell how
 * often, not only whether (their windows, docs/TIERING.md). Neither flushes its TLB: the damon
 * source does that itself (QEMU's software TLB keeps every page, and DAMON clears accessed bits
 * without a flush). Exit 0 ok, 1 a check failed, 2 setup error, 77 no heat source works in this
 * kernel (said why).
 */
#include "page_nodes.h"
#include "still_scan.h"
#include "tlb.h"
#include "work_phase.h"

#include <loci.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NARENAS 16
#define ARENA_BYTES (4u << 20)
#define WORDS (ARENA_BYTES / sizeof(uint64_t))
#define BUDGET (16u << 20)
#define INTERVAL_MS 400 /* TCG: a 4 MiB move takes about 0.3 s */
#define RESIDENCY 0.9 /* the goal: this share of the hot set's pages on the fast node (flat) */

extern char **environ;

static int failures;
static int starved; /* phases without a verdict (work_phase.h) */

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "vm_tiering: %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

typedef struct {
    loci_arena_t *ar; /* (flat-malloc: the interposer's, found from w) */
    uint64_t *w;
    uint64_t updates; /* each adds 1 to one word: the arena's sum grows by as many */
} gups_arena_t;

static gups_arena_t arenas[NARENAS];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t initial_sum(int a)
{
    uint64_t sum = 0;
    for (uint64_t k = 0; k < WORDS; k++)
        sum += (uint64_t)a * 1000003u + k;
    return sum;
}

/* Pages of arena a: on `node`, mapped at all. */
static void residency(int a, int node, size_t *on, size_t *mapped, size_t *total)
{
    static int nodes[ARENA_BYTES / 4096];
    size_t n = page_count(arenas[a].w, ARENA_BYTES);
    *on = *mapped = 0;
    *total = n;
    if (page_nodes(arenas[a].w, ARENA_BYTES, nodes) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        *mapped += nodes[i] >= 0;
        *on += nodes[i] == node;
    }
}

/* Are at least `share` of the hot set's mapped pages on `fast`, with at least half of them mapped
 * (the faults source's sampler keeps a few pages unmapped at any time)? */
static bool hot_set_placed(const int hot[2], int fast, double share)
{
    size_t on_all = 0, mapped_all = 0;
    for (int h = 0; h < 2; h++) {
        size_t on, mapped, total;
        residency(hot[h], fast, &on, &mapped, &total);
        if (mapped * 2 < total)
            return false;
        on_all += on;
        mapped_all += mapped;
    }
    return (double)on_all >= share * (double)mapped_all;
}

static loci_tier_totals_t tier_totals(void)
{
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    return tot;
}

/* The auto arenas' pages on the fast node, in bytes, from a scan no move overtook (still_scan.h:
 * a loaded host's slow scans counted a whole arena over the budget that the node never held,
 * 2026-11-29). */
struct bytes_on_scan {
    int fast;
    size_t sum;
};

static bool scan_bytes_on(void *arg)
{
    struct bytes_on_scan *b = arg;
    b->sum = 0;
    for (int a = 0; a < NARENAS; a++) {
        size_t on, mapped, total;
        residency(a, b->fast, &on, &mapped, &total);
        b->sum += on * 4096;
    }
    return true;
}

static size_t bytes_on(int fast)
{
    struct bytes_on_scan b = {fast, 0};
    still_scan(scan_bytes_on, &b);
    return b.sum;
}

static void update_batch(const int hot[2], uint64_t *seed)
{
    for (int i = 0; i < 1000; i++) {
        uint64_t r = rng(seed);
        int a = r % 10 < 9 ? hot[(r >> 8) & 1] : (int)((r >> 8) % NARENAS);
        arenas[a].w[(r >> 16) % WORDS]++;
        arenas[a].updates++;
    }
}

/* What tiering saw of every arena at each check of a phase — its smoothed heat, its node (its
 * target's) and the tiering intervals done — printed when the phase fails (or with VM_TIERING_TRACE
 * set): a miss says whether
 * the heat source saw the hot set, or the policy did not act on it (or moved it off again). */
static char trace[PHASE_CAP * PHASE_INTERVALS + 2][NARENAS * 16 + 64];
static int traced;

static loci_arena_t *arena_of(int a) { return arenas[a].ar ? arenas[a].ar : loci_arena_of(arenas[a].w); }

/* Over the budget: whose pages are on the fast node, against where tiering has each arena (a
 * move under way, or pages a move left behind). */
static void say_pages_on(int fast)
{
    for (int a = 0; a < NARENAS; a++) {
        size_t on, mapped, total;
        residency(a, fast, &on, &mapped, &total);
        loci_tier_stats_t st = {0};
        loci_target_info_t info = {.numa_node = -1};
        if (loci_tier_stats(arena_of(a), &st) == 0 && st.target)
            loci_target_info(st.target, &info);
        if (on)
            printf("       arena %2d: %zu of its %zu pages on node %d (%zu mapped); tiering has it on node %d\n", a,
                   on, total, fast, mapped, info.numa_node);
    }
}

static uint64_t tiering_intervals(void) { return tier_totals().intervals; }

static uint64_t updates_made(void)
{
    uint64_t sum = 0;
    for (int a = 0; a < NARENAS; a++)
        sum += arenas[a].updates;
    return sum;
}

static void trace_interval(double at)
{
    if (traced >= PHASE_CAP * PHASE_INTERVALS + 2)
        return;
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    char *line = trace[traced++];
    size_t len = sizeof trace[0];
    int at_end = snprintf(line, len, "%5.1f i%-3llu", at, (unsigned long long)tot.intervals);
    for (int a = 0; a < NARENAS && at_end > 0 && (size_t)at_end < len; a++) {
        loci_tier_stats_t st = {0};
        loci_target_info_t info = {.numa_node = -1};
        if (loci_tier_stats(arena_of(a), &st) == 0 && st.target)
            loci_target_info(st.target, &info);
        at_end += snprintf(line + at_end, len - (size_t)at_end, " %.2f@%d", st.heat, info.numa_node);
    }
}

/* One phase (work_phase.h): updates to `hot` (paced: 10 ms asleep after each batch; else flat out),
 * the placement checked every INTERVAL_MS by the clock: `share` of the hot set's mapped pages on
 * `fast`. The goal is counted in intervals of work, the time in INTERVAL_MS printed beside. */
static void phase(const char *name, const int hot[2], int fast, uint64_t *seed, bool paced, double share)
{
    work_phase_t p;
    work_phase_begin(&p, INTERVAL_MS / 1e3, tiering_intervals(), updates_made());
    double next = INTERVAL_MS / 1e3, placed_wall = -1;
    size_t peak = 0;
    int failed_before = failures;
    traced = 0;
    while (work_phase_goes_on(&p)) {
        update_batch(hot, seed);
        if (paced)
            usleep(10000);
        if (work_phase_seconds(&p) < next)
            continue;
        next += INTERVAL_MS / 1e3;
        work_phase_update(&p, tiering_intervals(), updates_made());
        size_t on = bytes_on(fast);
        peak = on > peak ? on : peak;
        CHECK(on <= BUDGET, "%s: %zu bytes of auto arenas on node %d, over its budget of %u", name, on, fast,
              BUDGET);
        if (on > BUDGET)
            say_pages_on(fast);
        bool placed = hot_set_placed(hot, fast, share);
        trace_interval(work_phase_seconds(&p) / (INTERVAL_MS / 1e3));
        if (placed && p.placed_at < 0)
            placed_wall = work_phase_seconds(&p) / (INTERVAL_MS / 1e3);
        if (!work_phase_check(&p, placed))
            CHECK(false, "%s: the hot set left node %d again", name, fast);
    }
    for (int h = 0; h < 2; h++) {
        size_t on, mapped, total;
        residency(hot[h], fast, &on, &mapped, &total);
        printf("     %s: hot arena %d: %zu of %zu pages on node %d (%zu mapped)\n", name, hot[h], on, total, fast,
               mapped);
    }
    work_phase_verdict_t outcome = work_phase_verdict(&p);
    if (outcome == WORK_PHASE_STARVED) {
        printf("     %s: starved: %llu intervals of work in %.1f s (the host too busy for this VM): no verdict\n",
               name, (unsigned long long)p.done, work_phase_seconds(&p));
        starved++;
    }
    CHECK(outcome == WORK_PHASE_IN_TIME || outcome == WORK_PHASE_STARVED,
          "%s: %.0f %% of hot arenas %d and %d not on node %d within %d of tiering's intervals (%s)", name,
          100 * share, hot[0], hot[1], fast, DEADLINE_INTERVALS, outcome == WORK_PHASE_NEVER ? "never" : "later");
    if (failures > failed_before || getenv("VM_TIERING_TRACE")) {
        printf("     %s, each check: intervals since the phase began, tiering's intervals, then per arena "
               "0..%d its heat@node\n", name, NARENAS - 1);
        for (int i = 0; i < traced; i++)
            printf("     %s\n", trace[i]);
    }
    printf("     %s: hot set on node %d after %ld of tiering's intervals (%.1f of %d ms); at most %zu bytes of auto "
           "arenas there; %.0f updates a second\n", name, fast, p.placed_at, placed_wall, INTERVAL_MS, peak,
           (double)(updates_made() - p.updates_first) / work_phase_seconds(&p));
    fflush(stdout);
}

/* Every arena's data intact (its sum: the initial words plus its updates) and still its
 * arena's at the same address; the moves, and tiering's CPU against the run's `seconds`. */
static void check_and_report(double seconds)
{
    for (int a = 0; a < NARENAS; a++) {
        uint64_t sum = 0;
        for (uint64_t k = 0; k < WORDS; k++)
            sum += arenas[a].w[k];
        CHECK(sum == initial_sum(a) + arenas[a].updates, "arena %d: its data changed besides the updates", a);
        CHECK(loci_arena_of(arenas[a].w + WORDS / 2) == arena_of(a), "arena %d: its block is no longer its", a);
    }
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    printf("     %llu moves, %llu B promoted, %llu B demoted, %llu B moved back within 10 intervals; tiering CPU "
           "%.3f s in %llu intervals over %.1f s (%.1f %% of a core)\n",
           (unsigned long long)tot.moves, (unsigned long long)tot.bytes_promoted,
           (unsigned long long)tot.bytes_demoted, (unsigned long long)tot.bytes_pingpong, tot.cpu_seconds,
           (unsigned long long)tot.intervals, seconds, 100 * tot.cpu_seconds / seconds);
    CHECK(!tot.paused, "tiering paused: the heat source stopped working");
}

static char config[] = "/tmp/vm_tiering-XXXXXX";

/* LOCI_CONFIG with `text` (printf-style), then loci_init: 0, or 2 (setup). */
static int use_config(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int use_config(const char *fmt, ...)
{
    int fd = mkstemp(config);
    if (fd < 0)
        return 2;
    va_list ap;
    va_start(ap, fmt);
    vdprintf(fd, fmt, ap);
    va_end(ap);
    close(fd);
    setenv("LOCI_CONFIG", config, 1);
    if (loci_init() != 0) {
        fprintf(stderr, "vm_tiering: setup: %s\n", loci_last_error());
        return 2;
    }
    return 0;
}

/* Auto arena a (gups, flat) with its ARENA_BYTES block; false when it cannot be made (said why). */
static bool make_arena(int a)
{
    arenas[a].ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    arenas[a].w = arenas[a].ar ? loci_arena_alloc(arenas[a].ar, ARENA_BYTES) : NULL;
    if (!arenas[a].w)
        fprintf(stderr, "vm_tiering: setup: arena %d: %s\n", a, loci_last_error());
    return arenas[a].w != NULL;
}

static int test_gups(int fast, int slow)
{
    if (use_config("[tiering]\ninterval = %dms\n[target fast]\nnuma_node = %d\ntiering_budget = %u\n", INTERVAL_MS,
                   fast, BUDGET) != 0)
        return 2;
    for (int a = 0; a < NARENAS; a++) {
        if (!make_arena(a))
            return 2;
        for (uint64_t k = 0; k < WORDS; k++)
            arenas[a].w[k] = (uint64_t)a * 1000003u + k;
    }
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    if (!strcmp(tot.source, "none")) {
        fprintf(stderr, "vm_tiering: skipped: no heat source works in this kernel (see loci's warning above)\n");
        return 77;
    }
    printf("     heat source: %s\n", tot.source);
    loci_target_info_t info;
    loci_target_info(loci_arena_target(arenas[0].ar), &info);
    CHECK(info.numa_node == fast, "arena 0 starts on node %d, not on the fast node %d", info.numa_node, fast);
    loci_target_info(loci_arena_target(arenas[NARENAS - 1].ar), &info);
    CHECK(info.numa_node == slow, "arena %d starts on node %d, not on node %d (the fast one's budget is taken)",
          NARENAS - 1, info.numa_node, slow);

    uint64_t seed = 88172645463325252ull;
    double t0 = now_s();
    phase("phase 1", (int[]){6, 7}, fast, &seed, true, 1.0);
    phase("phase 2", (int[]){12, 13}, fast, &seed, true, 1.0);
    check_and_report(now_s() - t0);
    for (int a = 0; a < NARENAS; a++)
        loci_arena_destroy(arenas[a].ar);
    unlink(config);
    return 0;
}

/* flat, flat-malloc: arena a, just made, starts under the budgets — 0-3 on FAST, 4-7 on MID,
 * 8-15 on SLOW (asked at once: tiering moves them soon after). */
static void check_start(int a, int fast, int mid, int slow)
{
    int want = a < 4 ? fast : a < 8 ? mid : slow;
    loci_target_info_t info = {.numa_node = -1};
    loci_target_info(loci_arena_target(arena_of(a)), &info);
    CHECK(info.numa_node == want, "arena %d starts on node %d, not on node %d", a, info.numa_node, want);
}

/* flat, flat-malloc: the hot set, 12-13 then 14-15, climbs from SLOW while the program never sleeps. */
static int flat_phases(int fast)
{
    for (int a = 0; a < NARENAS; a++)
        for (uint64_t k = 0; k < WORDS; k++)
            arenas[a].w[k] = (uint64_t)a * 1000003u + k;
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    if (tot.arenas < NARENAS) {
        fprintf(stderr, "vm_tiering: setup: %llu auto arenas, not %d (flat-malloc runs under loci run --tier "
                        "auto)\n", (unsigned long long)tot.arenas, NARENAS);
        return 2;
    }
    if (!strcmp(tot.source, "none")) {
        fprintf(stderr, "vm_tiering: skipped: no heat source works in this kernel (see loci's warning above)\n");
        return 77;
    }
    printf("     heat source: %s, as uid %u\n", tot.source, (unsigned)geteuid());
    uint64_t seed = 88172645463325252ull;
    double t0 = now_s();
    phase("phase 1", (int[]){12, 13}, fast, &seed, false, RESIDENCY);
    phase("phase 2", (int[]){14, 15}, fast, &seed, false, RESIDENCY);
    check_and_report(now_s() - t0);
    return 0;
}

static int test_flat(int fast, int mid, int slow)
{
    if (use_config("[tiering]\ninterval = %dms\n[target fast]\nnuma_node = %d\ntiering_budget = %u\n"
                   "[target mid]\nnuma_node = %d\ntiering_budget = %u\n", INTERVAL_MS, fast, BUDGET, mid, BUDGET) != 0)
        return 2;
    for (int a = 0; a < NARENAS; a++) {
        if (!make_arena(a))
            return 2;
        check_start(a, fast, mid, slow);
    }
    int rc = flat_phases(fast);
    for (int a = 0; a < NARENAS; a++)
        loci_arena_destroy(arenas[a].ar);
    unlink(config);
    return rc;
}

/* One call instruction per array: 16 allocation sites, 16 arenas under the interposer. */
#define SITE(i)                                                                                    \
    case i:                                                                                        \
        p = malloc(ARENA_BYTES);                                                                   \
        __asm__ volatile("# site " #i ::: "memory");                                               \
        break;

static int test_flat_malloc(int fast, int mid, int slow)
{
    for (int a = 0; a < NARENAS; a++) {
        void *p = NULL;
        switch (a) {
            SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
            SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)
        }
        if (!(arenas[a].w = p)) {
            fprintf(stderr, "vm_tiering: setup: malloc of array %d failed\n", a);
            return 2;
        }
        memset(p, 0, ARENA_BYTES); /* (the interposer's first touch: its pages where its arena is) */
        check_start(a, fast, mid, slow);
    }
    return flat_phases(fast);
}

/* flat-run: this program as flat-malloc under `loci run --tier auto`, the budgets in its LOCI_CONFIG. */
static int test_flat_run(char **nodes)
{
    int fd = mkstemp(config);
    if (fd < 0)
        return 2;
    dprintf(fd, "[tiering]\ninterval = %dms\n[target fast]\nnuma_node = %s\ntiering_budget = %u\n[target mid]\n"
                "numa_node = %s\ntiering_budget = %u\n", INTERVAL_MS, nodes[0], BUDGET, nodes[1], BUDGET);
    close(fd);
    char self[512];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 2;
    self[n] = '\0';
    setenv("LOCI_CONFIG", config, 1);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("loci", "loci", "run", "--tier", "auto", "--intent", "bandwidth=high", "--", self, "flat-malloc",
               nodes[0], nodes[1], nodes[2], (char *)NULL);
        fprintf(stderr, "vm_tiering: setup: exec loci: %s\n", strerror(errno));
        _exit(2);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 2;
    unlink(config);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* One auto arena of `bytes` on `node` (the first candidate) under the faults source, written
 * with w[k] = k + seed, with at least a quarter of its pages unmapped by the sampler: its words,
 * or NULL (a message said why; *rc 77 when no heat source works). */
static uint64_t *sampled_arena(loci_arena_t **ar, size_t bytes, int node, uint64_t seed, int *rc)
{
    *rc = 2;
    *ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    uint64_t *w = *ar ? loci_arena_alloc(*ar, bytes) : NULL;
    if (!w) {
        fprintf(stderr, "vm_tiering: setup: %s\n", loci_last_error());
        return NULL;
    }
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    if (strcmp(tot.source, "faults") != 0) {
        fprintf(stderr, "vm_tiering: skipped: the faults heat source does not work in this kernel (see above)\n");
        *rc = 77;
        return NULL;
    }
    for (size_t k = 0; k < bytes / 8; k++)
        w[k] = k + seed;
    loci_target_info_t info;
    loci_target_info(loci_arena_target(*ar), &info);
    CHECK(info.numa_node == node, "the arena starts on node %d, not on node %d", info.numa_node, node);
    size_t n = page_count(w, bytes), mapped = n;
    int *nodes = malloc(n * sizeof *nodes);
    for (int i = 0; i < 100 && mapped * 4 > n * 3; i++) {
        usleep(50000);
        page_nodes(w, bytes, nodes);
        mapped = 0;
        for (size_t p = 0; p < n; p++)
            mapped += nodes[p] >= 0;
    }
    free(nodes);
    printf("     %zu of %zu pages unmapped by the sampler\n", n - mapped, n);
    CHECK(mapped * 4 <= n * 3, "the sampler left %zu of %zu pages mapped after 5 s", mapped, n);
    *rc = 0;
    return w;
}

/* Read every page of [w, w+bytes): mapped back where the sampler unmapped it. */
static void touch_all(volatile uint64_t *w, size_t bytes)
{
    uint64_t sum = 0;
    for (size_t k = 0; k < bytes / 8; k += 512)
        sum += w[k];
    (void)sum;
}

/* Every page of [w, w+bytes) touched, then on `node`? */
static bool all_on(const char *what, uint64_t *w, size_t bytes, int node)
{
    touch_all(w, bytes);
    return pages_on_node(what, w, bytes, node);
}

static bool words_are(const uint64_t *w, size_t n, uint64_t seed)
{
    for (size_t k = 0; k < n; k++)
        if (w[k] != k + seed)
            return false;
    return true;
}

static int test_fork(int fast)
{
    const size_t bytes = 8u << 20;
    if (use_config("[tiering]\nsource = faults\ninterval = 100ms\nsample = 50%%\n") != 0)
        return 2;
    loci_arena_t *ar;
    int rc;
    uint64_t *w = sampled_arena(&ar, bytes, fast, 1, &rc);
    if (!w)
        return rc;
    /* The kernel first: a child made without fork handlers (no copy of loci's) reads the pages
     * the parent's sampler unmapped through its own mapping, which is not registered with the
     * parent's userfaultfd (no UFFD_FEATURE_EVENT_FORK): served by the kernel, not a hang */
    pid_t raw = (pid_t)syscall(SYS_fork);
    if (raw == 0) {
        alarm(30);
        _exit(words_are(w, bytes / 8, 1) ? 0 : 6);
    }
    int status;
    waitpid(raw, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a child without fork handlers could not read its parent's sampled pages (status %#x)", status);
    int go[2], done[2];
    if (pipe(go) != 0 || pipe(done) != 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        close(go[1]);
        close(done[0]);
        int bad = !words_are(w, bytes / 8, 1) ? 3 : !all_on("the child's copy", w, bytes, fast) ? 4 : 0;
        for (size_t k = 0; k < bytes / 8; k++)
            w[k] = k + 2;
        (void)!write(done[1], "w", 1);
        char c;
        if (read(go[0], &c, 1) != 1 || !words_are(w, bytes / 8, 2))
            bad = bad ? bad : 5; /* the parent's store after fork() reached the child */
        _exit(bad);
    }
    close(go[0]);
    close(done[1]);
    for (size_t k = 0; k < bytes / 16; k++) /* right after fork(): never the child's */
        w[k] = k + 3;
    char c;
    CHECK(read(done[0], &c, 1) == 1, "the child did not write its copy");
    (void)!write(go[1], "p", 1);
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child failed (status %#x: 3 not the data as of fork(), 4 its copy not on node %d, "
          "5 the parent's store reached it)", status, fast);
    bool mine = words_are(w, bytes / 16, 3) && words_are(w + bytes / 16, bytes / 16, bytes / 16 + 1);
    CHECK(mine, "the child's stores reached the parent's auto arena");
    if (!failures)
        printf("     the child read its copy as of fork(), all on node %d; neither saw the other's stores\n",
               fast);
    loci_arena_destroy(ar);
    unlink(config);
    return 0;
}

static int test_spill(int fast, int slow)
{
    const size_t bytes = 8u << 20;
    /* a round every 500 ms: the pages read below stay mapped long enough to be asked where they are */
    if (use_config("[tiering]\nsource = faults\ninterval = 500ms\nsample = 50%%\n[target fast]\nnuma_node = %d\n"
                   "capacity = 16MiB\n", fast) != 0)
        return 2;
    loci_arena_t *ar;
    int rc;
    uint64_t *w = sampled_arena(&ar, bytes, fast, 7, &rc);
    if (!w)
        return rc;
    uint64_t *more = loci_arena_alloc(ar, 12u << 20);
    CHECK(more, "12 MiB more for an auto arena whose node is full: %s", loci_last_error());
    loci_target_info_t info;
    loci_target_info(loci_arena_target(ar), &info);
    CHECK(info.numa_node == slow, "the arena moved down to node %d, not node %d", info.numa_node, slow);
    /* the move took every page along, none left behind for tiering to fetch later. Every page is
     * read, then asked where it is (the sampler may have unmapped some again meanwhile: those tell
     * nothing; under TCG a few rounds may pass before a quarter are seen) */
    size_t n = page_count(w, bytes), on = 0, elsewhere = 0, scans = 0;
    int *nodes = malloc(n * sizeof *nodes);
    for (double until = now_s() + 10; !elsewhere && on * 4 < n && now_s() < until; usleep(100000), scans++) {
        touch_all(w, bytes);
        page_nodes(w, bytes, nodes);
        on = 0;
        for (size_t p = 0; p < n; p++) {
            on += nodes[p] == slow;
            elsewhere += nodes[p] >= 0 && nodes[p] != slow;
        }
    }
    free(nodes);
    CHECK(elsewhere == 0 && on * 4 >= n, "the arena moved down to node %d, but %zu of its %zu pages were seen "
          "elsewhere after it (%zu on node %d, %zu scans)", slow, elsewhere, n, on, slow, scans);
    CHECK(words_are(w, bytes / 8, 7), "the arena's data changed");
    if (!failures)
        printf("     moved down to node %d whole, the pages the sampler had unmapped too (%zu of %zu seen there)\n",
               slow, on, n);
    loci_arena_destroy(ar);
    unlink(config);
    return 0;
}

/* ---- fill: the program of issue 36's OOM kill ------------------------------------------------ */

typedef struct {
    int a;                 /* its arena */
    size_t words;
    pthread_barrier_t *filled;
    double *until;         /* set once every arena is filled */
    int failed;            /* its arena could not be made or filled (said) */
} filler_t;

/* One thread of the program: its arena made and filled (all threads at once, as a parallel
 * program starts), then, once all are, updates flat out, 90 % of them to a hot pair of arenas that
 * changes every 4 s. */
static void *fill_and_update(void *arg)
{
    filler_t *f = arg;
    gups_arena_t *g = &arenas[f->a];
    g->ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    uint64_t *mine = g->ar ? loci_arena_alloc(g->ar, f->words * sizeof(uint64_t)) : NULL;
    if (!mine) {
        fprintf(stderr, "vm_tiering: arena %d: %s\n", f->a, loci_last_error());
        f->failed = 1;
    }
    for (size_t k = 0; mine && k < f->words; k++)
        mine[k] = (uint64_t)f->a * 1000003u + k;
    g->w = mine;
    pthread_barrier_wait(f->filled);
    pthread_barrier_wait(f->filled); /* (the main thread set *until meanwhile) */
    uint64_t s = 88172645463325252ull + (uint64_t)f->a;
    while (!f->failed && now_s() < *f->until) {
        int hot = (int)((uint64_t)(now_s() / 4) % NARENAS);
        for (int i = 0; i < 4096; i++) {
            uint64_t r = rng(&s);
            int a = r % 10 < 9 ? (hot + (int)((r >> 8) & 1)) % NARENAS : (int)((r >> 8) % NARENAS);
            if (arenas[a].w) {
                __atomic_fetch_add(&arenas[a].w[(r >> 16) % f->words], 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&arenas[a].updates, 1, __ATOMIC_RELAXED);
            }
        }
    }
    return NULL;
}

/* Another process taking all but 8 MiB of node `node`'s free memory (preferred there: what it
 * cannot get there it gets elsewhere, so that it wakes no OOM killer of its own), until its
 * standard input ends: `vm_tiering hog NODE`. */
static int hog(int node)
{
    char path[96], buf[4096];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *m = strstr(buf, "MemFree:");
    size_t free_kb = m ? strtoull(m + 8, NULL, 10) : 0, bytes = free_kb > 8192 ? (free_kb - 8192) << 10 : 0;
    char *p = bytes ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    unsigned long mask = 1ul << node;
    if (p == MAP_FAILED || syscall(SYS_mbind, p, bytes, 1 /* MPOL_PREFERRED */, &mask, 64, 0) != 0)
        return 2;
    memset(p, 1, bytes);
    printf("     another process took %zu MiB, preferred on node %d\n", bytes >> 20, node);
    fflush(stdout);
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}

/* `vm_tiering hog NODE` started (posix_spawn: no copy of this process's memory), its standard
 * input the pipe `go` (closing go[1] ends it). Its pid, or -1. */
static pid_t spawn_hog(int node, int go[2])
{
    char arg[16];
    snprintf(arg, sizeof arg, "%d", node);
    char *argv[] = {"vm_tiering", "hog", arg, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, go[0], 0);
    posix_spawn_file_actions_addclose(&fa, go[1]);
    pid_t pid;
    int e = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(go[0]);
    return e == 0 ? pid : -1;
}

/* NARENAS auto arenas of `mib` MiB each ("bandwidth=high,tier=auto", default budgets: 90 % of each
 * node), each made and filled by a thread of its own, all at once; then another process takes the
 * free memory of node `crowded`, and the threads update the arenas flat out for `seconds` while
 * tiering runs. The program must survive (no OOM kill: the caller checks the kernel's log
 * too), every arena made on some node while others had room, its data intact. */
static int test_fill(int mib, int seconds, int crowded)
{
    if (use_config("[tiering]\ninterval = 200ms\n") != 0)
        return 2;
    size_t words = ((size_t)mib << 20) / sizeof(uint64_t);
    filler_t f[NARENAS];
    pthread_t tid[NARENAS];
    pthread_barrier_t filled;
    pthread_barrier_init(&filled, NULL, NARENAS + 1);
    double until = 0;
    for (int a = 0; a < NARENAS; a++) {
        f[a] = (filler_t){a, words, &filled, &until, 0};
        pthread_create(&tid[a], NULL, fill_and_update, &f[a]);
    }
    double t0 = now_s();
    pthread_barrier_wait(&filled);
    fprintf(stderr, "     fill: arenas made and filled after %.1f s\n", now_s() - t0);
    for (int a = 0; a < NARENAS; a++) {
        loci_target_info_t info = {.name = "(none)"};
        if (arenas[a].ar)
            loci_target_info(loci_arena_target(arenas[a].ar), &info);
        printf("     arena %2d: %d MiB on %s%s\n", a, mib, info.name, f[a].failed ? " (failed)" : "");
    }
    int go[2];
    pid_t other = pipe2(go, O_CLOEXEC) == 0 ? spawn_hog(crowded, go) : -1;
    CHECK(other > 0, "cannot start another process: %s", strerror(errno));
    sleep(2); /* (it takes the node's memory while the arenas are updated and moved) */
    until = now_s() + seconds;
    pthread_barrier_wait(&filled);
    for (int a = 0; a < NARENAS; a++) {
        pthread_join(tid[a], NULL);
        CHECK(!f[a].failed, "arena %d of %d MiB could not be made (said above) while other nodes had room", a, mib);
    }
    if (other > 0) {
        close(go[1]);
        int st = 0;
        waitpid(other, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the process taking node %d's memory failed (status %#x)",
              crowded, st);
    }
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    printf("     heat source: %s\n", tot.source);
    fprintf(stderr, "     fill: updates done after %.1f s; %llu intervals so far\n", now_s() - t0,
            (unsigned long long)tot.intervals);
    for (int a = 0; a < NARENAS && !failures; a++) {
        fprintf(stderr, "     fill: checking arena %d after %.1f s\n", a, now_s() - t0);
        uint64_t sum = 0, want = 0;
        for (size_t k = 0; k < words; k++) {
            sum += arenas[a].w[k];
            want += (uint64_t)a * 1000003u + k;
        }
        CHECK(sum == want + arenas[a].updates, "arena %d: its data changed besides the updates", a);
        loci_target_info_t info;
        loci_target_info(loci_arena_target(arenas[a].ar), &info);
        printf("     arena %2d: on %s, %llu updates\n", a, info.name, (unsigned long long)arenas[a].updates);
    }
    printf("     %llu moves, %llu B promoted, %llu B demoted in %llu intervals\n", (unsigned long long)tot.moves,
           (unsigned long long)tot.bytes_promoted, (unsigned long long)tot.bytes_demoted,
           (unsigned long long)tot.intervals);
    for (int a = 0; a < NARENAS; a++)
        loci_arena_destroy(arenas[a].ar);
    unlink(config);
    return 0;
}

#define DAMON_ADMIN "/sys/kernel/mm/damon/admin/kdamonds"

/* The index of the kdamond that runs for this process, or -1. */
static int our_kdamond(void)
{
    char path[160], buf[32];
    for (int kd = 0; kd < 16; kd++) {
        snprintf(path, sizeof path, DAMON_ADMIN "/%d/contexts/0/targets/0/pid_target", kd);
        FILE *f = fopen(path, "r");
        long pid = f && fgets(buf, sizeof buf, f) ? atol(buf) : 0;
        if (f)
            fclose(f);
        snprintf(path, sizeof path, DAMON_ADMIN "/%d/state", kd);
        f = pid == getpid() ? fopen(path, "r") : NULL;
        bool on = f && fgets(buf, sizeof buf, f) && !strncmp(buf, "on", 2);
        if (f)
            fclose(f);
        if (on)
            return kd;
    }
    return -1;
}

static int test_paused(int fast)
{
    if (access(DAMON_ADMIN, F_OK) != 0) {
        fprintf(stderr, "vm_tiering: skipped: no DAMON sysfs interface in this kernel (Debian's 6.1 has none)\n");
        return 77;
    }
    if (use_config("[tiering]\nsource = damon\ninterval = 500ms\n[target fast]\nnuma_node = %d\n", fast) != 0)
        return 2;
    const size_t bytes = 4u << 20;
    loci_arena_t *ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    uint64_t *w = ar ? loci_arena_alloc(ar, bytes) : NULL;
    if (!w) {
        fprintf(stderr, "vm_tiering: setup: %s\n", loci_last_error());
        return 2;
    }
    for (size_t k = 0; k < bytes / 8; k++)
        w[k] = k + 11;
    int kd = -1;
    for (double until = now_s() + 10; kd < 0 && now_s() < until; usleep(100000))
        kd = our_kdamond();
    CHECK(kd >= 0, "no kdamond runs for this process 10 s after its auto arena was made");
    if (kd < 0)
        return 0;
    char state[160];
    snprintf(state, sizeof state, DAMON_ADMIN "/%d/state", kd);
    /* what another user of DAMON (damo, an admin) may do; EBUSY while loci's source holds the
     * interface's lock (it only ever tries it), so again, as damo would */
    int fd = open(state, O_WRONLY), off = -1;
    for (double until = now_s() + 5; fd >= 0 && (off = (int)write(fd, "off", 3)) < 0 && errno == EBUSY &&
                                      now_s() < until;)
        usleep(10000);
    CHECK(off == 3, "turning kdamond %d off: %s", kd, strerror(errno));
    if (fd >= 0)
        close(fd);
    loci_tier_totals_t tot = {0};
    for (double until = now_s() + 10; !tot.paused && now_s() < until; usleep(100000))
        loci_tier_totals(&tot);
    CHECK(tot.paused, "tiering did not pause within 10 s of its kdamond being turned off");
    CHECK(words_are(w, bytes / 8, 11), "the arena's data changed");
    uint64_t *more = loci_arena_alloc(ar, 1u << 20);
    CHECK(more, "the paused auto arena no longer allocates: %s", loci_last_error());
    loci_arena_destroy(ar);
    CHECK(our_kdamond() < 0, "a kdamond still runs for this process after its arena went");
    if (!failures)
        printf("     kdamond %d turned off: tiering paused, data intact, the arena still allocates\n", kd);
    unlink(config);
    return 0;
}

/* --user UID ARGS...: this program again as that user (from root: groups, gid and uid, then exec,
 * as a login would — a process that changed its uid without an exec is not dumpable, and its
 * /proc/self files are root's), with ARGS; returns only to say why it could not. */
static void become(const char *uid_text, char **args)
{
    uid_t uid = (uid_t)atoi(uid_text);
    if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid(uid) != 0)
        fprintf(stderr, "vm_tiering: setup: becoming uid %u: %s\n", (unsigned)uid, strerror(errno));
    else
        execv("/proc/self/exe", args);
    fprintf(stderr, "vm_tiering: setup: running again as uid %u: %s\n", (unsigned)uid, strerror(errno));
}

/* The exit status: a setup's rc, else 1 when a check failed, 77 when a phase was starved (said
 * why), else 0. */
static int verdict(int rc)
{
    if (rc || failures)
        return rc ? rc : 1;
    return starved ? work_phase_skip("vm_tiering", starved) : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "--user")) {
        const char *uid = argv[2];
        argv[2] = argv[0]; /* the arguments again, without --user UID */
        become(uid, argv + 2);
        return 2;
    }
    if (argc == 5 && (!strcmp(argv[1], "flat") || !strcmp(argv[1], "flat-malloc") || !strcmp(argv[1], "flat-run"))) {
        int fast = atoi(argv[2]), mid = atoi(argv[3]), slow = atoi(argv[4]), rc;
        if (!strcmp(argv[1], "flat-run"))
            return test_flat_run(argv + 2);
        rc = !strcmp(argv[1], "flat") ? test_flat(fast, mid, slow) : test_flat_malloc(fast, mid, slow);
        if (!strcmp(argv[1], "flat"))
            loci_fini(); /* (never under the interposer: TIERING.md) */
        return verdict(rc);
    }
    if (argc == 3 && !strcmp(argv[1], "paused")) {
        int rc = test_paused(atoi(argv[2]));
        loci_fini();
        return verdict(rc);
    }
    if (argc == 3 && !strcmp(argv[1], "fork")) {
        int rc = test_fork(atoi(argv[2]));
        loci_fini();
        return verdict(rc);
    }
    if (argc == 4 && !strcmp(argv[1], "spill")) {
        int rc = test_spill(atoi(argv[2]), atoi(argv[3]));
        loci_fini();
        return verdict(rc);
    }
    if (argc == 3 && !strcmp(argv[1], "hog"))
        return hog(atoi(argv[2]));
    if (argc == 5 && !strcmp(argv[1], "fill")) {
        int rc = test_fill(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
        loci_fini();
        return verdict(rc);
    }
    if (argc == 4 && !strcmp(argv[1], "gups")) {
        int rc = test_gups(atoi(argv[2]), atoi(argv[3]));
        loci_fini();
        return verdict(rc);
    }
    fprintf(stderr, "usage: vm_tiering [--user UID] gups FAST SLOW | flat|flat-run|flat-malloc FAST MID SLOW | "
                    "fill MIB SECONDS CROWDED | fork FAST | spill FAST SLOW | paused FAST\n");
    return 2;
}
