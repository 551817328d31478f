/* HeMem's hot-set GUPS over a program's own arrays: gups.h says what and how. */
#include "gups.h"

#include "page_nodes.h" /* tests/vm */
#include "tlb.h"
#include "work_phase.h"

#include <loci_tier.h> /* only to say how many sites the interposer saw, when it is there */

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOT 2
#define MAX_ARRAYS 32
#define MAX_NODES 8
#define GOAL 0.9           /* of the hot set's mapped pages on the fast node */

static const char *program;
static uint64_t **arrays;
static int narrays;
static size_t bytes, words;
static uint64_t updates[MAX_ARRAYS];
static int failures;
static int starved; /* watched phases without a verdict (work_phase.h) */

/* The first array of phase p's hot set: the middle two, then the last two. */
static int first_hot(int phase) { return phase == 1 ? narrays / 2 - 1 : narrays - HOT; }

static uint64_t next_random(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static void update(int hot, uint64_t *seed)
{
    uint64_t r = next_random(seed);
    int a = r % 10 < 9 ? hot + (int)((r >> 8) % HOT) : (int)((r >> 8) % (uint64_t)narrays);
    arrays[a][(r >> 16) % words] += 1;
    updates[a]++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Pages of array a on each node, and mapped at all. */
static void count_pages(int a, size_t on[MAX_NODES], size_t *mapped)
{
    static int *nodes;
    size_t pages = page_count(arrays[a], bytes);
    if (!nodes && !(nodes = malloc(pages * sizeof *nodes))) /* small: stays with libc */
        exit((fprintf(stderr, "%s: no memory\n", program), 1));
    if (page_nodes(arrays[a], bytes, nodes) != 0)
        exit((fprintf(stderr, "%s: move_pages failed\n", program), 1));
    memset(on, 0, MAX_NODES * sizeof *on);
    *mapped = 0;
    for (size_t p = 0; p < pages; p++)
        if (nodes[p] >= 0 && nodes[p] < MAX_NODES)
            on[nodes[p]]++, (*mapped)++;
}

static void report(int phase)
{
    size_t pages = page_count(arrays[0], bytes);
    for (int a = 0; a < narrays; a++) {
        size_t on[MAX_NODES], mapped;
        count_pages(a, on, &mapped);
        printf("phase %d array %d %s nodes", phase, a, a >= first_hot(phase) && a < first_hot(phase) + HOT ? "hot" : "cold");
        for (int n = 0; n < MAX_NODES; n++)
            if (on[n])
                printf(" %d:%.1f", n, 100.0 * (double)on[n] / (double)pages);
        printf("\n");
    }
}

/* Share of the hot set's mapped pages on node `fast`; *mapped: the share mapped at all. */
static double hot_share(int phase, int fast, double *mapped)
{
    size_t on_fast = 0, all = 0, total = 0;
    for (int a = first_hot(phase); a < first_hot(phase) + HOT; a++) {
        size_t on[MAX_NODES], m;
        count_pages(a, on, &m);
        on_fast += on[fast], all += m, total += page_count(arrays[a], bytes);
    }
    *mapped = (double)all / (double)total;
    return all ? (double)on_fast / (double)all : 0;
}

/* What loci's tiering says of each array's arena, "heat@node" (when loci is in the process):
 * a miss shows whether the heat source saw the hot set, or the policy did not act on it. */
static void tiering_view(char *line, size_t len)
{
    static loci_arena_t *(*arena_of)(const void *);
    static int (*stats)(const loci_arena_t *, loci_tier_stats_t *);
    static int (*info)(const loci_target_t *, loci_target_info_t *);
    if (!arena_of) {
        arena_of = (loci_arena_t * (*)(const void *)) dlsym(RTLD_DEFAULT, "loci_ptr_arena");
        stats = (int (*)(const loci_arena_t *, loci_tier_stats_t *))dlsym(RTLD_DEFAULT, "loci_tier_stats");
        info = (int (*)(const loci_target_t *, loci_target_info_t *))dlsym(RTLD_DEFAULT, "loci_target_info");
    }
    size_t used = 0;
    line[0] = '\0';
    for (int a = 0; a < narrays && arena_of && stats && info && used < len; a++) {
        loci_tier_stats_t st = {0};
        loci_target_info_t where = {.numa_node = -1};
        if (stats(arena_of(arrays[a]), &st) == 0 && st.target)
            info(st.target, &where);
        used += (size_t)snprintf(line + used, len - used, " %.2f@%d", st.heat, where.numa_node);
    }
}

/* loci's tiering intervals so far into *n; false when loci is not in the process. */
static bool tiering_intervals(uint64_t *n)
{
    static int (*totals)(loci_tier_totals_t *);
    if (!totals)
        totals = (int (*)(loci_tier_totals_t *))dlsym(RTLD_DEFAULT, "loci_tier_totals");
    loci_tier_totals_t tot = {0};
    if (!totals || totals(&tot) != 0)
        return false;
    *n = tot.intervals;
    return true;
}

static uint64_t updates_made(void)
{
    uint64_t sum = 0;
    for (int a = 0; a < narrays; a++)
        sum += updates[a];
    return sum;
}

/* A watched phase (work_phase.h) of paced updates (a batch of 1,000, then 10 ms asleep, so that a cold
 * page is not touched every interval: the heat sources see whether a page was touched, not how often),
 * the hot set's placement checked once an interval of work. */
static void watched_phase(int phase, int fast, int interval_ms, uint64_t *seed)
{
    uint64_t tiering = 0;
    bool tiered = tiering_intervals(&tiering); /* else intervals by the clock */
    work_phase_t p;
    work_phase_begin(&p, interval_ms / 1e3, tiering, updates_made());
    int checked = 0;
    while (work_phase_goes_on(&p)) {
        refresh_tlb();
        for (int k = 0; k < 1000; k++)
            update(first_hot(phase), seed);
        usleep(10000);
        if (!tiered || !tiering_intervals(&tiering))
            tiering = (uint64_t)(work_phase_seconds(&p) / p.interval_s);
        int i = (int)work_phase_update(&p, tiering, updates_made());
        if (i <= checked)
            continue;
        checked = i; /* once an interval, however late the batches make it */
        double mapped, share = hot_share(phase, fast, &mapped);
        bool there = share >= GOAL && mapped >= 0.5; /* the faults source keeps a few pages unmapped */
        char view[MAX_ARRAYS * 12];
        tiering_view(view, sizeof view);
        printf("phase %d interval %d (%.1f s): hot set %.1f %% on node %d (%.0f %% of it mapped);%s\n", phase, i,
               work_phase_seconds(&p), 100 * share, fast, 100 * mapped, view);
        if (!work_phase_check(&p, there)) {
            fprintf(stderr, "%s: phase %d: the hot set left node %d again (interval %d)\n", program, phase, fast, i);
            failures++;
        }
    }
    switch (work_phase_verdict(&p)) {
    case WORK_PHASE_STARVED:
        printf("phase %d: starved: %llu intervals of work in %.1f s (the host too busy for this VM): no verdict\n",
               phase, (unsigned long long)p.done, work_phase_seconds(&p));
        starved++;
        break;
    case WORK_PHASE_LATE:
    case WORK_PHASE_NEVER:
        fprintf(stderr, "%s: phase %d: hot arrays %d and %d not %.0f %% on node %d within %d intervals (%s)\n",
                program, phase, first_hot(phase), first_hot(phase) + 1, 100 * GOAL, fast, DEADLINE_INTERVALS,
                p.placed_at < 0 ? "never" : "later");
        failures++;
        break;
    case WORK_PHASE_IN_TIME:
        printf("phase %d: hot set >= %.0f %% on node %d after %ld intervals\n", phase, 100 * GOAL, fast, p.placed_at);
        break;
    }
}

/* How many arenas of loci's hold the arrays (0 without loci in the process). */
static int arenas_holding(void)
{
    void *(*arena_of)(const void *) = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "loci_ptr_arena");
    void *seen[MAX_ARRAYS];
    int n = 0;
    for (int a = 0; a < narrays && arena_of; a++) {
        void *ar = arena_of(arrays[a]);
        bool known = !ar;
        for (int k = 0; k < n && !known; k++)
            known = seen[k] == ar;
        if (!known)
            seen[n++] = ar;
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: %s ARRAY_MIB MILLION_UPDATES_PER_PHASE [report]\n"
                    "       %s ARRAY_MIB watch FAST_NODE INTERVAL_MS\n", program, program);
    return 2;
}

int gups_main(const char *name, int n, gups_make_fn *make, gups_release_fn *release, int argc, char **argv)
{
    program = name;
    narrays = n;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line at a time: a test killed for time still shows how far it got */
    bool watch = argc == 5 && strcmp(argv[2], "watch") == 0;
    if (n < 2 * HOT || n > MAX_ARRAYS || (argc != 3 && argc != 4 && !watch))
        return usage();
    bytes = (size_t)strtoul(argv[1], NULL, 10) << 20, words = bytes / sizeof(uint64_t);
    int fast = watch ? atoi(argv[3]) : -1, interval_ms = watch ? atoi(argv[4]) : 0;
    uint64_t count = watch ? 0 : strtoull(argv[2], NULL, 10) * 1000000ull, seed = 88172645463325252ull;
    bool reporting = argc == 4 && strcmp(argv[3], "report") == 0;
    if (words == 0 || (watch && (fast < 0 || fast >= MAX_NODES || interval_ms <= 0)))
        return usage();
    static uint64_t *made[MAX_ARRAYS];
    arrays = made;
    double began = now_s();
    make(arrays, narrays, bytes);
    for (int a = 0; a < narrays; a++) {
        if (!arrays[a]) {
            fprintf(stderr, "%s: no memory for %zu bytes\n", program, bytes);
            return 1;
        }
        memset(arrays[a], 0, bytes);
    }
    if (watch)
        printf("%s: %d arrays of %zu MiB made and written in %.1f s\n", program, narrays, bytes >> 20, now_s() - began);
    for (int phase = 1; phase <= 2; phase++) {
        if (watch)
            watched_phase(phase, fast, interval_ms, &seed);
        for (uint64_t u = 0; u < count; u++)
            update(first_hot(phase), &seed);
        if (reporting)
            report(phase);
    }
    for (int a = 0; a < narrays; a++) {
        uint64_t sum = 0;
        for (size_t w = 0; w < words; w++)
            sum += arrays[a][w];
        if (sum != updates[a]) {
            fprintf(stderr, "%s: array %d sums to %llu after %llu updates: data lost\n", program, a,
                    (unsigned long long)sum, (unsigned long long)updates[a]);
            return 1;
        }
    }
    int sites = loci_tier_sites ? loci_tier_sites(NULL, 0) : -1, arenas = arenas_holding();
    release(arrays, narrays);
    if (failures)
        return 1;
    if (starved)
        return work_phase_skip(program, starved);
    printf("%s: ok, data intact, %d allocation sites seen by libloci-tier%s, %d arrays in %d arenas\n", program,
           sites, sites < 0 ? " (not loaded)" : "", narrays, arenas);
    return 0;
}
