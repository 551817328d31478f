/*
 * bench_alloc — the SharP §6.1 allocation benchmark (DESIGN.md §7).
 *
 * For each size (8 B .. 2 MiB, powers of two) and thread count (1, 2), every
 * thread replays 20,000 pre-generated operations, 70 % allocations / 30 %
 * frees of a random live object, touching one byte of each new block; what is
 * live at the end is freed outside the timed region. Metric: ns per operation
 * per thread, median over repeats.
 *
 * Why one worker process per allocator: jemalloc (and mimalloc, when linked)
 * replace the process's malloc, and dlopen()ing a malloc replacement into a
 * running process is fragile (initial-exec TLS, memory crossing from one heap
 * to another's free). So each allocator lives in its own long-lived worker
 * process (bench_alloc itself for glibc and loci, bench_alloc_<name> for the
 * others), started once; this driver sends it one run at a time over a pipe,
 * so exactly one workload runs at any moment. Each repeat runs every
 * allocator on every (threads, size) cell back to back, in an order rotated
 * per cell, so drift of this noisy machine hits all allocators alike. A
 * worker that crashes or hangs is reported and restarted; its cell is marked
 * failed; the others go on.
 */
#include "backend.h"
#include "median.h"
#include "size_list.h"

#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ----------------------------------------------------------- allocators -- */

/* Set by bench/CMakeLists.txt when a competitor could not be built. */
#ifndef BENCH_MISSING_JEMALLOC
#define BENCH_MISSING_JEMALLOC NULL
#endif
#ifndef BENCH_MISSING_MIMALLOC
#define BENCH_MISSING_MIMALLOC NULL
#endif
#ifndef BENCH_MISSING_MEMKIND
#define BENCH_MISSING_MEMKIND NULL
#endif

enum { ST_OFF, ST_MISSING, ST_UNAVAILABLE, ST_READY, ST_DEAD };

typedef struct {
    const char *name;    /* row / column label */
    const char *exe;     /* worker executable (NULL: bench_alloc itself) */
    const char *spec;    /* --worker argument */
    const char *missing; /* why it was not built, NULL if built */
    /* runtime */
    int state;
    pid_t pid;
    int to_fd, from_fd;
    int restarts;
    long maxrss_kb;
    char desc[512];
    char reason[512];
} alloc_t;

static alloc_t allocs[] = {
    {.name = "glibc", .exe = NULL, .spec = "glibc", .missing = NULL},
    {.name = "jemalloc", .exe = "bench_alloc_jemalloc", .spec = "jemalloc", .missing = BENCH_MISSING_JEMALLOC},
    {.name = "mimalloc", .exe = "bench_alloc_mimalloc", .spec = "mimalloc", .missing = BENCH_MISSING_MIMALLOC},
    {.name = "memkind", .exe = "bench_alloc_memkind", .spec = "memkind", .missing = BENCH_MISSING_MEMKIND},
    {.name = "loci", .exe = NULL, .spec = "loci:", .missing = NULL},
    {.name = "loci-bw", .exe = NULL, .spec = "loci:bandwidth=high", .missing = NULL},
    /* A/A control: a second, identical glibc worker. Its ratio to glibc is the
     * noise floor of this run: a loci ratio within it is not a difference. */
    {.name = "glibc-aa", .exe = NULL, .spec = "glibc", .missing = NULL},
};
#define NALLOC ((int)(sizeof allocs / sizeof allocs[0]))
enum { A_GLIBC = 0, A_JEMALLOC, A_MIMALLOC, A_MEMKIND, A_LOCI, A_LOCI_BW, A_AA };

#define GOAL_MAX_SIZE 32768   /* the goal covers sizes up to 32 KiB */
#define GOAL_VS_GLIBC 1.0     /* loci <= glibc */
#define GOAL_VS_MIMALLOC 1.3  /* loci <= 1.3 x mimalloc */
#define MAX_RESTARTS 3

/* -------------------------------------------------------------- options -- */

static struct {
    size_t sizes[64];
    int nsizes;
    int threads[16];
    int nthreads;
    int repeats;
    size_t ops;
    unsigned long long seed;
    bench_touch_t touch;
    const char *json;
    int timeout_s;
    int quick;
    int ascending; /* --order ascending: sizes in order instead of shuffled */
    int use[NALLOC];
} opt;

static char self_dir[PATH_MAX];
static char self_exe[PATH_MAX];

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_alloc: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* "8-2M" (powers of two from 8 to 2 MiB), "8,64,4K", or a mix; a wrong list ends the run as die() does. */
static void parse_sizes(const char *arg) { opt.nsizes = bench_sizes("bench_alloc", arg, opt.sizes, 64, true, exit); }

static void parse_threads(const char *arg)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    opt.nthreads = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (*end || v < 1 || v > 256)
            die("--threads: bad thread count '%s' (1..256)", tok);
        if (opt.nthreads < 16)
            opt.threads[opt.nthreads++] = (int)v;
    }
    if (opt.nthreads == 0)
        die("--threads: none given");
}

static void parse_allocators(const char *arg)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    memset(opt.use, 0, sizeof opt.use);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int a = 0; a < NALLOC; a++)
            if (!strcmp(tok, allocs[a].name))
                opt.use[a] = found = 1;
        if (!found)
            die("--allocators: unknown '%s' (glibc,jemalloc,mimalloc,memkind,loci,loci-bw,glibc-aa)", tok);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: bench_alloc [options]\n"
"The SharP 6.1 allocation workload: per size and thread, OPS operations, 70%% allocations /\n"
"30%% frees of a random live object, against glibc, jemalloc, mimalloc, memkind and loci.\n"
"  --sizes LIST       sizes: '8-2M' = powers of two from 8 B to 2 MiB (default), or '8,64,4K'\n"
"  --threads LIST     thread counts, each thread runs its own workload (default 1,2)\n"
"  --repeats N        repeats per cell, the median is reported (default 15)\n"
"  --ops N            operations per size per thread (default 20000)\n"
"  --allocators LIST  subset of glibc,jemalloc,mimalloc,memkind,loci,loci-bw,glibc-aa (default\n"
"                     all; glibc-aa is a second glibc worker: the A/A noise control)\n"
"  --touch MODE       first (one byte per block, default) | pages (one byte per 4 KiB) | none\n"
"  --seed N           seed of the operation sequences and size order (default 42)\n"
"  --order MODE       shuffled (default: sizes in a new random order each repeat, the same\n"
"                     for every allocator) | ascending (every repeat 8 B first: a size then\n"
"                     always follows the same one, and pays the work it left behind)\n"
"  --timeout S        seconds one run may take before its worker is killed (default 120)\n"
"  --json FILE        also write all measurements as JSON\n"
"  --quick            smoke run in seconds: sizes 8,64,512,4K,32K,256K,2M, 2000 ops, 3 repeats\n"
"  -h, --help         this text\n"
"Progress goes to stderr, the tables to stdout. Exit status 1 if a built allocator failed.\n");
}

static void parse_args(int argc, char **argv)
{
    parse_sizes("8-2M");
    parse_threads("1,2");
    opt.repeats = 15;
    opt.ops = 20000;
    opt.seed = 42;
    opt.touch = BENCH_TOUCH_FIRST;
    opt.timeout_s = 120;
    for (int a = 0; a < NALLOC; a++)
        opt.use[a] = 1;
    int sizes_set = 0, ops_set = 0, reps_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!v) die("%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--quick")) {
            opt.quick = 1;
        } else if (!strcmp(a, "--sizes")) {
            NEED_VALUE(); parse_sizes(v); sizes_set = 1;
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE(); parse_threads(v);
        } else if (!strcmp(a, "--repeats")) {
            NEED_VALUE(); opt.repeats = atoi(v); reps_set = 1;
            if (opt.repeats < 1 || opt.repeats > 1000) die("--repeats: 1..1000");
        } else if (!strcmp(a, "--ops")) {
            NEED_VALUE();
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            if (*end || n < 1 || n > 100000000ull) die("--ops: 1..100000000");
            opt.ops = (size_t)n; ops_set = 1;
        } else if (!strcmp(a, "--allocators")) {
            NEED_VALUE(); parse_allocators(v);
        } else if (!strcmp(a, "--touch")) {
            NEED_VALUE();
            if (bench_touch_parse(v, &opt.touch)) die("--touch: first, pages or none");
        } else if (!strcmp(a, "--seed")) {
            NEED_VALUE(); opt.seed = strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--order")) {
            NEED_VALUE();
            if (!strcmp(v, "ascending")) opt.ascending = 1;
            else if (!strcmp(v, "shuffled")) opt.ascending = 0;
            else die("--order: shuffled or ascending");
        } else if (!strcmp(a, "--timeout")) {
            NEED_VALUE(); opt.timeout_s = atoi(v);
            if (opt.timeout_s < 1) die("--timeout: seconds >= 1");
        } else if (!strcmp(a, "--json")) {
            NEED_VALUE(); opt.json = v;
        } else {
            usage(stderr);
            die("unknown option '%s'", a);
        }
#undef NEED_VALUE
    }
    if (opt.quick) {
        if (!sizes_set) parse_sizes("8,64,512,4K,32K,256K,2M");
        if (!ops_set) opt.ops = 2000;
        if (!reps_set) opt.repeats = 3;
    }
}

/* -------------------------------------------------------------- workers -- */

/* Read one line from fd within timeout_ms; 0 ok, -1 EOF/error, -2 timeout. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
    size_t n = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (n + 1 < len) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long waited = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (waited >= timeout_ms)
            return -2;
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)(timeout_ms - waited));
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return -2;
        char c;
        ssize_t got = read(fd, &c, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        if (c == '\n')
            break;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return 0;
}

static void worker_stop(alloc_t *w, int force)
{
    if (w->pid <= 0)
        return;
    if (!force && w->to_fd >= 0) {
        ssize_t ignored = write(w->to_fd, "quit\n", 5);
        (void)ignored;
    }
    if (w->to_fd >= 0) close(w->to_fd);
    if (w->from_fd >= 0) close(w->from_fd);
    w->to_fd = w->from_fd = -1;
    int status = 0;
    if (force)
        kill(w->pid, SIGKILL);
    for (int i = 0; i < 100; i++) { /* up to 10 s for a clean exit */
        if (waitpid(w->pid, &status, WNOHANG) == w->pid)
            goto reaped;
        usleep(100000);
    }
    kill(w->pid, SIGKILL);
    waitpid(w->pid, &status, 0);
reaped:
    w->pid = 0;
}

/* Describe how a dead worker ended (after its pipe closed). */
static void worker_reap_reason(alloc_t *w, char *buf, size_t len)
{
    int status = 0;
    pid_t r = 0;
    for (int i = 0; i < 50 && r == 0; i++) {
        r = waitpid(w->pid, &status, WNOHANG);
        if (r == 0) usleep(100000);
    }
    if (r == 0) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, &status, 0);
    }
    if (WIFSIGNALED(status))
        snprintf(buf, len, "worker killed by signal %d (%s)%s", WTERMSIG(status),
                 strsignal(WTERMSIG(status)),
                 WTERMSIG(status) == SIGKILL ? " - out of memory?" : "");
    else if (WIFEXITED(status))
        snprintf(buf, len, "worker exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, len, "worker ended");
    close(w->to_fd);
    close(w->from_fd);
    w->to_fd = w->from_fd = -1;
    w->pid = 0;
}

static int worker_start(alloc_t *w)
{
    char path[PATH_MAX + 64];
    if (w->exe)
        snprintf(path, sizeof path, "%s/%s", self_dir, w->exe);
    else
        snprintf(path, sizeof path, "%s", self_exe);
    if (access(path, X_OK) != 0) {
        w->state = ST_MISSING;
        snprintf(w->reason, sizeof w->reason, "worker executable %.400s not found (%s)", path,
                 strerror(errno));
        return -1;
    }
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
        die("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        execl(path, path, "--worker", w->spec, (char *)NULL);
        fprintf(stderr, "bench_alloc: exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    w->pid = pid;
    w->to_fd = in[1];
    w->from_fd = out[0];

    char line[1024];
    int r = read_line(w->from_fd, line, sizeof line, 60000);
    if (r == 0 && !strncmp(line, "ready ", 6)) {
        snprintf(w->desc, sizeof w->desc, "%.500s", line + 6);
        w->state = ST_READY;
        return 0;
    }
    w->state = ST_UNAVAILABLE;
    if (r == 0 && !strncmp(line, "unavailable ", 12))
        snprintf(w->reason, sizeof w->reason, "%.500s", line + 12);
    else if (r == -2)
        snprintf(w->reason, sizeof w->reason, "worker did not start within 60 s");
    else
        snprintf(w->reason, sizeof w->reason, "worker ended before it was ready");
    worker_stop(w, 1);
    return -1;
}

/* ---------------------------------------------------------- measurements -- */

typedef struct {
    double *runs; /* per repeat: mean over threads of ns/op; NAN = not run */
    int failed;
    char fail[400];
} cell_t;

static cell_t *cells; /* [thread index][size index][allocator] */
static double *group_s; /* seconds each (threads, size) group took, last time */

static cell_t *cell(int ti, int si, int a)
{
    return &cells[((size_t)ti * (size_t)opt.nsizes + (size_t)si) * NALLOC + (size_t)a];
}

static void cell_fail(cell_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!c->failed)
        vsnprintf(c->fail, sizeof c->fail, fmt, ap);
    va_end(ap);
    c->failed = 1;
}

static void run_one(int a, int ti, int si, int rep)
{
    alloc_t *w = &allocs[a];
    cell_t *c = cell(ti, si, a);
    char sz[32];
    bench_size_label(opt.sizes[si], true, sz, sizeof sz);
    if (c->failed)
        return;
    if (w->pid <= 0) {
        if (w->state != ST_READY || w->restarts >= MAX_RESTARTS) {
            cell_fail(c, "worker gave up after %d restarts", w->restarts);
            return;
        }
        w->restarts++;
        fprintf(stderr, "\nbench_alloc: restarting the %s worker (restart %d of %d)\n", w->name,
                w->restarts, MAX_RESTARTS);
        if (worker_start(w) != 0) {
            fprintf(stderr, "bench_alloc: %s worker did not restart: %s\n", w->name, w->reason);
            w->state = ST_DEAD;
            cell_fail(c, "worker did not restart: %s", w->reason);
            return;
        }
    }
    char req[160];
    int len = snprintf(req, sizeof req, "run %zu %d %zu %llu %s\n", opt.sizes[si],
                       opt.threads[ti], opt.ops, opt.seed, bench_touch_name(opt.touch));
    char line[2048];
    int r = -1;
    if (write(w->to_fd, req, (size_t)len) == len)
        r = read_line(w->from_fd, line, sizeof line, opt.timeout_s * 1000);
    if (r != 0) {
        char why[256];
        if (r == -2) {
            snprintf(why, sizeof why, "no answer within %d s (--timeout), worker killed",
                     opt.timeout_s);
            worker_stop(w, 1);
        } else {
            worker_reap_reason(w, why, sizeof why);
        }
        fprintf(stderr, "\nbench_alloc: *** %s failed at threads=%d size=%s repeat %d: %s\n",
                w->name, opt.threads[ti], sz, rep + 1, why);
        cell_fail(c, "%s", why);
        return;
    }
    char *p = line;
    if (!strncmp(p, "ok ", 3)) {
        p += 3;
        long rss = strtol(p, &p, 10);
        if (rss > w->maxrss_kb)
            w->maxrss_kb = rss;
        double sum = 0;
        int n = 0;
        for (;;) {
            char *end;
            double v = strtod(p, &end);
            if (end == p)
                break;
            sum += v;
            n++;
            p = end;
        }
        if (n == opt.threads[ti]) {
            c->runs[rep] = sum / n;
            return;
        }
        cell_fail(c, "malformed answer '%s'", line);
    } else if (!strncmp(p, "fail ", 5)) {
        p += 5;
        long rss = strtol(p, &p, 10);
        if (rss > w->maxrss_kb)
            w->maxrss_kb = rss;
        while (*p == ' ') p++;
        cell_fail(c, "%s", p);
    } else {
        cell_fail(c, "malformed answer '%s'", line);
    }
    fprintf(stderr, "\nbench_alloc: *** %s failed at threads=%d size=%s: %s\n", w->name,
            opt.threads[ti], sz, c->fail);
}

static double median_of(const double *v, int n)
{
    double tmp[1024];
    int m = 0;
    for (int i = 0; i < n && m < 1024; i++)
        if (!isnan(v[i]))
            tmp[m++] = v[i];
    if (m == 0)
        return NAN;
    return bench_median(tmp, m);
}

static double cell_median(int ti, int si, int a)
{
    cell_t *c = cell(ti, si, a);
    if (!opt.use[a] || allocs[a].state == ST_MISSING || allocs[a].state == ST_UNAVAILABLE ||
        c->failed)
        return NAN;
    return median_of(c->runs, opt.repeats);
}

static double cell_stat(int ti, int si, int a, int want_max)
{
    cell_t *c = cell(ti, si, a);
    double r = NAN;
    for (int i = 0; i < opt.repeats; i++)
        if (!isnan(c->runs[i]) && (isnan(r) || (want_max ? c->runs[i] > r : c->runs[i] < r)))
            r = c->runs[i];
    return r;
}

/* Median over repeats of the per-repeat ratio a/b (both measured side by side). */
static double paired_ratio(int ti, int si, int a, int b)
{
    if (isnan(cell_median(ti, si, a)) || isnan(cell_median(ti, si, b)))
        return NAN;
    double r[1024];
    int n = 0;
    for (int i = 0; i < opt.repeats && n < 1024; i++) {
        double x = cell(ti, si, a)->runs[i], y = cell(ti, si, b)->runs[i];
        r[n++] = (!isnan(x) && !isnan(y) && y > 0) ? x / y : NAN;
    }
    return median_of(r, n);
}

static double ratio(int ti, int si, int a, int b)
{
    double x = cell_median(ti, si, a), y = cell_median(ti, si, b);
    return (isnan(x) || isnan(y) || y <= 0) ? NAN : x / y;
}

/* The run's noise floor for thread count ti: the 90th percentile over sizes
 * of |glibc-aa/glibc - 1| (two identical workers); NAN without the control. */
static double aa_noise(int ti)
{
    double v[64];
    int n = 0;
    for (int si = 0; si < opt.nsizes && n < 64; si++) {
        double r = ratio(ti, si, A_AA, A_GLIBC);
        if (!isnan(r))
            v[n++] = fabs(r - 1.0);
    }
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof v[0], bench_cmp_double);
    int k = (int)ceil(0.9 * n) - 1;
    return v[k < 0 ? 0 : k];
}

/* 1 met, 0 missed, -1 unknown (a figure is missing), -2 outside the goal's sizes. */
static int goal_verdict(int ti, int si, int a)
{
    if (opt.sizes[si] > GOAL_MAX_SIZE)
        return -2;
    double rg = ratio(ti, si, a, A_GLIBC), rm = ratio(ti, si, a, A_MIMALLOC);
    if (isnan(rg) || isnan(rm))
        return -1;
    return rg <= GOAL_VS_GLIBC && rm <= GOAL_VS_MIMALLOC;
}

static const char *goal_text(int ti, int si, int a, char *buf, size_t len)
{
    int g = goal_verdict(ti, si, a);
    if (g == -2) return "(> 32 KiB)";
    if (g == -1) return "unknown";
    if (g == 1) return "met";
    double rg = ratio(ti, si, a, A_GLIBC), rm = ratio(ti, si, a, A_MIMALLOC);
    double noise = aa_noise(ti);
    size_t off = (size_t)snprintf(buf, len, "MISSED:");
    if (rg > GOAL_VS_GLIBC && off < len)
        off += (size_t)snprintf(buf + off, len - off, " %.2fx glibc", rg);
    if (rm > GOAL_VS_MIMALLOC && off < len)
        off += (size_t)snprintf(buf + off, len - off, " %.2fx mimalloc", rm);
    /* Say so when the miss is smaller than what two identical glibc workers differ by. */
    if (!isnan(noise) && off < len && rg <= GOAL_VS_GLIBC * (1 + noise) &&
        rm <= GOAL_VS_MIMALLOC * (1 + noise))
        snprintf(buf + off, len - off, " (within A/A noise)");
    return buf;
}

/* ------------------------------------------------------------ reporting -- */

static void machine_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t') c++;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static void fmt_ns(double v, char *buf, size_t len)
{
    if (isnan(v)) snprintf(buf, len, "n/a");
    else if (v >= 1000) snprintf(buf, len, "%.0f", v);
    else if (v >= 100) snprintf(buf, len, "%.1f", v);
    else snprintf(buf, len, "%.2f", v);
}

static void fmt_ratio(double v, char *buf, size_t len)
{
    if (isnan(v)) snprintf(buf, len, "n/a");
    else snprintf(buf, len, "%.2f", v);
}

static const char *cell_text(int ti, int si, int a, char *buf, size_t len)
{
    if (!opt.use[a]) return "-";
    if (allocs[a].state == ST_MISSING) return "MISSING";
    if (allocs[a].state == ST_UNAVAILABLE) return "UNAVAIL";
    if (cell(ti, si, a)->failed) return "FAILED";
    fmt_ns(cell_median(ti, si, a), buf, len);
    return buf;
}

static void print_tables(FILE *f)
{
    fprintf(f, "\nSharP 6.1 allocation workload: %zu ops per size per thread, %d%% alloc / %d%% free, "
               "touch=%s, median of %d repeats, sizes %s\n",
            opt.ops, BENCH_ALLOC_PERCENT, 100 - BENCH_ALLOC_PERCENT, bench_touch_name(opt.touch),
            opt.repeats, opt.ascending ? "in ascending order" : "in a shuffled order per repeat");
    fprintf(f, "ns per operation per thread (lower is better); loci = intent \"\", "
               "loci-bw = intent \"bandwidth=high\";\nglibc-aa = a second glibc worker "
               "(A/A control: its ratio to glibc is the noise floor)\n");
    for (int ti = 0; ti < opt.nthreads; ti++) {
        fprintf(f, "\n### threads = %d: ns/op\n\n| size |", opt.threads[ti]);
        for (int a = 0; a < NALLOC; a++)
            if (opt.use[a]) fprintf(f, " %8s |", allocs[a].name);
        fprintf(f, "\n|-----:|");
        for (int a = 0; a < NALLOC; a++)
            if (opt.use[a]) fprintf(f, "---------:|");
        fputc('\n', f);
        for (int si = 0; si < opt.nsizes; si++) {
            char sz[32], b[32];
            bench_size_label(opt.sizes[si], true, sz, sizeof sz);
            fprintf(f, "| %7s |", sz);
            for (int a = 0; a < NALLOC; a++)
                if (opt.use[a]) fprintf(f, " %8s |", cell_text(ti, si, a, b, sizeof b));
            fputc('\n', f);
        }
        if (!opt.use[A_LOCI] && !opt.use[A_LOCI_BW])
            continue;
        fprintf(f, "\n### threads = %d: loci ratios (goal up to 32 KiB: <= %.1fx glibc and <= %.1fx "
                   "mimalloc)\n\n",
                opt.threads[ti], GOAL_VS_GLIBC, GOAL_VS_MIMALLOC);
        double noise = aa_noise(ti);
        if (!isnan(noise))
            fprintf(f, "A/A noise floor of this run, %d thread(s): two identical glibc workers differ "
                       "by up to %.0f%% (90th percentile over sizes).\n\n",
                    opt.threads[ti], 100 * noise);
        fprintf(f, "| size | loci/glibc | loci/mimalloc | loci goal | loci-bw/glibc | "
                   "loci-bw/mimalloc | loci-bw goal | A/A glibc-aa/glibc |\n");
        fprintf(f, "|-----:|-----:|-----:|:-----|-----:|-----:|:-----|-----:|\n");
        for (int si = 0; si < opt.nsizes; si++) {
            char sz[32], r1[16], r2[16], r3[16], r4[16], r5[16], g1[96], g2[96];
            bench_size_label(opt.sizes[si], true, sz, sizeof sz);
            fmt_ratio(ratio(ti, si, A_LOCI, A_GLIBC), r1, sizeof r1);
            fmt_ratio(ratio(ti, si, A_LOCI, A_MIMALLOC), r2, sizeof r2);
            fmt_ratio(ratio(ti, si, A_LOCI_BW, A_GLIBC), r3, sizeof r3);
            fmt_ratio(ratio(ti, si, A_LOCI_BW, A_MIMALLOC), r4, sizeof r4);
            fmt_ratio(ratio(ti, si, A_AA, A_GLIBC), r5, sizeof r5);
            fprintf(f, "| %7s | %s | %s | %s | %s | %s | %s | %s |\n", sz, r1, r2,
                    goal_text(ti, si, A_LOCI, g1, sizeof g1), r3, r4,
                    goal_text(ti, si, A_LOCI_BW, g2, sizeof g2), r5);
        }
    }
    /* Summary */
    for (int a = A_LOCI; a <= A_LOCI_BW; a++) {
        if (!opt.use[a])
            continue;
        int met = 0, missed = 0, unknown = 0;
        char list[2048] = "";
        size_t off = 0;
        for (int ti = 0; ti < opt.nthreads; ti++)
            for (int si = 0; si < opt.nsizes; si++) {
                int g = goal_verdict(ti, si, a);
                if (g == 1) met++;
                else if (g == 0) {
                    missed++;
                    char sz[32];
                    bench_size_label(opt.sizes[si], true, sz, sizeof sz);
                    if (off < sizeof list)
                        off += (size_t)snprintf(list + off, sizeof list - off, "%s%dT/%s",
                                                missed > 1 ? ", " : "", opt.threads[ti], sz);
                } else if (g == -1) unknown++;
            }
        fprintf(f, "\nGOAL %s (sizes <= 32 KiB, every thread count): met in %d of %d cells", 
                allocs[a].name, met, met + missed + unknown);
        if (missed) fprintf(f, "; missed in %s", list);
        if (unknown) fprintf(f, "; %d cells unknown (a figure is missing)", unknown);
        fputc('\n', f);
    }
    fputc('\n', f);
    for (int a = 0; a < NALLOC; a++) {
        if (!opt.use[a]) continue;
        if (allocs[a].state == ST_MISSING || allocs[a].state == ST_UNAVAILABLE)
            fprintf(f, "%-9s %s: %s\n", allocs[a].name,
                    allocs[a].state == ST_MISSING ? "MISSING" : "UNAVAILABLE", allocs[a].reason);
        else
            fprintf(f, "%-9s %s; peak RSS %.1f MiB\n", allocs[a].name, allocs[a].desc,
                    allocs[a].maxrss_kb / 1024.0);
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v)) fputs("null", f);
    else fprintf(f, "%.4g", v);
}

static void write_json(const char *path, const char *cmdline, double wall_s)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench_alloc: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    char cpu[256], date[64];
    machine_cpu_model(cpu, sizeof cpu);
    struct utsname u;
    uname(&u);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));

    fprintf(f, "{\n  \"benchmark\": \"alloc\",\n  \"workload\": \"SharP 6.1\",\n  \"command\": ");
    json_str(f, cmdline);
    fprintf(f, ",\n  \"date\": \"%s\",\n  \"wall_seconds\": %.1f,\n", date, wall_s);
    fprintf(f, "  \"machine\": {\"nproc\": %ld, \"cpu_model\": ", sysconf(_SC_NPROCESSORS_ONLN));
    json_str(f, cpu);
    fprintf(f, ", \"kernel\": ");
    json_str(f, u.release);
    fprintf(f, ", \"glibc\": ");
    json_str(f, gnu_get_libc_version());
    fprintf(f, "},\n  \"config\": {\"ops\": %zu, \"alloc_percent\": %d, \"repeats\": %d, "
               "\"touch\": \"%s\", \"seed\": %llu, \"quick\": %s, \"order\": \"%s\",\n    \"sizes\": [",
            opt.ops, BENCH_ALLOC_PERCENT, opt.repeats, bench_touch_name(opt.touch), opt.seed,
            opt.quick ? "true" : "false", opt.ascending ? "ascending" : "shuffled");
    for (int si = 0; si < opt.nsizes; si++)
        fprintf(f, "%s%zu", si ? ", " : "", opt.sizes[si]);
    fprintf(f, "],\n    \"threads\": [");
    for (int ti = 0; ti < opt.nthreads; ti++)
        fprintf(f, "%s%d", ti ? ", " : "", opt.threads[ti]);
    fprintf(f, "],\n    \"metric\": \"ns per operation per thread (mean over threads), median over "
               "repeats\",\n    \"goal\": {\"max_size\": %d, \"loci_vs_glibc_max\": %.2f, "
               "\"loci_vs_mimalloc_max\": %.2f}},\n",
            GOAL_MAX_SIZE, GOAL_VS_GLIBC, GOAL_VS_MIMALLOC);

    fprintf(f, "  \"allocators\": [\n");
    int first = 1;
    for (int a = 0; a < NALLOC; a++) {
        if (!opt.use[a]) continue;
        const char *st = allocs[a].state == ST_MISSING ? "missing"
                         : allocs[a].state == ST_UNAVAILABLE ? "unavailable"
                         : allocs[a].state == ST_DEAD ? "died" : "ok";
        fprintf(f, "%s    {\"name\": \"%s\", \"status\": \"%s\", \"description\": ",
                first ? "" : ",\n", allocs[a].name, st);
        json_str(f, allocs[a].state == ST_MISSING || allocs[a].state == ST_UNAVAILABLE
                        ? allocs[a].reason : allocs[a].desc);
        fprintf(f, ", \"peak_rss_kib\": %ld, \"restarts\": %d}", allocs[a].maxrss_kb,
                allocs[a].restarts);
        first = 0;
    }
    fprintf(f, "\n  ],\n  \"results\": [\n");
    first = 1;
    for (int ti = 0; ti < opt.nthreads; ti++)
        for (int si = 0; si < opt.nsizes; si++)
            for (int a = 0; a < NALLOC; a++) {
                if (!opt.use[a]) continue;
                cell_t *c = cell(ti, si, a);
                fprintf(f, "%s    {\"threads\": %d, \"size\": %zu, \"allocator\": \"%s\", "
                           "\"median_ns\": ", first ? "" : ",\n", opt.threads[ti], opt.sizes[si],
                        allocs[a].name);
                json_num(f, cell_median(ti, si, a));
                fprintf(f, ", \"min_ns\": ");
                json_num(f, cell_stat(ti, si, a, 0));
                fprintf(f, ", \"max_ns\": ");
                json_num(f, cell_stat(ti, si, a, 1));
                fprintf(f, ", \"runs_ns\": [");
                for (int r = 0; r < opt.repeats; r++) {
                    fputs(r ? ", " : "", f);
                    json_num(f, c->runs[r]);
                }
                fprintf(f, "], \"error\": ");
                if (c->failed) json_str(f, c->fail);
                else if (allocs[a].state == ST_MISSING || allocs[a].state == ST_UNAVAILABLE)
                    json_str(f, allocs[a].reason);
                else fputs("null", f);
                fputc('}', f);
                first = 0;
            }
    fprintf(f, "\n  ],\n  \"aa_noise\": {");
    for (int ti = 0; ti < opt.nthreads; ti++) {
        fprintf(f, "%s\"%d\": ", ti ? ", " : "", opt.threads[ti]);
        json_num(f, aa_noise(ti));
    }
    fprintf(f, "},\n  \"ratios\": [\n");
    first = 1;
    for (int ti = 0; ti < opt.nthreads; ti++)
        for (int si = 0; si < opt.nsizes; si++)
            for (int a = A_LOCI; a <= A_AA; a++) {
                if (!opt.use[a]) continue;
                int g = a == A_AA ? -2 : goal_verdict(ti, si, a);
                fprintf(f, "%s    {\"threads\": %d, \"size\": %zu, \"allocator\": \"%s\", "
                           "\"vs_glibc\": ", first ? "" : ",\n", opt.threads[ti], opt.sizes[si],
                        allocs[a].name);
                json_num(f, ratio(ti, si, a, A_GLIBC));
                fprintf(f, ", \"vs_mimalloc\": ");
                json_num(f, ratio(ti, si, a, A_MIMALLOC));
                fprintf(f, ", \"vs_jemalloc\": ");
                json_num(f, ratio(ti, si, a, A_JEMALLOC));
                fprintf(f, ", \"vs_memkind\": ");
                json_num(f, ratio(ti, si, a, A_MEMKIND));
                fprintf(f, ", \"paired_vs_glibc\": ");
                json_num(f, paired_ratio(ti, si, a, A_GLIBC));
                fprintf(f, ", \"paired_vs_mimalloc\": ");
                json_num(f, paired_ratio(ti, si, a, A_MIMALLOC));
                fprintf(f, ", \"goal\": %s}",
                        g == 1 ? "\"met\"" : g == 0 ? "\"missed\"" : g == -1 ? "\"unknown\""
                                                                            : "null");
                first = 0;
            }
    fprintf(f, "\n  ]\n}\n");
    if (fclose(f) != 0)
        fprintf(stderr, "bench_alloc: error writing %s\n", path);
    else
        fprintf(stderr, "bench_alloc: wrote %s\n", path);
}

/* ----------------------------------------------------------------- main -- */

static void fmt_eta(double s, char *buf, size_t len)
{
    if (s < 0 || isnan(s)) snprintf(buf, len, "?");
    else if (s >= 60) snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, len, "%ds", (int)s);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--worker")) {
        const bench_backend_t *const builtin[] = {&bench_backend_glibc, &bench_backend_loci};
        return bench_worker_main(argv[2], builtin, 2);
    }
    parse_args(argc, argv);
    signal(SIGPIPE, SIG_IGN);

    ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n <= 0)
        die("readlink /proc/self/exe: %s", strerror(errno));
    self_exe[n] = '\0';
    snprintf(self_dir, sizeof self_dir, "%s", self_exe);
    char *slash = strrchr(self_dir, '/');
    if (slash) *slash = '\0';

    char cmdline[2048] = "";
    size_t off = 0;
    for (int i = 0; i < argc && off < sizeof cmdline; i++)
        off += (size_t)snprintf(cmdline + off, sizeof cmdline - off, "%s%s", i ? " " : "",
                                i == 0 ? "bench_alloc" : argv[i]);

    cells = calloc((size_t)opt.nthreads * (size_t)opt.nsizes * NALLOC, sizeof *cells);
    group_s = calloc((size_t)opt.nthreads * (size_t)opt.nsizes, sizeof *group_s);
    if (!cells || !group_s)
        die("out of memory");
    for (size_t i = 0; i < (size_t)opt.nthreads * (size_t)opt.nsizes * NALLOC; i++) {
        cells[i].runs = malloc((size_t)opt.repeats * sizeof(double));
        if (!cells[i].runs) die("out of memory");
        for (int r = 0; r < opt.repeats; r++) cells[i].runs[r] = NAN;
    }

    /* Start every worker once. */
    int problems = 0;
    for (int a = 0; a < NALLOC; a++) {
        alloc_t *w = &allocs[a];
        w->pid = 0;
        w->to_fd = w->from_fd = -1;
        if (!opt.use[a]) { w->state = ST_OFF; continue; }
        if (w->missing) {
            w->state = ST_MISSING;
            snprintf(w->reason, sizeof w->reason, "%s", w->missing);
        } else {
            worker_start(w);
        }
        if (w->state == ST_READY) {
            fprintf(stderr, "bench_alloc: %-9s %s\n", w->name, w->desc);
        } else {
            fprintf(stderr,
                    "bench_alloc: ************************************************************\n"
                    "bench_alloc: *** %s is %s: %s\n"
                    "bench_alloc: *** its column will read %s\n"
                    "bench_alloc: ************************************************************\n",
                    w->name, w->state == ST_MISSING ? "MISSING" : "UNAVAILABLE", w->reason,
                    w->state == ST_MISSING ? "MISSING" : "UNAVAIL");
            if (w->state == ST_UNAVAILABLE) problems = 1;
        }
    }

    int tty = isatty(2);
    int ngroups = opt.repeats * opt.nthreads * opt.nsizes, done = 0;
    uint64_t t_start = clock_mono_ns();
    fprintf(stderr, "bench_alloc: %d repeats x %d thread counts x %d sizes, %zu ops each, touch=%s\n",
            opt.repeats, opt.nthreads, opt.nsizes, opt.ops, bench_touch_name(opt.touch));
    /* Sizes in a random order per (repeat, threads), unless --order ascending:
     * freeing what a size left live is untimed, but an allocator may defer
     * part of that work (purging, unmapping) into its next calls, i.e. into
     * the next cell. In a fixed order the same cell would always pay for the
     * same predecessor (8 B for 2 MiB); shuffled, each cell pays it in a few
     * repeats only, and the median shows the size's own cost. */
    int order[64];
    uint64_t rng = opt.seed * 0x9e3779b97f4a7c15ull + 1;
    for (int rep = 0; rep < opt.repeats; rep++) {
        for (int ti = 0; ti < opt.nthreads; ti++) {
            for (int i = 0; i < opt.nsizes; i++)
                order[i] = i;
            for (int i = opt.nsizes - 1; i > 0 && !opt.ascending; i--) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                int j = (int)(rng % (uint64_t)(i + 1));
                int tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
            for (int oi = 0; oi < opt.nsizes; oi++) {
                int si = order[oi];
                uint64_t g0 = clock_mono_ns();
                /* Allocators in an order rotated per cell and repeat. */
                for (int k = 0; k < NALLOC; k++) {
                    int a = (k + rep + si + ti) % NALLOC;
                    if (allocs[a].state == ST_READY || allocs[a].state == ST_DEAD)
                        run_one(a, ti, si, rep);
                }
                group_s[ti * opt.nsizes + si] = (double)(clock_mono_ns() - g0) / 1e9;
                done++;
                /* ETA: the remaining groups at the duration they took last time. */
                double left = 0;
                for (int r2 = rep; r2 < opt.repeats; r2++)
                    for (int t2 = 0; t2 < opt.nthreads; t2++)
                        for (int s2 = 0; s2 < opt.nsizes; s2++) {
                            /* what is left: later repeats and thread counts, and this
                             * pass's sizes not measured yet */
                            int later = r2 > rep || t2 > ti;
                            if (r2 == rep && t2 == ti)
                                for (int o2 = oi + 1; o2 < opt.nsizes; o2++)
                                    later |= order[o2] == s2;
                            if (!later) continue;
                            double g = group_s[t2 * opt.nsizes + s2];
                            left += g > 0 ? g : group_s[ti * opt.nsizes + si];
                        }
                char sz[32], eta[32];
                bench_size_label(opt.sizes[si], true, sz, sizeof sz);
                fmt_eta(left, eta, sizeof eta);
                if (tty)
                    fprintf(stderr, "\r[%3d%%] repeat %d/%d  threads %d  size %-8s  eta %-8s",
                            100 * done / ngroups, rep + 1, opt.repeats, opt.threads[ti], sz, eta);
                else if (oi == opt.nsizes - 1)
                    fprintf(stderr, "[%3d%%] repeat %d/%d  threads %d done, eta %s\n",
                            100 * done / ngroups, rep + 1, opt.repeats, opt.threads[ti], eta);
            }
        }
    }
    double wall = (double)(clock_mono_ns() - t_start) / 1e9;
    if (tty) fputc('\n', stderr);
    fprintf(stderr, "bench_alloc: measured in %.1f s\n", wall);

    for (int a = 0; a < NALLOC; a++)
        worker_stop(&allocs[a], 0);

    for (int ti = 0; ti < opt.nthreads; ti++)
        for (int si = 0; si < opt.nsizes; si++)
            for (int a = 0; a < NALLOC; a++)
                if (opt.use[a] && (allocs[a].state == ST_READY || allocs[a].state == ST_DEAD) &&
                    cell(ti, si, a)->failed)
                    problems = 1;

    print_tables(stdout);
    fflush(stdout);
    if (opt.json)
        write_json(opt.json, cmdline, wall);
    for (int a = 0; a < NALLOC; a++)
        if (opt.use[a] && allocs[a].state == ST_MISSING)
            fprintf(stderr, "bench_alloc: *** %s MISSING: %s\n", allocs[a].name, allocs[a].reason);
    if (problems)
        fprintf(stderr, "bench_alloc: *** some allocator failed: see FAILED / UNAVAIL above\n");
    return problems ? 1 : 0;
}
