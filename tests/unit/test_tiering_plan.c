/*
 * The tiering plan (src/tiering/plan.c) as plain data: hot arenas fill the
 * best target up to its room, the rest go down; hysteresis (margin, minimum
 * residence) keeps near-ties from swapping; an arena without heat is never
 * promoted; a promotion waits as long as its move takes (rent or buy); the
 * rate limit's allowance bounds each interval's moves; demotions come first.
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

/* Arenas that may use FAST then SLOW, each 4 MiB, where `at` says (0 fast,
 * 1 slow), long settled. */
static void arenas(plan_arena_t *a, const double *heat, const int *at, int n)
{
    for (int i = 0; i < n; i++)
        a[i] = (plan_arena_t){.bytes = 4 * MiB, .heat = heat[i], .at = at[i], .ncandidates = 2,
                              .cand = {FAST, SLOW}, .residence = 100};
}

static plan_params_t params(void)
{
    return (plan_params_t){.margin = 0.25, .gap = 0.1, .min_residence = 3, .seconds_per_byte = 1e-9, .interval_s = 0.2,
                           .allowance = 1ll << 40};
}

static size_t plan(const plan_arena_t *a, int n, uint64_t fast_room, const plan_params_t *p, plan_move_t *m)
{
    plan_target_t t[NT] = {{fast_room, 0}, {1ull << 40, 0}};
    double rent[16] = {0};
    return plan_make(a, (size_t)n, t, NT, p, rent, m);
}

static void hottest_fill_the_fast_target(void **state)
{
    (void)state;
    plan_arena_t a[4];
    arenas(a, (double[]){0.9, 0.1, 0.8, 0.0}, (int[]){1, 1, 1, 1}, 4);
    plan_move_t m[4];
    plan_params_t p = params();
    assert_int_equal(plan(a, 4, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 0); /* hottest first */
    assert_int_equal(m[1].arena, 2);
    assert_int_equal(m[0].target, FAST);
    assert_true(m[0].promotion && m[1].promotion);
}

static void demotions_make_room_first(void **state)
{
    (void)state;
    plan_arena_t a[3];
    arenas(a, (double[]){0.3, 0.2, 0.9}, (int[]){0, 0, 1}, 3);
    plan_move_t m[3];
    plan_params_t p = params();
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 1); /* the coldest incumbent goes down first ... */
    assert_int_equal(m[0].target, SLOW);
    assert_false(m[0].promotion);
    assert_int_equal(m[1].arena, 2); /* ... so that the hot one fits */
    assert_int_equal(m[1].target, FAST);
}

static void a_margin_keeps_incumbents(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    arenas(a, (double[]){0.5, 0.5, 0.7}, (int[]){0, 0, 1}, 3); /* 40 % hotter, 0.2 more: not enough */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 0);
    arenas(a, (double[]){0.5, 0.5, 0.75}, (int[]){0, 0, 1}, 3); /* over 25 % and 0.1 more: takes a place */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    arenas(a, (double[]){0.05, 0.05, 0.12}, (int[]){0, 0, 1}, 3); /* cold ones: twice as hot is noise */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 0);
    arenas(a, (double[]){0.0, 0.0, 0.0}, (int[]){0, 0, 1}, 3); /* all cold: nothing swaps for nothing */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 0);
}

/* Arenas of one true heat read apart by their noise: in the bench's cold
 * arenas under DAMON, 0.0-0.45 around 0.18, each interval. A challenger
 * must be hotter beyond both arenas' spreads, or equals trade places for
 * ever (ping-pong); a hot set that really changed is far beyond them. */
static void equals_within_their_noise_keep_their_places(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    arenas(a, (double[]){0.5, 0.1, 0.45}, (int[]){0, 0, 1}, 3); /* without noise: 0.45 > 0.1 * 1.25 + 0.1 */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    p.noise = 1;
    for (int i = 0; i < 3; i++)
        a[i].spread = 0.15;
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 0); /* 0.45 - 0.15 < (0.1 + 0.15) * 1.25 + 0.1 */
    a[2].heat = 0.85; /* a hot set that changed: 0.7 > 0.4125 */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 1); /* the cold incumbent makes the room */
    assert_int_equal(m[1].arena, 2);
    a[2].heat = 0.45; /* an arena whose heat is steady: no noise to see through */
    a[1].spread = a[2].spread = 0;
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
}

static void recent_moves_stay(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    arenas(a, (double[]){0.1, 0.2, 0.9}, (int[]){0, 0, 1}, 3);
    a[0].residence = a[1].residence = 2; /* both just arrived */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 0);
    a[0].residence = 3;
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 0);
}

/* Of incumbents that read alike, the one held longest makes the room: moving back the one a move
 * gave lately (within `settle` intervals) would be ping-pong; a cold arena promoted into spare
 * room went back 7 intervals later when a newcomer's floor took the room (node test, 6.12). */
static void of_equals_the_place_held_longest_goes(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    p.settle = 10;
    arenas(a, (double[]){0.1, 0.09, 0.9}, (int[]){0, 0, 1}, 3);
    a[1].residence = 7; /* a move gave it its place lately */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 0);
    assert_false(m[0].promotion);
    assert_int_equal(m[1].arena, 2);
    a[1].residence = 11; /* settled: the colder goes */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 1);
    a[1].residence = 7;
    a[1].heat = 0.0; /* plainly colder: a settling place is no shield */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 2);
    assert_int_equal(m[0].arena, 1);
}

static void no_heat_no_promotion(void **state)
{
    (void)state;
    plan_arena_t a[2];
    plan_move_t m[2];
    plan_params_t p = params();
    arenas(a, (double[]){0.0, 0.0}, (int[]){1, 1}, 2);
    assert_int_equal(plan(a, 2, 64 * MiB, &p, m), 0);
}

static void over_budget_goes_down(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    arenas(a, (double[]){0.4, 0.2, 0.3}, (int[]){0, 0, 0}, 3); /* 12 MiB where 8 may be */
    assert_int_equal(plan(a, 3, 8 * MiB, &p, m), 1);
    assert_int_equal(m[0].arena, 1);
    assert_int_equal(m[0].target, SLOW);
}

static void too_big_skips_to_the_next(void **state)
{
    (void)state;
    plan_arena_t a[2];
    plan_move_t m[2];
    plan_params_t p = params();
    arenas(a, (double[]){0.9, 0.5}, (int[]){1, 1}, 2);
    a[0].bytes = 16 * MiB; /* hottest, but does not fit: the next one gets the room */
    assert_int_equal(plan(a, 2, 8 * MiB, &p, m), 1);
    assert_int_equal(m[0].arena, 1);
    /* fits nowhere at all: stays where it is */
    plan_target_t t[NT] = {{8 * MiB, 0}, {8 * MiB, 0}};
    double rent[2] = {0};
    arenas(a, (double[]){0.9, 0.5}, (int[]){1, 1}, 2);
    a[0].bytes = a[1].bytes = 16 * MiB;
    assert_int_equal(plan_make(a, 2, t, NT, &p, rent, m), 0);
}

static void the_rate_limit_bounds_an_interval(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    arenas(a, (double[]){0.9, 0.8, 0.7}, (int[]){1, 1, 1}, 3);
    p.allowance = 4 * MiB;
    assert_int_equal(plan(a, 3, 64 * MiB, &p, m), 1);
    assert_int_equal(m[0].arena, 0);
    p.allowance = 1; /* a little left: one more move, the rest next interval (a debt carried) */
    assert_int_equal(plan(a, 3, 64 * MiB, &p, m), 1);
    p.allowance = 0;
    assert_int_equal(plan(a, 3, 64 * MiB, &p, m), 0);
}

static void a_slow_move_waits_as_long_as_it_takes(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    /* a move of 4 MiB takes 0.45 s; at heat 0.9 the rent is 0.16 s an interval of 0.2 s (the gap
     * of 0.1 taken off) */
    p.seconds_per_byte = 0.45 / (4.0 * MiB);
    arenas(a, (double[]){0.2, 0.1, 0.9}, (int[]){0, 0, 1}, 3);
    plan_target_t t[NT] = {{8 * MiB, 0}, {1ull << 40, 0}};
    double rent[3] = {0};
    assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 0); /* and nobody is demoted for it yet */
    assert_true(rent[2] > 0.159 && rent[2] < 0.161);
    assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 0);
    assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 2); /* 3 x 0.16 s >= 0.45 s */
    assert_int_equal(m[0].arena, 1);
    assert_int_equal(m[1].arena, 2);
    /* it cools meanwhile: the wait starts over */
    rent[2] = 0.4;
    a[2].heat = 0.1;
    assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 0);
    assert_true(rent[2] == 0);
    /* colder: longer (0.07 s an interval at 0.45) */
    a[2].heat = 0.45;
    int calls = 0;
    while (plan_make(a, 3, t, NT, &p, rent, m) == 0 && calls < 10)
        calls++;
    assert_int_equal(calls, 6); /* the seventh pays 0.49 s */
}

/* The room a promotion that must wait leaves goes to no colder arena that
 * has not paid its own rent: placed again without the hot one, the
 * lukewarm one took the place at no price (node test, 2026-11-30: promoted
 * with no rent, moved back within 3 intervals). */
static void room_left_by_a_waiting_promotion_is_not_free(void **state)
{
    (void)state;
    plan_arena_t a[2];
    plan_move_t m[2];
    plan_params_t p = params();
    p.seconds_per_byte = 0.45 / (4.0 * MiB); /* 0.45 s: at heat 0.9 three intervals, at 0.3 twelve */
    arenas(a, (double[]){0.9, 0.3}, (int[]){1, 1}, 2);
    plan_target_t t[NT] = {{4 * MiB, 0}, {1ull << 40, 0}};
    double rent[2] = {0};
    assert_int_equal(plan_make(a, 2, t, NT, &p, rent, m), 0);
    assert_true(rent[0] > 0.159 && rent[0] < 0.161);
    assert_true(rent[1] > 0.039 && rent[1] < 0.041); /* it wanted the place too, once, and paid for it */
    assert_int_equal(plan_make(a, 2, t, NT, &p, rent, m), 0);
    assert_int_equal(plan_make(a, 2, t, NT, &p, rent, m), 1); /* the hot one, paid up */
    assert_int_equal(m[0].arena, 0);
    assert_int_equal(m[0].target, FAST);
}

/* A floor the node's share owes this process (ledger.c) is due at once: a
 * cold arena's rent would take tens of intervals; beyond the floor, rent. */
static void a_floor_pays_no_rent(void **state)
{
    (void)state;
    plan_arena_t a[3];
    plan_move_t m[3];
    plan_params_t p = params();
    p.seconds_per_byte = 0.5 / (4.0 * MiB); /* at heat 0.05 a move pays for itself in 50 intervals */
    arenas(a, (double[]){0.05, 0.05, 0.04}, (int[]){1, 1, 1}, 3);
    plan_target_t t[NT] = {{12 * MiB, 4 * MiB}, {1ull << 40, 0}};
    double rent[3] = {0};
    assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 1);
    assert_int_equal(m[0].arena, 0);
    assert_int_equal(m[0].target, FAST);
    assert_true(m[0].promotion);
    /* held there now: the floor is met; beyond it, rent: the others read within the gap and pay
     * none, however long they wait, while a warmer one pays */
    a[0].at = 0;
    a[0].residence = 0;
    for (int i = 0; i < 100; i++)
        assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 0);
    assert_true(rent[1] == 0 && rent[2] == 0);
    a[1].heat = 0.3;
    assert_int_equal(plan_make(a, 3, t, NT, &p, rent, m), 0);
    assert_true(rent[1] > 0);
}

/* The node test's terms under TCG: intervals of 0.4 s, noise counted once, a
 * move of 4 MiB taking `move_s`. */
static plan_params_t paying_rent(double move_s)
{
    plan_params_t p = params();
    p.noise = 1;
    p.interval_s = 0.4;
    p.seconds_per_byte = move_s / (4.0 * MiB);
    return p;
}

/* A lukewarm arena whose reading lies within its noise and the gap pays no
 * rent, spare room or not: promoted into spare room, such arenas went back
 * as soon as a hot set wanted it (node test on 6.1, 2026-11-30: heat 0.131
 * ± 0.041 promoted after 2 intervals, demoted when its process's hot set
 * began). A hot one pays at once. */
static void a_reading_within_the_gap_pays_no_rent(void **state)
{
    (void)state;
    plan_arena_t a[2];
    plan_move_t m[2];
    plan_params_t p = paying_rent(0.047);
    arenas(a, (double[]){0.131, 0.5}, (int[]){1, 1}, 2);
    a[0].spread = 0.041;
    a[1].spread = 0.15;
    a[1].at = 0; /* the hot one already there: the lukewarm one alone wants spare room */
    plan_target_t t[NT] = {{12 * MiB, 0}, {1ull << 40, 0}};
    double rent[2] = {0};
    for (int i = 0; i < 50; i++)
        assert_int_equal(plan_make(a, 2, t, NT, &p, rent, m), 0);
    assert_true(rent[0] == 0);
    a[0].heat = 0.5; /* hot now: its rent pays the move in one interval */
    a[0].spread = 0.15;
    assert_int_equal(plan_make(a, 2, t, NT, &p, rent, m), 1);
    assert_int_equal(m[0].arena, 0);
    assert_int_equal(m[0].target, FAST);
}

/* Rent is paid on the heat held two intervals in a row: a cold arena whose
 * reading strays up for one interval pays from the heat before it (node test,
 * 6.1: 0.28 +- 0.08 where it reads 0.2, into room just freed, moved back when
 * its process's hot arena wanted it an interval later); held a second
 * interval, it pays. */
static void rent_counts_a_rise_from_the_interval_after(void **state)
{
    (void)state;
    plan_arena_t a[1];
    plan_move_t m[1];
    plan_params_t p = paying_rent(0.037);
    arenas(a, (double[]){0.28}, (int[]){1}, 1);
    a[0].spread = 0.078;
    a[0].rise = 0.08; /* from 0.2 */
    plan_target_t t[NT] = {{8 * MiB, 0}, {1ull << 40, 0}};
    double rent[1] = {0};
    assert_int_equal(plan_make(a, 1, t, NT, &p, rent, m), 0); /* (0.2 - 0.078 - 0.1) x 0.4 s */
    assert_true(rent[0] > 0.008 && rent[0] < 0.009);
    a[0].rise = 0; /* held */
    assert_int_equal(plan_make(a, 1, t, NT, &p, rent, m), 1);
    assert_int_equal(m[0].target, FAST);
}

static void three_tiers_in_order(void **state)
{
    (void)state;
    /* candidates HBM, DRAM, CXL with room for one 4 MiB arena on each of the first two */
    plan_arena_t a[3];
    for (int i = 0; i < 3; i++)
        a[i] = (plan_arena_t){.bytes = 4 * MiB, .heat = 0.3 * (i + 1), .at = 2, .ncandidates = 3,
                              .cand = {0, 1, 2}, .residence = 100};
    plan_target_t t[3] = {{4 * MiB, 0}, {4 * MiB, 0}, {1ull << 40, 0}};
    double rent[3] = {0};
    plan_move_t m[3];
    plan_params_t p = params();
    assert_int_equal(plan_make(a, 3, t, 3, &p, rent, m), 2);
    assert_int_equal(m[0].arena, 2);
    assert_int_equal(m[0].target, 0);
    assert_int_equal(m[1].arena, 1);
    assert_int_equal(m[1].target, 1);
}

/* Three tiers, the top one full of an arena at 0.2 +- 0.1: one at 0.45 +- 0.1 on the middle tier
 * challenges it as one on the lowest would — its spread counted down, the incumbent's up (0.35
 * against 0.3 * 1.25 + 0.1) — and stays; counted up as the middle tier's incumbent it took the
 * place (0.55 * 1.25 + 0.1 against (0.3 * 1.25 + 0.1) * 1.25 + 0.1), and cold arenas of the node
 * test traded places so. Hotter beyond both noises and the margin, it goes up. */
/* Three tiers of 4 MiB, 4 MiB and plenty: a[0] (heat +- spread, top[]) on the top one, a[1]
 * (middle[]) on the middle one, each 4 MiB. */
static void top_and_middle(plan_arena_t a[2], const double top[2], const double middle[2])
{
    for (int i = 0; i < 2; i++)
        a[i] = (plan_arena_t){.bytes = 4 * MiB, .heat = i ? middle[0] : top[0], .spread = i ? middle[1] : top[1],
                              .at = i, .ncandidates = 3, .cand = {0, 1, 2}, .residence = 100};
}

/* plan_make for top_and_middle's arenas, one spread of noise, their rent paid. */
static size_t plan_three(const plan_arena_t a[2], plan_move_t m[2])
{
    plan_target_t t[3] = {{4 * MiB, 0}, {4 * MiB, 0}, {1ull << 40, 0}};
    double rent[2] = {1, 1};
    plan_params_t p = params();
    p.noise = 1;
    return plan_make(a, 2, t, 3, &p, rent, m);
}

static void a_challenger_from_the_middle_counts_its_noise_down(void **state)
{
    (void)state;
    plan_arena_t a[2];
    top_and_middle(a, (const double[2]){0.2, 0.1}, (const double[2]){0.45, 0.1});
    plan_move_t m[2];
    assert_int_equal(plan_three(a, m), 0);
    a[1].heat = 0.6; /* 0.5 against 0.475 */
    assert_int_equal(plan_three(a, m), 2);
    assert_int_equal(m[1].arena, 1);
    assert_int_equal(m[1].target, 0);
}

/* Three tiers, the top one full of an arena at 0.3 +- 0.25: one at 0.95 +- 0.05 on the middle tier
 * takes its place — each counted by its own spread, once, against the other (0.9 against 0.55 *
 * 1.25 + 0.1 = 0.79). When a claim added two spreads for each tier, the top's incumbent counted
 * three of its own up and the challenger one of its own up: 1.71 against 1.41, and no arena on
 * the middle tier, whatever its heat (at most 1), could take the place of a noisy cold one on the
 * top (vm_parts: a cold part held the fast node against the hot window). Noisier, the challenger
 * waits (0.65). */
static void a_noisy_cold_incumbent_yields_to_a_steady_hot_challenger(void **state)
{
    (void)state;
    plan_arena_t a[2];
    top_and_middle(a, (const double[2]){0.3, 0.25}, (const double[2]){0.95, 0.05});
    plan_move_t m[2];
    assert_int_equal(plan_three(a, m), 2);
    assert_int_equal(m[0].arena, 0); /* past the full middle tier (a swap) */
    assert_int_equal(m[0].target, 2);
    assert_int_equal(m[1].arena, 1);
    assert_int_equal(m[1].target, 0);
    a[1].spread = 0.3;
    assert_int_equal(plan_three(a, m), 0);
}

/* A hot arena on the middle tier, a cold one on the fast tier, both full:
 * the swap cannot be made in either order (each move waits for the other's
 * room), so the cold one goes on down to the slow tier, and the hot one up. */
static void a_swap_between_full_tiers_goes_further_down(void **state)
{
    (void)state;
    plan_arena_t a[3];
    const double heat[3] = {0.1, 0.9, 0.05};
    for (int i = 0; i < 3; i++)
        a[i] = (plan_arena_t){.bytes = 4 * MiB, .heat = heat[i], .at = i, .ncandidates = 3, .cand = {0, 1, 2},
                              .residence = 100};
    plan_target_t t[3] = {{4 * MiB, 0}, {4 * MiB, 0}, {1ull << 40, 0}};
    double rent[3] = {0};
    plan_move_t m[3];
    plan_params_t p = params();
    assert_int_equal(plan_make(a, 3, t, 3, &p, rent, m), 2);
    assert_int_equal(m[0].arena, 0); /* the cold one, past the full middle tier */
    assert_int_equal(m[0].target, 2);
    assert_false(m[0].promotion);
    assert_int_equal(m[1].arena, 1);
    assert_int_equal(m[1].target, 0);
    assert_true(m[1].promotion);
}

/* A middle tier without room (a budget of 0: out of play) is no tier: an arena on the top one
 * holds its place against one from the lowest with one tier's hysteresis, not two. A hot arena
 * at 0.6 +- 0.16 (0.44 counted down) takes the place of a cold one at 0.07 +- 0.06 ((0.07 + 0.06)
 * * 1.25 + 0.1 = 0.26 counted up once; twice, 0.58: bench/tiering/node.sh, its node 1 out of play,
 * where a newly hot arena waited 5 intervals so). */
static void a_tier_without_room_is_no_tier(void **state)
{
    (void)state;
    plan_arena_t a[2];
    for (int i = 0; i < 2; i++)
        a[i] = (plan_arena_t){.bytes = 4 * MiB, .heat = i ? 0.6 : 0.07, .spread = i ? 0.16 : 0.06, .at = i ? 2 : 0,
                              .ncandidates = 3, .cand = {0, 1, 2}, .residence = 100};
    plan_target_t t[3] = {{4 * MiB, 0}, {0, 0}, {1ull << 40, 0}};
    double rent[2] = {0};
    plan_move_t m[2];
    plan_params_t p = params();
    p.noise = 1;
    assert_int_equal(plan_make(a, 2, t, 3, &p, rent, m), 2);
    assert_int_equal(m[0].arena, 0);
    assert_int_equal(m[0].target, 2);
    assert_int_equal(m[1].arena, 1);
    assert_int_equal(m[1].target, 0);
}

/* Three tiers, two arenas on the top one, room there for one now: the colder goes, however noisy.
 * Counted up by its own spread, a cold arena at 0.073 +- 0.2 claims (0.273 * 1.25 + 0.1) * 1.25
 * + 0.1 = 0.65 against a warmer one's 0.58 at 0.179 +- 0.051 (at 0.073 +- 0.099, when claims
 * added two spreads a tier, 0.74 against 0.71: the process gave up the warmer place, which came
 * back — ping-pong, node test, 6.1). The claims a tier holds against challengers are dealt out by
 * heat: a challenger from below still faces the same two. */
static void of_incumbents_the_coldest_goes_however_noisy(void **state)
{
    (void)state;
    plan_arena_t a[3];
    const double heat[2] = {0.073, 0.179}, spread[2] = {0.2, 0.051};
    for (int i = 0; i < 2; i++)
        a[i] = (plan_arena_t){.bytes = 4 * MiB, .heat = heat[i], .spread = spread[i], .at = 0,
                              .ncandidates = 3, .cand = {0, 1, 2}, .residence = 100};
    plan_target_t t[3] = {{4 * MiB, 0}, {4 * MiB, 0}, {1ull << 40, 0}};
    double rent[3] = {1, 1, 1};
    plan_move_t m[3];
    plan_params_t p = params();
    p.noise = 1;
    p.settle = 10;
    assert_int_equal(plan_make(a, 2, t, 3, &p, rent, m), 1);
    assert_int_equal(m[0].arena, 0);
    assert_int_equal(m[0].target, 1);
    a[1].residence = 5; /* the warmer one settling: still the colder goes */
    assert_int_equal(plan_make(a, 2, t, 3, &p, rent, m), 1);
    assert_int_equal(m[0].arena, 0);
    /* room for both on top: a challenger from the lowest tier faces the same two claims as
     * before, 0.65 (now the warmer's) and 0.58 (now the colder's) — and takes the colder's place */
    t[0].room = 8 * MiB;
    a[1].residence = 100;
    a[2] = (plan_arena_t){.bytes = 4 * MiB, .heat = 0.63, .spread = 0.05, .at = 1, .ncandidates = 2, .cand = {0, 2},
                          .residence = 100};
    assert_int_equal(plan_make(a, 3, t, 3, &p, rent, m), 0); /* 0.58 against 0.58 */
    a[2].heat = 0.65;
    assert_int_equal(plan_make(a, 3, t, 3, &p, rent, m), 2);
    assert_int_equal(m[0].arena, 0);
    assert_int_equal(m[0].target, 1);
    assert_int_equal(m[1].arena, 2);
    assert_int_equal(m[1].target, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hottest_fill_the_fast_target),
        cmocka_unit_test(demotions_make_room_first),
        cmocka_unit_test(a_margin_keeps_incumbents),
        cmocka_unit_test(equals_within_their_noise_keep_their_places),
        cmocka_unit_test(recent_moves_stay),
        cmocka_unit_test(no_heat_no_promotion),
        cmocka_unit_test(over_budget_goes_down),
        cmocka_unit_test(too_big_skips_to_the_next),
        cmocka_unit_test(the_rate_limit_bounds_an_interval),
        cmocka_unit_test(a_slow_move_waits_as_long_as_it_takes),
        cmocka_unit_test(room_left_by_a_waiting_promotion_is_not_free),
        cmocka_unit_test(a_floor_pays_no_rent),
        cmocka_unit_test(a_reading_within_the_gap_pays_no_rent),
        cmocka_unit_test(rent_counts_a_rise_from_the_interval_after),
        cmocka_unit_test(three_tiers_in_order),
        cmocka_unit_test(a_swap_between_full_tiers_goes_further_down),
        cmocka_unit_test(a_challenger_from_the_middle_counts_its_noise_down),
        cmocka_unit_test(a_noisy_cold_incumbent_yields_to_a_steady_hot_challenger),
        cmocka_unit_test(a_tier_without_room_is_no_tier),
        cmocka_unit_test(of_equals_the_place_held_longest_goes),
        cmocka_unit_test(of_incumbents_the_coldest_goes_however_noisy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
