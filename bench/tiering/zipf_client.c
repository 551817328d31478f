/*
 * zipf_client: the DAMOS/Redis anchor's workload — YCSB workload C (reads
 * only, zipfian, θ = 0.99) on Redis with cold filler memory beside it — as a
 * small hiredis client, with a popular set that changes mid-run, measuring
 * from outside Redis where its popular values are (proc_pages.c).
 *
 *   zipf_client --socket PATH --pid PID --fast NODE [options]
 *   --keys N          keys that are read (16384)      --value-bytes V  each value (4096)
 *   --filler-keys M   cold keys of the same size, loaded first and never read (32768)
 *   --phases P        popular sets, one after the other (2)
 *   --phase-s S       seconds of each (60)            --interval-s I   measuring interval (5)
 *   --theta T         Zipf exponent (0.99)            --pipeline D     GETs in flight (16)
 *   --fast-mib F      the fast-memory size of this run: its ideal residency (64)
 *   --label TEXT      the mode's name in the output
 *   --load HOW        populate: Redis makes the keys itself (DEBUG POPULATE: redis-server
 *                     --enable-debug-command local), in seconds even under emulation; set:
 *                     SETs over the connection, pipelined, as YCSB's load phase (populate)
 * Loads the filler (keys f:N, values 64 bytes longer: the same size class), then the keys
 * (k:N; first touch fills the fast node with the filler, as the anchor's cold memory did);
 * values are "value:N" and zero bytes, as DEBUG POPULATE makes them. Finds every key's
 * value in Redis's memory by that tag, then per phase draws keys by Zipf under a new scramble
 * (zipf.h) and GETs them, checking every reply. After each interval:
 *   residency_w   the share of GETs whose value was on the fast node: Σ_key p(key) ×
 *                 (share of its value's pages there), p the phase's popularity
 *   ideal_w       the same for the best placement of --fast-mib of values: the top keys
 *   hot_on_fast   the share of those top keys' values on the fast node
 * Output: "load", "located", "place" (Redis's memory per node), "start" (each phase, with
 * /proc/uptime: for the kernel's counters' timeline), one "interval" line each, "summary".
 * Exit 0; 1 a reply was wrong; 2 setup (no Redis, no permission to read its memory).
 */
#include "proc_pages.h"
#include "tracker.h"
#include "zipf.h"

#include <arguments.h>
#include <hiredis/hiredis.h>
#include <random.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MiB (1024.0 * 1024.0)

static struct {
    const char *socket, *label, *load;
    int pid, fast, phases, pipeline, fast_mib;
    uint64_t keys, filler, value_bytes;
    double phase_s, interval_s, theta;
} opt = {.keys = 16384, .filler = 32768, .value_bytes = 4096, .phases = 2, .pipeline = 16,
         .phase_s = 60, .interval_s = 5, .theta = 0.99, .fast_mib = 64, .label = "redis", .pid = -1, .fast = -1,
         .load = "populate"};

static const char usage[] =
    "zipf_client --socket PATH --pid REDIS_PID --fast NODE [--keys N] [--value-bytes V] [--filler-keys M] "
    "[--phases P] [--phase-s S] [--interval-s I] [--theta T] [--pipeline D] [--fast-mib F] [--load populate|set] "
    "[--label TEXT]";

static void die(const char *why, const char *detail)
{
    fprintf(stderr, "zipf_client: %s%s%s\n", why, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double uptime_s(void)
{
    double up = 0;
    FILE *f = fopen("/proc/uptime", "r");
    if (f) {
        if (fscanf(f, "%lf", &up) != 1)
            up = 0;
        fclose(f);
    }
    return up;
}

static void no_quick(void)
{
    die("usage", usage);
}

static void parse(int argc, char **argv)
{
    const bench_opt_t opts[] = {
        {"--socket", 's', &opt.socket},         {"--pid", 'i', &opt.pid},
        {"--fast", 'i', &opt.fast},             {"--keys", 'u', &opt.keys},
        {"--filler-keys", 'u', &opt.filler},    {"--value-bytes", 'u', &opt.value_bytes},
        {"--phases", 'i', &opt.phases},         {"--phase-s", 'd', &opt.phase_s},
        {"--interval-s", 'd', &opt.interval_s}, {"--theta", 'd', &opt.theta},
        {"--pipeline", 'i', &opt.pipeline},     {"--fast-mib", 'i', &opt.fast_mib},
        {"--label", 's', &opt.label},           {"--load", 's', &opt.load},
        {NULL, 0, NULL},
    };
    if (bench_parse_arguments(argc, argv, opts, no_quick) != 0 || !opt.socket || opt.pid <= 0 || opt.fast < 0)
        die("usage", usage);
    if (opt.keys < 2 || opt.value_bytes < 64 || opt.phases < 1 || opt.phases > 64 || opt.pipeline < 1 ||
        opt.pipeline > 4096 || opt.phase_s <= 0 || opt.interval_s <= 0 || opt.theta <= 0 || opt.fast_mib < 0 ||
        (strcmp(opt.load, "populate") && strcmp(opt.load, "set")))
        die("--keys >= 2, --value-bytes >= 64, --phases 1-64, --pipeline 1-4096, positive times and theta, "
            "--load populate or set", NULL);
}

static void expect_ok(redisContext *c, int n)
{
    for (int i = 0; i < n; i++) {
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK)
            die("redis", c->errstr);
        if (r->type == REDIS_REPLY_ERROR)
            die("redis refused a command (DEBUG POPULATE needs redis-server --enable-debug-command local; or "
                "--load set)", r->str);
        freeReplyObject(r);
    }
}

/* n keys PREFIX:0.. with values of `bytes` each, as DEBUG POPULATE makes them: by Redis itself
 * (populate), or SET by SET over the connection, pipelined (set: as YCSB's load phase). */
static void load(redisContext *c, const char *prefix, uint64_t n, uint64_t bytes)
{
    if (!strcmp(opt.load, "populate")) {
        redisAppendCommand(c, "DEBUG POPULATE %llu %s %llu", (unsigned long long)n, prefix, (unsigned long long)bytes);
        expect_ok(c, 1);
        return;
    }
    char *v = malloc((size_t)bytes), key[48];
    if (!v)
        die("out of memory", NULL);
    int pending = 0;
    for (uint64_t id = 0; id < n; id++) {
        proc_pages_value(v, (size_t)bytes, id);
        int kl = snprintf(key, sizeof key, "%s:%llu", prefix, (unsigned long long)id);
        redisAppendCommand(c, "SET %b %b", key, (size_t)kl, v, (size_t)bytes);
        if (++pending == 64) {
            expect_ok(c, pending);
            pending = 0;
        }
    }
    expect_ok(c, pending);
    free(v);
}

/* GETs of keys drawn by z for `seconds`; replies checked. Returns the GETs made. */
static uint64_t run_gets(redisContext *c, const zipf_t *z, double seconds, uint64_t *seed, uint64_t *wrong)
{
    uint64_t ops = 0, want[4096];
    char key[48];
    for (double until = now_s() + seconds; now_s() < until;) {
        for (int i = 0; i < opt.pipeline; i++) {
            want[i] = zipf_key(z, (double)(bench_splitmix64(seed) >> 11) / 9007199254740992.0);
            int kl = snprintf(key, sizeof key, "k:%llu", (unsigned long long)want[i]);
            redisAppendCommand(c, "GET %b", key, (size_t)kl);
        }
        for (int i = 0; i < opt.pipeline; i++) {
            redisReply *r;
            if (redisGetReply(c, (void **)&r) != REDIS_OK)
                die("redis", c->errstr);
            if (r->type != REDIS_REPLY_STRING || r->len != opt.value_bytes ||
                proc_pages_id(r->str, r->len) != want[i])
                ++*wrong;
            freeReplyObject(r);
        }
        ops += (uint64_t)opt.pipeline;
    }
    return ops;
}

int main(int argc, char **argv)
{
    parse(argc, argv);
    redisContext *c = redisConnectUnix(opt.socket);
    if (!c || c->err)
        die("cannot connect to redis", c ? c->errstr : "out of memory");

    double t = now_s();
    load(c, "f", opt.filler, opt.value_bytes + 64); /* the same size class, another length: never taken for a key's */
    load(c, "k", opt.keys, opt.value_bytes);
    t = now_s() - t;
    printf("load %s by %s keys %llu filler %llu value_bytes %llu seconds %.1f mib_per_s %.1f\n", opt.label, opt.load,
           (unsigned long long)opt.keys, (unsigned long long)opt.filler, (unsigned long long)opt.value_bytes, t,
           (double)(opt.keys + opt.filler) * (double)opt.value_bytes / MiB / t);

    /* each key's value: its first and its last byte's pages */
    uint64_t n = opt.keys;
    uintptr_t *first = calloc(n, sizeof *first), *addr = calloc(2 * n, sizeof *addr);
    int *node = calloc(2 * n, sizeof *node), *last_node = malloc(2 * n * sizeof *last_node);
    zipf_t z;
    if (!first || !addr || !node || !last_node || zipf_init(&z, n, opt.theta) != 0)
        die("out of memory", NULL);
    proc_scan_t scan;
    if (proc_pages_find(opt.pid, opt.value_bytes, n, first, &scan) != 0)
        die("cannot read redis's memory (process_vm_readv: run as root)", NULL);
    for (uint64_t k = 0; k < n; k++) {
        addr[2 * k] = first[k];
        addr[2 * k + 1] = first[k] ? first[k] + opt.value_bytes - 1 : 0;
        last_node[2 * k] = last_node[2 * k + 1] = -1;
    }
    printf("located %s found %zu of %llu duplicates %zu scanned_mib %.0f seconds %.1f\n", opt.label, scan.found,
           (unsigned long long)n, scan.duplicates, scan.mib, scan.seconds);
    double mib[PROC_PAGES_MAX_NODES];
    if (proc_pages_per_node(opt.pid, mib) == 0) {
        printf("place %s", opt.label);
        for (int i = 0; i < 8; i++)
            printf(" node%d_mib %.1f", i, mib[i]);
        printf("\n");
    }
    fflush(stdout);
    if (scan.found == 0)
        die("no value found in redis's memory (is --value-bytes what was loaded?)", NULL);

    /* the ideal: the most popular keys whose values fill --fast-mib */
    uint64_t top = (uint64_t)(opt.fast_mib * MiB / (double)opt.value_bytes);
    if (top > n)
        top = n;
    double ideal = zipf_top(&z, top);
    int per_phase = (int)(opt.phase_s / opt.interval_s + 0.5);
    if (per_phase < 1)
        per_phase = 1;
    uint64_t seed = 0x5eed, wrong = 0, total_ops = 0;
    double total_get_s = 0, cpu0 = tracker_proc_cpu(opt.pid), kcpu0 = tracker_kernel_cpu(), wall0 = now_s();
    double phase_ops[64] = {0}, phase_s[64] = {0}, tail_res[64] = {0};
    int reached[64];
    for (int p = 0; p < opt.phases && p < 64; p++) {
        reached[p] = -1;
        zipf_scramble(&z, (uint64_t)p + 1);
        printf("start %s phase %d uptime %.1f\n", opt.label, p + 1, uptime_s());
        fflush(stdout);
        for (int k = 1; k <= per_phase; k++) {
            double t0 = now_s();
            uint64_t ops = run_gets(c, &z, opt.interval_s, &seed, &wrong);
            double dt = now_s() - t0;
            phase_ops[p] += (double)ops;
            phase_s[p] += dt;
            total_ops += ops;
            total_get_s += dt;
            proc_pages_nodes(opt.pid, 2 * n, addr, node);
            double res = 0, hot = 0, known = 0;
            for (uint64_t key = 0; key < n; key++) {
                double on = 0;
                for (int e = 0; e < 2; e++) {
                    int *nd = &node[2 * key + e];
                    if (*nd < 0) /* not mapped now: as last seen */
                        *nd = last_node[2 * key + e];
                    else
                        last_node[2 * key + e] = *nd;
                    on += *nd == opt.fast ? 0.5 : 0;
                    known += *nd >= 0 ? 0.5 : 0;
                }
                res += zipf_p(&z, key) * on;
                if (z.rank[key] < top)
                    hot += on;
            }
            hot = top ? hot / (double)top : 0;
            if (res >= 0.9 * ideal && reached[p] < 0)
                reached[p] = k;
            int last = per_phase < 5 ? per_phase : 5;
            if (k > per_phase - last)
                tail_res[p] += res / last;
            proc_pages_per_node(opt.pid, mib);
            printf("interval %d phase %d uptime %.1f ops_per_s %.0f residency_w %.1f%% ideal_w %.1f%% hot_on_fast "
                   "%.1f%% known %.0f/%llu redis_fast_mib %.1f redis_cpu %.2f kernel_cpu %.2f\n",
                   p * per_phase + k, p + 1, uptime_s(), (double)ops / dt, 100 * res, 100 * ideal, 100 * hot, known,
                   (unsigned long long)n, mib[opt.fast], tracker_proc_cpu(opt.pid) - cpu0,
                   tracker_kernel_cpu() - kcpu0);
            fflush(stdout);
        }
    }
    double wall = now_s() - wall0;
    printf("summary %s", opt.label);
    for (int p = 0; p < opt.phases && p < 64; p++)
        printf(" ops_per_s_phase%d %.0f residency_last5_phase%d %.1f%% reach90_phase%d %d", p + 1,
               phase_ops[p] / phase_s[p], p + 1, 100 * tail_res[p], p + 1, reached[p]);
    printf(" ops_per_s %.0f ideal_w %.1f%% redis_fast_mib %.1f redis_cpu_core %.1f%% kernel_cpu_core %.1f%% wrong %llu "
           "data %s\n",
           (double)total_ops / total_get_s, 100 * ideal, mib[opt.fast], 100 * (tracker_proc_cpu(opt.pid) - cpu0) / wall,
           100 * (tracker_kernel_cpu() - kcpu0) / wall, (unsigned long long)wrong, wrong ? "WRONG" : "intact");
    zipf_free(&z);
    redisFree(c);
    return wrong ? 1 : 0;
}
