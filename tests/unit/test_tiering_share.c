/*
 * The node's share (plan_share, src/tiering/plan.c) as plain data: the
 * node's hottest arenas win the fast target whoever allocated first, every
 * process keeps its floor, grants never add up to more than the node
 * budget, floors larger than the target are scaled down together, and a
 * process that leaves hands its share to the hottest arenas waiting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tiering/tiering.h"

#include <string.h>

#define MiB (1ull << 20)
enum { FAST, SLOW, NT };
#define MAXP 8

static plan_params_t params(void)
{
    return (plan_params_t){.margin = 0.25, .gap = 0.1, .min_residence = 3, .settle = 10, .seconds_per_byte = 1e-9,
                           .interval_s = 0.2, .allowance = 1ll << 40};
}

/* A settled 4 MiB arena that may use FAST then SLOW, on `at` (0 fast, 1 slow). */
static plan_arena_t arena(double heat, int at)
{
    return (plan_arena_t){.bytes = 4 * MiB, .heat = heat, .at = at, .ncandidates = 2, .cand = {FAST, SLOW},
                          .residence = 100};
}

/* grant[o][FAST] for processes 0..np-1, fast node budget `fast`, each process's fast floor `floor`. */
static void share(const plan_arena_t *a, const int *owner, size_t n, size_t np, uint64_t fast, uint64_t floor,
                  uint64_t grant[MAXP][NT])
{
    plan_target_t t[NT] = {{fast, 0}, {1ull << 40, 0}};
    uint64_t floors[MAXP * NT] = {0};
    for (size_t o = 0; o < np; o++)
        floors[o * NT + FAST] = floor;
    plan_params_t p = params();
    assert_true(plan_share(a, owner, n, t, NT, floors, np, &p, &grant[0][0]));
}

static uint64_t fast_total(uint64_t grant[MAXP][NT], size_t np)
{
    uint64_t sum = 0;
    for (size_t o = 0; o < np; o++)
        sum += grant[o][FAST];
    return sum;
}

static void hottest_win_whoever_came_first(void **state)
{
    (void)state;
    /* process 0 came first and holds the fast target with cold arenas; process 1's are hot */
    plan_arena_t a[] = {arena(0.05, 0), arena(0.04, 0), arena(0.9, 1), arena(0.8, 1)};
    int owner[] = {0, 0, 1, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 4, 2, 8 * MiB, 0, g);
    assert_int_equal(g[1][FAST], 8 * MiB);
    assert_int_equal(g[0][FAST], 0);
    assert_int_equal(g[0][SLOW], 8 * MiB);
}

static void incumbent_keeps_a_near_tie(void **state)
{
    (void)state;
    /* the incumbent's claim is raised as plan_make's: a challenger 10 % hotter does not take its place */
    plan_arena_t a[] = {arena(0.50, 0), arena(0.55, 1)};
    int owner[] = {0, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 2, 2, 4 * MiB, 0, g);
    assert_int_equal(g[0][FAST], 4 * MiB);
    assert_int_equal(g[1][FAST], 0);
}

static void floors_keep_every_process_from_starving(void **state)
{
    (void)state;
    /* process 1's arenas are all hotter, but process 0 keeps its floor (one arena) on the fast target */
    plan_arena_t a[] = {arena(0.2, 1), arena(0.1, 1), arena(0.9, 1), arena(0.8, 1), arena(0.7, 1)};
    int owner[] = {0, 0, 1, 1, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 5, 2, 12 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 4 * MiB); /* its hottest, up to its floor */
    assert_int_equal(g[1][FAST], 8 * MiB); /* the rest by heat */
    assert_int_equal(fast_total(g, 2), 12 * MiB);
}

static void a_floor_never_places_an_arena_lower_than_heat_would(void **state)
{
    (void)state;
    /* the slow target's floor holds everything, the fast one's nothing: the hot arena still goes fast */
    plan_arena_t a[] = {arena(0.9, 1), arena(0.0, 0)};
    int owner[] = {0, 0};
    plan_target_t t[NT] = {{4 * MiB, 0}, {1ull << 40, 0}};
    uint64_t floors[NT] = {[FAST] = 0, [SLOW] = 1ull << 40}, g[MAXP][NT];
    plan_params_t p = params();
    assert_true(plan_share(a, owner, 2, t, NT, floors, 1, &p, &g[0][0]));
    assert_int_equal(g[0][FAST], 4 * MiB);
    assert_int_equal(g[0][SLOW], 4 * MiB);
}

static void grants_never_exceed_the_node_budget(void **state)
{
    (void)state;
    /* eight processes of three arenas each, heats all over: the fast grants stay under the node budget */
    plan_arena_t a[24];
    int owner[24];
    for (int i = 0; i < 24; i++) {
        a[i] = arena((double)((i * 7) % 24) / 24.0, i % 3 == 0 ? 0 : 1);
        owner[i] = i / 3;
    }
    for (uint64_t budget = 0; budget <= 40 * MiB; budget += 6 * MiB) {
        uint64_t g[MAXP][NT];
        share(a, owner, 24, 8, budget, 3 * MiB, g);
        assert_true(fast_total(g, 8) <= budget);
        for (size_t o = 0; o < 8; o++) /* every arena granted somewhere */
            assert_int_equal(g[o][FAST] + g[o][SLOW], 12 * MiB);
    }
}

static void floors_larger_than_the_target_are_scaled_down(void **state)
{
    (void)state;
    /* four processes, each asking a floor of the whole target: each keeps a quarter */
    plan_arena_t a[8];
    int owner[8];
    for (int i = 0; i < 8; i++) {
        a[i] = arena(0.1 * (i + 1), 1);
        a[i].bytes = 2 * MiB;
        owner[i] = i / 2;
    }
    uint64_t g[MAXP][NT];
    share(a, owner, 8, 4, 8 * MiB, 64 * MiB, g);
    for (size_t o = 0; o < 4; o++)
        assert_int_equal(g[o][FAST], 2 * MiB); /* its hottest; the floors took the whole target */
    assert_int_equal(fast_total(g, 4), 8 * MiB);
}

static void a_process_leaving_frees_its_share_to_the_hottest_waiting(void **state)
{
    (void)state;
    plan_arena_t a[] = {arena(0.9, 0), arena(0.8, 0), arena(0.5, 1), arena(0.3, 1), arena(0.6, 1)};
    int owner[] = {0, 0, 1, 1, 2};
    uint64_t g[MAXP][NT];
    share(a, owner, 5, 3, 8 * MiB, 0, g);
    assert_int_equal(g[0][FAST], 8 * MiB);
    assert_int_equal(g[1][FAST] + g[2][FAST], 0);
    /* process 0 is gone: process 2's arena (0.6) and process 1's hottest (0.5) take its place */
    share(a + 2, owner + 2, 3, 3, 8 * MiB, 0, g);
    assert_int_equal(g[2][FAST], 4 * MiB);
    assert_int_equal(g[1][FAST], 4 * MiB);
}

static void recent_moves_count_where_they_are(void **state)
{
    (void)state;
    /* an arena that just moved to the fast target stays granted there, however cold */
    plan_arena_t a[] = {arena(0.01, 0), arena(0.9, 1)};
    a[0].residence = 1;
    int owner[] = {0, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 2, 2, 4 * MiB, 0, g);
    assert_int_equal(g[0][FAST], 4 * MiB);
    assert_int_equal(g[1][FAST], 0);
}

/* A newcomer's floor is not taken from places moves gave lately (node test,
 * 2026-11-30: the first workers filled the fast node's spare places, and
 * each newcomer's floor sent one back within 10 intervals); heat still
 * takes them. */
static void a_floor_waits_for_places_moves_gave_lately(void **state)
{
    (void)state;
    plan_arena_t a[] = {arena(0.1, 0), arena(0.1, 0), arena(0.1, 1), arena(0.1, 1)};
    a[0].residence = a[1].residence = 5; /* past the minimum residence, within the settling */
    int owner[] = {0, 0, 1, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 4, 2, 8 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 8 * MiB);
    assert_int_equal(g[1][FAST], 0);
    a[0].residence = a[1].residence = 11; /* settled: the floor is due */
    share(a, owner, 4, 2, 8 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 4 * MiB);
    assert_int_equal(g[1][FAST], 4 * MiB);
    a[0].residence = a[1].residence = 5;
    a[2].heat = 0.9; /* far hotter: heat takes a settling place */
    share(a, owner, 4, 2, 8 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 4 * MiB);
    assert_int_equal(g[1][FAST], 4 * MiB);
}

/* Of incumbents that read alike, the place a move gave lately stays and the
 * one held longest goes to the hot newcomer (moving back an arena that just
 * came would be ping-pong). */
static void of_equals_the_place_held_longest_goes(void **state)
{
    (void)state;
    plan_arena_t a[] = {arena(0.1, 0), arena(0.12, 0), arena(0.9, 1)};
    a[0].residence = 5;
    int owner[] = {0, 1, 2};
    uint64_t g[MAXP][NT];
    share(a, owner, 3, 3, 8 * MiB, 0, g);
    assert_int_equal(g[2][FAST], 4 * MiB);
    assert_int_equal(g[0][FAST], 4 * MiB);
    assert_int_equal(g[1][FAST], 0);
    a[0].residence = 11; /* settled: the colder goes */
    share(a, owner, 3, 3, 8 * MiB, 0, g);
    assert_int_equal(g[0][FAST], 0);
    assert_int_equal(g[1][FAST], 4 * MiB);
}

/* A process gives up its lowest-claimed place first, a place a move gave lately counting higher
 * (plan_make's claims): a floor due to a newcomer waits while that place is one a move gave lately,
 * though another of the process's places there is not (the floor taking that one would make the
 * process send the settling one back: ping-pong) — unless the settling one reads alike, and the
 * process would give the other. */
static void a_floor_waits_for_the_place_its_holder_would_give(void **state)
{
    (void)state;
    plan_arena_t a[] = {arena(0.9, 0), arena(0.3, 0), arena(0.01, 0), arena(0.1, 1)};
    a[2].residence = 6; /* the coldest of process 0's places: a move gave it lately */
    int owner[] = {0, 0, 0, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 4, 2, 12 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 12 * MiB);
    assert_int_equal(g[1][FAST], 0);
    a[2].residence = 11; /* settled: the floor is due */
    share(a, owner, 4, 2, 12 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 8 * MiB);
    assert_int_equal(g[1][FAST], 4 * MiB);
    a[1].heat = 0.073, a[2].heat = 0.054; /* alike: process 0 would give the place held longest */
    a[2].residence = 6;
    share(a, owner, 4, 2, 12 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 8 * MiB);
    assert_int_equal(g[1][FAST], 4 * MiB);
}

/* A newcomer's arenas stay where they are their first intervals (min_residence), but its floor on
 * the target they want is granted at once, so that the holder of its room starts giving it up: a
 * floor granted only once they might move reached the newcomer 6 intervals after it came (node
 * test, 6.1). A staying arena without heat wants nothing better, and holds no floor there. */
static void a_newcomer_s_floor_is_granted_while_its_arenas_stay(void **state)
{
    (void)state;
    plan_arena_t a[] = {arena(0.05, 0), arena(0.04, 0), arena(0.2, 1), arena(0.1, 1)};
    a[2].residence = a[3].residence = 1;
    int owner[] = {0, 0, 1, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 4, 2, 8 * MiB, 4 * MiB, g);
    assert_int_equal(g[1][FAST], 4 * MiB);
    assert_int_equal(g[0][FAST], 4 * MiB);
    a[2].heat = a[3].heat = 0;
    share(a, owner, 4, 2, 8 * MiB, 4 * MiB, g);
    assert_int_equal(g[1][FAST], 0);
    assert_int_equal(g[0][FAST], 8 * MiB);
}

/* A process that holds its floor already keeps no floor for an arena that stays (one a move demoted
 * 2 intervals before): process 1's floor went to its cold staying arena, its hot one on the fast
 * target was left to the heat pass, where its settling place out-claimed process 0's second hot
 * arena (0.784 +- 0.116 settling, 1.63, against 0.886 +- 0.108, 1.34), which went down for 3
 * intervals (node test, 6.1). Its floor is for its hot arena there, and process 0 keeps both. */
static void a_floor_held_is_kept_for_no_arena_that_stays(void **state)
{
    (void)state;
    plan_arena_t a[] = {arena(0.917, 0), arena(0.886, 0), arena(0.784, 0), arena(0.081, 1)};
    a[0].spread = a[1].spread = 0.108;
    a[2].spread = 0.116;
    a[3].spread = 0.06;
    a[2].residence = 3; /* settling */
    a[3].residence = 2; /* stays */
    int owner[] = {0, 0, 1, 1};
    uint64_t g[MAXP][NT];
    share(a, owner, 4, 2, 12 * MiB, 4 * MiB, g);
    assert_int_equal(g[0][FAST], 8 * MiB);
    assert_int_equal(g[1][FAST], 4 * MiB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hottest_win_whoever_came_first),
        cmocka_unit_test(incumbent_keeps_a_near_tie),
        cmocka_unit_test(floors_keep_every_process_from_starving),
        cmocka_unit_test(a_floor_never_places_an_arena_lower_than_heat_would),
        cmocka_unit_test(grants_never_exceed_the_node_budget),
        cmocka_unit_test(floors_larger_than_the_target_are_scaled_down),
        cmocka_unit_test(a_process_leaving_frees_its_share_to_the_hottest_waiting),
        cmocka_unit_test(recent_moves_count_where_they_are),
        cmocka_unit_test(a_floor_waits_for_places_moves_gave_lately),
        cmocka_unit_test(of_equals_the_place_held_longest_goes),
        cmocka_unit_test(a_floor_waits_for_the_place_its_holder_would_give),
        cmocka_unit_test(a_newcomer_s_floor_is_granted_while_its_arenas_stay),
        cmocka_unit_test(a_floor_held_is_kept_for_no_arena_that_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
