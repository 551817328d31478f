/*
 * The plan: which auto arena goes where this interval, and which moves get
 * there — a pure function of plain data (plan_arena_t, plan_target_t), so
 * that every rule is unit-tested without a machine.
 *
 *  1. Placement, candidate by candidate from the best (a level): the arenas
 *     not yet placed in the order of their claim to it — heat per byte,
 *     counted `noise` spreads up for an arena that holds the level or a
 *     place above it and down for one below it (arenas of one true heat read
 *     apart by as much as their noise: a challenger must be hotter beyond
 *     both, or equals would trade places for ever), then raised by the
 *     margin (relative) and the gap (absolute: heat measured on a sample is
 *     noisy, and a near-cold arena's share can double by chance) once for
 *     each tier the arena sits above its lowest candidate (hysteresis: an
 *     incumbent keeps its place until a challenger is that much hotter), and
 *     a place on the best candidate that a move gave within `settle`
 *     intervals raised once more (of equals, the one held longest goes:
 *     moving back one that just came is ping-pong); the claims of the
 *     incumbents of one tier are dealt out among them by heat (counted up by
 *     its own noise, a noisy cold incumbent would outrank a steady warm one:
 *     the tier keeps the claims it holds against challengers, and gives up
 *     its coldest place first) — each on the level when it has room left
 *     under that target's budget. Arenas that moved less than min_residence
 *     intervals ago stay where they are and count there first; an arena with
 *     no heat is never promoted (nothing to gain); one that fits nowhere
 *     stays; a candidate it cannot reach keeping every store (a file tier
 *     without the userfaultfd that takes) is never chosen.
 *  2. Cost (rent or buy): a promotion is made once the arena has paid, in
 *     the intervals it wanted it, as much rent as the move costs: rent is
 *     its heat per byte held two intervals in a row, less its noise and the gap, times the interval (the
 *     share of the time its accesses surely went to the slower memory), the price
 *     the move's seconds (bytes / measured move bandwidth) — so that no
 *     move costs more than twice the best choice made in hindsight, and the
 *     hotter an arena the sooner it is worth it; a promotion that must
 *     wait stays put and the placement is made again
 *     without it, so that nothing is demoted to make room for it yet —
 *     and again, until every promotion that placement makes has paid too
 *     (the room a held arena leaves goes to a colder one only at its own
 *     price). A promotion that fills its target no further than the
 *     target's floor (the node's share owes it to this process) pays no
 *     rent.
 *  3. Moves: demotions first (coldest first: they make the room), then
 *     promotions (hottest first), each only while the interval's allowance
 *     of bytes (the rate limit) lasts and the destination has room as the
 *     moves before it leave it. A demotion whose tier is still full after
 *     the other demotions — a swap between two full tiers, which neither
 *     order can make — goes further down, to the first tier with room.
 *
 * plan_share is the node's part (ledger.c, docs/TIERING.md "Node-wide"):
 * from every auto arena of the user's tiering processes, what each process
 * may hold on each target — recent moves where they are, each process's
 * floor (beside the places moves gave within the ping-pong window), then
 * the node's arenas by the same claims and levels as step 1. A grant is bytes, and a
 * process that must give some up gives its lowest-claimed places there
 * first (the same claims): so a floor waits for a place whose process would
 * give up one a move gave lately.
 */
#include "tiering/tiering.h"

#include <stdlib.h>
#include <string.h>

/* How many tiers arena a sits above its lowest candidate (0 when not on
 * one of its candidates): its candidates below it that may hold arenas.
 * One without room (a budget of 0: out of play) is no tier — counted, an
 * arena on the fast node had the hysteresis of two tiers against one from
 * the slow node below an empty middle one, and a newly hot arena waited
 * 5 intervals there (bench/tiering/node.sh, node 1 out of play). */
static int height(const plan_arena_t *a, const plan_target_t *t)
{
    int below = 0;
    for (int k = a->at + 1; a->at >= 0 && k < a->ncandidates; k++)
        below += t[a->cand[k]].room > 0;
    return below;
}

/* Whether arena x holds a place above its lowest candidate that a move gave
 * it within p->settle intervals (a move back now would count as ping-pong). */
static bool settling(const plan_arena_t *x, const plan_target_t *t, const plan_params_t *p)
{
    return height(x, t) > 0 && x->residence <= p->settle;
}

/* The heat arena a has held two intervals in a row (the lesser of its last
 * two) beyond its noise and the gap: what it surely gains per byte on a
 * better tier. A cold arena's reading that strays up by chance pays little
 * rent, and one that reads within the gap — what a sampled share reads of
 * memory scarcely touched — pays none: promoted into spare room, such
 * arenas went back as soon as a hot set wanted it (ping-pong in the node
 * test, docs/TIERING.md). Two in a row, as the kernel's NUMA balancing
 * migrates a page on its second fault from a node, not its first: a cold
 * arena (0.15, 0.28 +- 0.08 for one interval) paid a 0.04 s move at once,
 * into room the node had just freed, which its process's own hot arena
 * wanted an interval later — moved back (node test, 6.1). A hot set that
 * moved pays an interval later. */
static double sure_heat(const plan_arena_t *a, const plan_params_t *p)
{
    double h = a->heat - a->rise - p->noise * a->spread - p->gap;
    return h > 0 ? h : 0;
}

/* Arena a's claim to its candidate k: its heat per byte, counted `noise`
 * spreads up when it holds k or a place above it (an incumbent) and down
 * when it is below k (a challenger) — a challenger must be hotter beyond
 * both arenas' noise —, then raised by margin and gap once for each tier it
 * sits above its lowest candidate (hysteresis). Counted per candidate, each
 * pair that contends for a tier is counted apart by both their spreads, and
 * by no more: one claim for every tier added two spreads a tier, and on the
 * top of three an incumbent's counted three of its own where a challenger
 * from the middle counted one of its own up — a cold part that had just
 * stepped down (0.1, its step's noise 0.3) held the fast node against the
 * hot window that had come to the middle (vm_parts, 6.12: phase 2 placed
 * after 10-12 intervals). A place on the best candidate that a move gave
 * lately (settling) is raised once more by margin and gap, so that of
 * arenas that read alike, the one there longest goes down — moving back one
 * that just came would be ping-pong. The same within a process and among
 * the node's (plan_share), so that a process that must give up a place
 * gives the one the node counted lowest: ranked plainly within the process,
 * a cold arena promoted into spare room went back 7 intervals later when a
 * newcomer's floor took the room, while its siblings there, no hotter,
 * stayed (node test, 6.12). Margin and gap, not a whole tier's: an arena
 * whose heat just fell reads a wide spread, and more kept a hot set that
 * changed waiting for the settling window (test_tiering). */
static double claim_at(const plan_arena_t *a, int k, const plan_target_t *t, const plan_params_t *p, double noise)
{
    bool holds = a->at >= 0 && a->at <= k;
    double claim = a->heat + (holds ? noise : -noise) * a->spread;
    for (int h = height(a, t); h > 0; h--)
        claim = claim * (1 + p->margin) + p->gap;
    if (a->at == 0 && settling(a, t, p))
        claim = claim * (1 + p->margin) + p->gap;
    return claim > 0 ? claim : 0;
}

/* An incumbent in the dealing of claims: the target and tier it holds, its
 * standing (its claim were it read without noise). */
typedef struct {
    int target, height;
    double standing;
    int index;
} standing_t;

static int by_place_then_standing(const void *pa, const void *pb)
{
    const standing_t *a = pa, *b = pb;
    if (a->target != b->target)
        return a->target < b->target ? -1 : 1;
    if (a->height != b->height)
        return a->height < b->height ? -1 : 1;
    if (a->standing != b->standing)
        return a->standing > b->standing ? -1 : 1;
    return a->index - b->index;
}

static int descending(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a < b) - (a > b);
}

typedef struct {
    double claim;
    int height, index;
} ranked_t;

/* Room to rank n arenas: their order, their claims, the dealing's, and
 * which of them a placement has placed. */
typedef struct {
    ranked_t *order;
    standing_t *key;
    double *pool, *claim;
    bool *placed;
} ranking_t;

static bool ranking_alloc(ranking_t *r, size_t n)
{
    r->order = calloc(n + 1, sizeof *r->order);
    r->key = calloc(n + 1, sizeof *r->key);
    r->pool = calloc(n + 1, sizeof *r->pool);
    r->claim = calloc(n + 1, sizeof *r->claim);
    r->placed = calloc(n + 1, sizeof *r->placed);
    return r->order && r->key && r->pool && r->claim && r->placed;
}

static void ranking_free(ranking_t *r)
{
    free(r->order);
    free(r->key);
    free(r->pool);
    free(r->claim);
    free(r->placed);
}

/* claim[i] for the arenas of r->order[0..m): each one's claim to its
 * candidate `level` (OWN_PLACE: to where it is), then the claims of
 * the incumbents among them of one tier of one target dealt out among them
 * by standing — the warmest holds the highest. Counted up by its own noise,
 * the noisier of two incumbents ranks higher: a cold arena at 0.07 +- 0.10
 * outranked a warmer one at 0.18 +- 0.05 on the top of three tiers, and the
 * process gave up the warmer place, which came back (node test, 6.1).
 * Dealt out, the claims a tier holds against challengers are the same — no
 * more hysteresis, no less — and a tier that must give up a place gives up
 * its coldest. */
#define OWN_PLACE (-1)

static void deal_claims(const plan_arena_t *a, int level, const plan_target_t *t, const plan_params_t *p,
                        ranking_t *r, size_t m)
{
    standing_t *key = r->key;
    double *pool = r->pool, *claim = r->claim;
    size_t nkeys = 0;
    for (size_t j = 0; j < m; j++) {
        int i = r->order[j].index, k = level == OWN_PLACE ? a[i].at : level;
        claim[i] = claim_at(&a[i], k, t, p, p->noise);
        if (a[i].at >= 0 && a[i].at <= k)
            key[nkeys++] = (standing_t){a[i].cand[a[i].at], height(&a[i], t), claim_at(&a[i], k, t, p, 0), i};
    }
    qsort(key, nkeys, sizeof *key, by_place_then_standing);
    for (size_t from = 0, to; from < nkeys; from = to) {
        for (to = from; to < nkeys && key[to].target == key[from].target && key[to].height == key[from].height; to++)
            pool[to - from] = claim[key[to].index];
        qsort(pool, to - from, sizeof *pool, descending);
        for (size_t k = from; k < to; k++)
            claim[key[k].index] = pool[k - from];
    }
    for (size_t j = 0; j < m; j++)
        r->order[j].claim = claim[r->order[j].index];
}

static int by_claim(const void *pa, const void *pb)
{
    const ranked_t *a = pa, *b = pb;
    if (a->claim != b->claim)
        return a->claim > b->claim ? -1 : 1;
    if (a->height != b->height) /* equal claims: the incumbent first, so nothing swaps for nothing */
        return a->height > b->height ? -1 : 1;
    return a->index - b->index;
}

static int coldest_first(const void *pa, const void *pb)
{
    const ranked_t *a = pa, *b = pb;
    if (a->claim != b->claim)
        return a->claim < b->claim ? -1 : 1;
    return a->index - b->index;
}

/* Can arena x be on its candidate k, the targets holding `used` already and
 * `kept` more bytes there kept from it: a candidate it can reach (or where
 * it is), with room left? */
static bool fits_beside(const plan_arena_t *x, int k, const uint64_t *used, uint64_t kept, const plan_target_t *t)
{
    return (k == x->at || !(x->unreachable >> k & 1)) && used[x->cand[k]] + kept + x->bytes <= t[x->cand[k]].room;
}

static bool fits(const plan_arena_t *x, int k, const uint64_t *used, const plan_target_t *t)
{
    return fits_beside(x, k, used, 0, t);
}

/* The best candidate arena x may be planned on: none above where it is
 * without heat (nothing to gain). */
static int first_wanted(const plan_arena_t *x)
{
    return x->heat > 0 || x->at < 0 ? 0 : x->at;
}

/* Placement by level: the arenas not r->placed, candidate by candidate from
 * the best, each level's in the order of their claims to it, each on that
 * candidate when it has room left under the targets' `used` (then counted
 * there, and want[i] = the level). Those placed nowhere stay unplaced. */
static void place_levels(const plan_arena_t *a, size_t n, const plan_target_t *t, const plan_params_t *p,
                         uint64_t *used, int *want, ranking_t *r)
{
    int levels = 0;
    for (size_t i = 0; i < n; i++)
        levels = a[i].ncandidates > levels ? a[i].ncandidates : levels;
    for (int k = 0; k < levels; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (!r->placed[i] && k < a[i].ncandidates && k >= first_wanted(&a[i]))
                r->order[m++] = (ranked_t){0, height(&a[i], t), (int)i};
        deal_claims(a, k, t, p, r, m);
        qsort(r->order, m, sizeof *r->order, by_claim);
        for (size_t j = 0; j < m; j++) {
            int i = r->order[j].index;
            if (fits(&a[i], k, used, t)) {
                used[a[i].cand[k]] += a[i].bytes;
                want[i] = k;
                r->placed[i] = true;
            }
        }
    }
}

/* Step 1: want[i] = the candidate index arena i should be on. held[i]:
 * arenas that stay where they are whatever their heat; so does one that
 * fits nowhere (counted there, over or not). */
static void place(const plan_arena_t *a, size_t n, const plan_target_t *t, size_t nt, const plan_params_t *p,
                  const bool *held, int *want, uint64_t *used, ranking_t *rank)
{
    memset(used, 0, nt * sizeof *used);
    for (size_t i = 0; i < n; i++) {
        want[i] = a[i].at;
        rank->placed[i] = held[i];
        if (held[i])
            used[a[i].cand[a[i].at]] += a[i].bytes;
    }
    place_levels(a, n, t, p, used, want, rank);
    for (size_t i = 0; i < n; i++)
        if (!rank->placed[i] && a[i].at >= 0)
            used[a[i].cand[a[i].at]] += a[i].bytes;
}

static bool promotes(const plan_arena_t *a, int want)
{
    return want >= 0 && (a->at < 0 || want < a->at);
}

/* Step 3, one move: arena i to its candidate k (with `further`, the first
 * below it with room), when it has room as the moves before it leave it. */
static bool move(const plan_arena_t *a, int i, int k, bool further, const plan_target_t *t, uint64_t *occupied,
                 int64_t *allowance, plan_move_t *moves, size_t *nmoves)
{
    while (further && k + 1 < a[i].ncandidates && occupied[a[i].cand[k]] + a[i].bytes > t[a[i].cand[k]].room)
        k++;
    int to = a[i].cand[k];
    if (occupied[to] + a[i].bytes > t[to].room)
        return false; /* the demotion that would have made room did not fit the allowance, or waits */
    if (a[i].at >= 0)
        occupied[a[i].cand[a[i].at]] -= a[i].bytes;
    occupied[to] += a[i].bytes;
    *allowance -= (int64_t)a[i].bytes;
    moves[(*nmoves)++] = (plan_move_t){i, to, promotes(&a[i], k)};
    return true;
}

size_t plan_make(const plan_arena_t *a, size_t n, const plan_target_t *t, size_t nt, const plan_params_t *p,
                 double *rent, plan_move_t *moves)
{
    if (n == 0)
        return 0;
    bool *held = calloc(n, sizeof *held), *wanted = calloc(n, sizeof *wanted); /* wanted: rent paid this interval */
    int *want = calloc(n, sizeof *want);
    uint64_t *used = calloc(nt, sizeof *used), *occupied = calloc(nt, sizeof *occupied);
    uint64_t *owed = calloc(nt, sizeof *owed);
    ranking_t rank;
    size_t nmoves = 0;
    if (!ranking_alloc(&rank, n) || !held || !wanted || !want || !used || !occupied || !owed)
        goto out; /* no plan this interval: nothing moves */
    ranked_t *order = rank.order;
    for (size_t i = 0; i < n; i++)
        held[i] = a[i].at >= 0 && a[i].residence < p->min_residence;
    place(a, n, t, nt, p, held, want, used, &rank);

    /* step 2: promotions that have not yet waited as long as they take, but
     * for those within their target's floor (what the node owes this
     * process there whatever its heat: a cold arena's rent would take tens
     * of intervals, a floor is due at once), stay held and the placement is
     * made again — until every promotion it makes is paid: the room a held
     * arena leaves may go to a colder one, which must have paid its own */
    for (bool again = true; again;) {
        again = false;
        for (size_t k = 0; k < nt; k++)
            owed[k] = t[k].floor;
        for (size_t i = 0; i < n; i++)
            if (a[i].at >= 0) {
                uint64_t *o = &owed[a[i].cand[a[i].at]];
                *o -= *o < a[i].bytes ? *o : a[i].bytes;
            }
        for (size_t i = 0; i < n; i++) {
            if (!promotes(&a[i], want[i])) {
                if (!wanted[i])
                    rent[i] = 0;
                continue;
            }
            if (!wanted[i])
                rent[i] += sure_heat(&a[i], p) * p->interval_s;
            wanted[i] = true;
            double seconds = (double)a[i].bytes * p->seconds_per_byte;
            uint64_t *o = &owed[a[i].cand[want[i]]];
            if (a[i].bytes <= *o)
                *o -= a[i].bytes;
            else if (rent[i] < seconds && a[i].at >= 0)
                again = held[i] = true;
        }
        if (again)
            place(a, n, t, nt, p, held, want, used, &rank);
    }

    /* step 3: demotions coldest first, then promotions hottest first */
    for (size_t i = 0; i < n; i++)
        if (a[i].at >= 0)
            occupied[a[i].cand[a[i].at]] += a[i].bytes;
    size_t ndown = 0, nup = 0;
    for (size_t i = 0; i < n; i++)
        if (want[i] != a[i].at && want[i] >= 0)
            order[promotes(&a[i], want[i]) ? n - 1 - nup++ : ndown++] = (ranked_t){a[i].heat, 0, (int)i};
    qsort(order, ndown, sizeof *order, coldest_first);
    qsort(order + n - nup, nup, sizeof *order, by_claim);
    /* a demotion whose tier is still full after the others (a swap between
     * two full tiers: the promotion out of it waits for the demotion's room,
     * the demotion for the promotion's) goes on down to the first tier with
     * room: both would otherwise wait for ever */
    int64_t allowance = p->allowance;
    bool *made = held; /* (held's memory: its use is over) */
    memset(made, 0, n * sizeof *made);
    for (int further = 0; further < 2; further++)
        for (size_t r = 0; r < ndown && allowance > 0; r++)
            if (!made[r])
                made[r] = move(a, order[r].index, want[order[r].index], further, t, occupied, &allowance, moves,
                               &nmoves);
    for (size_t r = n - nup; r < n && allowance > 0; r++)
        move(a, order[r].index, want[order[r].index], false, t, occupied, &allowance, moves, &nmoves);
out:
    free(held);
    free(wanted);
    free(want);
    free(used);
    free(occupied);
    free(owed);
    ranking_free(&rank);
    return nmoves;
}

/* The node's floors, floor_left[o * nt + k]: each process's, scaled down
 * together on a target where they add up to more than its node budget — so
 * that no floor can be granted at another's cost, by construction. */
static void scale_floors(const uint64_t *floor, size_t nowners, const plan_target_t *t, size_t nt, uint64_t *left)
{
    for (size_t k = 0; k < nt; k++) {
        double total = 0;
        for (size_t o = 0; o < nowners; o++)
            total += (double)floor[o * nt + k];
        double scale = total > (double)t[k].room ? (double)t[k].room / total : 1;
        for (size_t o = 0; o < nowners; o++)
            left[o * nt + k] = (uint64_t)((double)floor[o * nt + k] * scale);
    }
}

/* An arena's place above its lowest candidate, keyed for guard_places:
 * its process, the target, its rank (claim_of) there. */
typedef struct {
    int owner, target;
    ranked_t rank;
} place_key_t;

static int by_owner_target_rank(const void *pa, const void *pb)
{
    const place_key_t *a = pa, *b = pb;
    if (a->owner != b->owner)
        return a->owner < b->owner ? -1 : 1;
    if (a->target != b->target)
        return a->target < b->target ? -1 : 1;
    return by_claim(&a->rank, &b->rank);
}

/* Whether each arena's place is guarded from the floors (guarded[i]). A
 * process that must give up places on a target gives its lowest-claimed
 * first (plan_make ranks its own arenas by the node's claim_of): so a place
 * is guarded when it is settling or a colder one of its process there is —
 * or the node would take the place of an arena held long, and the process
 * would send back the one a move gave lately (ping-pong). An arena that
 * stays (min_residence) is never the one given up, and guards none. Each
 * process's places on a target sorted by rank, then walked from the coldest
 * up: n log n, for a node's arenas may be tens of thousands of parts.
 * false: out of memory. */
static bool guard_places(const plan_arena_t *a, const int *owner, size_t n, const plan_target_t *t,
                         const plan_params_t *p, const double *claim, bool *guarded)
{
    place_key_t *key = calloc(n + 1, sizeof *key);
    if (!key)
        return false;
    size_t nkeys = 0;
    for (size_t i = 0; i < n; i++) {
        guarded[i] = settling(&a[i], t, p);
        if (height(&a[i], t) > 0)
            key[nkeys++] = (place_key_t){owner[i], a[i].cand[a[i].at], {claim[i], height(&a[i], t), (int)i}};
    }
    qsort(key, nkeys, sizeof *key, by_owner_target_rank);
    bool colder_settling = false;
    for (size_t r = nkeys; r-- > 0;) {
        if (r + 1 == nkeys || key[r].owner != key[r + 1].owner || key[r].target != key[r + 1].target)
            colder_settling = false; /* the coldest of its process there */
        int i = key[r].rank.index;
        guarded[i] |= colder_settling;
        if (a[i].residence >= p->min_residence)
            colder_settling |= settling(&a[i], t, p);
    }
    free(key);
    return true;
}

/* Arena x of process o on its candidate k: counted in the node's use and in o's grant. */
static void grant_place(const plan_arena_t *x, int k, size_t o, size_t nt, uint64_t *used, uint64_t *grant)
{
    used[x->cand[k]] += x->bytes;
    grant[o * nt + (size_t)x->cand[k]] += x->bytes;
}

bool plan_share(const plan_arena_t *a, const int *owner, size_t n, const plan_target_t *t, size_t nt,
                const uint64_t *floor, size_t nowners, const plan_params_t *p, uint64_t *grant)
{
    memset(grant, 0, nowners * nt * sizeof *grant);
    uint64_t *used = calloc(nt + 1, sizeof *used), *floor_left = calloc(nowners * nt + 1, sizeof *floor_left);
    uint64_t *settled = calloc(nt + 1, sizeof *settled); /* bytes of guarded places, not yet counted */
    uint64_t *owed = calloc(nowners * nt + 1, sizeof *owed); /* what each process's floor still lacks */
    bool *guarded = calloc(n + 1, sizeof *guarded);
    int *want = calloc(n + 1, sizeof *want);
    ranking_t rank;
    bool ok = ranking_alloc(&rank, n) && used && floor_left && settled && owed && guarded && want;
    if (!ok)
        goto out;
    bool *placed = rank.placed;
    ranked_t *order = rank.order;
    size_t nfree = 0;
    for (size_t i = 0; i < n; i++) {
        placed[i] = a[i].at >= 0 && a[i].residence < p->min_residence; /* stays: counts first, its floor too */
        if (placed[i])
            rank.claim[i] = claim_at(&a[i], a[i].at, t, p, p->noise);
        else
            order[nfree++] = (ranked_t){0, height(&a[i], t), (int)i};
    }
    deal_claims(a, OWN_PLACE, t, p, &rank, nfree);
    if (!(ok = guard_places(a, owner, n, t, p, rank.claim, guarded)))
        goto out;
    scale_floors(floor, nowners, t, nt, floor_left);
    for (size_t i = 0; i < n; i++) /* what each process holds where (owed: less than its floor) */
        if (a[i].at >= 0)
            owed[(size_t)owner[i] * nt + (size_t)a[i].cand[a[i].at]] += a[i].bytes;
    for (size_t o = 0; o < nowners * nt; o++)
        owed[o] = owed[o] < floor_left[o] ? floor_left[o] - owed[o] : 0;
    for (size_t i = 0; i < n; i++)
        if (placed[i]) {
            uint64_t *f = &floor_left[(size_t)owner[i] * nt + (size_t)a[i].cand[a[i].at]];
            *f -= *f < a[i].bytes ? *f : a[i].bytes;
            grant_place(&a[i], a[i].at, (size_t)owner[i], nt, used, grant);
        }
    /* floors: each process's hottest arenas, in the node's order for the best candidate, on the best
     * candidate they may be planned on while its floor there holds them (never lower by a floor:
     * heat may do better), in the room beside the places moves gave lately (heat, not a floor, may
     * take those) */
    deal_claims(a, 0, t, p, &rank, nfree);
    qsort(order, nfree, sizeof *order, by_claim);
    for (size_t r = 0; r < nfree; r++) {
        const plan_arena_t *x = &a[order[r].index];
        if (guarded[order[r].index])
            settled[x->cand[x->at]] += x->bytes;
    }
    /* an arena that stays where it is for now keeps its process's floor on the candidate it wants,
     * where the process holds less than its floor: a process's new arenas stay their first
     * intervals, and its floor, granted only once they might move, reached it 6 intervals after it
     * came (node test, 6.1: the holder gives up its place an interval after its grant falls, the
     * newcomer's room follows an interval after that). Where it holds its floor already, its arenas
     * there take the floor by heat: kept for a cold arena demoted 2 intervals before, a floor
     * left the process's hot one there to the heat pass, and another process's hot arena lost its
     * place to it for 3 intervals (node test, 6.1) */
    for (size_t i = 0; i < n; i++) {
        const plan_arena_t *x = &a[i];
        int k = first_wanted(x);
        if (!placed[i] || k < 0 || k >= x->at)
            continue;
        size_t of = (size_t)owner[i] * nt + (size_t)x->cand[k];
        if (x->bytes <= owed[of] && x->bytes <= floor_left[of] && fits_beside(x, k, used, settled[x->cand[k]], t)) {
            owed[of] -= x->bytes;
            floor_left[of] -= x->bytes;
            grant_place(x, k, (size_t)owner[i], nt, used, grant);
        }
    }
    for (size_t r = 0; r < nfree; r++) {
        int i = order[r].index;
        const plan_arena_t *x = &a[i];
        int k = first_wanted(x);
        uint64_t *f = k >= 0 ? &floor_left[(size_t)owner[i] * nt + (size_t)x->cand[k]] : NULL;
        bool own = k >= 0 && k == x->at && guarded[i]; /* x's own place is among those */
        uint64_t beside = k >= 0 ? settled[x->cand[k]] - (own ? x->bytes : 0) : 0;
        if (f && x->bytes <= *f && fits_beside(x, k, used, beside, t)) {
            *f -= x->bytes;
            if (own)
                settled[x->cand[k]] -= x->bytes;
            grant_place(x, k, (size_t)owner[i], nt, used, grant);
            placed[i] = true;
        }
    }
    /* then heat alone: the node's hottest win whoever allocated first; one that fits nowhere where it is */
    bool *before = guarded; /* (guarded's memory: its use is over) */
    memcpy(before, placed, n * sizeof *before);
    place_levels(a, n, t, p, used, want, &rank);
    for (size_t i = 0; i < n; i++)
        if (!before[i] && (placed[i] || a[i].at >= 0))
            grant_place(&a[i], placed[i] ? want[i] : a[i].at, (size_t)owner[i], nt, used, grant);
out:
    free(used);
    free(floor_left);
    free(settled);
    free(owed);
    ranking_free(&rank);
    free(guarded);
    free(want);
    return ok;
}
