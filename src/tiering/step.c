/*
 * One interval of tiering, given the heat of every watched granule: each
 * auto arena's heat per byte (the granules' heat weighted by their size,
 * smoothed over intervals), and each part's of an arena placed by granule
 * (parts.c), the targets' room (budget, memory that can be had for a move:
 * arena_target_move_room), the plan (plan.c) over arenas and parts alike,
 * and its moves through arena_move and arena_move_part, each keeping
 * addresses and every store of the program's threads; a candidate no such
 * move reaches (a file tier without the userfaultfd it takes) is never planned. The measured move bandwidth and
 * the rate limit's allowance are kept here from interval to interval.
 * Called by the tiering thread only (and by tests, with no thread running).
 */
#include "tiering/tiering.h"
#include "clock.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOVE_SMOOTHING 0.5     /* weight of the last move in the measured move bandwidth */
#define MARGIN 0.25            /* hysteresis: 25 % hotter per tier to take an incumbent's place, */
#define GAP 0.1                /* and 0.1 more heat: above the noise of a sampled share, */
#define NOISE 1.0              /* and hotter by the two arenas' spreads (plan.c) */
#define MIN_RESIDENCE 3        /* intervals an arena stays after a move */
#define PINGPONG_INTERVALS 10  /* a move back within this many intervals counts as ping-pong */
#define FIRST_GUESS_BPS 1e9    /* move bandwidth until one is measured */

static double seconds_per_byte = 1 / FIRST_GUESS_BPS;
static bool price_measured; /* a move has measured seconds_per_byte: until then, one move an interval */
static int64_t allowance;

static int by_tag_and_base(const void *pa, const void *pb)
{
    const heat_sample_t *a = pa, *b = pb;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return a->base < b->base ? -1 : a->base > b->base;
}

/* The arenas' heat from this interval's samples (sorted by tag, then
 * address), and the parts' of those placed by granule. */
static void account(const tiering_config_t *c, const heat_sample_t *s, size_t n)
{
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next) {
        size_t lo = 0, hi = n;
        while (lo < hi) { /* first sample of t */
            size_t mid = (lo + hi) / 2;
            if (s[mid].tag < t->id)
                lo = mid + 1;
            else
                hi = mid;
        }
        double hot = 0, seen = 0;
        size_t end = lo;
        for (; end < n && s[end].tag == t->id; end++)
            if (s[end].observations) {
                hot += s[end].heat * (double)s[end].size;
                seen += (double)s[end].size;
            }
        if (seen > 0) /* nothing seen this interval: its heat stays what it was */
            tiering_track_heat(&t->track, hot / seen);
        t->track.residence++;
        tiering_parts_decide(c, t);
        if (t->split && !tiering_parts_account(t, s + lo, end - lo))
            loci__log(LOCI_LOG_DEBUG, "tiering: out of memory for the parts of arena \"%s\": they stay as they "
                      "were", t->ar->intent);
    }
}

/* The index of target t in the plan's table, added when new. */
static int target_index(const struct loci_target **table, size_t *nt, const struct loci_target *t)
{
    for (size_t i = 0; i < *nt; i++)
        if (table[i] == t)
            return (int)i;
    table[*nt] = t;
    return (int)(*nt)++;
}

/* The plan's view: one entry per arena placed whole, one per part of each
 * placed by granule (rec[i] its arena, part[i] the part's index in it, -1
 * for the whole arena). */
typedef struct {
    tier_arena_t **rec;
    long *part;
    plan_arena_t *arenas;
    double *rent;
    const struct loci_target **targets;
    plan_target_t *room;
    plan_move_t *moves;
    size_t n, nt;
} work_t;

static void work_free(work_t *w)
{
    free(w->rec);
    free(w->part);
    free(w->arenas);
    free(w->rent);
    free(w->targets);
    free(w->room);
    free(w->moves);
}

/* Arena t (or its part p) as the plan sees it, into w's next entry:
 * `blocked`, bit k: candidate k cannot be reached by such a move. */
static void add_entry(work_t *w, tier_arena_t *t, long p, uint32_t blocked)
{
    const tier_track_t *k = p < 0 ? &t->track : &t->parts[p].track;
    const struct loci_target *now = p < 0 ? loci_arena_target(t->ar) : t->parts[p].at;
    const resolution_t *res = &t->ar->res;
    plan_arena_t *a = &w->arenas[w->n];
    *a = (plan_arena_t){.bytes = p < 0 ? t->bytes : t->parts[p].size, .heat = k->heat, .spread = k->spread,
                        .rise = k->heat > k->before ? k->heat - k->before : 0, .at = -1, .ncandidates = res->ncandidates, .residence = k->residence, .id = t->id,
                        .intent = t->ar->intent};
    for (int c = 0; c < res->ncandidates; c++) {
        a->cand[c] = target_index(w->targets, &w->nt, res->candidates[c]);
        if (res->candidates[c] == now)
            a->at = c;
        else
            a->unreachable |= blocked & 1u << c;
    }
    /* an arena above its lowest candidate keeps its place on the heat it held (registry.c,
     * HELD_FALL), here and in the node's ledger; a part is counted with its heat: a window
     * that moves within its arena is placed within 10 intervals (vm_parts) */
    if (p < 0 && a->at >= 0 && a->at < res->ncandidates - 1)
        a->heat = k->held;
    w->rent[w->n] = k->rent;
    w->part[w->n] = p;
    w->rec[w->n++] = t;
}

/* The candidates of t that its moves (or its parts', split) cannot reach. */
static uint32_t blocked_of(tier_arena_t *t)
{
    uint32_t blocked = 0;
    const resolution_t *res = &t->ar->res;
    for (int c = 0; c < res->ncandidates; c++) /* only moves the program never notices */
        if (t->split ? !arena_moves_part(t->ar, res->candidates[c]) : !arena_moves_live(t->ar, res->candidates[c]))
            blocked |= 1u << c;
    return blocked;
}

/* The plan's view of every auto arena (or its parts) and of the targets they may use. */
static bool describe(const tiering_config_t *c, work_t *w)
{
    size_t n = 0;
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        n += t->split ? t->nparts : 1;
    *w = (work_t){.rec = calloc(n + 1, sizeof *w->rec), .part = calloc(n + 1, sizeof *w->part),
                  .arenas = calloc(n + 1, sizeof *w->arenas),
                  .rent = calloc(n + 1, sizeof *w->rent), .moves = calloc(n + 1, sizeof *w->moves),
                  .targets = calloc(n * RESOLVE_MAX_CANDIDATES + 1, sizeof *w->targets),
                  .room = calloc(n * RESOLVE_MAX_CANDIDATES + 1, sizeof *w->room)};
    if (!w->rec || !w->part || !w->arenas || !w->rent || !w->moves || !w->targets || !w->room)
        return false;
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next) {
        t->bytes = arena_bytes(t->ar);
        uint32_t blocked = blocked_of(t);
        if (!t->split)
            add_entry(w, t, -1, blocked);
        for (size_t p = 0; t->split && p < t->nparts; p++)
            add_entry(w, t, (long)p, blocked);
    }
    for (size_t i = 0; i < w->nt; i++) {
        uint64_t budget = tiering_budget_bytes(c, w->targets[i]), mine = tiering_held_on(w->targets[i]);
        /* room unknown (a simulated node): its budget alone says */
        uint64_t free = arena_target_move_room(w->targets[i]);
        uint64_t reachable = free > UINT64_MAX - mine ? UINT64_MAX : mine + free;
        w->room[i].room = budget < reachable ? budget : reachable;
        loci__log(LOCI_LOG_DEBUG, "tiering (process %d): %s: budget %llu KiB, auto arenas there %llu KiB, free "
                  "memory they may take %llu KiB", (int)getpid(), w->targets[i]->name, (unsigned long long)(budget >> 10),
                  (unsigned long long)(mine >> 10), (unsigned long long)(free >> 10));
    }
    return true;
}

/* Counters of one move that was made: of arena t, whole or its part
 * tracked by k. */
static void count_move(tier_arena_t *t, tier_track_t *k, const struct loci_target *from,
                       const struct loci_target *to, bool up, uint64_t bytes, double seconds)
{
    tier_totals_t *tot = tiering_totals();
    *(up ? &tot->promoted : &tot->demoted) += bytes;
    if (tiering_track_moved(k, from, to, tot->intervals, PINGPONG_INTERVALS))
        tot->pingpong += bytes;
    tot->moves++;
    tot->move_seconds += seconds;
    t->bytes_moved += bytes;
    t->moves++;
    if (bytes && seconds > 0) {
        double weight = price_measured ? MOVE_SMOOTHING : 1; /* the first measure replaces the guess */
        seconds_per_byte = weight * (seconds / (double)bytes) + (1 - weight) * seconds_per_byte;
        price_measured = true;
    }
}

/* Move m of the plan, without the lock: 0 or the move's error. */
static int make_move(const work_t *w, const plan_move_t *mv)
{
    tier_arena_t *t = w->rec[mv->arena];
    long p = w->part[mv->arena];
    const struct loci_target *to = w->targets[mv->target];
    return p < 0 ? arena_move(t->ar, to, true) : arena_move_part(t->ar, t->parts[p].base, t->parts[p].size, to);
}

/* Whether move m is the last of its arena's this interval: the one after
 * which the arena is idle (and may be destroyed). */
static bool last_of_arena(const work_t *w, size_t m, size_t nmoves)
{
    for (size_t later = m + 1; later < nmoves; later++)
        if (w->rec[w->moves[later].arena] == w->rec[w->moves[m].arena])
            return false;
    return true;
}

/* Make the moves, each arena marked busy (its destroy waits) and moved
 * without the lock. The plan counted on every move before a promotion to
 * make its room: once one fails (a page that would not migrate under load,
 * a node full meanwhile) the rest wait for the next interval's plan, which
 * sees where everything is — going on filled the fast node past its budget
 * by what the failed demotion left there. A move made is written into the
 * plan's view of its arena (w->arenas: the node ledger's held bytes after
 * the moves); the records of the others are not touched again, for an arena
 * not busy may be destroyed while a move runs unlocked. Under the lock;
 * returns with it. */
static void make_moves(const work_t *w, size_t nmoves)
{
    bool *last = calloc(nmoves, sizeof *last);
    if (!last)
        return; /* the next interval plans again */
    for (size_t m = 0; m < nmoves; m++) {
        last[m] = last_of_arena(w, m, nmoves);
        w->rec[w->moves[m].arena]->busy = true;
        /* heat's sampled pages are mapped back first, or the move would not
         * find them; the next interval watches the arena again (a part's
         * move holds its range still itself: arena_move_part) */
        if (w->part[w->moves[m].arena] < 0)
            tiering_unwatch(w->rec[w->moves[m].arena]);
    }
    bool failed = false;
    for (size_t m = 0; m < nmoves; m++) {
        const plan_move_t *mv = &w->moves[m];
        tier_arena_t *t = w->rec[mv->arena];
        long p = w->part[mv->arena];
        const struct loci_target *from = p < 0 ? loci_arena_target(t->ar) : t->parts[p].at;
        const struct loci_target *to = w->targets[mv->target];
        uint64_t bytes = w->arenas[mv->arena].bytes;
        if (failed) {
            if (last[m])
                tiering_set_idle(t);
            continue;
        }
        tiering_unlock();
        uint64_t t0 = clock_mono_ns();
        int rc = make_move(w, mv);
        double seconds = (double)(clock_mono_ns() - t0) / 1e9;
        if (rc != 0) /* full meanwhile, say: the next interval plans again */
            loci__log(LOCI_LOG_DEBUG, "tiering: %s \"%s\" stays on %s: %s", p < 0 ? "arena" : "a part of arena",
                      t->ar->intent, from->name, loci_last_error());
        tiering_lock();
        if (rc == 0) {
            if (p >= 0)
                t->parts[p].at = to;
            count_move(t, p < 0 ? &t->track : &t->parts[p].track, from, to, mv->promotion, bytes, seconds);
            plan_arena_t *a = &w->arenas[mv->arena]; /* where it is now, for the node ledger */
            for (int k = 0; k < a->ncandidates; k++)
                a->at = a->cand[k] == mv->target ? k : a->at;
            a->residence = 0;
        }
        failed = rc != 0;
        if (p < 0)
            t->seen = loci_arena_target(t->ar);
        if (last[m])
            tiering_set_idle(t);
    }
    free(last);
}

/* Arenas someone else moved since the last interval — arena.c (an auto arena
 * whose target filled moves down whole) or the program (loci_arena_move):
 * each starts its time where it is now. (Such a move holds its extents still
 * for the heat source, heat_hold: it takes every page along, none is left
 * behind unmapped.) Under the lock. */
static void settle_moved(void)
{
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        if (loci_arena_target(t->ar) != t->seen) {
            t->track.residence = 0;
            t->seen = loci_arena_target(t->ar);
            if (t->split)
                tiering_parts_moved(t);
        }
}

/* LOCI_LOG=debug: the interval's plan, a line per target and per arena, to
 * read why an arena moved or stayed where a run shows only where pages are.
 * own[k]: target k's room before the node's share. */
static void log_plan(const work_t *w, const plan_target_t *own, const plan_params_t *p, size_t nmoves)
{
    unsigned long long interval = (unsigned long long)tiering_totals()->intervals;
    for (size_t k = 0; k < w->nt; k++)
        loci__log(LOCI_LOG_DEBUG, "tiering (process %d): interval %llu: %s: room %llu KiB (budget and free "
                  "memory), %llu KiB with the node's share, floor %llu KiB", (int)getpid(), interval, w->targets[k]->name,
                  (unsigned long long)(own[k].room >> 10), (unsigned long long)(w->room[k].room >> 10),
                  (unsigned long long)(w->room[k].floor >> 10));
    for (size_t i = 0; i < w->n; i++) {
        const plan_arena_t *a = &w->arenas[i];
        const char *to = NULL;
        for (size_t m = 0; m < nmoves; m++)
            if (w->moves[m].arena == (int)i)
                to = w->targets[w->moves[m].target]->name;
        char part[40] = "";
        if (w->part[i] >= 0)
            snprintf(part, sizeof part, ", part at %p", w->rec[i]->parts[w->part[i]].base);
        loci__log(LOCI_LOG_DEBUG, "tiering (process %d): interval %llu: arena %llu%s \"%s\": %llu KiB, heat %.3f "
                  "± %.3f, on %s%s%s, residence %u, rent %.3f of %.3f s", (int)getpid(), interval,
                  (unsigned long long)a->id, part, a->intent, (unsigned long long)(a->bytes >> 10), a->heat, a->spread,
                  a->at >= 0 ? w->targets[a->cand[a->at]]->name : "none",
                  to ? ", moves to " : "", to ? to : "", a->residence, w->rent[i],
                  (double)a->bytes * p->seconds_per_byte);
    }
}

void tiering_step(const tiering_config_t *c, heat_sample_t *samples, size_t n)
{
    double interval_s = c->interval_ms / 1e3;
    int64_t per_interval = (int64_t)((double)c->rate * interval_s);
    allowance = allowance + per_interval > per_interval ? per_interval : allowance + per_interval;
    if (n) /* none: samples is NULL, which qsort may not take */
        qsort(samples, n, sizeof *samples, by_tag_and_base);
    tiering_lock();
    settle_moved();
    account(c, samples, n);
    work_t w;
    if (describe(c, &w)) {
        /* a move's price unknown, rent cannot be weighed against it: one move (the plan makes the
         * first whatever its size) measures it, and the others pay rent at that price */
        int64_t may_move = price_measured || allowance <= 0 ? allowance : 1;
        plan_params_t p = {.margin = MARGIN, .gap = GAP, .noise = NOISE, .min_residence = MIN_RESIDENCE,
                           .settle = PINGPONG_INTERVALS, .seconds_per_byte = seconds_per_byte,
                           .interval_s = interval_s, .allowance = may_move};
        plan_target_t *own = loci__log_on(LOCI_LOG_DEBUG) ? malloc((w.nt + 1) * sizeof *own) : NULL;
        if (own)
            memcpy(own, w.room, w.nt * sizeof *own);
        /* the node's share: what the user's other tiering processes leave this one */
        ledger_view_t view = {w.arenas, w.n, w.targets, w.nt, arena_target_move_room, tiering_held_on,
                              tiering_wanted_window_us()};
        tiering_limit_window(tiering_ledger_share(c, &view, &p, w.room));
        size_t nmoves = plan_make(w.arenas, w.n, w.room, w.nt, &p, w.rent, w.moves);
        if (own)
            log_plan(&w, own, &p, nmoves);
        free(own);
        for (size_t i = 0; i < w.n; i++)
            *(w.part[i] < 0 ? &w.rec[i]->track.rent : &w.rec[i]->parts[w.part[i]].track.rent) = w.rent[i];
        for (size_t m = 0; m < nmoves; m++)
            allowance -= (int64_t)w.arenas[w.moves[m].arena].bytes;
        if (nmoves) {
            tiering_ledger_moving(c, &view, true);
            make_moves(&w, nmoves);
            tiering_ledger_moving(c, &view, false);
        }
    }
    work_free(&w);
    tiering_totals()->intervals++;
    tiering_unlock();
}

void tiering_step_reset(void)
{
    seconds_per_byte = 1 / FIRST_GUESS_BPS;
    price_measured = false;
    allowance = 0;
}
