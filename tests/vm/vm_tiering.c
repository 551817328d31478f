/*
 * tier=auto under the real kernel (issue 29, docs/TIERING.md): HeMem's hot-set GUPS.
 *
 *   vm_tiering gups FAST SLOW   16 auto arenas of 4 MiB ("bandwidth=high,tier=auto"), the fast
 *                               node FAST budgeted at 16 MiB ([target] tiering_budget: a quarter
 *                               of the working set); 90 % of the updates go to a hot set of two
 *                               arenas, which switches to two others halfway. Asserted: within 10
 *                               intervals of each phase's start every mapped page of the hot
 *                               arenas is on FAST (move_pages; at least half of them mapped: the
 *                               faults source keeps sampled pages unmapped until touched), and
 *                               stays there; the auto arenas' pages on FAST never pass the budget;
 *                               the data intact (each arena's sum of words), the addresses
 *                               unchanged (each block still its arena's, at the same address).
 *                               Cold arenas start on FAST until its budget is taken, then on SLOW
 *                               (the next candidate).
 *
 * Updates are paced (a batch of 1,000, then 10 ms asleep: ~40,000 per 400 ms interval), so that
 * a cold page is not touched in every interval: the heat sources see whether a sampled page was
 * touched in an interval, not how often. Exit 0 ok, 1 a check failed, 2 setup error, 77 no heat
 * source works in this kernel (said why).
 */
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NARENAS 16
#define ARENA_BYTES (4u << 20)
#define WORDS (ARENA_BYTES / sizeof(uint64_t))
#define BUDGET (16u << 20)
#define INTERVAL_MS 400 /* TCG: a 4 MiB move takes about 0.3 s */
#define PHASE_INTERVALS 15 /* each phase: 10 to get there, 5 to stay */
#define DEADLINE_INTERVALS 10

static int failures;

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
    loci_arena_t *ar;
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

static bool hot_set_placed(const int hot[2], int fast)
{
    for (int h = 0; h < 2; h++) {
        size_t on, mapped, total;
        residency(hot[h], fast, &on, &mapped, &total);
        if (on != mapped || mapped * 2 < total) /* the sampler keeps a few pages unmapped at any time */
            return false;
    }
    return true;
}

/* The auto arenas' pages on the fast node, in bytes. */
static size_t bytes_on(int fast)
{
    size_t sum = 0;
    for (int a = 0; a < NARENAS; a++) {
        size_t on, mapped, total;
        residency(a, fast, &on, &mapped, &total);
        sum += on * 4096;
    }
    return sum;
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

/* One phase: updates to `hot`, the placement checked every interval. */
static void phase(const char *name, const int hot[2], int fast, uint64_t *seed)
{
    double start = now_s(), next = start + INTERVAL_MS / 1e3;
    double placed_at = -1;
    size_t peak = 0;
    while (now_s() - start < PHASE_INTERVALS * INTERVAL_MS / 1e3) {
        update_batch(hot, seed);
        usleep(10000);
        if (now_s() < next)
            continue;
        next += INTERVAL_MS / 1e3;
        size_t on = bytes_on(fast);
        peak = on > peak ? on : peak;
        CHECK(on <= BUDGET, "%s: %zu bytes of auto arenas on node %d, over its budget of %u", name, on, fast,
              BUDGET);
        bool placed = hot_set_placed(hot, fast);
        if (placed && placed_at < 0)
            placed_at = (now_s() - start) / (INTERVAL_MS / 1e3);
        if (!placed && placed_at >= 0 && (now_s() - start) / (INTERVAL_MS / 1e3) > DEADLINE_INTERVALS)
            CHECK(false, "%s: the hot set left node %d again", name, fast);
    }
    for (int h = 0; h < 2; h++) {
        size_t on, mapped, total;
        residency(hot[h], fast, &on, &mapped, &total);
        printf("     %s: hot arena %d: %zu of %zu pages on node %d (%zu mapped)\n", name, hot[h], on, total, fast,
               mapped);
    }
    CHECK(placed_at >= 0 && placed_at <= DEADLINE_INTERVALS,
          "%s: hot arenas %d and %d not on node %d within %d intervals (%s)", name, hot[0], hot[1], fast,
          DEADLINE_INTERVALS, placed_at < 0 ? "never" : "later");
    printf("     %s: hot set on node %d after %.1f intervals; at most %zu bytes of auto arenas there\n", name, fast,
           placed_at, peak);
}

static int test_gups(int fast, int slow)
{
    char config[] = "/tmp/vm_tiering-XXXXXX";
    int fd = mkstemp(config);
    if (fd < 0)
        return 2;
    dprintf(fd, "[tiering]\ninterval = %dms\n[target fast]\nnuma_node = %d\ntiering_budget = %u\n", INTERVAL_MS,
            fast, BUDGET);
    close(fd);
    setenv("LOCI_CONFIG", config, 1);
    if (loci_init() != 0) {
        fprintf(stderr, "vm_tiering: setup: %s\n", loci_last_error());
        return 2;
    }
    for (int a = 0; a < NARENAS; a++) {
        arenas[a].ar = loci_arena_create("bandwidth=high,tier=auto", 0);
        arenas[a].w = arenas[a].ar ? loci_arena_alloc(arenas[a].ar, ARENA_BYTES) : NULL;
        if (!arenas[a].w) {
            fprintf(stderr, "vm_tiering: setup: arena %d: %s\n", a, loci_last_error());
            return 2;
        }
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
    phase("phase 1", (int[]){6, 7}, fast, &seed);
    phase("phase 2", (int[]){12, 13}, fast, &seed);

    for (int a = 0; a < NARENAS; a++) {
        uint64_t sum = 0;
        for (uint64_t k = 0; k < WORDS; k++)
            sum += arenas[a].w[k];
        CHECK(sum == initial_sum(a) + arenas[a].updates, "arena %d: its data changed besides the updates", a);
        CHECK(loci_arena_of(arenas[a].w + WORDS / 2) == arenas[a].ar, "arena %d: its block is no longer its", a);
    }
    loci_tier_totals(&tot);
    printf("     %llu moves, %llu B promoted, %llu B demoted, %llu B moved back within 10 intervals, "
           "%.3f s of tiering CPU in %llu intervals\n",
           (unsigned long long)tot.moves, (unsigned long long)tot.bytes_promoted,
           (unsigned long long)tot.bytes_demoted, (unsigned long long)tot.bytes_pingpong, tot.cpu_seconds,
           (unsigned long long)tot.intervals);
    CHECK(!tot.paused, "tiering paused: the heat source stopped working");
    for (int a = 0; a < NARENAS; a++)
        loci_arena_destroy(arenas[a].ar);
    unlink(config);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "gups")) {
        int rc = test_gups(atoi(argv[2]), atoi(argv[3]));
        loci_fini();
        return rc ? rc : failures ? 1 : 0;
    }
    fprintf(stderr, "usage: vm_tiering gups FAST SLOW\n");
    return 2;
}
