/*
 * Placement by granule (docs/TIERING.md "An arena larger than its fast memory"): one auto arena
 * too big for the fast node's budget, whose hot part moves.
 *
 *   vm_parts FAST SLOW   the fast node FAST budgeted at 16 MiB, taken by a cold auto arena of 16
 *                        MiB made first; then one auto arena ("bandwidth=high,tier=auto") holding
 *                        one block of 64 MiB, which starts on SLOW whole. 90 % of the updates
 *                        (paced: a batch of 1,000, then 10 ms asleep) go to a 12 MiB window of the
 *                        block, 10 % anywhere in it; the window moves to another place halfway.
 *                        Asserted: within 10 intervals of work (work_phase.h) of each phase's start
 *                        at least 90 % of the window's mapped pages are on FAST (move_pages), and
 *                        stay (the cold arena moved out whole, the second window taking the first
 *                        one's place); the two arenas' pages on FAST never pass the budget; loci_ptr_target names
 *                        FAST's target for a word of the window, and the node its page is on for one far
 *                        from both (a cold part may hold the spare room beside the window: DAMON reads
 *                        cold parts at 0.4 now and then);
 *                        the data intact (the block's sum of words) and the block still the
 *                        arena's at the same address.
 *
 * Exit 0 ok, 1 a check failed, 2 setup error, 77 no heat source works here, or the host starved
 * the phases of CPU (said why).
 */
#include "page_nodes.h"
#include "still_scan.h"
#include "work_phase.h"

#include <loci.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (1u << 20)
#define BLOCK (64u * MiB)
#define WORDS (BLOCK / sizeof(uint64_t))
#define WINDOW (12u * MiB)
#define BUDGET (16u * MiB)
#define INTERVAL_MS 400
#define RESIDENCY 0.9

static int failures, starved;
#define COLD (16u * MiB)

static uint64_t *w, *cold, updates;
static int block_nodes[BLOCK / 4096], cold_nodes[COLD / 4096];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "vm_parts: %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t tiering_intervals(void)
{
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    return tot.intervals;
}

/* Pages of [from, from+bytes) of memory whose pages' nodes are nodes[]: on `node`, and mapped at all. */
static void count(const int *nodes, size_t from, size_t bytes, int node, size_t *on, size_t *mapped)
{
    *on = *mapped = 0;
    for (size_t i = from / 4096; i < (from + bytes) / 4096; i++) {
        *mapped += nodes[i] >= 0;
        *on += nodes[i] == node;
    }
}

/* Where every page of both arenas is (still_scan's arg: none). false: move_pages failed. */
static bool scan_both(void *arg)
{
    (void)arg;
    return page_nodes(w, BLOCK, block_nodes) == 0 && page_nodes(cold, COLD, cold_nodes) == 0;
}

static int node_of(const loci_target_t *t)
{
    loci_target_info_t info = {.numa_node = -1};
    if (t)
        loci_target_info(t, &info);
    return info.numa_node;
}

/* A word of the block: the node loci_ptr_target names for it, the node its page is on. */
typedef struct {
    const uint64_t *word;
    int said, is;
} word_place_t;

static bool scan_word(void *arg)
{
    word_place_t *p = arg;
    p->said = node_of(loci_ptr_target(p->word));
    /* the faults source unmaps the pages it samples for its window (the page stays on its node,
     * in the page cache): a read maps it back, and a page sampled again meanwhile is read again */
    for (int tries = 0; tries < 10; tries++) {
        (void)*(volatile const uint64_t *)p->word;
        if (page_nodes(p->word, sizeof *p->word, &p->is) != 0)
            return false;
        if (p->is >= 0)
            break;
    }
    return true;
}

/* One phase: updates to the window at `at`, the placement checked every INTERVAL_MS. */
static void phase(const char *name, size_t at, int fast, uint64_t *seed)
{
    work_phase_t p;
    work_phase_begin(&p, INTERVAL_MS / 1e3, tiering_intervals(), updates);
    double next = INTERVAL_MS / 1e3;
    size_t peak = 0, on = 0, mapped = 0;
    while (work_phase_goes_on(&p)) {
        for (int i = 0; i < 1000; i++) {
            uint64_t r = rng(seed);
            size_t k = r % 10 < 9 ? at / 8 + (r >> 8) % (WINDOW / 8) : (r >> 8) % WORDS;
            w[k]++;
        }
        updates += 1000;
        usleep(10000);
        if (work_phase_seconds(&p) < next)
            continue;
        next += INTERVAL_MS / 1e3;
        work_phase_update(&p, tiering_intervals(), updates);
        if (!still_scan(scan_both, NULL)) {
            CHECK(false, "%s: move_pages failed", name);
            break;
        }
        size_t all, cold_on, all_mapped;
        count(block_nodes, 0, BLOCK, fast, &all, &all_mapped);
        count(cold_nodes, 0, COLD, fast, &cold_on, &all_mapped);
        all = (all + cold_on) * 4096;
        peak = all > peak ? all : peak;
        CHECK(all <= BUDGET, "%s: %zu bytes of the auto arenas on node %d, over its budget of %u", name, all, fast,
              BUDGET);
        count(block_nodes, at, WINDOW, fast, &on, &mapped);
        bool placed = mapped * 2 >= WINDOW / 4096 && (double)on >= RESIDENCY * (double)mapped;
        if (!work_phase_check(&p, placed))
            CHECK(false, "%s: the window left node %d again", name, fast);
    }
    work_phase_verdict_t outcome = work_phase_verdict(&p);
    if (outcome == WORK_PHASE_STARVED) {
        printf("     %s: starved: %llu intervals of work in %.1f s: no verdict\n", name, (unsigned long long)p.done,
               work_phase_seconds(&p));
        starved++;
    }
    CHECK(outcome == WORK_PHASE_IN_TIME || outcome == WORK_PHASE_STARVED,
          "%s: %.0f %% of the window not on node %d within %d of tiering's intervals (%s): %zu of its %zu mapped "
          "pages there", name, 100 * RESIDENCY, fast, DEADLINE_INTERVALS,
          outcome == WORK_PHASE_NEVER ? "never" : "later", on, mapped);
    printf("     %s: window on node %d after %ld of tiering's intervals; %zu of its %zu mapped pages there at the "
           "end; at most %zu bytes of the auto arenas there\n", name, fast, p.placed_at, on, mapped, peak);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: vm_parts FAST SLOW\n");
        return 2;
    }
    int fast = atoi(argv[1]), slow = atoi(argv[2]);
    char config[] = "/tmp/vm_parts-XXXXXX";
    int fd = mkstemp(config);
    if (fd < 0)
        return 2;
    dprintf(fd, "[tiering]\ninterval = %dms\n[target fast]\nnuma_node = %d\ntiering_budget = %u\n", INTERVAL_MS, fast,
            BUDGET);
    close(fd);
    setenv("LOCI_CONFIG", config, 1);
    loci_arena_t *filler = loci_init() == 0 ? loci_arena_create("bandwidth=high,tier=auto", 0) : NULL;
    cold = filler ? loci_arena_alloc(filler, COLD) : NULL;
    if (cold)
        memset(cold, 1, COLD);
    loci_arena_t *ar = cold ? loci_arena_create("bandwidth=high,tier=auto", 0) : NULL;
    w = ar ? loci_arena_alloc(ar, BLOCK) : NULL;
    if (!w) {
        fprintf(stderr, "vm_parts: setup: %s\n", loci_last_error());
        return 2;
    }
    uint64_t sum0 = 0;
    for (uint64_t k = 0; k < WORDS; k++)
        sum0 += w[k] = k * 7919u;
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    if (!strcmp(tot.source, "none")) {
        fprintf(stderr, "vm_parts: skipped: no heat source works in this kernel (see loci's warning above)\n");
        return 77;
    }
    printf("     heat source: %s\n", tot.source);
    CHECK(node_of(loci_arena_target(filler)) == fast, "the cold arena starts on node %d, not on node %d",
          node_of(loci_arena_target(filler)), fast);
    CHECK(node_of(loci_arena_target(ar)) == slow, "the arena starts on node %d, not on node %d (the fast one's "
          "budget is taken)", node_of(loci_arena_target(ar)), slow);

    uint64_t seed = 88172645463325252ull;
    size_t first = 8u * MiB, second = 40u * MiB;
    phase("phase 1", first, fast, &seed);
    phase("phase 2", second, fast, &seed);
    word_place_t mid = {.word = w + second / 8 + WINDOW / 16}, last = {.word = w + WORDS - 1};
    CHECK(still_scan(scan_word, &mid) && still_scan(scan_word, &last), "move_pages failed");
    CHECK(mid.said == fast && mid.is == fast, "loci_ptr_target of a word of the window says node %d, its page is on "
          "node %d, not %d", mid.said, mid.is, fast);
    CHECK(last.said == last.is, "loci_ptr_target of the block's last word says node %d, its page is on node %d",
          last.said, last.is);
    CHECK(node_of(loci_arena_target(ar)) == slow, "the arena moved whole to node %d", node_of(loci_arena_target(ar)));

    uint64_t sum = 0;
    for (uint64_t k = 0; k < WORDS; k++)
        sum += w[k];
    CHECK(sum == sum0 + updates, "the block's data changed besides the updates");
    CHECK(loci_arena_of(w + WORDS / 2) == ar, "the block is no longer its arena's");
    loci_tier_totals(&tot);
    printf("     %llu moves, %llu B promoted, %llu B demoted, %llu B moved back within 10 intervals\n",
           (unsigned long long)tot.moves, (unsigned long long)tot.bytes_promoted,
           (unsigned long long)tot.bytes_demoted, (unsigned long long)tot.bytes_pingpong);
    CHECK(!tot.paused, "tiering paused: the heat source stopped working");
    loci_arena_destroy(ar);
    loci_arena_destroy(filler);
    unlink(config);
    if (failures)
        return 1;
    return starved ? work_phase_skip("vm_parts", starved) : 0;
}
