/*
 * bench_tiering: HeMem's hot-set GUPS under one placement, measured from
 * outside it the same way for all (tracker.c): 16 arrays, 90 % of the
 * updates to a hot set of 2, the hot set switching to 2 others halfway —
 * the last four allocated (12-13, then 14-15), so that first touch, which
 * fills the fast node in allocation order, gets no free win;
 * per interval the share of the hot set's pages on the fast node, the bytes
 * that changed node, those that went back within 10 intervals (ping-pong),
 * and CPU time of the program against that of the tiering (loci's thread,
 * or the kernel's kdamond/kswapd; NUMA balancing works in the program's own
 * faults: its system time).
 *
 *   bench_tiering MODE FAST SLOW [options]
 *   MODE  plain   anonymous memory, first touch (the kernel modes: the
 *                 caller sets NUMA balancing or DAMOS up before)
 *         fast    anonymous memory preferring FAST: all on fast as far as it fits
 *         slow    anonymous memory bound to SLOW: all on slow (speed's lower bound)
 *         loci    one tier=auto arena per array (the API; LOCI_CONFIG sets the budget)
 *         malloc  16 malloc calls, nothing else: run it under `loci run --tier auto`
 *   --array-mib N        each array (4)        --phase-intervals N  per phase (15)
 *   --interval-ms N      measuring interval (400: loci's [tiering] interval should match)
 *   --batch N --pause-ms N   updates are paced: N updates, then a pause (1000, 10); --pause-ms 0: flat out
 *   --tlb-refresh 1      drop the process's TLB before each batch, as a real CPU's small TLB
 *                        does all the time under GUPS: for QEMU TCG, whose software TLB keeps the
 *                        whole working set, so that accessed bits (DAMON's, DAMOS's) are set again
 * The fast-memory size is the caller's to set (bench/tiering/guest.sh reserves huge pages).
 *   --label TEXT         the mode's name in the output
 * Output: "alloc ..." (where the arrays are right after the allocation: with a saved profile,
 * what it placed), one "interval ..." line each (with the fast node's free memory, fast_free_mib:
 * what a phase that never reaches its goal had to be placed in), then "summary ...".
 * Exit 0, 1 data wrong, 2 setup.
 */
#include "tracker.h"

#include <loci.h>
#include <numa.h>
#include <numaif.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ARRAYS 16
#define HOT 2
#define MiB (1ull << 20)

static struct {
    const char *mode, *label;
    int fast, slow;
    size_t bytes;
    int phase_intervals, interval_ms, batch, pause_ms, tlb_refresh;
} opt = {.bytes = 4 * MiB, .phase_intervals = 15, .interval_ms = 400, .batch = 1000, .pause_ms = 10};

static uint64_t *arrays[ARRAYS];
static uint64_t updates[ARRAYS];

static void die(const char *why)
{
    fprintf(stderr, "bench_tiering: %s\n", why);
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- setup ----------------------------------------------------------------------- */

/* One malloc call per array (the asm keeps them apart): 16 sites for `loci run --tier auto`. */
#define SITE(i) case i: p = malloc(opt.bytes); __asm__ volatile("# site " #i ::: "memory"); break;

static void *allocate(int i, loci_arena_t **arena)
{
    void *p = NULL;
    if (strcmp(opt.mode, "loci") == 0) {
        *arena = loci_arena_create("latency=low,tier=auto", 0); /* one line: 16 sites by their ordinal */
        p = *arena ? loci_arena_alloc(*arena, opt.bytes) : NULL;
        if (!p)
            fprintf(stderr, "bench_tiering: %s\n", loci_last_error());
    } else if (strcmp(opt.mode, "malloc") == 0) {
        switch (i) {
            SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
            SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)
        }
    } else {
        p = mmap(NULL, opt.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        unsigned long fast = 1ul << opt.fast, slow = 1ul << opt.slow;
        if (p == MAP_FAILED)
            p = NULL;
        else if (strcmp(opt.mode, "fast") == 0 && mbind(p, opt.bytes, MPOL_PREFERRED, &fast, 64, 0) != 0)
            die("mbind MPOL_PREFERRED failed");
        else if (strcmp(opt.mode, "slow") == 0 && mbind(p, opt.bytes, MPOL_BIND, &slow, 64, 0) != 0)
            die("mbind MPOL_BIND failed");
    }
    return p;
}

/* ---- the workload -------------------------------------------------------------- */

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Linux flushes a process's whole TLB when more than 33 pages change protection at once
 * (x86's ceiling for page-by-page flushes); DAMON clears accessed bits without a flush, so
 * under TCG a page stays "not accessed" until some flush makes the CPU walk its PTE again. */
static void refresh_tlb(void)
{
    enum { PAGES = 64 };
    static char *scratch;
    if (!scratch) {
        scratch = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (scratch == MAP_FAILED)
            die("mmap for --tlb-refresh failed");
    }
    mprotect(scratch, PAGES * 4096, PROT_READ);
    mprotect(scratch, PAGES * 4096, PROT_READ | PROT_WRITE);
}

/* Updates for `seconds`, 90 % to arrays [hot, hot + HOT), paced. */
static void run_for(double seconds, int hot, uint64_t *seed)
{
    size_t words = opt.bytes / sizeof(uint64_t);
    struct timespec pause = {0, (long)opt.pause_ms * 1000000};
    for (double until = now_s() + seconds; now_s() < until;) {
        if (opt.tlb_refresh)
            refresh_tlb();
        for (int k = 0; k < opt.batch; k++) {
            uint64_t r = rng(seed);
            int a = r % 10 < 9 ? hot + (int)((r >> 8) % HOT) : (int)((r >> 8) % ARRAYS);
            arrays[a][(r >> 16) % words] += 1;
            updates[a]++;
        }
        if (opt.pause_ms)
            nanosleep(&pause, NULL);
    }
}

/* ---- main ------------------------------------------------------------------------ */

static void parse(int argc, char **argv)
{
    if (argc < 4)
        die("usage: bench_tiering plain|fast|slow|loci|malloc FAST_NODE SLOW_NODE [--array-mib N] "
            "[--phase-intervals N] [--interval-ms N] [--batch N] [--pause-ms N] [--tlb-refresh 0|1] [--label TEXT]");
    opt.mode = opt.label = argv[1];
    opt.fast = atoi(argv[2]);
    opt.slow = atoi(argv[3]);
    const char *modes[] = {"plain", "fast", "slow", "loci", "malloc"};
    bool known = false;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        known |= strcmp(opt.mode, modes[i]) == 0;
    if (!known || opt.fast < 0 || opt.fast > 63 || opt.slow < 0 || opt.slow > 63)
        die("MODE: plain, fast, slow, loci or malloc; FAST_NODE and SLOW_NODE: NUMA nodes 0-63");
    for (int i = 4; i + 1 < argc; i += 2) {
        const char *o = argv[i], *v = argv[i + 1];
        if (!strcmp(o, "--array-mib"))
            opt.bytes = (size_t)atoi(v) * MiB;
        else if (!strcmp(o, "--phase-intervals"))
            opt.phase_intervals = atoi(v);
        else if (!strcmp(o, "--interval-ms"))
            opt.interval_ms = atoi(v);
        else if (!strcmp(o, "--batch"))
            opt.batch = atoi(v);
        else if (!strcmp(o, "--pause-ms"))
            opt.pause_ms = atoi(v);
        else if (!strcmp(o, "--tlb-refresh"))
            opt.tlb_refresh = atoi(v);
        else if (!strcmp(o, "--label"))
            opt.label = v;
        else
            die("unknown option (see the usage in bench/tiering/gups_tier.c)");
    }
    if (opt.bytes < MiB || opt.phase_intervals < 1 || opt.interval_ms < 10 || opt.batch < 1 || opt.pause_ms < 0)
        die("--array-mib >= 1, --phase-intervals >= 1, --interval-ms >= 10, --batch >= 1, --pause-ms >= 0");
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), per = opt.bytes / page;
    loci_arena_t *arena[ARRAYS] = {0};
    for (int i = 0; i < ARRAYS; i++)
        if (!(arrays[i] = allocate(i, &arena[i])))
            die("allocation failed");
    for (int i = 0; i < ARRAYS; i++)
        memset(arrays[i], 0, opt.bytes);
    tracker_t tr;
    if (tracker_init(&tr, ARRAYS * per) != 0)
        die("out of memory");
    tracker_scan(&tr, (void *const *)arrays, ARRAYS, opt.bytes, 0);
    /* right at allocation: what a profile placed (its hot set: the last phase's, arrays 14-15) */
    uint64_t fast_all = tracker_bytes_on(&tr, 0, ARRAYS, per, opt.fast);
    uint64_t fast_hot2 = tracker_bytes_on(&tr, ARRAYS - HOT, HOT, per, opt.fast);
    printf("alloc %s fast_mib %.1f of_it_phase2_hot %.1f%% phase2_hot_on_fast %.1f%% phase1_hot_on_fast %.1f%%\n",
           opt.label, (double)fast_all / MiB, fast_all ? 100.0 * (double)fast_hot2 / (double)fast_all : 0.0,
           100 * tracker_share_on(&tr, ARRAYS - HOT, HOT, per, opt.fast, NULL),
           100 * tracker_share_on(&tr, ARRAYS - 2 * HOT, HOT, per, opt.fast, NULL));

    cpu_t c0, c;
    cpu_now(&c0);
    double t0 = now_s();
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int reached[2] = {-1, -1};
    double tail[2] = {0, 0};
    for (int phase = 0; phase < 2; phase++) {
        int hot = ARRAYS - (2 - phase) * HOT; /* arrays 12-13, then 14-15 */
        for (int k = 1; k <= opt.phase_intervals; k++) {
            run_for(opt.interval_ms / 1e3, hot, &seed);
            int interval = phase * opt.phase_intervals + k;
            size_t known;
            tracker_scan(&tr, (void *const *)arrays, ARRAYS, opt.bytes, interval);
            double res = tracker_share_on(&tr, hot, HOT, per, opt.fast, &known);
            if (res >= 0.9 && reached[phase] < 0)
                reached[phase] = k;
            int last = opt.phase_intervals < 5 ? opt.phase_intervals : 5;
            if (k > opt.phase_intervals - last)
                tail[phase] += res / last;
            cpu_now(&c);
            long long fast_free = -1;
            numa_node_size64(opt.fast, &fast_free);
            printf("interval %d phase %d residency %.1f%% known %zu/%zu moved_mib %.1f pingpong_mib %.1f "
                   "fast_mib %.1f cpu_user %.2f cpu_sys %.2f cpu_loci %.3f cpu_kernel %.3f fast_free_mib %.1f\n",
                   interval, phase + 1, 100 * res, known, (size_t)HOT * per, (double)tr.moved / MiB,
                   (double)tr.pingpong / MiB, (double)tracker_bytes_on(&tr, 0, ARRAYS, per, opt.fast) / MiB,
                   c.user - c0.user, c.sys - c0.sys, c.loci - c0.loci, c.kernel - c0.kernel, (double)fast_free / MiB);
            fflush(stdout);
        }
    }
    double wall = now_s() - t0, total = 0;
    for (int a = 0; a < ARRAYS; a++)
        total += (double)updates[a];
    int bad = 0;
    for (int a = 0; a < ARRAYS; a++) {
        uint64_t sum = 0;
        for (size_t w = 0; w < opt.bytes / sizeof(uint64_t); w++)
            sum += arrays[a][w];
        bad += sum != updates[a];
    }
    const char *source = "-";
    uint64_t loci_moved = 0, loci_pp = 0;
    bool has_loci = loci_totals(&source, &loci_moved, &loci_pp);
    printf("summary %s reach90_phase1 %d reach90_phase2 %d residency_last5_phase1 %.1f%% residency_last5_phase2 "
           "%.1f%% moved_mib %.1f pingpong %.2f%% tiering_cpu_core %.2f%% (loci %.3f s, kernel threads %.3f s) "
           "program_cpu %.2f s (sys %.2f s) over %.1f s loci_source %s loci_moved_mib %.1f loci_pingpong_mib %.1f "
           "updates_per_s %.0f data %s\n",
           opt.label, reached[0], reached[1], 100 * tail[0], 100 * tail[1], (double)tr.moved / MiB,
           tr.moved ? 100.0 * (double)tr.pingpong / (double)tr.moved : 0.0,
           100 * (c.loci - c0.loci + c.kernel - c0.kernel) / wall, c.loci - c0.loci, c.kernel - c0.kernel,
           c.user - c0.user + c.sys - c0.sys - (c.loci - c0.loci), c.sys - c0.sys, wall, has_loci ? source : "-",
           (double)loci_moved / MiB, (double)loci_pp / MiB, total / wall, bad ? "WRONG" : "intact");
    for (int i = 0; i < ARRAYS; i++)
        if (arena[i])
            loci_arena_destroy(arena[i]); /* mode loci: its profile learns on destroy */
    return bad ? 1 : 0;
}
