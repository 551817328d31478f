/*
 * Tiering (issue 29, docs/TIERING.md): arenas created with tier=auto are
 * placed among their intent's candidates by measured heat per byte. The
 * layer sits above arenas (it creates, moves and destroys them through
 * arena/'s internal calls) and below everything that uses them; it owns the
 * public loci_arena_create / loci_arena_destroy, so that an auto arena is
 * registered here without arena/ ever calling up.
 *
 * Its files call each other one way (no circle), each only files listed
 * before it:
 *
 *   config.c    [tiering] of LOCI_CONFIG and the budgets of the targets
 *   plan.c      who goes where and which moves get there; the node's share (pure)
 *   ledger.c    the node ledger: the auto arenas of every tiering process of the user, and each one's share
 *   site.c      where an auto arena was made, stable across runs
 *   watch.c     the heat source and what it watches of each auto arena
 *   registry.c  the auto arenas, their heat and counters (what `loci tier` reads)
 *   parts.c     an arena larger than its fast memory, placed by granule: its parts
 *   profile.c   LOCI_TIER_PROFILE: what a run learned, where the next starts
 *   stats.c     loci_tier_stats, loci_tier_totals, the LOCI_STATS lines
 *   publish.c   the live table `loci tier PID` reads
 *   step.c      one interval: heat per arena, the plan, its moves
 *   thread.c    the tiering thread: watches, collects, steps; start, stop, fork
 *   create.c    loci_arena_create / loci_arena_destroy: where an auto arena starts
 */
#ifndef LOCI_TIERING_H
#define LOCI_TIERING_H

#include "arena/arena.h"
#include "heat/heat.h"

#include <stdio.h>

/** Where tiering processes publish their tables (TIERING_TABLE_DIR/loci-tier-UID-PID)
 *  and share the node's ledger (loci-ledger-UID). */
#define TIERING_TABLE_DIR "/dev/shm"

/* --- config.c -------------------------------------------------------------- */

typedef struct {
    heat_source_t source;   /* HEAT_SOURCE_NONE: the first that works */
    unsigned interval_ms;   /* one plan per interval */
    topo_budget_t budget;   /* of every target without its own tiering_budget */
    uint64_t rate;          /* bytes moved per second at most */
    double sample;          /* the faults source's share of pages sampled per interval */
    topo_budget_t floor;    /* of each target, every process's at least (node ledger) */
    topo_budget_t node_budget; /* of each target, all processes of the node together; unset: each target's budget */
} tiering_config_t;

/** [tiering] of LOCI_CONFIG, defaults where a key is not given; LOCI_ECONFIG
 *  with "file:line: [tiering] key = value: what is wrong". */
int tiering_config_read(tiering_config_t *out);

/** Bytes of t that auto arenas may fill: its tiering_budget, else the
 *  config's, as a share of its capacity or a size. */
uint64_t tiering_budget_bytes(const tiering_config_t *c, const struct loci_target *t);
/** Bytes of t that the auto arenas of all the user's processes on the node
 *  may fill together: node_budget, else t's budget. */
uint64_t tiering_node_budget_bytes(const tiering_config_t *c, const struct loci_target *t);
/** The floor of one process on a target whose node budget is node_bytes. */
uint64_t tiering_floor_bytes(const tiering_config_t *c, uint64_t node_bytes);

/* --- plan.c ---------------------------------------------------------------- */

/** One auto arena as the plan sees it. */
typedef struct {
    uint64_t bytes;            /* its memory now */
    double heat;               /* heat per byte, smoothed (0: none seen) */
    double spread;             /* its noise: how far an interval's heat strays from `heat`, smoothed */
    double rise;               /* how much `heat` rose with the last interval's reading (0: it did not):
                                * rent is paid on the heat held two intervals in a row */
    int at;                    /* index of its target in cand[]; -1: on none of them */
    int ncandidates;
    int cand[RESOLVE_MAX_CANDIDATES]; /* its intent's candidates, best first: indices of plan_target_t */
    uint32_t unreachable;      /* bit k: candidate k cannot be reached keeping every store (a file tier
                                * without the userfaultfd it takes): never chosen */
    unsigned residence;        /* intervals since it last moved (or was created) */
    uint64_t id;               /* who it is, for the node ledger (the plan reads neither): its id, */
    const char *intent;        /* and its intent */
} plan_arena_t;

/** One target as the plan sees it. */
typedef struct {
    uint64_t room;             /* bytes auto arenas may hold there: its budget, at most theirs + its free memory */
    uint64_t floor;            /* bytes of it owed to this process (the node's share): promotions within it pay no rent */
} plan_target_t;

typedef struct {
    double margin;             /* hysteresis: 0.25 = a challenger must be 25 % hotter per tier ... */
    double gap;                /* ... and this much more heat per byte (0..1), */
    double noise;              /* ... the two arenas' heats counted this many spreads apart */
    unsigned min_residence;    /* intervals an arena stays after a move */
    unsigned settle;           /* within this many intervals, a place a move gave is kept from other processes'
                                * floors (plan_share) and its claim raised once more by margin and gap */
    double seconds_per_byte;   /* measured cost of moving (1 / move bandwidth) */
    double interval_s;
    int64_t allowance;         /* bytes this interval may move (the rate limit, debts carried) */
} plan_params_t;

typedef struct {
    int arena;                 /* index into the plan_arena_t array */
    int target;                /* index into the plan_target_t array */
    bool promotion;            /* to a better candidate */
} plan_move_t;

/** The moves of this interval, in the order to make them, into moves[]
 *  (room for n). rent[i] (kept by the caller across intervals, zeroed for a
 *  new arena): what arena i has paid towards its promotion (seconds); a
 *  promotion that fills its target no further than the target's floor
 *  waits for none. */
size_t plan_make(const plan_arena_t *a, size_t n, const plan_target_t *t, size_t nt, const plan_params_t *p,
                 double *rent, plan_move_t *moves);

/** The node's share (docs/TIERING.md "Node-wide"): grant[o * nt + k], the
 *  bytes the auto arenas of process o may hold on target k, given every auto
 *  arena of the node (owner[i]: its process, 0 .. nowners - 1), each
 *  target's node budget (t[k].room) and each process's floor there
 *  (floor[o * nt + k], bytes). Arenas that moved less than min_residence
 *  intervals ago count where they are (and keep their process's floor on
 *  the candidate they want, heat taking them up); then every process's
 *  hottest arenas up to its floor, each on its best candidate when the floor there holds it
 *  (floors scaled down together where they add up to more than the
 *  target) and the room left there beside the places moves gave within
 *  `settle` intervals (taking those back for a floor would be ping-pong:
 *  the floor waits that long at most), then all the node's arenas in the order of their claim
 *  (plan_make's, the incumbent raised): the hottest win whoever came first.
 *  The grants of a target never add up to more than its node budget but
 *  for arenas that fit nowhere and stay. false: out of memory, no grant. */
bool plan_share(const plan_arena_t *a, const int *owner, size_t n, const plan_target_t *t, size_t nt,
                const uint64_t *floor, size_t nowners, const plan_params_t *p, uint64_t *grant);

/* --- ledger.c -------------------------------------------------------------- */

#define LEDGER_SLOTS 128       /* processes of one user on a node */
#define LEDGER_ENTRIES 32      /* auto arenas of one process (its hottest; the others' bytes count as held) */
#define LEDGER_TARGETS 16

#define LEDGER_MEASURES 3      /* a target's capacity: the most of its last this many measurements */

typedef struct {
    char name[16];             /* the target's name (of the first process that listed it) */
    int32_t numa_node;         /* its identity across processes: the NUMA node, else (-1) its name */
    uint32_t measures;         /* measurements taken; measured[measures % LEDGER_MEASURES] is the next */
    uint64_t measured[LEDGER_MEASURES]; /* what the node could hold of auto arenas there: the bytes they
                                * held and the free memory they could take, while no process moved any */
} ledger_target_t;

typedef struct {
    uint64_t id;               /* the arena's id in its process */
    uint64_t bytes;
    double heat;               /* heat per byte */
    double spread;             /* its noise (plan_arena_t's) */
    uint32_t residence;        /* intervals since it moved */
    int8_t at;                 /* index into cand[] of its target now; -1: none of them */
    uint8_t ncandidates;
    uint16_t unreachable;      /* plan_arena_t's */
    uint8_t cand[RESOLVE_MAX_CANDIDATES]; /* indices into the ledger's targets */
    char intent[40];           /* the end of its intent */
} ledger_entry_t;

typedef struct {
    int64_t pid;               /* 0: free */
    uint64_t start_time;       /* /proc/PID/stat field 22: a reused PID is another process */
    uint64_t heartbeat_ns;     /* CLOCK_MONOTONIC of its last interval */
    uint32_t nentries, interval_ms;
    uint64_t moving_since_ns;  /* CLOCK_MONOTONIC when it began this interval's moves; 0: its arenas are
                                * where held[] says (tiering_ledger_moving) */
    uint64_t window_us;        /* the window its heat source wants (ledger_view_t's) */
    uint64_t node_budget[LEDGER_TARGETS]; /* 1 + the node budget it asks on each target; 0: it uses none there */
    uint64_t floor[LEDGER_TARGETS];    /* its floor on each target, bytes */
    uint64_t held[LEDGER_TARGETS];     /* bytes all its auto arenas hold on each (those beyond entries too) */
    uint64_t granted[LEDGER_TARGETS];  /* its grant (plan_share) */
    uint64_t reserved[LEDGER_TARGETS]; /* what it may hold until its next interval: max(held, its room) */
    ledger_entry_t entries[LEDGER_ENTRIES];
} ledger_slot_t;

/** The file /dev/shm/loci-ledger-UID, whole. */
typedef struct {
    uint64_t magic;
    uint32_t version, size;    /* size: sizeof(tiering_ledger_t) */
    uint64_t generation;       /* odd while a process writes */
    uint64_t checksum;         /* XXH3 of what follows */
    uint32_t uid, ntargets;
    ledger_target_t targets[LEDGER_TARGETS];
    ledger_slot_t slots[LEDGER_SLOTS];
} tiering_ledger_t;

/** This process's view of one interval, for tiering_ledger_share. */
typedef struct {
    const plan_arena_t *arenas;
    size_t n;
    const struct loci_target *const *targets; /* plan_arena_t.cand's indices */
    size_t nt;
    uint64_t (*room_of)(const struct loci_target *t); /* the free memory auto arenas may take on t now
                                * (arena_target_move_room; UINT64_MAX: unknown); NULL: not measured */
    uint64_t (*held_of)(const struct loci_target *t); /* what this process's auto arenas hold on t now
                                * (arena_auto_bytes_on: they grow as its program allocates) */
    uint64_t window_us;        /* the window its heat source wants (tiering_wanted_window_us); 0: none */
} ledger_view_t;

/** One interval's share of the node: joins the ledger (the first call),
 *  writes this process's arenas, reaps the slots of processes gone, and
 *  lowers room[k] to what the node leaves this process on v->targets[k],
 *  room[k].floor to its floor there (within that room). Returns the window
 *  the node's processes observe in: the shortest any of them wants, so that
 *  their heats, shares of windows that found memory touched, compare (0:
 *  any, this process not sharing). Its lock held by
 *  another longer than a quarter of an interval: room within the reserve
 *  of its last interval. Without the ledger (LOCI_TIER_LEDGER=off, a file
 *  that is not safe to use: said once) room stays as it was: per process.
 *  Tiering thread only. */
uint64_t tiering_ledger_share(const tiering_config_t *c, const ledger_view_t *v, const plan_params_t *p,
                              plan_target_t *room);
/** Around this interval's moves (after tiering_ledger_share): `moving`
 *  marks this process as moving arenas, then (false) its slot's held bytes
 *  are set where v's arenas are now and the mark cleared. The node's
 *  capacity on a target is measured only while no process is so marked:
 *  a process's held bytes say where its arenas are only between its moves. */
void tiering_ledger_moving(const tiering_config_t *c, const ledger_view_t *v, bool moving);
/** Leave the ledger (loci_fini; for_good: exit, not joined again): this
 *  process's slot cleared. */
void tiering_ledger_leave(bool for_good);
void tiering_ledger_fork(loci_fork_phase_t phase);
/** The ledger's path: LOCI_TIER_LEDGER, else TIERING_TABLE_DIR/loci-ledger-UID;
 *  false when LOCI_TIER_LEDGER=off. */
bool tiering_ledger_path(char *buf, size_t len);
/** A whole copy of the ledger (`loci tier --node`, LOCI_STATS), its live
 *  processes only: 0, LOCI_ENOENT (none), LOCI_EPERM (not a file of yours,
 *  0600, regular), LOCI_EBUSY (no whole copy: damaged, or always being
 *  written), with messages. */
int tiering_ledger_read(tiering_ledger_t *out);
/** The node budget of the ledger's target k: the least any of its live
 *  processes asks (0: none uses k). */
uint64_t tiering_ledger_node_budget(const tiering_ledger_t *l, int k);
/** Bytes the auto arenas of all the ledger's processes hold on its target k. */
uint64_t tiering_ledger_held(const tiering_ledger_t *l, int k);
/** What the node can hold of auto arenas on the ledger's target k, as last
 *  measured (the most of the last LEDGER_MEASURES); UINT64_MAX: never. */
uint64_t tiering_ledger_capacity(const tiering_ledger_t *l, int k);

/** The node's totals as this process's last share saw them (LOCI_STATS). */
typedef struct {
    unsigned processes, ntargets;  /* ntargets 0: this process never shared the node */
    ledger_target_t targets[LEDGER_TARGETS];
    uint64_t held[LEDGER_TARGETS], node_budget[LEDGER_TARGETS];
} tiering_node_totals_t;

void tiering_ledger_totals(tiering_node_totals_t *out);
/** What the other processes' reserves left of t's node budget at this
 *  process's last share (where a new auto arena may start, create.c);
 *  UINT64_MAX when it does not share the node. */
uint64_t tiering_ledger_room(const struct loci_target *t);

/* --- site.c ---------------------------------------------------------------- */

/** Where an auto arena was made, the same from run to run (ASLR aside). */
typedef struct {
    uint64_t context;          /* its calling context's frames (modules and offsets, files and lines), hashed; 0: unknown */
    unsigned size_class;       /* the front end's (the malloc interposer: log2 of the block size), else log2 of max_bytes */
    unsigned ordinal;          /* live auto arenas of the same context and size class made before this one */
    char *where;               /* the frames as text ("app+0x1a2f<+0x1b40", "train.py:12<:40"); NULL: unknown */
} tiering_site_t;

/** The site of code whose calling context is frames[0..nframes-1],
 *  innermost first (context 0 when nothing names the first frame). */
void tiering_site_of(const loci_frame_t *frames, int nframes, unsigned size_class, tiering_site_t *out);
bool tiering_site_equal(const tiering_site_t *a, const tiering_site_t *b);
void tiering_site_free(tiering_site_t *s);
/** The running executable's path (malloc'd), NULL when /proc cannot say. */
char *tiering_executable_path(void);

/* --- watch.c --------------------------------------------------------------- */

/** An extent of an auto arena that heat watches. */
typedef struct {
    void *base;
    size_t size;
} tier_span_t;

typedef struct tier_arena tier_arena_t;

/** Open the heat source for the tiering thread (a forked child's copy of
 *  its parent's closed first); heat_open's error. */
int tiering_watch_open(const tiering_config_t *c);
/** Close it (the thread stopped, or never started). */
void tiering_watch_close(void);
/** fork() handler (tiering_fork): the child sets its parent's instance
 *  aside, to be closed when it opens its own. */
void tiering_watch_fork(loci_fork_phase_t phase);
/** Whether the heat source sees only shared memory (faults): auto arenas
 *  are then mapped as shared memory, used privately. */
bool tiering_shared_memory(void);
/** Whether the heat source sees a huge page as one (damon): auto arenas are
 *  then kept in base pages. */
bool tiering_base_pages(void);
/** Keep heat watching exactly t's extents now: those that appeared watched,
 *  those gone unwatched (under the registry's lock). */
void tiering_watch(tier_arena_t *t);
/** Stop watching t's extents (its destroy, its move). */
void tiering_unwatch(tier_arena_t *t);
/** This interval's heat of every watched granule (heat_collect). */
int tiering_watch_collect(heat_sample_t **samples, size_t *n);
/** The window the heat source's own adaptation wants (heat_wanted_window_us;
 *  0: none, or no windows), and the longest it may observe in (0: any). */
uint64_t tiering_wanted_window_us(void);
void tiering_limit_window(uint64_t most_us);
/** The heat source in use, "none" before the thread ran, and its CPU time. */
const char *tiering_source_name(void);
double tiering_heat_cpu_seconds(void);

/* --- registry.c ------------------------------------------------------------ */

/** What tiering keeps of something it places, from interval to interval:
 *  an auto arena, or a part of one placed by granule (parts.c). */
typedef struct {
    double heat;               /* heat per byte, smoothed over intervals (EWMA) */
    double spread;             /* its noise: an interval's step from the last, as a deviation (EWMA) */
    double last;               /* the last interval's heat, unsmoothed */
    double before;             /* `heat` before the last interval's reading */
    double held;               /* `heat`, but falling at half its rate: an incumbent's (step.c) */
    bool heat_seen;            /* heat has had one observation of it */
    unsigned residence;        /* intervals since its last move */
    double rent;               /* paid towards a promotion, seconds (plan_make) */
    const struct loci_target *left; /* where its last move came from, and when (ping-pong) */
    uint64_t moved_at;
} tier_track_t;

/** One interval's heat of it: `now`, the share its observations found
 *  accessed, into its smoothed heat and spread. */
void tiering_track_heat(tier_track_t *k, double now);
/** It moved from `from` at interval `interval`: true when that took it back
 *  where it had left within `within` intervals (ping-pong). */
bool tiering_track_moved(tier_track_t *k, const struct loci_target *from, const struct loci_target *to,
                         uint64_t interval, unsigned within);

/** A granule of an auto arena placed by granule: where its pages are. */
typedef struct {
    void *base;
    size_t size;
    const struct loci_target *at;
    tier_track_t track;
} tier_part_t;

/** One auto arena. Fields below `lock` of registry.c (tiering_lock). */
struct tier_arena {
    loci_arena_t *ar;
    uint64_t id;               /* heat's tag for its extents (never reused, unlike addresses) */
    tier_track_t track;        /* its heat, and its moves (the whole arena's) */
    uint64_t bytes;            /* its memory at the last interval */
    uint64_t bytes_moved, moves;
    bool busy;                 /* the tiering thread is moving it: destroy waits */
    bool split;                /* placed by granule (parts.c): its parts move, never it whole */
    tier_part_t *parts;        /* its granules by address, while split (parts.c) */
    size_t nparts;
    const struct loci_target *seen; /* where it was at the last interval (or tiering's own move) */
    tiering_site_t site;       /* where it was made (profile.c, publish.c) */
    tier_span_t *watched;      /* what heat watches of it now */
    size_t nwatched, cap_watched;
    struct tier_arena *next, *prev;
};

/** Totals since the first auto arena (stats.c prints them). */
typedef struct {
    uint64_t promoted, demoted, pingpong; /* bytes */
    uint64_t moves, intervals;
    double cpu_seconds;                   /* the thread's own; heat's are added when read */
    double move_seconds;                  /* spent in arena_move */
    bool paused;                          /* the heat source stopped: nothing moves */
} tier_totals_t;

void tiering_lock(void);
void tiering_unlock(void);
/** Wait (under the lock) until the tiering thread is done with t. */
void tiering_wait_idle(tier_arena_t *t);
/** Mark t idle again and wake whoever waits for it. */
void tiering_set_idle(tier_arena_t *t);
/** The auto arenas, under the lock. */
tier_arena_t *tiering_arenas(void);
tier_totals_t *tiering_totals(void);
/** Add ar (under no lock, after tiering_start); LOCI_ENOMEM. */
int tiering_register(loci_arena_t *ar);
/** Take ar's record out (under the lock, ar idle): its extents unwatched
 *  through `unwatch` first; NULL when ar is no auto arena. */
tier_arena_t *tiering_unregister(loci_arena_t *ar);
/** ar's record (under the lock), or NULL. */
tier_arena_t *tiering_find(const loci_arena_t *ar);
/** Free a record taken out (tiering_unregister): its site, its watched
 *  extents, its parts. */
void tiering_record_free(tier_arena_t *t);
/** Forget every record (loci_fini; the arenas themselves go with arena_fini). */
void tiering_registry_clear(void);
void tiering_registry_fork(loci_fork_phase_t phase);

/* --- parts.c --------------------------------------------------------------- */

/** Whether auto arena t is placed by granule from now on (once split, for
 *  good): larger than the budget of its best candidate, where it could
 *  never go whole, at least two granules, and parts of it can move there
 *  (arena_moves_part). */
void tiering_parts_decide(const tiering_config_t *c, tier_arena_t *t);
/** A split arena's parts from this interval's samples of it (s[0..n), by
 *  address): a part seen before keeps its place and history, a new one
 *  starts where the kernel holds its pages (arena_part_target); each
 *  part's heat smoothed (tiering_track_heat). false: out of memory, the
 *  parts as they were. */
bool tiering_parts_account(tier_arena_t *t, const heat_sample_t *s, size_t n);
/** Bytes of split arena t's parts on target x. */
uint64_t tiering_parts_on(const tier_arena_t *t, const struct loci_target *x);
/** Bytes the auto arenas hold on x now: each arena placed whole where it is
 *  (arena_auto_bytes_on), each part of one placed by granule where it is —
 *  what a budget is charged with, where an arena starts as in each plan.
 *  Under the lock. */
uint64_t tiering_held_on(const struct loci_target *x);
/** Split arena t was moved whole (a spill, the program's loci_arena_move):
 *  every part is on its target now, its time there starting. */
void tiering_parts_moved(tier_arena_t *t);

/* --- step.c ---------------------------------------------------------------- */

/** One interval: the samples' heat per arena (samples sorted here), the
 *  plan, its moves. */
void tiering_step(const tiering_config_t *c, heat_sample_t *samples, size_t n);
/** Forget the measured move bandwidth and the rate allowance (loci_fini). */
void tiering_step_reset(void);

/* --- thread.c -------------------------------------------------------------- */

/** Start the tiering thread if it is not running (the first auto arena). */
int tiering_start(const tiering_config_t *c);
/** Stop it, first thing in loci_fini. */
void tiering_fini(void);
/** fork() handler (core/fork.c). */
void tiering_fork(loci_fork_phase_t phase);

/* --- stats.c --------------------------------------------------------------- */

/** The tiering part of the LOCI_STATS report (nothing without auto arenas). */
void tiering_stats_print(FILE *f);

/* --- profile.c ------------------------------------------------------------- */

/** Read LOCI_TIER_PROFILE, once per loci_init (the first auto arena); a
 *  profile that is not safe, whole and this program's: a warning, ignored. */
void tiering_profile_load(void);
/** Where the profile starts site s: its target among res's candidates (the
 *  same name, else the first of the same kind), the bytes its arena held,
 *  its heat, and the bytes of the profile's hotter sites on that target
 *  (which the budget serves first); false: no entry for s, or no such
 *  candidate. Under the lock. */
bool tiering_profile_place(const tiering_site_t *s, const resolution_t *res, const struct loci_target **target,
                           uint64_t *bytes, double *heat, uint64_t *hotter);
/** Keep what t's run says of its site (its destroy). Under the lock. */
void tiering_profile_learn(const tier_arena_t *t);
/** Write the profile: what this run learned, the live arenas included
 *  (exit, loci_fini). Nothing without LOCI_TIER_PROFILE, or in a forked child. */
void tiering_profile_save(void);
/** Forget it (loci_fini, after saving). */
void tiering_profile_reset(void);

/* --- publish.c ------------------------------------------------------------- */

/** The table's header (the file starts with it; entries follow). */
typedef struct {
    uint64_t magic;
    uint32_t version, entry_size;
    uint64_t generation;       /* odd while the writer writes */
    uint64_t checksum;         /* XXH3 of the header from pid on, and the entries */
    int64_t pid;
    uint32_t uid, interval_ms;
    uint64_t published_ns, started_ns; /* CLOCK_MONOTONIC: the last interval's, the thread's start */
    char source[16];           /* the heat source */
    uint32_t paused, reserved;
    uint64_t bytes_promoted, bytes_demoted, bytes_pingpong, moves, intervals;
    double cpu_seconds;        /* the tiering thread's and its heat source's */
    uint64_t nentries;
} tiering_table_header_t;

/** One auto arena in the table. */
typedef struct {
    char intent[96];           /* the ends of long texts */
    char target[16], kind[16];
    char site[160];            /* its site's frames (site.c: tiering_site_t.where); "" unknown */
    uint32_t size_class, ordinal;
    uint64_t bytes, bytes_moved, moves;
    double heat;
    uint32_t parts;            /* placed by granule (parts.c): its parts; 0: placed whole */
    uint32_t naway;
    struct {
        char target[16];
        uint64_t bytes;
    } away[LEDGER_TARGETS];    /* the bytes of its parts on each target but its own */
} tiering_table_entry_t;

typedef struct {
    tiering_table_header_t header;
    tiering_table_entry_t *entries; /* header.nentries */
    double age_s;              /* since it was published */
} tiering_table_t;

/** Write this process's table (the tiering thread, each interval). */
void tiering_publish(unsigned interval_ms, uint64_t started_ns);
/** Remove it (loci_fini; for_good: exit, none made again). */
void tiering_unpublish(bool for_good);
void tiering_publish_fork(loci_fork_phase_t phase);
/** Process pid's table (`loci tier`), checked first: the process and the
 *  file the caller's, the file loci's (regular, 0600), the copy whole.
 *  LOCI_ENOENT (no such process, no table), LOCI_EPERM (not yours),
 *  LOCI_EINVAL (another version), LOCI_EBUSY, with messages. */
int tiering_table_read(pid_t pid, tiering_table_t *out);
void tiering_table_free(tiering_table_t *t);

#endif
