/*
 * The node ledger (src/tiering/ledger.c) with real processes: each worker
 * is a forked child that tiers like a process would — every step it shares
 * the node through the ledger, plans with plan_make in the room it is left
 * and makes the moves in its view of its arenas — driven through pipes so
 * that the steps of all processes come in an order the test chooses. Two
 * processes see each other and the hotter wins the fast target from the
 * one that came first, never both on it beyond the node budget; a fifth
 * process gets its floor within a few intervals; a process SIGKILLed is
 * reaped by the next to plan and its memory goes to the hottest waiting
 * (new arenas start only in what the others' reserves leave);
 * one killed while it holds the ledger's lock (mid-write) leaves a ledger
 * that is rebuilt, one that holds it and lives blocks nobody longer than a
 * quarter of an interval; a damaged or truncated ledger is refused by
 * readers and rebuilt by the next to plan; a ledger planted by another user
 * (a file, a FIFO) or of the wrong mode is refused, untouched, and the
 * process plans alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tiering/tiering.h"
#include "support/planted.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB (1ull << 20)
#define NODE_FAST (8 * MiB)    /* the fast target's node budget: half of its capacity */
#define OWN_FAST (64 * MiB)    /* each process's own budget there: the node's share is what limits */
#define SLOW_ROOM (1ull << 40)
#define INTERVAL_MS 100
enum { FAST, SLOW, NT };
#define MAXA 4

/* a NUMA node (the same in every process by its number) and a file tier (by its name) */
static struct loci_target targets[NT] = {{.name = "fast0", .numa_node = 1, .capacity = {.value = 16 * MiB}},
                                         {.name = "slow0", .numa_node = -1, .capacity = {.value = 1ull << 40}}};
static const struct loci_target *const target_list[NT] = {&targets[FAST], &targets[SLOW]};
static char dir[] = "/dev/shm/loci-test-ledger-XXXXXX";
/* The fast target's memory as the kernel has it, shared by the test's processes: what they hold
 * there and what the node can hold (0: unlimited, its free memory unknown to tiering). */
static struct fake_node {
    _Atomic uint64_t used;
    uint64_t capacity;
} *node;
static char path[sizeof dir + 16];
static uint64_t floor_bytes;

/* One process's arenas as its tiering sees them. */
typedef struct {
    plan_arena_t a[MAXA];
    size_t n;
    uint64_t window_us; /* the window its heat source wants (0: none) */
} proc_t;

typedef struct {
    uint64_t room_fast, held_fast;
    uint64_t window_us; /* the node's window, as the share said */
} step_t;

static tiering_config_t config(void)
{
    return (tiering_config_t){.interval_ms = INTERVAL_MS, .budget = {.set = true, .share = 0.9},
                              .floor = {.set = true, .bytes = floor_bytes},
                              .node_budget = {.set = true, .share = 0.5}};
}

static plan_params_t params(void)
{
    return (plan_params_t){.margin = 0.25, .gap = 0.1, .min_residence = 0, .seconds_per_byte = 0,
                           .interval_s = INTERVAL_MS / 1e3, .allowance = 1ll << 40};
}

static const char *const intents[MAXA] = {"tier=auto a", "tier=auto b", "tier=auto c", "tier=auto d"};

/* n arenas of `bytes`, heats heat[i], all on `at` (0 fast, 1 slow). */
static proc_t proc(size_t n, uint64_t bytes, const double *heat, int at)
{
    proc_t p = {.n = n};
    for (size_t i = 0; i < n; i++) {
        p.a[i] = (plan_arena_t){.bytes = bytes, .heat = heat[i], .at = at, .ncandidates = 2, .cand = {FAST, SLOW},
                                .residence = 100, .id = i + 1, .intent = intents[i]};
    }
    return p;
}

/* The free memory auto arenas may take on t (arena_target_room's stand-in). */
static uint64_t fake_room_of(const struct loci_target *t)
{
    if (t != &targets[FAST] || !node->capacity)
        return UINT64_MAX;
    uint64_t used = node->used;
    return used < node->capacity ? node->capacity - used : 0;
}

static uint64_t held_fast(const proc_t *p)
{
    uint64_t held = 0;
    for (size_t i = 0; i < p->n; i++)
        held += p->a[i].at == 0 ? p->a[i].bytes : 0;
    return held;
}

static const proc_t *stepping; /* the process of this interval (each forked worker its own) */

/* What its arenas hold on t now (arena_auto_bytes_on's stand-in). */
static uint64_t fake_held_of(const struct loci_target *t)
{
    uint64_t held = 0;
    for (size_t i = 0; stepping && i < stepping->n; i++)
        held += stepping->a[i].at == (t == &targets[FAST] ? 0 : 1) ? stepping->a[i].bytes : 0;
    return held;
}

/* One interval of process p as step.c makes it: the room its own budget and the node's free memory
 * leave, the node's share, its plan in the room left, the moves made (the fake node's memory with
 * them, a promotion only where it has room, as arena_move). */
static step_t sim_step(proc_t *p)
{
    tiering_config_t c = config();
    plan_params_t pp = params();
    for (size_t i = 0; i < p->n; i++)
        p->a[i].residence++; /* an interval more since each last moved (a move sets it to 0) */
    uint64_t free = fake_room_of(&targets[FAST]), mine = held_fast(p);
    plan_target_t room[NT] = {{free < OWN_FAST - mine ? mine + free : OWN_FAST, 0}, {SLOW_ROOM, 0}};
    stepping = p;
    ledger_view_t view = {p->a, p->n, target_list, NT, fake_room_of, fake_held_of, p->window_us};
    uint64_t window = tiering_ledger_share(&c, &view, &pp, room);
    double rent[MAXA] = {0};
    plan_move_t moves[MAXA];
    size_t nmoves = plan_make(p->a, p->n, room, NT, &pp, rent, moves);
    if (nmoves)
        tiering_ledger_moving(&c, &view, true);
    for (size_t m = 0; m < nmoves; m++) {
        plan_arena_t *a = &p->a[moves[m].arena];
        if (moves[m].target == FAST && a->bytes > fake_room_of(&targets[FAST]))
            continue; /* "no room": it stays */
        if (node->capacity)
            node->used += moves[m].target == FAST ? a->bytes : -a->bytes;
        a->at = moves[m].target == FAST ? 0 : 1;
        a->residence = 0;
    }
    if (nmoves)
        tiering_ledger_moving(&c, &view, false);
    return (step_t){.room_fast = room[FAST].room, .held_fast = held_fast(p), .window_us = window};
}

/* ---- workers: forked processes that step when told --------------------------- */

typedef struct {
    pid_t pid;
    int to, from;
} worker_t;

static worker_t worker(proc_t p)
{
    int down[2], up[2];
    assert_int_equal(pipe(down), 0);
    assert_int_equal(pipe(up), 0);
    pid_t pid = fork(); /* loci's fork handler gives the child a ledger of its own to join */
    assert_true(pid >= 0);
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        char cmd;
        while (read(down[0], &cmd, 1) == 1) {
            if (cmd == 'l')
                tiering_ledger_leave(true);
            if (cmd != 's')
                _exit(0); /* 'x': gone without leaving, as a crash */
            step_t s = sim_step(&p);
            if (write(up[1], &s, sizeof s) != sizeof s)
                _exit(1);
        }
        _exit(0);
    }
    close(down[0]);
    close(up[1]);
    return (worker_t){pid, down[1], up[0]};
}

static step_t step(const worker_t *w)
{
    step_t s;
    assert_int_equal(write(w->to, "s", 1), 1);
    assert_int_equal(read(w->from, &s, sizeof s), sizeof s);
    return s;
}

/* End w: 'l' leaves the ledger first, 'x' just exits, SIGKILL kills it. */
static void end(worker_t *w, int how)
{
    if (how == SIGKILL)
        assert_int_equal(kill(w->pid, SIGKILL), 0);
    else
        assert_int_equal(write(w->to, &(char){(char)how}, 1), 1);
    int status;
    assert_int_equal(waitpid(w->pid, &status, 0), w->pid);
    close(w->to);
    close(w->from);
}

static unsigned live_processes(void)
{
    tiering_ledger_t *l = malloc(sizeof *l);
    assert_non_null(l);
    assert_int_equal(tiering_ledger_read(l), 0);
    unsigned n = 0;
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        n += l->slots[s].pid != 0;
    free(l);
    return n;
}

/* The fast target's capacity as the ledger has it (it was the first target listed). */
static uint64_t fast_capacity(void)
{
    tiering_ledger_t *l = malloc(sizeof *l);
    assert_non_null(l);
    assert_int_equal(tiering_ledger_read(l), 0);
    uint64_t capacity = tiering_ledger_capacity(l, 0);
    free(l);
    return capacity;
}

static int read_rc(void)
{
    tiering_ledger_t *l = malloc(sizeof *l);
    assert_non_null(l);
    int rc = tiering_ledger_read(l);
    free(l);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- fixtures ------------------------------------------------------------------ */

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "%s/ledger", dir);
    setenv("LOCI_TIER_LEDGER", path, 1);
    floor_bytes = 0;
    *node = (struct fake_node){0};
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tiering_ledger_leave(false);
    unlink(path);
    return 0;
}

/* ---- tests --------------------------------------------------------------------- */

static void processes_see_each_other_and_the_hottest_wins(void **state)
{
    (void)state;
    /* this process came first with cold arenas on the fast target */
    proc_t me = proc(2, 4 * MiB, (double[]){0.05, 0.04}, 0);
    step_t s = sim_step(&me);
    assert_int_equal(s.room_fast, NODE_FAST);
    assert_int_equal(s.held_fast, 8 * MiB);
    worker_t w = worker(proc(2, 4 * MiB, (double[]){0.9, 0.8}, 1));
    step_t ws = step(&w);
    assert_int_equal(ws.room_fast, 0); /* granted, but this process still holds it all */
    assert_int_equal(ws.held_fast, 0);
    assert_int_equal(live_processes(), 2);
    for (int round = 0; round < 4; round++) {
        s = sim_step(&me);
        ws = step(&w);
        /* never both on the fast target beyond its node budget */
        assert_true(s.held_fast + ws.held_fast <= NODE_FAST);
    }
    assert_int_equal(s.held_fast, 0);          /* the first came, the first gave way */
    assert_int_equal(ws.held_fast, NODE_FAST); /* to the hottest */
    end(&w, 'l');
    assert_int_equal(live_processes(), 1);
}

/* The node's processes observe in one window, the shortest any of them wants: their heats, shares
 * of windows that found memory touched, then compare; one that leaves no longer sets it, and a
 * process alone (no ledger) keeps its own. */
static void the_node_observes_in_one_window(void **state)
{
    (void)state;
    proc_t me = proc(1, 4 * MiB, (double[]){0.2}, 1);
    me.window_us = 320000;
    assert_int_equal(sim_step(&me).window_us, 320000);
    proc_t other = proc(1, 4 * MiB, (double[]){0.9}, 1);
    other.window_us = 40000;
    worker_t w = worker(other);
    assert_int_equal(step(&w).window_us, 40000);
    assert_int_equal(sim_step(&me).window_us, 40000);
    proc_t none = proc(1, 4 * MiB, (double[]){0.5}, 1); /* perf: no windows, sets none */
    worker_t w2 = worker(none);
    assert_int_equal(step(&w2).window_us, 40000);
    end(&w, 'l');
    end(&w2, 'l');
    assert_int_equal(sim_step(&me).window_us, 320000);
    tiering_ledger_leave(false);
    setenv("LOCI_TIER_LEDGER", "off", 1);
    assert_int_equal(sim_step(&me).window_us, 0);
    setenv("LOCI_TIER_LEDGER", path, 1);
}

static void a_fifth_process_gets_its_floor(void **state)
{
    (void)state;
    floor_bytes = 1 * MiB;
    worker_t w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = worker(proc(1, 2 * MiB, (double[]){0.9 - 0.1 * i}, 1));
        step(&w[i]);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(step(&w[i]).held_fast, 2 * MiB); /* the four fill the node budget */
    /* a fifth, colder than all, comes mid-run: its floor within a few intervals */
    proc_t me = proc(1, 1 * MiB, (double[]){0.1}, 1);
    step_t s = {0};
    int rounds = 0;
    while (s.held_fast < 1 * MiB && ++rounds <= 4) {
        s = sim_step(&me);
        uint64_t total = s.held_fast;
        for (int i = 0; i < 4; i++)
            total += step(&w[i]).held_fast;
        assert_true(total <= NODE_FAST);
    }
    assert_int_equal(s.held_fast, 1 * MiB);
    assert_true(rounds <= 2); /* granted at once; the holder's demotion frees its reserve as it is made */
    /* the hottest worker exits: its fast memory goes to the hottest waiting (the coldest worker's) */
    end(&w[0], 'x');
    uint64_t coldest = 0;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(sim_step(&me).held_fast, 1 * MiB); /* its floor stays */
        for (int i = 1; i < 4; i++) {
            step_t ws = step(&w[i]);
            coldest = i == 3 ? ws.held_fast : coldest;
        }
    }
    assert_int_equal(coldest, 2 * MiB);
    for (int i = 1; i < 4; i++)
        end(&w[i], 'l');
}

/* A move is in the ledger once it is made, not at the mover's next interval: listed where it was,
 * a promoted arena's bytes read as a second, unknown arena on the fast target (held beyond the
 * entries), which stayed there while the arena itself still asked for a place — the others' shares
 * fell by its size for an interval, and a place given up so came back (node test, 6.12). */
static void a_move_is_in_the_ledger_when_it_is_made(void **state)
{
    (void)state;
    proc_t me = proc(1, 4 * MiB, (double[]){0.9}, 1);
    sim_step(&me);
    assert_int_equal(me.a[0].at, 0); /* promoted */
    tiering_ledger_t *l = malloc(sizeof *l);
    assert_non_null(l);
    assert_int_equal(tiering_ledger_read(l), 0);
    const ledger_slot_t *slot = NULL;
    for (size_t s = 0; s < LEDGER_SLOTS; s++)
        slot = l->slots[s].pid == getpid() ? &l->slots[s] : slot;
    assert_non_null(slot);
    assert_int_equal(slot->nentries, 1);
    const ledger_entry_t *e = &slot->entries[0];
    assert_true(e->at >= 0);
    int fast = e->cand[e->at];
    assert_string_equal(l->targets[fast].name, "fast0");
    assert_int_equal(slot->held[fast], 4 * MiB); /* no bytes beyond the entries */
    assert_int_equal(e->residence, 0);
    free(l);
}

static void a_killed_process_is_reaped_within_one_interval(void **state)
{
    (void)state;
    worker_t w = worker(proc(2, 4 * MiB, (double[]){0.9, 0.8}, 0));
    assert_int_equal(step(&w).held_fast, NODE_FAST);
    proc_t me = proc(1, 4 * MiB, (double[]){0.5}, 1);
    assert_int_equal(tiering_ledger_room(&targets[FAST]), UINT64_MAX); /* not sharing yet: its own budget */
    assert_int_equal(sim_step(&me).room_fast, 0);
    assert_int_equal(tiering_ledger_room(&targets[FAST]), 0); /* a new arena does not start there either */
    end(&w, SIGKILL);
    step_t s = sim_step(&me); /* the next interval: its slot reaped, its share free */
    assert_int_equal(s.room_fast, NODE_FAST);
    assert_int_equal(s.held_fast, 4 * MiB);
    assert_int_equal(tiering_ledger_room(&targets[FAST]), NODE_FAST);
    assert_int_equal(live_processes(), 1);
    tiering_ledger_leave(false);
    assert_int_equal(tiering_ledger_room(&targets[FAST]), UINT64_MAX);
}

/* The node budget says 8 MiB, but the node has room for 6 (the kernel's own use, a boosted
 * watermark, another program): a share that counted on the budget kept both of the first
 * process's cold arenas there while the second's hot pair found room for one. Measured, the
 * node's capacity is what is shared: one cold arena gives way and both hot ones come. */
static void the_node_shares_what_it_can_hold_not_its_budget(void **state)
{
    (void)state;
    node->capacity = 6 * MiB;
    proc_t me = proc(2, 2 * MiB, (double[]){0.05, 0.04}, 0);
    node->used = 4 * MiB;
    step_t s = sim_step(&me);
    worker_t w = worker(proc(2, 2 * MiB, (double[]){0.9, 0.8}, 1));
    step_t ws = {0};
    for (int round = 0; round < 4; round++) {
        ws = step(&w);
        s = sim_step(&me);
        assert_true(node->used <= node->capacity);
    }
    assert_int_equal(ws.held_fast, 4 * MiB); /* the hot pair, both */
    assert_int_equal(s.held_fast, 2 * MiB);  /* the warmer cold arena stays: the node holds 6 */
    assert_int_equal(fast_capacity(), 6 * MiB);
    end(&w, 'l');
}

/* While a process is between its share and the end of its moves, its held bytes do not say where
 * its pages are: the node is not measured then, and its capacity stays what it was. */
static void a_process_moving_arenas_is_not_measured(void **state)
{
    (void)state;
    node->capacity = 6 * MiB;
    proc_t me = proc(1, 2 * MiB, (double[]){0.5}, 1);
    sim_step(&me);
    tiering_config_t c = config();
    stepping = &me;
    ledger_view_t view = {me.a, me.n, target_list, NT, fake_room_of, fake_held_of, me.window_us};
    tiering_ledger_moving(&c, &view, true);
    worker_t w = worker(proc(1, 2 * MiB, (double[]){0.5}, 1));
    node->capacity = 2 * MiB; /* as if mid-move: another program took memory meanwhile */
    for (int i = 0; i < LEDGER_MEASURES; i++)
        step(&w);
    assert_int_equal(fast_capacity(), 6 * MiB); /* not measured while this process moves */
    tiering_ledger_moving(&c, &view, false);
    for (int i = 0; i < LEDGER_MEASURES; i++) /* (the most of the last few: a lower one counts once it lasts) */
        step(&w);
    assert_int_equal(fast_capacity(), 2 * MiB);
    end(&w, 'l');
}

/* The ledger holds LEDGER_SLOTS processes: one more tiers alone, by its own budget, and the
 * others share the node as before. */
static void a_process_beyond_the_last_slot_tiers_alone(void **state)
{
    (void)state;
    worker_t *w = calloc(LEDGER_SLOTS, sizeof *w);
    assert_non_null(w);
    for (int i = 0; i < LEDGER_SLOTS; i++) {
        w[i] = worker(proc(1, 64 << 10, (double[]){0.5}, 1));
        assert_true(step(&w[i]).room_fast <= NODE_FAST);
    }
    assert_int_equal(live_processes(), LEDGER_SLOTS);
    proc_t me = proc(1, 4 * MiB, (double[]){0.9}, 1);
    assert_int_equal(sim_step(&me).room_fast, OWN_FAST);
    assert_int_equal(live_processes(), LEDGER_SLOTS); /* nobody's slot taken from it */
    uint64_t held = 0;
    for (int i = 0; i < LEDGER_SLOTS; i++)
        held += step(&w[i]).held_fast;
    assert_true(held <= NODE_FAST);
    for (int i = 0; i < LEDGER_SLOTS; i++)
        end(&w[i], 'l');
    free(w);
}

/* A child that takes the ledger's lock, begins a write (odd generation)
 * and says so; then waits to be killed. */
static pid_t lock_holder(void)
{
    int up[2];
    assert_int_equal(pipe(up), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(path, O_RDWR);
        uint64_t odd = 7;
        bool ok = fd >= 0 && flock(fd, LOCK_EX) == 0 &&
                  pwrite(fd, &odd, sizeof odd, offsetof(tiering_ledger_t, generation)) == sizeof odd;
        if (write(up[1], &ok, sizeof ok) != sizeof ok)
            _exit(1);
        for (;;)
            pause();
    }
    close(up[1]);
    bool ok = false;
    assert_int_equal(read(up[0], &ok, sizeof ok), sizeof ok);
    close(up[0]);
    assert_true(ok);
    return pid;
}

static void a_lock_holder_blocks_nobody_longer_than_an_interval(void **state)
{
    (void)state;
    proc_t me = proc(1, 4 * MiB, (double[]){0.5}, 1);
    sim_step(&me);
    pid_t holder = lock_holder();
    /* it lives and holds the lock: this interval waits a quarter of it at most and plans within the
     * reserve of its last (here the whole node budget: it was alone), never in what others may fill */
    double t0 = now_s();
    step_t s = sim_step(&me);
    assert_true(now_s() - t0 < INTERVAL_MS / 1e3);
    assert_int_equal(s.room_fast, NODE_FAST);
    assert_int_equal(read_rc(), LOCI_EBUSY); /* mid-write: never taken */
    /* killed while it holds the lock mid-write: the lock is the kernel's to drop, the ledger is rebuilt */
    kill(holder, SIGKILL);
    assert_int_equal(waitpid(holder, NULL, 0), holder);
    t0 = now_s();
    s = sim_step(&me);
    assert_true(now_s() - t0 < INTERVAL_MS / 1e3);
    assert_int_equal(s.room_fast, NODE_FAST); /* alone again in the ledger: the whole node budget */
    assert_int_equal(live_processes(), 1);
}

static void a_damaged_ledger_is_refused_then_rebuilt(void **state)
{
    (void)state;
    proc_t me = proc(1, 4 * MiB, (double[]){0.5}, 0);
    sim_step(&me);
    tiering_ledger_t *l = malloc(sizeof *l);
    assert_non_null(l);
    assert_int_equal(tiering_ledger_read(l), 0);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    /* a byte of a slot flipped: the checksum refuses it */
    off_t at = (off_t)offsetof(tiering_ledger_t, slots) + 3;
    char byte;
    assert_int_equal(pread(fd, &byte, 1, at), 1);
    byte ^= 0x5a;
    assert_int_equal(pwrite(fd, &byte, 1, at), 1);
    assert_int_equal(tiering_ledger_read(l), LOCI_EBUSY);
    assert_int_equal(sim_step(&me).room_fast, NODE_FAST);
    assert_int_equal(tiering_ledger_read(l), 0);
    /* cut short: refused, rebuilt whole */
    assert_int_equal(ftruncate(fd, 100), 0);
    assert_int_equal(tiering_ledger_read(l), LOCI_EBUSY);
    assert_int_equal(sim_step(&me).room_fast, NODE_FAST);
    assert_int_equal(tiering_ledger_read(l), 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, sizeof *l);
    close(fd);
    free(l);
}

/* What another user plants at the ledger's name is refused, untouched, and
 * the process plans alone: its own budget, no ledger made. */
static void refused(char kind, int uid)
{
    assert_int_equal(plant(path, kind, uid), 0);
    proc_t me = proc(1, 4 * MiB, (double[]){0.5}, 1);
    double t0 = now_s();
    assert_int_equal(sim_step(&me).room_fast, OWN_FAST);
    assert_true(now_s() - t0 < INTERVAL_MS / 1e3); /* a FIFO does not hang the open */
    assert_int_equal(sim_step(&me).room_fast, OWN_FAST);
    assert_untouched(path, kind, uid);
    assert_int_not_equal(read_rc(), 0);
    tiering_ledger_leave(false);
    unlink(path);
}

static void a_ledger_planted_by_another_user_is_refused(void **state)
{
    (void)state;
    if (!planted_users_available("a_ledger_planted_by_another_user_is_refused"))
        skip();
    refused('f', NOBODY);
    refused('p', NOBODY);
    refused('p', (int)geteuid()); /* a FIFO of one's own is no ledger either */
}

static void a_ledger_of_the_wrong_mode_is_refused(void **state)
{
    (void)state;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    assert_int_equal(fchmod(fd, 0644), 0);
    close(fd);
    proc_t me = proc(1, 4 * MiB, (double[]){0.5}, 1);
    assert_int_equal(sim_step(&me).room_fast, OWN_FAST);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0); /* untouched */
}

static int make_dir(void **state)
{
    (void)state;
    node = mmap(NULL, sizeof *node, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (node == MAP_FAILED || !mkdtemp(dir))
        return -1;
    return chmod(dir, 01777); /* as /dev/shm: anyone may plant */
}

static int remove_dir(void **state)
{
    (void)state;
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(processes_see_each_other_and_the_hottest_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(the_node_observes_in_one_window, setup, teardown),
        cmocka_unit_test_setup_teardown(a_fifth_process_gets_its_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(a_move_is_in_the_ledger_when_it_is_made, setup, teardown),
        cmocka_unit_test_setup_teardown(a_killed_process_is_reaped_within_one_interval, setup, teardown),
        cmocka_unit_test_setup_teardown(the_node_shares_what_it_can_hold_not_its_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(a_process_moving_arenas_is_not_measured, setup, teardown),
        cmocka_unit_test_setup_teardown(a_process_beyond_the_last_slot_tiers_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(a_lock_holder_blocks_nobody_longer_than_an_interval, setup, teardown),
        cmocka_unit_test_setup_teardown(a_damaged_ledger_is_refused_then_rebuilt, setup, teardown),
        cmocka_unit_test_setup_teardown(a_ledger_planted_by_another_user_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_ledger_of_the_wrong_mode_is_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
