/*
 * tier=auto across the processes of one node (issue 39 items 3 and 4, docs/TIERING.md "One node,
 * several processes"): the node's hot set, wherever it is, on the fast node.
 *
 *   vm_node_tiering plain FAST      4 worker processes of this user (A-D, started one after the
 *                                   other, each waiting for the one before to fill its arenas), each
 *                                   with 4 auto arenas of 4 MiB ("bandwidth=high,tier=auto"): 64 MiB
 *                                   of auto arenas, of which FAST_BYTES may be on the fast node
 *                                   FAST (LOCI_CONFIG: [target] tiering_budget, which the node
 *                                   ledger takes as the node's budget there, and per-process
 *                                   tiering as each process's; the suite also leaves the node about
 *                                   that much room, bench/tiering/fastmem.sh). The hot set (two
 *                                   arenas of one worker, some 20 times as often written a page as
 *                                   any other) is A's, then B's, then C's, once 10 of tiering's
 *                                   intervals passed without a move and without a hot set (settle:
 *                                   a move of the start's is not counted as moved back when phase
 *                                   A's heat moves its arena again). Asserted, each check
 *                                   (one per INTERVAL_MS): within 10 of tiering's intervals of each
 *                                   change at least 90 % of the hot set's mapped pages are on FAST,
 *                                   and stay there; the auto arenas on FAST never more than the
 *                                   fast memory (without the ledger: one arena more, the reserved
 *                                   room's precision) at two looks one after the other (a look
 *                                   reads the workers in turn: fast_in_both); from 10 intervals into each
 *                                   phase on, no worker
 *                                   with less than its floor on FAST ([tiering] floor: FLOOR_BYTES,
 *                                   one arena) at two checks in a row (one: a swap of its own
 *                                   arenas, between its two moves); at the end the bytes moved back within 10 intervals
 *                                   (ping-pong) at most 1 % of those moved, every worker's data
 *                                   intact. Then item 4: a fifth worker E starts and has its floor
 *                                   within 5 intervals; the hot set becomes C's, D's and E's (24 MiB:
 *                                   with A's and B's floors, more than the fast memory), then A
 *                                   leaves, and within 10 intervals the hot set is on FAST: A's
 *                                   memory went to the hottest waiting arena.
 *   vm_node_tiering mpi FAST -- COMMAND...   the same phases (A-C; no fifth) with the workers the 4
 *                                   ranks of an MPI job: COMMAND (an mpirun line) is run with the
 *                                   board's path and the workers' MEMORY (below) as its last two
 *                                   arguments; each rank takes its arenas from MPI_Alloc_mem, with
 *                                   info loci_intent=INTENT unless first touch
 *                                   (tests/mpi/vm_node_tiering_mpi.c).
 *   vm_node_tiering worker BOARD INDEX MEMORY   one plain worker (what `plain` starts); MEMORY:
 *                                   first-touch, or the intent of its auto arenas.
 *
 * Options (before FAST), for bench/tiering/node.sh, which runs the same workload under the
 * kernel's tiering: --memory first-touch (the workers' arenas plain anonymous memory, placed by
 * the kernel; intervals then counted by the clock), --intent INTENT (the auto arenas', default
 * bandwidth=high,tier=auto: one that ranks FAST first), --phase-intervals N (15), --out-of-play
 * NODE (loci's auto arenas get no budget there; repeatable). A last line "summary ..." gives the
 * figures in words and numbers.
 *
 * The checker asks the kernel which node each worker's pages are on (move_pages on the worker's
 * pid: root). A worker's bytes on FAST are its pages there, each arena's scaled by its mapped
 * pages (the faults source keeps a sample of pages unmapped; the kernel's modes move pages one by
 * one, so an arena can be partly there). The heat source is `faults` for every worker: DAMON's
 * kdamond serves one process at a time (src/heat/damon.c). Where loci has no node ledger
 * ([tiering] floor unknown: per-process tiering), the budgets are each process's own and the same
 * goals are asserted: that is the problem the ledger solves, and the test says so.
 * Exit 0 ok, 1 a goal missed, 2 setup error.
 */
#include "node_board.h"
#include "node_memory.h"
#include "node_worker.h"
#include "page_nodes.h"

#include <loci.h>

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAST_BYTES (28u << 20) /* 7 arenas: the hot set (2) and a floor for each of 5 workers */
#define FLOOR_BYTES (4u << 20)
#define INTERVAL_MS 400        /* TCG: a 4 MiB move takes about 0.3 s */
#define PHASE_INTERVALS 15     /* each phase: 10 to get there, 5 to stay (the default) */
#define MAX_OUT_OF_PLAY 8
#define DEADLINE_INTERVALS 10
#define JOIN_INTERVALS 5       /* a newcomer's floor: "within a few intervals" */
#define SETTLE_MAX_INTERVALS 60 /* the start's settling at most this many intervals' time */
#define PHASE_CAP 4            /* a phase ends after PHASE_CAP times its intervals' time all the same */
#define RESIDENCY 0.9
#define PINGPONG_SHARE 0.01
#define ARENA_PAGES (NODE_ARENA_BYTES / 4096)

extern char **environ;

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("     FAILED: ");                                                               \
            printf(__VA_ARGS__);                                                                   \
            putchar('\n');                                                                         \
            fflush(stdout);                                                                        \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* What a run is asked to do (the command line). */
typedef struct {
    int fast;
    bool first_touch;  /* the workers' memory plain anonymous memory, not auto arenas */
    const char *intent; /* else the auto arenas' */
    uint64_t phase_intervals;
    int out_of_play[MAX_OUT_OF_PLAY], nout;
    char **command;    /* the MPI form's job, or NULL */
} options_t;

typedef struct {
    node_board_t *board;
    char board_path[64];
    int fast;
    const options_t *opt;
    bool ledger;       /* this loci has the node ledger (knows [tiering] floor) */
    char summary[512]; /* "summary" line: each phase's figures */
    unsigned live;     /* bit i: worker i is running */
    pid_t pid[NODE_WORKERS_MAX]; /* plain workers: ours to wait for */
    int nworkers;
} run_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char name_of(int i) { return (char)('A' + i); }

/* Pages of worker i's arena a on node `fast`, and mapped at all. */
static void arena_pages(const run_t *r, int i, int a, size_t *on, size_t *mapped)
{
    static int nodes[ARENA_PAGES];
    const node_worker_slot_t *w = &r->board->w[i];
    *on = *mapped = 0;
    if (page_nodes_of(w->pid, w->arena[a], NODE_ARENA_BYTES, nodes) != 0)
        return;
    for (size_t p = 0; p < ARENA_PAGES; p++) {
        *mapped += nodes[p] >= 0;
        *on += nodes[p] == r->fast;
    }
}

/* One look at the node: each worker's bytes on FAST, the hot set's share. */
typedef struct {
    size_t fast_bytes[NODE_WORKERS_MAX], total_fast;
    size_t hot_on, hot_mapped, hot_total;
} look_t;

static look_t look(const run_t *r, unsigned hot)
{
    look_t l = {0};
    for (int i = 0; i < r->nworkers; i++) {
        if (!(r->live & 1u << i))
            continue;
        for (int a = 0; a < NODE_ARENAS; a++) {
            size_t on, mapped;
            arena_pages(r, i, a, &on, &mapped);
            if (mapped) /* the pages the sampler keeps unmapped counted where the arena's others are */
                l.fast_bytes[i] += (size_t)((double)on / (double)mapped * NODE_ARENA_BYTES);
            if ((hot & 1u << i) && a >= NODE_HOT_FIRST) {
                l.hot_on += on;
                l.hot_mapped += mapped;
                l.hot_total += ARENA_PAGES;
            }
        }
        l.total_fast += l.fast_bytes[i];
    }
    return l;
}

/* The bytes on FAST that both looks found, worker by worker. A look reads the workers one after
 * another, and one worker's demotion and another's promotion that follows it can fall on either side
 * of the reading in between: read before its demotion and the other in its promotion, the sum held
 * an overlap that never was (31 MiB of 28, 6.1: A's 4 MiB read before it left, C's 3.1 of the 4
 * MiB that came after). An overlap that is there is there at both looks. */
static size_t fast_in_both(const run_t *r, const look_t *l, const look_t *again)
{
    size_t both = 0;
    for (int i = 0; i < r->nworkers; i++)
        both += l->fast_bytes[i] < again->fast_bytes[i] ? l->fast_bytes[i] : again->fast_bytes[i];
    return both;
}

static bool hot_placed(const look_t *l)
{
    return l->hot_mapped * 2 >= l->hot_total && (double)l->hot_on >= RESIDENCY * (double)l->hot_mapped;
}

/* Tiering intervals every live worker has done since `base` (the slowest's); the clock's, in
 * INTERVAL_MS, where no worker tiers (first-touch). */
static uint64_t intervals_since(const run_t *r, const uint64_t *base, double start)
{
    if (r->opt->first_touch)
        return (uint64_t)((now_s() - start) / (INTERVAL_MS / 1e3));
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < r->nworkers; i++)
        if (r->live & 1u << i) {
            uint64_t n = NODE_GET(r->board->w[i].intervals) - base[i];
            least = n < least ? n : least;
        }
    return least == UINT64_MAX ? 0 : least;
}

static void print_look(const run_t *r, double at, uint64_t intervals, const look_t *l)
{
    printf("     %5.1f i%-3llu", at, (unsigned long long)intervals);
    for (int i = 0; i < r->nworkers; i++) {
        if (r->live & 1u << i)
            printf(" %c %4.1f/%u", name_of(i), (double)l->fast_bytes[i] / (1 << 20), (NODE_ARENAS * NODE_ARENA_BYTES) >> 20);
        else
            printf(" %c     -   ", name_of(i));
    }
    printf(" | hot %3.0f %% of %zu mapped | fast %zu MiB\n",
           l->hot_mapped ? 100.0 * (double)l->hot_on / (double)l->hot_mapped : 0.0, l->hot_mapped,
           l->total_fast >> 20);
}

/* What a phase asks: the hot set placed within `deadline` intervals (0: not asked) and kept; the
 * floors from `floors_from` intervals on (negative: not asked). */
typedef struct {
    const char *name;
    unsigned hot;
    uint64_t deadline;
    long floors_from;
    int newcomer; /* a worker whose floor must come within `newcomer_in` intervals, or -1 */
    uint64_t newcomer_in;
} phase_t;

static void phase(run_t *r, const phase_t *ph)
{
    NODE_SET(r->board->hot, ph->hot);
    uint64_t base[NODE_WORKERS_MAX] = {0};
    for (int i = 0; i < r->nworkers; i++)
        base[i] = NODE_GET(r->board->w[i].intervals);
    printf("     %s: hot set", ph->name);
    for (int i = 0; i < r->nworkers; i++)
        if (ph->hot & 1u << i)
            printf(" %c's arenas %d-%d", name_of(i), NODE_HOT_FIRST, NODE_ARENAS - 1);
    printf("; each check: intervals (wall, tiering's), each worker's MiB on node %d, the hot set's share there\n",
           r->fast);
    fflush(stdout);
    double start = now_s();
    long placed_at = -1, floor_at = -1;
    bool left = false, over = false, below = false;
    uint64_t n = 0;
    uint64_t length = r->opt->phase_intervals;
    size_t most_fast = 0;
    unsigned short_looks[NODE_WORKERS_MAX] = {0};
    while (n < length && now_s() - start < PHASE_CAP * length * INTERVAL_MS / 1e3) {
        usleep(INTERVAL_MS * 1000);
        n = intervals_since(r, base, start);
        look_t l = look(r, ph->hot);
        print_look(r, (now_s() - start) / (INTERVAL_MS / 1e3), n, &l);
        bool placed = hot_placed(&l);
        if (placed && placed_at < 0)
            placed_at = (long)n;
        if (!placed && placed_at >= 0 && n > ph->deadline && ph->deadline && !left) {
            left = true;
            CHECK(false, "%s: the hot set left node %d again", ph->name, r->fast);
        }
        size_t cap = r->ledger ? FAST_BYTES : FAST_BYTES + NODE_ARENA_BYTES; /* room: the reservation's precision */
        size_t fast_now = l.total_fast;
        if (fast_now > cap) {
            look_t again = look(r, ph->hot);
            fast_now = fast_in_both(r, &l, &again);
            printf("     (looked again: %zu MiB there at both looks)\n", fast_now >> 20);
        }
        most_fast = fast_now > most_fast ? fast_now : most_fast;
        if (fast_now > cap && !over) {
            over = true;
            CHECK(false, "%s: %zu MiB of the workers' memory on node %d at two looks, more than its %u MiB of "
                  "fast memory", ph->name, fast_now >> 20, r->fast, FAST_BYTES >> 20);
        }
        if (ph->newcomer >= 0 && floor_at < 0 && l.fast_bytes[ph->newcomer] >= FLOOR_BYTES)
            floor_at = (long)n;
        /* below its floor at two looks in a row: a worker at its floor that swaps its arena there
         * for a hotter one of its own demotes first, and a look between its two moves finds it
         * without either for a moment (a look is a second apart, a move some 0.1 s under TCG) */
        for (int i = 0; i < r->nworkers && ph->floors_from >= 0 && (long)n >= ph->floors_from && !below; i++) {
            short_looks[i] = (r->live & 1u << i) && l.fast_bytes[i] < FLOOR_BYTES ? short_looks[i] + 1 : 0;
            if (short_looks[i] >= 2) {
                below = true;
                CHECK(false, "%s: worker %c has %zu MiB on node %d, below its floor of %u MiB at two looks in a row "
                      "(%llu intervals in)", ph->name, name_of(i), l.fast_bytes[i] >> 20, r->fast,
                      FLOOR_BYTES >> 20, (unsigned long long)n);
            }
        }
    }
    bool late = ph->deadline && (placed_at < 0 || (uint64_t)placed_at > ph->deadline);
    bool no_floor = ph->newcomer >= 0 && (floor_at < 0 || (uint64_t)floor_at > ph->newcomer_in);
    if (late || no_floor || below || left || over)
        node_memory(r->fast, "at the phase's end");
    if (ph->deadline)
        CHECK(!late,
              "%s: %.0f %% of the hot set not on node %d within %llu of tiering's intervals (%s)", ph->name,
              100 * RESIDENCY, r->fast, (unsigned long long)ph->deadline,
              placed_at < 0 ? "never" : "later");
    if (ph->newcomer >= 0)
        CHECK(!no_floor,
              "%s: newcomer %c did not get its floor of %u MiB on node %d within %llu intervals (%s)", ph->name,
              name_of(ph->newcomer), FLOOR_BYTES >> 20, r->fast, (unsigned long long)ph->newcomer_in,
              floor_at < 0 ? "never" : "later");
    printf("     %s: hot set placed after %ld of tiering's intervals in %.1f s\n", ph->name, placed_at,
           now_s() - start);
    size_t len = strlen(r->summary);
    snprintf(r->summary + len, sizeof r->summary - len, " %s: placed_at %ld floors %s fast_mib_max %zu;", ph->name,
             placed_at, below ? "missed" : "kept", most_fast >> 20);
    fflush(stdout);
}

/* Moves the live workers' tiering made so far. */
static uint64_t moves_so_far(const run_t *r)
{
    uint64_t moves = 0;
    for (int i = 0; i < r->nworkers; i++)
        moves += r->live & 1u << i ? NODE_GET(r->board->w[i].moves) : 0;
    return moves;
}

/* Before phase A, the start settles: until DEADLINE_INTERVALS of tiering's intervals pass without a
 * move (at most SETTLE_MAX_INTERVALS' time), with no hot set. The workers' start moves arenas (the
 * node's budget shared out as they come, arrays just written reading warm for a while); phase A's
 * heat may move such an arena back, and a move made for a change of heat is not ping-pong. */
static void settle(run_t *r)
{
    uint64_t base[NODE_WORKERS_MAX] = {0}, moves = moves_so_far(r);
    for (int i = 0; i < r->nworkers; i++)
        base[i] = NODE_GET(r->board->w[i].intervals);
    double start = now_s();
    while (!r->opt->first_touch && intervals_since(r, base, start) < DEADLINE_INTERVALS &&
           now_s() - start < SETTLE_MAX_INTERVALS * INTERVAL_MS / 1e3) {
        usleep(INTERVAL_MS * 1000);
        if (moves_so_far(r) != moves) { /* a move: the quiet starts again */
            moves = moves_so_far(r);
            for (int i = 0; i < r->nworkers; i++)
                base[i] = NODE_GET(r->board->w[i].intervals);
        }
    }
    look_t l = look(r, 0);
    printf("     settled:    ");
    print_look(r, (now_s() - start) / (INTERVAL_MS / 1e3), intervals_since(r, base, start), &l);
}

/* Wait until worker i says it is ready: false when it failed or took over 120 s. */
static bool wait_ready(run_t *r, int i)
{
    for (int t = 0; t < 2400; t++) {
        int ready = NODE_GET(r->board->w[i].ready);
        if (ready)
            return ready > 0;
        usleep(50000);
    }
    fprintf(stderr, "vm_node_tiering: setup: worker %c not ready after 120 s\n", name_of(i));
    return false;
}

static pid_t spawn(char *const argv[])
{
    pid_t pid;
    int e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (e) {
        fprintf(stderr, "vm_node_tiering: setup: cannot start %s: %s\n", argv[0], strerror(e));
        return -1;
    }
    return pid;
}

/* A plain worker: this program as `worker BOARD INDEX`; false when it failed to set up. */
static bool start_worker(run_t *r, int i)
{
    char idx[8];
    snprintf(idx, sizeof idx, "%d", i);
    char *argv[] = {"/proc/self/exe", "worker", r->board_path, idx,
                    r->opt->first_touch ? "first-touch" : (char *)r->opt->intent, NULL};
    if ((r->pid[i] = spawn(argv)) < 0 || !wait_ready(r, i))
        return false;
    r->live |= 1u << i;
    r->nworkers = i + 1 > r->nworkers ? i + 1 : r->nworkers;
    return true;
}

/* Worker i reports and leaves; false when it did not within 30 s. */
static bool stop_worker(run_t *r, int i)
{
    __atomic_fetch_or(&r->board->stop, 1u << i, __ATOMIC_ACQ_REL);
    for (int t = 0; t < 600 && !NODE_GET(r->board->w[i].finished); t++)
        usleep(50000);
    r->live &= ~(1u << i);
    if (r->pid[i] > 0) {
        int st = 0;
        waitpid(r->pid[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "worker %c exited with status %#x", name_of(i), st);
    }
    return NODE_GET(r->board->w[i].finished);
}

/* Every worker's totals: data intact, no pause, ping-pong at most 1 % of the bytes moved. */
static void totals(run_t *r)
{
    uint64_t moved = 0, pingpong = 0;
    for (int i = 0; i < r->nworkers; i++) {
        const node_worker_slot_t *w = &r->board->w[i];
        if (!w->finished) {
            CHECK(false, "worker %c never reported its totals", name_of(i));
            continue;
        }
        printf("     worker %c (%s source): %llu moves, %llu B promoted, %llu B demoted, %llu B moved back "
               "within 10 intervals, %llu intervals\n", name_of(i), w->source, (unsigned long long)w->moves,
               (unsigned long long)w->promoted, (unsigned long long)w->demoted, (unsigned long long)w->pingpong,
               (unsigned long long)w->intervals);
        CHECK(w->data_intact, "worker %c: its data changed besides its updates", name_of(i));
        CHECK(!w->paused, "worker %c: tiering paused (its heat source stopped)", name_of(i));
        moved += w->promoted + w->demoted;
        pingpong += w->pingpong;
    }
    size_t len = strlen(r->summary);
    snprintf(r->summary + len, sizeof r->summary - len, " moved_mib %llu pingpong_mib %llu",
             (unsigned long long)(moved >> 20), (unsigned long long)(pingpong >> 20));
    CHECK((double)pingpong <= PINGPONG_SHARE * (double)moved,
          "ping-pong: %llu of %llu moved bytes moved back within 10 intervals, over %.0f %%",
          (unsigned long long)pingpong, (unsigned long long)moved, 100 * PINGPONG_SHARE);
}

static char config[] = "/tmp/vm_node_tiering-XXXXXX";

/* LOCI_CONFIG for every worker: the node ledger's floor where this loci knows it (a probe child's
 * loci_init says), else per-process tiering with the same fast memory. 0, or 2. */
static int write_config(run_t *r)
{
    char no_ledger[1024] = "";
    for (int with_ledger = 1; with_ledger >= 0; with_ledger--) {
        FILE *f = fopen(config, "w");
        if (!f)
            return 2;
        fprintf(f, "[tiering]\nsource = faults\ninterval = %dms\n", INTERVAL_MS);
        if (with_ledger) /* (no node_budget: the ledger takes each target's budget, below; a size there
                          * would cap every target, the slow ones too) */
            fprintf(f, "floor = %uMiB\n", FLOOR_BYTES >> 20);
        fprintf(f, "[target fast]\nnuma_node = %d\ntiering_budget = %uMiB\n", r->fast, FAST_BYTES >> 20);
        for (int i = 0; i < r->opt->nout; i++)
            fprintf(f, "[target out%d]\nnuma_node = %d\ntiering_budget = 0%%\n", i, r->opt->out_of_play[i]);
        fclose(f);
        setenv("LOCI_CONFIG", config, 1);
        int pipe_fd[2];
        if (pipe(pipe_fd) != 0)
            return 2;
        pid_t pid = fork();
        if (pid == 0) { /* loci_init in a child: the checker itself stays without loci */
            close(pipe_fd[0]);
            int ok = loci_init() == 0;
            dprintf(pipe_fd[1], "%s", ok ? "" : loci_last_error());
            _exit(ok ? 0 : 1);
        }
        close(pipe_fd[1]);
        char why[1024] = "";
        ssize_t got = read(pipe_fd[0], why, sizeof why - 1);
        why[got > 0 ? got : 0] = '\0';
        close(pipe_fd[0]);
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            const char *env = getenv("LOCI_TIER_LEDGER"); /* off: per-process tiering (bench/tiering/node.sh) */
            r->ledger = with_ledger && !(env && strcmp(env, "off") == 0);
            printf("     %s: [tiering] source faults, interval %d ms; %u MiB of node %d for auto arenas (%s), "
                   "floor %u MiB\n", r->ledger ? "node-wide tiering (node ledger)" : "per-process tiering",
                   INTERVAL_MS, FAST_BYTES >> 20, r->fast,
                   r->ledger ? "its tiering_budget, the node's budget there"
                             : "each process's tiering_budget, and the room the suite left",
                   FLOOR_BYTES >> 20);
            if (!r->ledger)
                printf("     (%s%s)\n", with_ledger ? "LOCI_TIER_LEDGER=off" : "this loci has no node ledger: ",
                       with_ledger ? "" : no_ledger);
            return 0;
        }
        if (!with_ledger || !strstr(why, "unknown key")) {
            fprintf(stderr, "vm_node_tiering: setup: LOCI_CONFIG refused: %s\n", why);
            return 2;
        }
        snprintf(no_ledger, sizeof no_ledger, "%s", why);
    }
    return 2;
}

/* The phases A, B, C (both forms); with `fifth`, item 4: E joins, then A leaves. */
static void phases(run_t *r, bool fifth)
{
    phase(r, &(phase_t){"phase A", 1u << 0, DEADLINE_INTERVALS, DEADLINE_INTERVALS, -1, 0});
    phase(r, &(phase_t){"phase B", 1u << 1, DEADLINE_INTERVALS, DEADLINE_INTERVALS, -1, 0});
    phase(r, &(phase_t){"phase C", 1u << 2, DEADLINE_INTERVALS, DEADLINE_INTERVALS, -1, 0});
    if (!fifth)
        return;
    if (!start_worker(r, 4)) {
        CHECK(false, "the fifth worker could not start");
        return;
    }
    phase(r, &(phase_t){"E joins", 1u << 2, DEADLINE_INTERVALS, JOIN_INTERVALS, 4, JOIN_INTERVALS});
    /* a hot set of 24 MiB, more than A's and B's floors leave of the 28: an arena of it waits for
     * A's memory */
    unsigned hot = 1u << 2 | 1u << 3 | 1u << 4;
    phase(r, &(phase_t){"C, D and E hot", hot, 0, DEADLINE_INTERVALS, -1, 0});
    look_t before = look(r, hot);
    printf("     before A leaves: the hot set (C's, D's and E's) %.0f %% on node %d, A holds %zu MiB there\n",
           before.hot_mapped ? 100.0 * (double)before.hot_on / (double)before.hot_mapped : 0.0, r->fast,
           before.fast_bytes[0] >> 20);
    stop_worker(r, 0);
    phase(r, &(phase_t){"A left", hot, DEADLINE_INTERVALS, DEADLINE_INTERVALS, -1, 0});
}

static int checker(const options_t *opt)
{
    int fast = opt->fast;
    char **command = opt->command;
    run_t r = {.fast = fast, .opt = opt};
    snprintf(r.board_path, sizeof r.board_path, "/tmp/vm_node_tiering-board-%d", (int)getpid());
    int fd = mkstemp(config);
    if (fd < 0 || !(r.board = node_board_map(r.board_path, 1)))
        return 2;
    close(fd);
    int rc = opt->first_touch ? 0 : write_config(&r);
    if (rc)
        return rc;
    if (opt->first_touch)
        printf("     first touch: the workers' memory is plain anonymous memory, placed by the kernel\n");
    node_memory(fast, "at the start");
    pid_t job = -1;
    if (command) {
        int n = 0;
        while (command[n])
            n++;
        char **argv = calloc((size_t)n + 3, sizeof *argv);
        memcpy(argv, command, (size_t)n * sizeof *argv);
        argv[n] = r.board_path;
        argv[n + 1] = opt->first_touch ? "first-touch" : (char *)opt->intent;
        if ((job = spawn(argv)) < 0)
            return 2;
        r.nworkers = 4;
        for (int i = 0; i < 4; i++) {
            if (!wait_ready(&r, i))
                return 2;
            r.live |= 1u << i;
        }
        free(argv);
    } else {
        for (int i = 0; i < 4; i++)
            if (!start_worker(&r, i))
                return 2;
    }
    /* what the workers took of the fast node beside their arrays (an MPI job's runtime: its
     * shared-memory segments and its launcher's memory, which a plain worker has not) */
    node_memory(fast, "when all started");
    look_t l = look(&r, 0);
    printf("     all started:");
    print_look(&r, 0, 0, &l);
    settle(&r);
    phases(&r, !command);
    for (int i = 0; i < r.nworkers; i++)
        if (r.live & 1u << i)
            stop_worker(&r, i);
    if (job > 0) {
        int st = 0;
        waitpid(job, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the MPI job exited with status %#x", st);
    }
    totals(&r);
    unlink(config);
    unlink(r.board_path);
    const char *tiering = opt->first_touch ? "the kernel" : r.ledger ? "node-wide tiering" : "per-process tiering";
    printf("     %s: %s\n", tiering, failures ? "goals missed" : "goals met");
    printf("summary memory %s tiering %s goals %s;%s\n", opt->first_touch ? "first-touch" : "auto",
           opt->first_touch ? "kernel" : r.ledger ? "node" : "process", failures ? "missed" : "met", r.summary);
    return failures ? 1 : 0;
}

/* One plain worker: 4 auto arenas of its own by `memory` (an intent), or (first-touch) 4 anonymous
 * mappings. */
static int worker(const char *board_path, int index, const char *memory)
{
    bool first_touch = !strcmp(memory, "first-touch");
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a checker killed by its timeout takes its workers along */
    node_board_t *b = node_board_map(board_path, 0);
    if (!b)
        return 2;
    uint64_t *arena[NODE_ARENAS];
    loci_arena_t *ar[NODE_ARENAS] = {0};
    for (int a = 0; a < NODE_ARENAS && first_touch; a++)
        if ((arena[a] = mmap(NULL, NODE_ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) ==
            MAP_FAILED) {
            fprintf(stderr, "vm_node_tiering: worker %c: mmap: %s\n", name_of(index), strerror(errno));
            NODE_SET(b->w[index].ready, -1);
            return 2;
        }
    for (int a = 0; a < NODE_ARENAS && !first_touch; a++) {
        ar[a] = loci_arena_create(memory, 0);
        if (!ar[a] || !(arena[a] = loci_arena_alloc(ar[a], NODE_ARENA_BYTES))) {
            fprintf(stderr, "vm_node_tiering: worker %c: arena %d: %s\n", name_of(index), a, loci_last_error());
            NODE_SET(b->w[index].ready, -1);
            return 2;
        }
    }
    int rc = node_worker_run(b, index, arena);
    for (int a = 0; a < NODE_ARENAS; a++)
        loci_arena_destroy(ar[a]);
    return rc;
}

static int usage(void)
{
    fprintf(stderr, "usage: vm_node_tiering [--memory auto|first-touch] [--intent INTENT] [--phase-intervals N] "
                    "[--out-of-play NODE]... "
                    "plain FAST | ... mpi FAST -- COMMAND...\n       vm_node_tiering worker BOARD INDEX MEMORY\n");
    return 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 5 && !strcmp(argv[1], "worker"))
        return worker(argv[2], atoi(argv[3]), argv[4]);
    options_t opt = {.phase_intervals = PHASE_INTERVALS, .intent = "bandwidth=high,tier=auto"};
    int i = 1;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (!strcmp(argv[i], "--memory") && (!strcmp(argv[i + 1], "auto") || !strcmp(argv[i + 1], "first-touch")))
            opt.first_touch = !strcmp(argv[i + 1], "first-touch");
        else if (!strcmp(argv[i], "--phase-intervals") && atoi(argv[i + 1]) > 0)
            opt.phase_intervals = (uint64_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--intent"))
            opt.intent = argv[i + 1];
        else if (!strcmp(argv[i], "--out-of-play") && opt.nout < MAX_OUT_OF_PLAY)
            opt.out_of_play[opt.nout++] = atoi(argv[i + 1]);
        else
            return usage();
    }
    if (argc - i < 2)
        return usage();
    opt.fast = atoi(argv[i + 1]);
    if (argc - i == 2 && !strcmp(argv[i], "plain"))
        return checker(&opt);
    if (argc - i >= 4 && !strcmp(argv[i], "mpi") && !strcmp(argv[i + 2], "--")) {
        opt.command = argv + i + 3;
        return checker(&opt);
    }
    return usage();
}
