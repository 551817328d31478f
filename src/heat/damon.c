/*
 * The DAMON access source (heat.h): the kernel's Data Access MONitor,
 * driven through its sysfs interface (/sys/kernel/mm/damon/admin, Linux
 * 5.18+; tried regions 6.2+), which is root's unless an administrator
 * delegated a kdamond (chowned its files to a user).
 *
 * One kdamond monitors this process's virtual addresses, the watched ranges
 * as its regions ("fvaddr": only those; "vaddr" where fvaddr is missing: the
 * whole address space, regions outside the ranges ignored). Once per window
 * (its sampling interval: heat_window_us, ten per interval to start with)
 * it checks one page of each region for the PTE accessed bit, kernel-made
 * accesses and reads included; at the end of each aggregation (one heat
 * interval) a `stat` scheme records every region with nr_accesses, the
 * checks that found it accessed. A reporter thread of ours asks for those
 * after every aggregation (`update_schemes_tried_regions`, which waits for
 * its end) and spreads each region over the granules it covers: heat =
 * nr_accesses / checks; heat_collect takes what it counted since the last
 * collect and never waits for the kdamond. When heat.c changes the window,
 * the reporter commits the new sampling interval. It costs the kdamond's
 * CPU, the reporter's (sysfs reads), the flusher's, and no fault in the
 * program.
 *
 * The flusher thread flushes the process's TLB twice per window
 * (vm_flush_tlb): on x86 DAMON clears a page's accessed bit without a
 * flush, and the CPU sets it again only when it walks the page table for
 * the page — so a page whose translation stays cached (a hot set that fits
 * the TLB; under QEMU TCG, whose software TLB keeps every page until the
 * guest flushes, any page) was seen touched in the first window after some
 * unrelated flush and never again: hot arenas read 0.006 while a program
 * updated them flat out.
 *
 * Why these settings (measured under QEMU TCG on 6.12, docs/TIERING.md):
 * - a check's window is a tenth of the interval, not DAMON's usual 5 ms:
 *   a page a program touches in bursts some ms apart (paced work, a loop
 *   over many arrays) is found accessed in most 40 ms windows but few 5 ms
 *   ones, so its heat stays well above the policy's hysteresis; fewer
 *   checks cost the kdamond less;
 * - the regions are kept near one per granule (min = granules, max = four
 *   per granule, at most 1000): heat is wanted per granule, and every region
 *   costs a page-table walk per check — 1000 regions made each check outlast
 *   its window under TCG, stretching an aggregation (counted in checks, not
 *   time) to seconds;
 * - the reporter, not heat_collect, talks to the kdamond: every command
 *   waits for the end of an aggregation (plus the kernel's 100 ms polling),
 *   up to seconds under TCG, which stretched the tiering thread's intervals
 *   to three times their length;
 * - the ranges are handed to DAMON by the reporter when one is new to it,
 *   not at every watch: each commit waits for the kdamond, the tiering
 *   thread watches a batch of arenas (and again each one it moved) at once,
 *   and reports came back empty for a while after a commit;
 * - DAMON sees a transparent huge page as one page (its PMD's accessed bit):
 *   2 MiB touched somewhere in nearly every window reads as hot as the
 *   hottest, so the watched memory should be in base pages
 *   (heat_needs_base_pages: tiering maps auto arenas so).
 *
 * kdamonds are shared by every user of DAMON, and the interface adds one
 * only while none runs: this source takes a kdamond that is off and set up
 * by nobody (or by a dead process of ours), or adds one when none runs, and
 * refuses, saying whose runs, otherwise. Which kdamond a process of ours
 * took is written under /run/loci/damon (root) or $XDG_RUNTIME_DIR/loci-damon:
 * a later process stops and takes back the kdamond of one that died (DAMON
 * stops a kdamond whose process is gone by itself; it is stopped again,
 * should it run, only when its target is that dead process), never another's.
 */
#include "heat/heat_internal.h"
#include "clock.h"
#include "os/vm.h"
#include "dir.h"
#include "text_file.h"
#include "thread.h"
#include "grow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <unistd.h>

#define ADMIN "/sys/kernel/mm/damon/admin/kdamonds"
#define REGIONS_PER_GRANULE 4
#define MAX_REGIONS 1000u
#define PATH_LEN 256

typedef struct {
    int kdamond; /* the index of ours under ADMIN */
    bool on;     /* (the reporter's) */
    bool fixed;  /* fvaddr: DAMON monitors only the watched ranges */
    unsigned long sample_us, aggr_us; /* the intervals committed: a window, an interval */
    unsigned long checks;       /* aggr_us / sample_us: nr_accesses at most */
    char record[PATH_LEN + 32]; /* the file saying it is ours */
    _Atomic long kdamond_pid;   /* its thread, for its CPU time (read once: sysfs answers EBUSY mid-command) */
    pthread_t thread;           /* the reporter */
    pthread_t flusher;          /* flushes the TLB twice a window */
    bool flushing;
    pthread_cond_t tick;        /* the flusher waits here */
    struct span *given;         /* (the reporter's) the ranges DAMON has, sorted */
    size_t ngiven;
    pthread_cond_t wake;        /* the reporter waits here for ranges to watch */
    /* under h->lock: */
    bool stale;                 /* the watched ranges changed since DAMON was given them */
    bool stop;
    char broken[300];           /* why the reporter stopped; "" while it works */
} damon_t;

/* --- sysfs files ------------------------------------------------------- */

static int write_file(const char *path, const char *value)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, value, strlen(value));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(value) ? 0 : -1;
}

/* Write "ADMIN/<kdamond>/<rel>" (printf-style rel and value). */
static int kd_write(int kd, const char *rel, const char *fmt, ...) LOCI_PRINTF(3, 4);
static int kd_write(int kd, const char *rel, const char *fmt, ...)
{
    char path[PATH_LEN], value[64];
    snprintf(path, sizeof path, ADMIN "/%d/%s", kd, rel);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    return write_file(path, value);
}


static const char *kd_read(int kd, const char *rel, char *buf, size_t len)
{
    char path[PATH_LEN];
    snprintf(path, sizeof path, ADMIN "/%d/%s", kd, rel);
    return heat__read_line(path, buf, len);
}

static long kd_read_long(int kd, const char *rel)
{
    char buf[32];
    return *kd_read(kd, rel, buf, sizeof buf) ? strtol(buf, NULL, 10) : -1;
}

/* Whether the blank-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

static int nr_kdamonds(void)
{
    char buf[32];
    return atoi(heat__read_line(ADMIN "/nr_kdamonds", buf, sizeof buf));
}

static bool running(int kd)
{
    char buf[16];
    return strcmp(kd_read(kd, "state", buf, sizeof buf), "on") == 0;
}

/* Turned off for sure: "off" read back (a read that fails says nothing). */
static bool stopped(int kd)
{
    char buf[16];
    return strcmp(kd_read(kd, "state", buf, sizeof buf), "off") == 0;
}

/* --- which kdamond is ours --------------------------------------------- */

/* The directory of the records (made 0700 when `make`), or "" where there is
 * none or it is not ours alone: a record decides whose kdamond is taken back,
 * so it is trusted only in a directory of this user's (or root's) that nobody
 * else may write, reached through directories nobody else could swap
 * (dir_open_checked), which keeps the paths below it valid after the check. */
static void records_dir(char *dir, size_t len, bool make)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (geteuid() == 0)
        snprintf(dir, len, "/run/loci/damon");
    else if (xdg && *xdg == '/')
        snprintf(dir, len, "%s/loci-damon", xdg);
    else
        dir[0] = '\0';
    if (make && dir[0] && geteuid() == 0)
        (void)mkdir("/run/loci", 0700);
    if (make && dir[0] && mkdir(dir, 0700) != 0 && errno != EEXIST)
        dir[0] = '\0';
    if (!dir[0])
        return;
    int fd = dir_open_checked("damon source: records", dir, false);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 022)) {
        close(fd);
        return;
    }
    if (fd >= 0) {
        static atomic_bool said;
        if (!atomic_exchange(&said, true))
            loci__log(LOCI_LOG_WARN, "damon source: %s is not this user's alone (owner uid %u, mode %04o): no "
                                     "records kept, so a kdamond left by a dead process is not taken back",
                      dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        close(fd);
    }
    dir[0] = '\0';
}

/* A process's start time (clock ticks after boot), telling it from a later
 * one with the same pid; 0 when it is gone. */
static unsigned long long started(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    const char *s = strrchr(heat__read_line(path, line, sizeof line), ')'); /* after the command name */
    unsigned long long start = 0;
    /* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
       priority nice num_threads itrealvalue starttime */
    if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                     &start) != 1)
        start = 0;
    return start;
}

/* The pid of the dead process of ours whose record names kdamond kd, or 0. */
static pid_t dead_owner(const char *dir, int kd)
{
    char path[PATH_LEN + 32], line[64];
    snprintf(path, sizeof path, "%s/kdamond-%d", dir, kd);
    int pid = 0;
    unsigned long long start = 0;
    if (!dir[0] || sscanf(heat__read_line(path, line, sizeof line), "%d %llu", &pid, &start) != 2 || pid <= 0)
        return 0;
    return started(pid) == start ? 0 : pid;
}

/* Kernel's own words for a kdamond: "thread 77, vaddr of process 1234". */
static void describe(int kd, char *buf, size_t len)
{
    char ops[32];
    long target = kd_read_long(kd, "contexts/0/targets/0/pid_target");
    snprintf(buf, len, "thread %ld, %s%s", kd_read_long(kd, "pid"), kd_read(kd, "contexts/0/operations", ops, sizeof ops),
             target > 0 ? "" : ", no process");
    if (target > 0)
        snprintf(buf + strlen(buf), len - strlen(buf), " of process %ld", target);
}

/* The kdamond this process may use: one that is off, writable by us and set
 * up by nobody — or by a dead process of ours (`take`: stopped should it run
 * for that process still, and cleared) — else, when none runs and none is
 * set up (the interface recreates them all), a new one (`take`: added). Its
 * index, or LOCI_E* with why. Without `take` nothing is changed. */
static int choose_kdamond(bool take, char *why, size_t len)
{
    char dir[PATH_LEN];
    records_dir(dir, sizeof dir, take);
    int n = nr_kdamonds(), busy = -1, set_up = -1;
    for (int kd = 0; kd < n; kd++) {
        char path[PATH_LEN];
        snprintf(path, sizeof path, ADMIN "/%d/state", kd);
        pid_t dead = dead_owner(dir, kd);
        bool ours = dead && kd_read_long(kd, "contexts/0/targets/0/pid_target") == dead;
        if (running(kd) && !ours) {
            busy = kd;
            continue;
        }
        if (kd_read_long(kd, "contexts/nr_contexts") != 0 && !ours) {
            set_up = kd;
            continue;
        }
        if (access(path, W_OK) != 0)
            continue;
        if (take && ours) {
            if (running(kd))
                (void)kd_write(kd, "state", "off");
            (void)kd_write(kd, "contexts/nr_contexts", "0");
            loci__log(LOCI_LOG_INFO, "damon source: took back kdamond %d of process %d, which is gone", kd, (int)dead);
        }
        return kd;
    }
    if (access(ADMIN "/nr_kdamonds", W_OK) != 0)
        return heat__refuse(why, len, LOCI_EPERM, "DAMON's sysfs interface (" ADMIN ") is root's, and no kdamond "
                                                  "was delegated to this user (its files chowned to it)");
    char what[128];
    if (busy >= 0) {
        describe(busy, what, sizeof what);
        return heat__refuse(why, len, LOCI_EBUSY, "kdamond %d (%s) runs for another user of DAMON, and its sysfs "
                                                  "interface adds kdamonds only while none runs", busy, what);
    }
    if (set_up >= 0)
        return heat__refuse(why, len, LOCI_EBUSY, "kdamond %d is off but set up by another user of DAMON: adding a "
                                                  "kdamond would erase its settings", set_up);
    char count[16];
    snprintf(count, sizeof count, "%d", n + 1);
    if (take && write_file(ADMIN "/nr_kdamonds", count) != 0)
        return heat__refuse(why, len, LOCI_EBUSY, "adding kdamond %d: %s", n, strerror(errno));
    return n;
}

/* The operations sets kdamond kd's kernel was built with. A kernel takes the
 * name of one it lacks and refuses only the start (EINVAL), so they are read
 * from avail_operations — which exists only in a context: when kd has none,
 * one is made for the question and taken away again (under the records'
 * lock, or by the process that holds kd). The list goes to avail, one line. */
typedef enum { OPS_NONE, OPS_VADDR, OPS_FVADDR, OPS_UNKNOWN } operations_t;
static operations_t operations(int kd, char *avail, size_t len)
{
    char path[PATH_LEN];
    snprintf(path, sizeof path, ADMIN "/%d/contexts/0/avail_operations", kd);
    bool made = kd_read_long(kd, "contexts/nr_contexts") == 0 && kd_write(kd, "contexts/nr_contexts", "1") == 0;
    bool listed = text_whole(path, avail, len) && avail[0];
    if (made)
        (void)kd_write(kd, "contexts/nr_contexts", "0");
    for (char *c = avail; (c = strchr(c, '\n')) != NULL;)
        *c = c[1] ? ' ' : '\0';
    if (!listed)
        return OPS_UNKNOWN; /* (a kernel before avail_operations: try them) */
    return has_word(avail, "fvaddr") ? OPS_FVADDR : has_word(avail, "vaddr") ? OPS_VADDR : OPS_NONE;
}

/* Serialises choosing among processes of ours (a lock file beside the records). */
static int lock_records(void)
{
    char dir[PATH_LEN], path[PATH_LEN + 8];
    records_dir(dir, sizeof dir, true);
    if (!dir[0])
        return -1;
    snprintf(path, sizeof path, "%s/lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0)
        flock(fd, LOCK_EX);
    return fd;
}

static void write_record(damon_t *d)
{
    char dir[PATH_LEN], line[64];
    records_dir(dir, sizeof dir, true);
    d->record[0] = '\0';
    if (!dir[0])
        return;
    snprintf(d->record, sizeof d->record, "%s/kdamond-%d", dir, d->kdamond);
    int fd = open(d->record, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    int n = snprintf(line, sizeof line, "%d %llu\n", (int)getpid(), started(getpid()));
    if (fd < 0 || write(fd, line, (size_t)n) != n)
        d->record[0] = '\0';
    if (fd >= 0)
        close(fd);
}

/* --- the source -------------------------------------------------------- */

static int damon_probe(const heat_config_t *cfg, char *why, size_t len)
{
    (void)cfg;
    if (access(ADMIN "/nr_kdamonds", F_OK) != 0)
        return heat__refuse(why, len, LOCI_ENOTSUP, "no DAMON sysfs interface (" ADMIN ": a kernel without "
                                                    "CONFIG_DAMON_SYSFS, e.g. Debian's 6.1)");
    /* chosen as open would (a kdamond added where there is none), so that
     * what operations the kernel has can be asked */
    int lock = lock_records();
    int kd = choose_kdamond(true, why, len);
    char avail[128];
    if (kd >= 0 && operations(kd, avail, sizeof avail) == OPS_NONE)
        kd = heat__refuse(why, len, LOCI_ENOTSUP, "this kernel's DAMON monitors no virtual addresses "
                                                  "(avail_operations: %s; CONFIG_DAMON_VADDR)", avail);
    if (lock >= 0)
        close(lock);
    return kd < 0 ? kd : 0;
}

/* Set kdamond d->kdamond up for this process (nothing watched yet: it is
 * started by the first watch). */
static int set_up(heat_t *h, damon_t *d, char *why, size_t len)
{
    int kd = d->kdamond;
    char path[PATH_LEN];
    d->aggr_us = (unsigned long)h->cfg.interval_ms * 1000;
    d->sample_us = (unsigned long)heat__window_us(h); /* (at most the interval) */
    d->checks = d->aggr_us / d->sample_us;
    static const struct {
        const char *rel, *value;
    } fixed[] = {
        {"contexts/0/monitoring_attrs/nr_regions/min", "10"},
        {"contexts/0/monitoring_attrs/nr_regions/max", "1000"},
        {"contexts/0/monitoring_attrs/intervals/update_us", "1000000"},
        {"contexts/0/targets/nr_targets", "1"},
        {"contexts/0/schemes/nr_schemes", "1"},
        {"contexts/0/schemes/0/action", "stat"},
        {"contexts/0/schemes/0/access_pattern/sz/min", "0"},
        {"contexts/0/schemes/0/access_pattern/sz/max", "18446744073709551615"},
        {"contexts/0/schemes/0/access_pattern/nr_accesses/min", "0"},
        {"contexts/0/schemes/0/access_pattern/nr_accesses/max", "4294967295"},
        {"contexts/0/schemes/0/access_pattern/age/min", "0"},
        {"contexts/0/schemes/0/access_pattern/age/max", "4294967295"},
    };
    if (kd_write(kd, "contexts/nr_contexts", "1") != 0)
        return heat__refuse(why, len, LOCI_EIO, "kdamond %d: setting up a context: %s", kd, strerror(errno));
    char avail[128];
    int ops = operations(kd, avail, sizeof avail);
    if (ops == OPS_NONE)
        return heat__refuse(why, len, LOCI_ENOTSUP, "kdamond %d: this kernel's DAMON monitors no virtual addresses "
                                                    "(avail_operations: %s; CONFIG_DAMON_VADDR)", kd, avail);
    d->fixed = ops != OPS_VADDR && kd_write(kd, "contexts/0/operations", "fvaddr") == 0;
    if (!d->fixed && kd_write(kd, "contexts/0/operations", "vaddr") != 0)
        return heat__refuse(why, len, LOCI_ENOTSUP, "kdamond %d: this kernel's DAMON monitors no virtual addresses "
                                                    "(operations vaddr: %s; CONFIG_DAMON_VADDR)", kd, strerror(errno));
    if (kd_write(kd, "contexts/0/monitoring_attrs/intervals/sample_us", "%lu", d->sample_us) != 0 ||
        kd_write(kd, "contexts/0/monitoring_attrs/intervals/aggr_us", "%lu", d->aggr_us) != 0)
        return heat__refuse(why, len, LOCI_EIO, "kdamond %d: setting its intervals: %s", kd, strerror(errno));
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (kd_write(kd, fixed[i].rel, "%s", fixed[i].value) != 0)
            return heat__refuse(why, len, LOCI_EIO, "kdamond %d: writing %s: %s", kd, fixed[i].rel, strerror(errno));
    if (kd_write(kd, "contexts/0/targets/0/pid_target", "%d", (int)getpid()) != 0)
        return heat__refuse(why, len, LOCI_EIO, "kdamond %d: targeting this process: %s", kd, strerror(errno));
    snprintf(path, sizeof path, ADMIN "/%d/contexts/0/schemes/0/tried_regions", kd);
    if (access(path, F_OK) != 0)
        return heat__refuse(why, len, LOCI_ENOTSUP, "this kernel's DAMON reports no regions a scheme tried "
                                                    "(tried_regions, Linux 6.2 or later)");
    return 0;
}

static void release(damon_t *d)
{
    if (running(d->kdamond))
        (void)kd_write(d->kdamond, "state", "off");
    (void)kd_write(d->kdamond, "contexts/nr_contexts", "0"); /* set up by nobody: free for others */
    if (d->record[0])
        unlink(d->record);
}

/* --- the reporter thread ------------------------------------------------- */

typedef struct span {
    uintptr_t start, end;
    size_t granules;
    double nr_accesses; /* (tried regions) */
} span_t;

/* Whether DAMON monitors every one of these ranges already (both lists
 * sorted), or nothing is watched and it is off. Ranges it has beyond them
 * are left there: it only looks at their accessed bits, and the reports'
 * regions outside the watched ranges are ignored. So an arena moved —
 * unwatched, then watched again at the same addresses — costs no commit,
 * which would cost the kdamond's next aggregation and the reports of a few
 * more (they came back empty for about two seconds under TCG). */
static bool given_already(const damon_t *d, const span_t *v, size_t n)
{
    if (n == 0)
        return !d->on;
    size_t j = 0;
    for (size_t i = 0; i < n && d->on; i++) {
        while (j < d->ngiven && d->given[j].start < v[i].start)
            j++;
        if (j == d->ngiven || d->given[j].start != v[i].start || d->given[j].end != v[i].end)
            return false;
    }
    return d->on;
}

/* Region i of a range's pieces, each `per` granules (the last what is left). */
static void piece(const span_t *r, size_t per, size_t i, uintptr_t *start, uintptr_t *end)
{
    *start = r->start + i * per * HEAT_GRANULE;
    *end = r->start + (i + 1) * per * HEAT_GRANULE;
    *end = *end < r->end ? *end : r->end;
}

/* Hand DAMON the ranges as the target's regions, and start it or commit them
 * to the running kdamond; stop it when nothing is watched. The regions given
 * are the ranges cut at their granules (a few granules each when there are
 * more than 1000): DAMON starts from them and splits a region in two or
 * three per aggregation, so a range given whole read as one heat for several
 * intervals — a 64 MiB arena placed by granule had its first 16 MiB promoted
 * on one reading while its hot window lay further on (vm_parts). It keeps
 * about one region per granule at least, four at most (1000 in all).
 * Reporter thread, without the lock. */
static int apply_regions(damon_t *d, const span_t *v, size_t n)
{
    int kd = d->kdamond;
    if (n == 0) {
        if (d->on)
            (void)kd_write(kd, "state", "off");
        d->on = false;
        return 0;
    }
    size_t granules = 0, regions = 0;
    for (size_t i = 0; i < n; i++)
        granules += v[i].granules;
    size_t per = (granules + MAX_REGIONS - 1) / MAX_REGIONS; /* granules a region */
    for (size_t i = 0; i < n; i++)
        regions += (v[i].granules + per - 1) / per;
    if (kd_write(kd, "contexts/0/targets/0/regions/nr_regions", "%zu", regions) != 0)
        return loci__fail(LOCI_EIO, "damon source: kdamond %d: %zu regions: %s", kd, regions, strerror(errno));
    for (size_t i = 0, k = 0; i < n; i++)
        for (size_t j = 0; j * per < v[i].granules; j++, k++) {
            uintptr_t start, end;
            piece(&v[i], per, j, &start, &end);
            char rel[96];
            snprintf(rel, sizeof rel, "contexts/0/targets/0/regions/%zu/start", k);
            int rc = kd_write(kd, rel, "%lu", (unsigned long)start);
            snprintf(rel, sizeof rel, "contexts/0/targets/0/regions/%zu/end", k);
            if (rc != 0 || kd_write(kd, rel, "%lu", (unsigned long)end) != 0)
                return loci__fail(LOCI_EIO, "damon source: kdamond %d: region [%p, %p): %s", kd, (void *)start,
                                  (void *)end, strerror(errno));
        }
    /* (checked against each other by DAMON when committed, not when written) */
    size_t lo = granules < 10 ? 10 : granules < MAX_REGIONS ? granules : MAX_REGIONS;
    size_t hi = REGIONS_PER_GRANULE * granules;
    hi = hi < lo ? lo : hi > MAX_REGIONS ? MAX_REGIONS : hi;
    hi = hi < regions ? regions : hi; /* (more ranges than that: the regions given at least) */
    if (kd_write(kd, "contexts/0/monitoring_attrs/nr_regions/min", "%zu", lo) != 0 ||
        kd_write(kd, "contexts/0/monitoring_attrs/nr_regions/max", "%zu", hi) != 0 ||
        kd_write(kd, "state", d->on ? "commit" : "on") != 0) {
        int e = errno;
        return loci__fail(e == EBUSY ? LOCI_EBUSY : LOCI_EIO, "damon source: kdamond %d: %s: %s", kd,
                          d->on ? "commit" : "starting", strerror(e));
    }
    loci__log(LOCI_LOG_DEBUG, "damon source: kdamond %d %s, %zu ranges in %zu regions, %zu to %zu regions", kd,
              d->on ? "given new ranges" : "started", n, regions, lo, hi);
    if (!d->on)
        atomic_store(&d->kdamond_pid, kd_read_long(kd, "pid"));
    d->on = true;
    return 0;
}

/* A new window as DAMON's sampling interval: written, and committed to the
 * running kdamond (its nr_accesses are rescaled to the new checks by the
 * kernel). Reporter thread, without the lock. */
static int apply_window(damon_t *d, unsigned long sample_us)
{
    int kd = d->kdamond;
    if (kd_write(kd, "contexts/0/monitoring_attrs/intervals/sample_us", "%lu", sample_us) != 0 ||
        (d->on && kd_write(kd, "state", "commit") != 0)) {
        int e = errno;
        return loci__fail(e == EBUSY ? LOCI_EBUSY : LOCI_EIO, "damon source: kdamond %d: a sampling interval of "
                          "%lu us: %s", kd, sample_us, strerror(e));
    }
    loci__log(LOCI_LOG_DEBUG, "damon source: kdamond %d samples every %lu us", kd, sample_us);
    d->sample_us = sample_us;
    d->checks = d->aggr_us / sample_us;
    return 0;
}

/* The watched ranges now (under the lock); NULL with *n 0 when none or out of memory. */
static span_t *snapshot(const heat_t *h, size_t *n)
{
    span_t *v = h->nranges ? malloc(h->nranges * sizeof *v) : NULL;
    *n = v ? h->nranges : 0;
    for (size_t i = 0; i < *n; i++)
        v[i] = (span_t){h->ranges[i]->base, h->ranges[i]->base + h->ranges[i]->size, h->ranges[i]->ngranules, 0};
    return v;
}

/* DAMON's regions at the end of the next aggregation (update_schemes_tried_regions
 * waits for it): *out malloc'd. Reporter thread, without the lock. */
static int report(damon_t *d, span_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    uint64_t t0 = clock_mono_ns();
    if (kd_write(d->kdamond, "state", "update_schemes_tried_regions") != 0) {
        int e = errno;
        if (stopped(d->kdamond))
            return loci__fail(LOCI_EIO, "damon source: kdamond %d stopped (turned off by someone else?)",
                              d->kdamond);
        return loci__fail(e == EBUSY ? LOCI_EBUSY : LOCI_EIO, "damon source: kdamond %d: "
                          "update_schemes_tried_regions: %s", d->kdamond, strerror(e));
    }
    uint64_t t1 = clock_mono_ns();
    char dir[PATH_LEN];
    snprintf(dir, sizeof dir, ADMIN "/%d/contexts/0/schemes/0/tried_regions", d->kdamond);
    DIR *dd = opendir(dir);
    size_t cap = 0;
    for (struct dirent *e; dd && (e = readdir(dd));) {
        char *tail, path[PATH_LEN + 300], buf[32];
        long idx = strtol(e->d_name, &tail, 10);
        if (*tail || tail == e->d_name || idx < 0)
            continue;
        span_t *v = grow_for_one(*out, *n, &cap, sizeof *v, 64);
        if (!v)
            break; /* (out of memory: what was read so far) */
        *out = v;
        span_t *r = &(*out)[*n];
        snprintf(path, sizeof path, "%s/%s/start", dir, e->d_name);
        r->start = (uintptr_t)strtoull(heat__read_line(path, buf, sizeof buf), NULL, 10);
        snprintf(path, sizeof path, "%s/%s/end", dir, e->d_name);
        r->end = (uintptr_t)strtoull(heat__read_line(path, buf, sizeof buf), NULL, 10);
        snprintf(path, sizeof path, "%s/%s/nr_accesses", dir, e->d_name);
        r->nr_accesses = strtod(heat__read_line(path, buf, sizeof buf), NULL);
        (*n)++;
    }
    if (dd)
        closedir(dd);
    loci__log(LOCI_LOG_DEBUG, "damon source: %zu regions; the kdamond took %.0f ms to report them, reading them "
              "%.0f ms", *n, (double)(t1 - t0) / 1e6, (double)(clock_mono_ns() - t1) / 1e6);
    return 0;
}

/* One tried region: spread over the granules of the ranges it covers. */
static void spread(heat_t *h, uintptr_t start, uintptr_t end, double nr_accesses, double *weight)
{
    size_t w = 0; /* weight's index of the first granule of range i */
    for (size_t i = 0; i < h->nranges; i++) {
        heat_range_t *r = h->ranges[i];
        uintptr_t lo = start > r->base ? start : r->base, hi = end < r->base + r->size ? end : r->base + r->size;
        for (uintptr_t at = lo; at < hi;) {
            size_t g = heat__granule_of(r, at);
            uintptr_t gend = r->base + g * HEAT_GRANULE + heat__granule_size(r, g);
            uintptr_t to = hi < gend ? hi : gend;
            double share = (double)(to - at) / (double)heat__granule_size(r, g);
            r->counts[g].hits += nr_accesses * share;
            weight[w + g] += share;
            at = to;
        }
        w += r->ngranules;
    }
}

/* A report's regions into the counts of the ranges watched now. Under the lock. */
static void count(heat_t *h, const damon_t *d, const span_t *v, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < h->nranges; i++)
        total += h->ranges[i]->ngranules;
    double *weight = n && total ? calloc(total, sizeof *weight) : NULL; /* how much of each granule regions covered */
    if (!weight)
        return; /* (nothing reported, nothing watched, or out of memory: no observation) */
    for (size_t k = 0; k < n; k++)
        spread(h, v[k].start, v[k].end, v[k].nr_accesses, weight);
    /* A granule the regions covered for the most part rests on one aggregation's checks. */
    for (size_t i = 0, w = 0; i < h->nranges; w += h->ranges[i++]->ngranules)
        for (size_t g = 0; g < h->ranges[i]->ngranules; g++)
            if (weight[w + g] > 0.5)
                h->ranges[i]->counts[g].obs += d->checks;
    free(weight);
}

/* The reporter: hands DAMON the watched ranges when they changed, then asks
 * for each aggregation's regions and counts them — so that heat_collect,
 * and the tiering thread with it, never waits for the kdamond (each sysfs
 * command waits for the end of an aggregation, seconds under TCG). */
static void *reporter(void *arg)
{
    heat_t *h = arg;
    damon_t *d = h->src;
    pthread_mutex_lock(&h->lock);
    while (!d->stop && !d->broken[0]) {
        if (!d->stale && !d->on) {
            pthread_cond_wait(&d->wake, &h->lock);
            continue;
        }
        size_t n = 0;
        span_t *v = d->stale ? snapshot(h, &n) : NULL;
        bool commit = d->stale && (v || h->nranges == 0);
        unsigned long window = (unsigned long)heat__window_us(h);
        d->stale &= !commit;
        pthread_mutex_unlock(&h->lock);
        commit &= !given_already(d, v, n);
        int rc = window != d->sample_us ? apply_window(d, window) : 0;
        rc = rc == 0 && commit ? apply_regions(d, v, n) : rc;
        if (commit && rc == 0) {
            free(d->given);
            d->given = v;
            d->ngiven = n;
        } else {
            free(v);
        }
        v = NULL;
        n = 0;
        if (rc == 0 && d->on)
            rc = report(d, &v, &n);
        pthread_mutex_lock(&h->lock);
        if (rc == 0)
            count(h, d, v, n);
        free(v);
        if (rc == LOCI_EBUSY) {
            /* another user of DAMON's sysfs interface holds its lock: again shortly */
            d->stale |= commit;
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += (long)d->sample_us * 1000;
            ts.tv_sec += ts.tv_nsec / 1000000000;
            ts.tv_nsec %= 1000000000;
            pthread_cond_timedwait(&d->wake, &h->lock, &ts);
        } else if (rc != 0) {
            snprintf(d->broken, sizeof d->broken, "%s", loci_last_error());
            loci__log(LOCI_LOG_ERROR, "%s; heat is no longer measured", d->broken);
        }
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Flushes the process's TLB twice per window while anything is watched, so
 * that each check's window sees the accesses made in it (see the top). */
static void *flusher(void *arg)
{
    heat_t *h = arg;
    damon_t *d = h->src;
    pthread_mutex_lock(&h->lock);
    while (!d->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t at = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + heat__window_us(h) * 500;
        ts = (struct timespec){(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
        pthread_cond_timedwait(&d->tick, &h->lock, &ts);
        bool watched = h->nranges > 0 && !d->stop;
        pthread_mutex_unlock(&h->lock);
        if (watched)
            vm_flush_tlb();
        pthread_mutex_lock(&h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* --- the source ---------------------------------------------------------- */

static int damon_open(heat_t *h, char *why, size_t len)
{
    damon_t *d = calloc(1, sizeof *d);
    if (!d)
        return heat__refuse(why, len, LOCI_ENOMEM, "out of memory");
    int lock = lock_records();
    int rc = d->kdamond = choose_kdamond(true, why, len);
    if (rc >= 0) {
        write_record(d);
        rc = set_up(h, d, why, len);
        if (rc != 0)
            release(d);
    }
    if (lock >= 0)
        close(lock);
    if (rc < 0) {
        free(d);
        return rc;
    }
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &a);
    pthread_cond_init(&d->tick, &a);
    pthread_condattr_destroy(&a);
    h->src = d;
    if ((rc = thread_start_quiet(&d->thread, reporter, h)) != 0) {
        release(d);
        pthread_cond_destroy(&d->wake);
        pthread_cond_destroy(&d->tick);
        free(d);
        h->src = NULL;
        return heat__refuse(why, len, LOCI_ENOMEM, "cannot start its reporter thread: %s", strerror(rc));
    }
    /* without the flusher, DAMON under-reads pages the TLB keeps: said, not fatal */
    d->flushing = thread_start_quiet(&d->flusher, flusher, h) == 0;
    if (!d->flushing)
        loci__log(LOCI_LOG_WARN, "damon source: cannot start its TLB flusher thread: pages whose translations stay "
                                 "cached may read colder than they are");
    return 0;
}

static void damon_close(heat_t *h, bool in_child)
{
    damon_t *d = h->src;
    if (!in_child) { /* (the thread and the kdamond are the parent's) */
        pthread_mutex_lock(&h->lock);
        d->stop = true;
        pthread_cond_signal(&d->wake);
        pthread_cond_signal(&d->tick);
        pthread_mutex_unlock(&h->lock);
        pthread_join(d->thread, NULL); /* (it may be waiting for the end of an aggregation) */
        if (d->flushing)
            pthread_join(d->flusher, NULL);
        pthread_cond_destroy(&d->wake);
        pthread_cond_destroy(&d->tick);
        release(d);
    }
    free(d->given); /* (a child's copy of it is its own memory) */
    free(d);
}

/* The ranges reach DAMON through the reporter: a commit waits for the end of
 * an aggregation. Unwatched memory DAMON still checks meanwhile is only
 * looked at (its accessed bits), never changed. */
static int damon_watch(heat_t *h, heat_range_t *r)
{
    (void)r;
    damon_t *d = h->src;
    if (d->broken[0])
        return loci__fail(LOCI_EIO, "damon source: %s", d->broken);
    d->stale = true;
    pthread_cond_signal(&d->wake);
    return 0;
}

static void damon_unwatch(heat_t *h, heat_range_t *r)
{
    (void)r;
    damon_t *d = h->src;
    d->stale = true;
    pthread_cond_signal(&d->wake);
}

/* The reporter counted already: only whether it still can. */
static int damon_refresh(heat_t *h)
{
    const damon_t *d = h->src;
    return d->broken[0] ? loci__fail(LOCI_EIO, "%s", d->broken) : 0;
}

/* The kdamond's CPU time (/proc/PID/stat utime + stime) and the reporter's. */
static double damon_cpu(const heat_t *h)
{
    const damon_t *d = h->src;
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", atomic_load(&d->kdamond_pid));
    const char *s = strrchr(heat__read_line(path, line, sizeof line), ')');
    unsigned long utime = 0, stime = 0;
    double reporter = heat__thread_cpu_s(d->thread) + (d->flushing ? heat__thread_cpu_s(d->flusher) : 0);
    if (!s || sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return reporter;
    return reporter + (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

const heat_ops_t heat_damon_ops = {
    .id = HEAT_SOURCE_DAMON,
    .needs_base_pages = true,
    .min_window_us = 1000, /* a check a millisecond: DAMON's regions, a page-table walk each, ten to a thousand */
    .probe = damon_probe,
    .open = damon_open,
    .close = damon_close,
    .watch = damon_watch,
    .unwatch = damon_unwatch,
    .refresh = damon_refresh,
    .thread_cpu_seconds = damon_cpu,
};
