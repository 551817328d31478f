/*
 * tier=auto arenas as a user sees them (docs/TIERING.md), on a simulated
 * KNL (hbm0 = node 1 ranks first for bandwidth=high, dram0 = node 0;
 * placement recorded, not applied): where they start under the budget, the
 * plan's moves as heat changes (steps driven here with synthetic heat, the
 * thread's interval set to a minute so that it never steps meanwhile), the
 * data and addresses kept, the budget never passed, the counters
 * (loci_tier_stats, loci_tier_totals, LOCI_STATS), an arena whose target is
 * full moving down instead of failing, fork, and bad input: [tiering]
 * values, allocators and shared arenas with tier=auto. With this machine's
 * heat source (and as nobody, the dirty source): the thread follows measured
 * heat, and a hot arena's heat follows it across its moves — tiering's and
 * the program's — so that it stays the hottest. Real pages and a real heat
 * source: tests/vm/vm_tiering.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/child.h"
#include "support/scratch.h"
#include "tiering/tiering.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1ull << 20)
#define NARENAS 4
#define ARENA_BYTES (4 * MiB)

/* hbm0 may hold 8 MiB of auto arenas: two of the four */
static const char *const config = "[tiering]\ninterval = 60s\n[target hbm0]\nnuma_node = 1\ntiering_budget = 8MiB\n";

static const char *name_of(const loci_target_t *t)
{
    static __thread loci_target_info_t info;
    return t && loci_target_info(t, &info) == 0 ? info.name : "(none)";
}

typedef struct {
    loci_arena_t *ar[NARENAS];
    unsigned char *data[NARENAS];
} set_t;

static uint64_t checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; k += 509)
        h = (h ^ p[k]) * 1099511628211ull;
    return h;
}

static void make_set(set_t *s)
{
    for (int i = 0; i < NARENAS; i++) {
        s->ar[i] = loci_arena_create("bandwidth=high,tier=auto", 0);
        if (!s->ar[i])
            fail_msg("auto arena %d: %s", i, loci_last_error());
        s->data[i] = loci_arena_alloc(s->ar[i], ARENA_BYTES - 4096);
        assert_non_null(s->data[i]);
        memset(s->data[i], 'a' + i, ARENA_BYTES - 4096);
    }
}

/* One interval with arenas `hot` (a bit mask) at heat 1, the others at 0. */
static void step(const set_t *s, unsigned hot)
{
    tiering_config_t c;
    assert_int_equal(tiering_config_read(&c), 0);
    heat_sample_t samples[NARENAS];
    tiering_lock();
    for (int i = 0; i < NARENAS; i++) {
        const tier_arena_t *t = tiering_find(s->ar[i]);
        assert_non_null(t);
        samples[i] = (heat_sample_t){(uintptr_t)s->data[i], ARENA_BYTES, t->id, (hot >> i) & 1 ? 1.0 : 0.0, 10};
    }
    tiering_unlock();
    tiering_step(&c, samples, NARENAS);
    uint64_t on_hbm = arena_auto_bytes_on(loci_target_by_name("hbm0"));
    if (on_hbm > 8 * MiB)
        fail_msg("%llu bytes of auto arenas on hbm0, over its budget of 8 MiB", (unsigned long long)on_hbm);
}

/* Steps until arenas `hot` are on hbm0 and the others on dram0; how many. */
static int steps_until_placed(const set_t *s, unsigned hot, int max)
{
    for (int n = 1; n <= max; n++) {
        step(s, hot);
        bool placed = true;
        for (int i = 0; i < NARENAS; i++)
            placed &= strcmp(name_of(loci_arena_target(s->ar[i])), (hot >> i) & 1 ? "hbm0" : "dram0") == 0;
        if (placed)
            return n;
    }
    for (int i = 0; i < NARENAS; i++)
        fprintf(stderr, "arena %d (%s): on %s\n", i, (hot >> i) & 1 ? "hot" : "cold",
                name_of(loci_arena_target(s->ar[i])));
    fail_msg("not placed by heat after %d intervals", max);
    return -1;
}

static void check_data(const set_t *s)
{
    for (int i = 0; i < NARENAS; i++) {
        unsigned char *expected = malloc(ARENA_BYTES - 4096);
        memset(expected, 'a' + i, ARENA_BYTES - 4096);
        assert_int_equal(checksum(s->data[i], ARENA_BYTES - 4096), checksum(expected, ARENA_BYTES - 4096));
        free(expected);
        assert_ptr_equal(loci_arena_of(s->data[i] + 12345), s->ar[i]); /* the same addresses, still its */
    }
}

static void destroy_set(set_t *s)
{
    for (int i = 0; i < NARENAS; i++)
        loci_arena_destroy(s->ar[i]);
}

static void start_on_the_best_candidate_with_room(void **state)
{
    use_topology("knl-flat.xml", config);
    set_t s;
    make_set(&s);
    /* the first two fill hbm0's budget, the next ones start on dram0 */
    assert_string_equal(name_of(loci_arena_target(s.ar[0])), "hbm0");
    assert_string_equal(name_of(loci_arena_target(s.ar[1])), "hbm0");
    assert_string_equal(name_of(loci_arena_target(s.ar[2])), "dram0");
    assert_string_equal(name_of(loci_arena_target(s.ar[3])), "dram0");
    destroy_set(&s);
}

static void heat_places_and_keeps_data(void **state)
{
    use_topology("knl-flat.xml", config);
    set_t s;
    make_set(&s);
    void *before[NARENAS];
    memcpy(before, s.data, sizeof before);
    /* arenas 2 and 3 are the hot ones: up within the minimum residence and a step */
    int n = steps_until_placed(&s, 0xc, 10);
    assert_true(n <= 4);
    check_data(&s);
    assert_memory_equal(before, s.data, sizeof before);
    loci_tier_stats_t st;
    assert_int_equal(loci_tier_stats(s.ar[2], &st), 0);
    assert_string_equal(name_of(st.target), "hbm0");
    assert_true(st.heat > 0.9);
    assert_int_equal(st.moves, 1);
    assert_true(st.bytes >= ARENA_BYTES - 4096 && st.bytes_moved == st.bytes);
    assert_int_equal(loci_tier_stats(s.ar[0], &st), 0);
    assert_true(st.heat < 0.1);
    assert_string_equal(name_of(st.target), "dram0");

    /* the hot set switches: back within the residence and the margin; all of it ping-pong (< 10 intervals) */
    n = steps_until_placed(&s, 0x3, 10);
    assert_true(n <= 4);
    check_data(&s);
    loci_tier_totals_t tot;
    assert_int_equal(loci_tier_totals(&tot), 0);
    assert_int_equal(tot.arenas, NARENAS);
    assert_int_equal(tot.moves, 8);
    assert_true(tot.bytes_promoted >= 4 * (ARENA_BYTES - 4096) && tot.bytes_demoted == tot.bytes_promoted);
    assert_true(tot.bytes_pingpong == tot.bytes_promoted + tot.bytes_demoted - 4 * st.bytes);

    /* a steady heat moves nothing more */
    for (int i = 0; i < 5; i++)
        step(&s, 0x3);
    assert_int_equal(loci_tier_totals(&tot), 0);
    assert_int_equal(tot.moves, 8);

    char *report = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&report, &len);
    loci_stats_print(f);
    fclose(f);
    assert_non_null(strstr(report, "AUTO ARENA"));
    assert_non_null(strstr(report, "bandwidth=high,tier=auto"));
    assert_non_null(strstr(report, "moved back within 10 intervals"));
    free(report);
    destroy_set(&s);
    assert_int_equal(loci_tier_totals(&tot), 0);
    assert_int_equal(tot.arenas, 0);
}

/* Rent is weighed against the measured price of a move: before any move
 * has measured it, one move an interval (the guess, 1 GB/s, made a TCG
 * guest's first worker promote every lukewarm arena at once), then the
 * rest. */
static void the_first_move_measures_its_price(void **state)
{
    use_topology("knl-flat.xml", config);
    set_t s;
    make_set(&s);
    loci_tier_totals_t tot = {0};
    for (int n = 0; n < 10 && tot.moves == 0; n++) {
        step(&s, 0xc);
        assert_int_equal(loci_tier_totals(&tot), 0);
    }
    assert_int_equal(tot.moves, 1); /* of the four due: two down, two up */
    step(&s, 0xc);
    assert_int_equal(loci_tier_totals(&tot), 0);
    assert_int_equal(tot.moves, 4);
    check_data(&s);
    destroy_set(&s);
}

/* The thread with this machine's heat source: the arena the program
 * touches takes the cold one's place on hbm0, within a few intervals. */
static void the_thread_follows_measured_heat(void **state)
{
    use_topology("knl-flat.xml", "[tiering]\ninterval = 50ms\n[target hbm0]\nnuma_node = 1\ntiering_budget = 4MiB\n");
    loci_arena_t *cold = loci_arena_create("bandwidth=high,tier=auto", 0);
    assert_non_null(cold);
    volatile unsigned char *c = loci_arena_alloc(cold, 4 * MiB); /* hbm0's budget taken: the next one starts lower */
    loci_arena_t *hot = loci_arena_create("bandwidth=high,tier=auto", 0);
    assert_non_null(hot);
    loci_tier_totals_t tot;
    assert_int_equal(loci_tier_totals(&tot), 0);
    if (strcmp(tot.source, "none") == 0) {
        loci_arena_destroy(cold);
        loci_arena_destroy(hot);
        print_message("skipped: no heat source works on this machine (the warning above says why)\n");
        skip();
        return;
    }
    volatile unsigned char *h = loci_arena_alloc(hot, 4 * MiB);
    memset((void *)c, 1, 4 * MiB);
    memset((void *)h, 2, 4 * MiB);
    assert_string_equal(name_of(loci_arena_target(cold)), "hbm0");
    assert_string_equal(name_of(loci_arena_target(hot)), "dram0");
    uint64_t sum = 0;
    for (int round = 0; round < 400 && strcmp(name_of(loci_arena_target(hot)), "hbm0") != 0; round++) {
        for (size_t k = 0; k < 4 * MiB; k += 4096)
            sum += h[k]++;
        usleep(10000);
    }
    assert_int_equal(loci_tier_totals(&tot), 0);
    if (strcmp(name_of(loci_arena_target(hot)), "hbm0") != 0)
        fail_msg("the touched arena is still on %s after 4 s (%s source, %llu intervals, %llu moves)",
                 name_of(loci_arena_target(hot)), tot.source, (unsigned long long)tot.intervals,
                 (unsigned long long)tot.moves);
    assert_string_equal(name_of(loci_arena_target(cold)), "dram0");
    for (size_t k = 0; k < 4 * MiB; k += 4096)
        assert_int_equal(c[k], 1);
    assert_true(sum > 0);
    assert_true(tot.cpu_seconds > 0);
    print_message("the thread and its %s source: %.3f s of CPU in %llu intervals of 50 ms, %llu moves\n", tot.source,
                  tot.cpu_seconds, (unsigned long long)tot.intervals, (unsigned long long)tot.moves);
    loci_arena_destroy(cold);
    loci_arena_destroy(hot);
}

typedef struct {
    volatile uint64_t *p;
    size_t words;
    atomic_bool stop;
} toucher_t;

/* Stores into every page of the arena, flat out. */
static void *touch_flat_out(void *arg)
{
    toucher_t *t = arg;
    for (uint64_t pass = 1; !atomic_load_explicit(&t->stop, memory_order_relaxed); pass++)
        for (size_t k = 0; k < t->words; k += 512)
            t->p[k] = pass;
    return NULL;
}

#define HEAT_CHECKS 20 /* intervals the hot arena's heat is compared with the others' after a move */

/* After a move of arena `hot`: at each of HEAT_CHECKS intervals its heat is above every other
 * arena's; NULL, or what went wrong (in `why`). `moved`: who moved it, for the message. */
static const char *stays_hottest(loci_arena_t *const *ar, int n, int hot, const char *moved, char *why, size_t len)
{
    for (int c = 0; c < HEAT_CHECKS; c++) {
        usleep(50000);
        loci_tier_stats_t mine, other;
        assert_int_equal(loci_tier_stats(ar[hot], &mine), 0);
        for (int i = 0; i < n; i++) {
            if (i == hot)
                continue;
            assert_int_equal(loci_tier_stats(ar[i], &other), 0);
            if (!(mine.heat > other.heat)) {
                snprintf(why, len, "%d intervals after %s moved it, the hot arena's heat is %.3f (on %s), arena "
                         "%d's %.3f (on %s)", c + 1, moved, mine.heat, name_of(mine.target), i, other.heat,
                         name_of(other.target));
                return why;
            }
        }
    }
    return NULL;
}

/* Heat follows an arena across its own move (issue 36: DAMON had a hot arena's heat fall from
 * 0.27 to 0.006 after its promotion, and a cold one promoted): with this machine's heat source,
 * an arena written flat out, moved up by tiering and then by the program itself, stays the
 * hottest at every interval after each move, and tiering takes it back up. NULL, "skip" where no
 * source works here, or what went wrong. */
static const char *hot_arena_across_moves(char *why, size_t len)
{
    use_topology("knl-flat.xml", "[tiering]\ninterval = 50ms\n[target hbm0]\nnuma_node = 1\ntiering_budget = 4MiB\n");
    loci_arena_t *ar[3];
    unsigned char *data[3];
    for (int i = 0; i < 3; i++) { /* 0 fills hbm0's budget; 1 (the hot one) and 2 start on dram0 */
        ar[i] = loci_arena_create("bandwidth=high,tier=auto", 0);
        assert_non_null(ar[i]);
        data[i] = loci_arena_alloc(ar[i], 4 * MiB);
        assert_non_null(data[i]);
        memset(data[i], 'x' + i, 4 * MiB);
    }
    loci_tier_totals_t tot;
    assert_int_equal(loci_tier_totals(&tot), 0);
    if (strcmp(tot.source, "none") == 0) {
        for (int i = 0; i < 3; i++)
            loci_arena_destroy(ar[i]);
        return "skip";
    }
    toucher_t t = {.p = (volatile uint64_t *)data[1], .words = 4 * MiB / 8};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, touch_flat_out, &t), 0);
    const char *failed = NULL;
    for (int i = 0; i < 200 && strcmp(name_of(loci_arena_target(ar[1])), "hbm0") != 0; i++)
        usleep(50000);
    if (strcmp(name_of(loci_arena_target(ar[1])), "hbm0") != 0)
        failed = (snprintf(why, len, "the hot arena is still on %s after 10 s", name_of(loci_arena_target(ar[1]))),
                  why);
    if (!failed)
        failed = stays_hottest(ar, 3, 1, "tiering", why, len);
    if (!failed && loci_arena_move(ar[1], loci_target_by_name("dram0")) != 0)
        failed = (snprintf(why, len, "the program's move: %s", loci_last_error()), why);
    if (!failed)
        failed = stays_hottest(ar, 3, 1, "the program", why, len);
    if (!failed && strcmp(name_of(loci_arena_target(ar[1])), "hbm0") != 0)
        failed = (snprintf(why, len, "tiering did not take the hot arena back to hbm0 (on %s)",
                           name_of(loci_arena_target(ar[1]))), why);
    atomic_store(&t.stop, true);
    pthread_join(thread, NULL);
    assert_int_equal(loci_tier_totals(&tot), 0);
    fprintf(stderr, "test_tiering: as uid %u, the %s source: %llu moves in %llu intervals, the hot arena the hottest "
                    "after each\n", (unsigned)geteuid(), tot.source, (unsigned long long)tot.moves,
            (unsigned long long)tot.intervals);
    for (int i = 0; i < 3; i++) {
        for (size_t k = 0; i != 1 && k < 4 * MiB; k += 4093)
            assert_int_equal(data[i][k], 'x' + i);
        loci_arena_destroy(ar[i]);
    }
    return failed;
}

static void a_hot_arena_stays_the_hottest_across_its_moves(void **state)
{
    char why[300];
    const char *failed = hot_arena_across_moves(why, sizeof why);
    if (failed && strcmp(failed, "skip") == 0) {
        print_message("skipped: no heat source works on this machine (the warning above says why)\n");
        skip();
    }
    if (failed)
        fail_msg("%s", failed);
}

/* The same as an ordinary user (nobody, from root): the dirty source where nothing else works. */
static int role_hot_moves(char **args)
{
    (void)args;
    CHECK(scratch_setup(NULL) == 0, "scratch directory");
    char why[300];
    const char *failed = hot_arena_across_moves(why, sizeof why);
    CHECK(!failed, "%s", failed ? failed : "");
    loci_fini();
    remove_tree(scratch_dir);
    return 0;
}

static void as_an_ordinary_user_too(void **state)
{
    if (geteuid() != 0) {
        print_message("skipped: needs root to become nobody (this user ran the case above)\n");
        skip();
    }
    child_t k = child_spawn((const char *[]){"hot-moves", NULL}, NULL, 65534);
    int st = child_reap(&k);
    if (st == 98)
        fail_msg("the unprivileged child could not run /proc/self/exe (permissions of its directories?)");
    assert_int_equal(st, 0);
}

static void a_full_target_moves_the_arena_down(void **state)
{
    /* hbm0 capped at 16 MiB: an auto arena there holding data moves to dram0 when it outgrows it */
    use_topology("knl-flat.xml", "[tiering]\ninterval = 60s\n[target hbm0]\nnuma_node = 1\ncapacity = 16MiB\n");
    loci_arena_t *ar = loci_arena_create("bandwidth=high,tier=auto", 0);
    assert_non_null(ar);
    unsigned char *p = loci_arena_alloc(ar, 6 * MiB);
    assert_non_null(p);
    memset(p, 7, 6 * MiB);
    assert_string_equal(name_of(loci_arena_target(ar)), "hbm0");
    unsigned char *q = loci_arena_alloc(ar, 12 * MiB);
    if (!q)
        fail_msg("the allocation failed while dram0 had room: %s", loci_last_error());
    assert_string_equal(name_of(loci_arena_target(ar)), "dram0");
    assert_int_equal(p[6 * MiB - 1], 7);
    loci_arena_destroy(ar);

    /* a plain arena keeps failing there, as documented */
    ar = loci_arena_create("bandwidth=high", 0);
    assert_non_null(loci_arena_alloc(ar, 6 * MiB));
    assert_null(loci_arena_alloc(ar, 12 * MiB));
    loci_arena_destroy(ar);
}

typedef struct {
    heat_sample_t *s;
    size_t n;
    uint64_t tag;
    uintptr_t hot, hot_end; /* granules overlapping [hot, hot_end) read 1, the others 0 */
} granules_t;

static int cut_into_granules(void *base, size_t size, void *arg)
{
    granules_t *g = arg;
    for (size_t off = 0; off < size; off += HEAT_GRANULE) {
        uintptr_t at = (uintptr_t)base + off;
        size_t len = size - off < HEAT_GRANULE ? size - off : HEAT_GRANULE;
        bool hot = at < g->hot_end && at + len > g->hot;
        g->s = realloc(g->s, (g->n + 1) * sizeof *g->s);
        g->s[g->n++] = (heat_sample_t){at, len, g->tag, hot ? 1.0 : 0.0, 10};
    }
    return 0;
}

/* One interval: every granule of `big` cold but those over [hot, hot + bytes), `other` cold. */
static void step_granules(loci_arena_t *big, loci_arena_t *other, void *hot, size_t bytes)
{
    tiering_config_t c;
    assert_int_equal(tiering_config_read(&c), 0);
    granules_t g = {.hot = (uintptr_t)hot, .hot_end = (uintptr_t)hot + bytes};
    tiering_lock();
    g.tag = tiering_find(big)->id;
    arena_foreach_extent(big, cut_into_granules, &g);
    g.tag = tiering_find(other)->id;
    g.hot_end = 0;
    arena_foreach_extent(other, cut_into_granules, &g);
    tiering_unlock();
    tiering_step(&c, g.s, g.n);
    free(g.s);
}

/* Bytes of auto arenas on hbm0: those placed whole there, and the parts of `big` there. */
static uint64_t on_hbm(loci_arena_t *big, uint64_t *big_part)
{
    const loci_target_t *hbm = loci_target_by_name("hbm0");
    tiering_lock();
    *big_part = tiering_parts_on(tiering_find(big), hbm);
    tiering_unlock();
    return (loci_arena_target(big) == hbm ? 0 : arena_auto_bytes_on(hbm)) + *big_part;
}

/* Parts of `big` not where they belong: on hbm0 those of [hot, hot + bytes), on dram0 the others. */
static int misplaced_parts(loci_arena_t *big, const unsigned char *hot, size_t bytes)
{
    tiering_lock(); /* (no assertion under the lock: a failed one would leave it taken) */
    const tier_arena_t *t = tiering_find(big);
    int misplaced = t->split ? 0 : -1;
    for (size_t i = 0; t->split && i < t->nparts; i++) {
        const unsigned char *at = t->parts[i].base;
        misplaced += t->parts[i].at != loci_target_by_name(at >= hot && at < hot + bytes ? "hbm0" : "dram0");
    }
    tiering_unlock();
    return misplaced;
}

/* An arena four times hbm0's budget, whose hot 8 MiB moves: placed by granule, its hot parts on
 * hbm0 after the cold arena there moves out, the rest staying on dram0 with the arena itself; a
 * new arena then starts on dram0, its parts holding hbm0's budget. */
static void a_big_arena_is_placed_by_granule(void **state)
{
    use_topology("knl-flat.xml", config);
    loci_arena_t *cold = loci_arena_create("bandwidth=high,tier=auto", 0);
    unsigned char *c = cold ? loci_arena_alloc(cold, 8 * MiB - 4096) : NULL;
    assert_non_null(c);
    memset(c, 'c', 8 * MiB - 4096);
    loci_arena_t *big = loci_arena_create("bandwidth=high,tier=auto", 0);
    unsigned char *b = big ? loci_arena_alloc(big, 32 * MiB) : NULL;
    assert_non_null(b);
    for (size_t k = 0; k < 32 * MiB; k++)
        b[k] = (unsigned char)(k / 4096);
    assert_string_equal(name_of(loci_arena_target(cold)), "hbm0");
    assert_string_equal(name_of(loci_arena_target(big)), "dram0"); /* hbm0's budget is taken */
    unsigned char *windows[2] = {b + 4 * MiB, b + 20 * MiB};
    for (int w = 0; w < 2; w++) {
        int n = 0, misplaced = -1;
        for (; n < 10 && misplaced != 0; n++) {
            step_granules(big, cold, windows[w], 8 * MiB);
            uint64_t part;
            if (on_hbm(big, &part) > 8 * MiB)
                fail_msg("window %d, interval %d: %llu bytes of auto arenas on hbm0, over its budget of 8 MiB", w,
                         n, (unsigned long long)on_hbm(big, &part));
            misplaced = misplaced_parts(big, windows[w], 8 * MiB);
        }
        if (misplaced != 0)
            fail_msg("window %d: %d parts of the big arena not where their heat says after %d intervals%s", w,
                     misplaced, n, misplaced < 0 ? " (it is not placed by granule)" : "");
        assert_true(n <= 5); /* the minimum residence, and a step */
        assert_string_equal(name_of(loci_arena_target(big)), "dram0");
        assert_string_equal(name_of(loci_arena_target(cold)), "dram0");
    }
    /* hbm0's budget is the parts' now: a new arena starts below it, not over it */
    loci_arena_t *newcomer = loci_arena_create("bandwidth=high,tier=auto", 0);
    assert_non_null(newcomer);
    assert_string_equal(name_of(loci_arena_target(newcomer)), "dram0");
    loci_arena_destroy(newcomer);
    for (size_t k = 0; k < 32 * MiB; k += 4096)
        if (b[k] != (unsigned char)(k / 4096))
            fail_msg("the big arena's byte %zu changed", k);
    assert_ptr_equal(loci_arena_of(b + 21 * MiB), big);
    loci_tier_stats_t st;
    assert_int_equal(loci_tier_stats(big, &st), 0);
    assert_int_equal(st.moves, 12); /* four parts up, then four down and four others up */
    assert_int_equal(st.bytes_moved, 24 * MiB);
    loci_arena_destroy(big);
    loci_arena_destroy(cold);
}

static void a_child_keeps_working(void **state)
{
    if (child_threads_unsupported_after_fork("a_child_keeps_working"))
        skip();
    use_topology("knl-flat.xml", config);
    set_t s;
    make_set(&s);
    pid_t pid = fork();
    if (pid == 0) {
        set_t t;
        make_set(&t); /* registering, under the registry lock the fork took */
        bool ok = t.data[0][0] == 'a' && s.data[3][0] == 'd';
        destroy_set(&t);
        destroy_set(&s);
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    destroy_set(&s);
}

static void expect_config_error(const char *text, const char *part)
{
    use_topology("knl-flat.xml", text);
    assert_null(loci_arena_create("bandwidth=high,tier=auto", 0));
    assert_int_equal(errno, EINVAL);
    if (!strstr(loci_last_error(), part))
        fail_msg("config \"%s\": message \"%s\" lacks \"%s\"", text, loci_last_error(), part);
    loci_arena_t *plain = loci_arena_create("bandwidth=high", 0); /* other arenas are not its business */
    assert_non_null(plain);
    loci_arena_destroy(plain);
}

static void bad_input(void **state)
{
    expect_config_error("[tiering]\nbudget = 120%\n", ".ini:2: [tiering] budget = 120%: more than the whole: at most "
                                                    "100%; expected a share");
    expect_config_error("[tiering]\n\nbudget = -1%\n", ".ini:3: [tiering] budget = -1%: a sign is not read");
    /* strtod read this as 16 % */
    expect_config_error("[tiering]\nbudget = 0x10%\n", ".ini:2: [tiering] budget = 0x10%: hexadecimal is not read: "
                                                     "write the number in decimal digits; expected a share");
    expect_config_error("[tiering]\ninterval = 1ms\n", "[tiering] interval = 1ms: out of range; expected a time from "
                                                      "10ms to 60s");
    expect_config_error("[tiering]\ninterval = 200\n", "[tiering] interval = 200: a time needs its unit");
    expect_config_error("[tiering]\ninterval = 2e2ms\n", "[tiering] interval = 2e2ms: an exponent is not read");
    expect_config_error("[tiering]\nrate = 0x40GB/s\n", "[tiering] rate = 0x40GB/s: hexadecimal is not read");
    expect_config_error("[tiering]\nsample = 1e-1\n", "[tiering] sample = 1e-1: an exponent is not read");
    expect_config_error("[tiering]\nsource = magic\n", "expected auto, perf, damon, faults or dirty");
    expect_config_error("[tiering]\nrate = 0\n", "[tiering] rate = 0");
    expect_config_error("[tiering]\nsample = 0\n", "[tiering] sample = 0");
    expect_config_error("[tiering]\nfloor = 150%\n", ".ini:2: [tiering] floor = 150%: more than the whole: at most "
                                                   "100%; expected a share of each target's node budget");
    expect_config_error("[tiering]\nfloor = -1GiB\n", "[tiering] floor = -1GiB: a sign is not read");
    expect_config_error("[tiering]\nnode_budget = 1e2%\n", "[tiering] node_budget = 1e2%: an exponent is not read");
    expect_config_error("[tiering]\nnode_budget = lots\n", "[tiering] node_budget = lots: ");
    /* read right: a floor larger than the target is the whole target (plan_share scales floors down together) */
    use_topology("knl-flat.xml", "[tiering]\nfloor = 1TiB\nnode_budget = 50%\n");
    tiering_config_t c;
    assert_int_equal(tiering_config_read(&c), 0);
    assert_int_equal(c.floor.bytes, 1ull << 40);
    assert_true(c.node_budget.set && c.node_budget.share == 0.5);
    assert_int_equal(tiering_floor_bytes(&c, 1 << 20), 1 << 20);

    use_topology("knl-flat.xml", config);
    assert_null(loci_allocator_create("bandwidth=high,tier=auto"));
    assert_non_null(strstr(loci_last_error(), "tier=auto is for arenas"));
    assert_null(loci_arena_create_shared(unique_name("auto"), "bandwidth=high,tier=auto", 1 << 20));
    assert_non_null(strstr(loci_last_error(), "a shared arena stays on the node it was created on"));
    assert_null(loci_arena_create("target=hbm0,tier=auto", 0));
    assert_int_equal(errno, EINVAL);
    /* tier=auto alone: the node's memories, the fastest first (KNL: MCDRAM) */
    loci_arena_t *ar = loci_arena_create("tier=auto", 0);
    assert_non_null(ar);
    assert_non_null(loci_arena_alloc(ar, 100));
    assert_string_equal(loci_arena_target(ar)->name, "hbm0");
    loci_tier_stats_t st;
    assert_int_equal(loci_tier_stats(ar, &st), 0);
    loci_arena_destroy(ar);
    /* one candidate on this machine (GPU memory only when asked for): works, with a warning */
    use_topology("grace-hopper.xml", config);
    ar = loci_arena_create("tier=auto", 0);
    assert_non_null(ar);
    assert_non_null(loci_arena_alloc(ar, 100));
    assert_string_equal(loci_arena_target(ar)->name, "dram0");
    loci_arena_destroy(ar);
    ar = loci_arena_create("bandwidth=high", 0);
    assert_int_equal(loci_tier_stats(ar, &st), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "is not a tier=auto arena"));
    loci_arena_destroy(ar);
    assert_int_equal(loci_tier_stats(NULL, &st), LOCI_EINVAL);
}

static const child_role_t roles[] = {
    {"hot-moves", 0, role_hot_moves},
    {NULL, 0, NULL},
};

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(start_on_the_best_candidate_with_room),
        cmocka_unit_test(heat_places_and_keeps_data),
        cmocka_unit_test(the_first_move_measures_its_price),
        cmocka_unit_test(the_thread_follows_measured_heat),
        cmocka_unit_test(a_hot_arena_stays_the_hottest_across_its_moves),
        cmocka_unit_test(as_an_ordinary_user_too),
        cmocka_unit_test(a_full_target_moves_the_arena_down),
        cmocka_unit_test(a_big_arena_is_placed_by_granule),
        cmocka_unit_test(a_child_keeps_working),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
