/*
 * What tiering keeps of an arena's heat from interval to interval
 * (src/tiering/registry.c, tiering_track_heat): the smoothed heat and its
 * spread (noise). A hot set that moves is a step in heat: it must read as
 * noise for an interval, not for as long as the smoothed heat lags behind
 * (the plan would hold the old hot set in place on its noise alone); noise
 * itself must read as noise, of the size it has. An incumbent's held heat
 * falls slower than its heat.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tiering/tiering.h"

#include <math.h>

static tier_track_t after(const double *heat, int n)
{
    tier_track_t k = {0};
    for (int i = 0; i < n; i++)
        tiering_track_heat(&k, heat[i]);
    return k;
}

/* A step from 0.05 to 0.75: the heat follows within 3 intervals, and the spread a step gives fades
 * from the next interval on — 5 intervals later it is under 0.06 (fed the smoothed heat's lag,
 * 0.11 then: the plan counts an incumbent two spreads up a tier). */
static void a_step_reads_as_noise_once(void **state)
{
    (void)state;
    double heat[16];
    for (int i = 0; i < 16; i++)
        heat[i] = i < 10 ? 0.05 : 0.75;
    tier_track_t k = after(heat, 10);
    assert_true(k.spread < 1e-9);
    k = after(heat, 11);
    double first = k.spread;
    assert_true(first > 0.05);
    k = after(heat, 13);
    assert_true(fabs(k.heat - 0.75) < 0.1);
    assert_true(k.spread < first);
    k = after(heat, 16);
    assert_true(k.spread < 0.06);
}

/* Readings that alternate around 0.3 by +-0.1: steps of 0.2 each interval, read as a deviation
 * (0.2 * 0.8165 = 0.163), well above a step's trace; the heat stays near 0.3. */
static void noise_reads_as_noise(void **state)
{
    (void)state;
    double heat[64];
    for (int i = 0; i < 64; i++)
        heat[i] = i % 2 ? 0.4 : 0.2;
    tier_track_t k = after(heat, 64);
    assert_true(fabs(k.heat - 0.3) < 0.1);
    assert_true(k.spread > 0.15 && k.spread < 0.17);
}

/* An incumbent's held heat: up with the heat at once, down at half its rate — two intervals of a
 * starved process reading a third of its heat leave it above the heat by far — and the heat again
 * after a move (what it held before is no claim to its new place). */
static void a_held_heat_falls_at_half_the_rate(void **state)
{
    (void)state;
    double heat[12];
    for (int i = 0; i < 12; i++)
        heat[i] = i < 10 ? 0.5 : 0.15;
    tier_track_t k = after(heat, 10);
    assert_true(fabs(k.held - k.heat) < 1e-9);
    k = after(heat, 12);
    assert_true(k.heat < 0.26);        /* 0.5 -> 0.325 -> 0.2375 */
    assert_true(k.held > k.heat + 0.08); /* 0.5 -> 0.4125 -> 0.325 */
    tiering_track_moved(&k, NULL, NULL, 12, 10);
    assert_true(fabs(k.held - k.heat) < 1e-9);
    tiering_track_heat(&k, 0.9);
    assert_true(fabs(k.held - k.heat) < 1e-9);
}

/* The heat before the last reading is kept: the plan's rent counts a rise from the interval after. */
static void the_heat_before_a_reading_is_kept(void **state)
{
    (void)state;
    tier_track_t k = after((double[]){0.2, 0.2, 0.36}, 3);
    assert_true(fabs(k.before - 0.2) < 1e-9);
    assert_true(fabs(k.heat - 0.28) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_step_reads_as_noise_once),
        cmocka_unit_test(noise_reads_as_noise),
        cmocka_unit_test(a_held_heat_falls_at_half_the_rate),
        cmocka_unit_test(the_heat_before_a_reading_is_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
