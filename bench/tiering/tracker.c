/*
 * bench_tiering's outside view (tracker.h): pages' nodes by move_pages each
 * interval, moves and ping-pong counted per page, and CPU times of the
 * process, of loci's tiering (looked up with dlsym, so the same program
 * runs without loci, under `loci run --tier auto`, or linked with it) and
 * of the kernel's tiering threads (/proc).
 */
#include "tracker.h"

#include <dirent.h>
#include <dlfcn.h>
#include <loci.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int tracker_init(tracker_t *t, size_t pages)
{
    *t = (tracker_t){.pages = pages, .node = malloc(pages * sizeof(int)), .left = malloc(pages * sizeof(int)),
                     .moved_at = malloc(pages * sizeof(int)), .now = malloc(pages * sizeof(int))};
    if (!t->node || !t->left || !t->moved_at || !t->now)
        return -1;
    for (size_t p = 0; p < pages; p++)
        t->node[p] = t->left[p] = -1, t->moved_at[p] = -1000;
    return 0;
}

size_t tracker_scan(tracker_t *t, void *const *arrays, int narrays, size_t bytes, int interval)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), per = bytes / page, known = 0;
    void **addr = malloc(per * sizeof *addr);
    for (int a = 0; addr && a < narrays; a++) {
        for (size_t p = 0; p < per; p++)
            addr[p] = (char *)arrays[a] + p * page;
        int *now = t->now + (size_t)a * per;
        if (move_pages(0, per, addr, NULL, now, 0) != 0)
            for (size_t p = 0; p < per; p++)
                now[p] = -1;
    }
    free(addr);
    for (size_t p = 0; p < t->pages; p++) {
        int n = t->now[p];
        if (n < 0) /* not mapped now (a sampler unmapped it, NUMA balancing made it PROT_NONE): as it was */
            continue;
        known++;
        if (t->node[p] >= 0 && n != t->node[p]) {
            t->moved += page;
            if (n == t->left[p] && interval - t->moved_at[p] <= PINGPONG_INTERVALS)
                t->pingpong += page;
            t->left[p] = t->node[p];
            t->moved_at[p] = interval;
        }
        t->node[p] = n;
    }
    return known;
}

double tracker_share_on(const tracker_t *t, int first, int n, size_t pages_per_array, int node, size_t *known)
{
    size_t on = 0, seen = 0;
    for (size_t p = (size_t)first * pages_per_array; p < (size_t)(first + n) * pages_per_array; p++)
        if (t->node[p] >= 0) {
            seen++;
            on += t->node[p] == node;
        }
    if (known)
        *known = seen;
    return seen ? (double)on / (double)seen : 0;
}

uint64_t tracker_bytes_on(const tracker_t *t, int first, int n, size_t pages_per_array, int node)
{
    uint64_t on = 0;
    for (size_t p = (size_t)first * pages_per_array; p < (size_t)(first + n) * pages_per_array; p++)
        on += t->node[p] == node;
    return on * (uint64_t)sysconf(_SC_PAGESIZE);
}

double tracker_proc_cpu(int pid)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* after the command, which may hold spaces */
    unsigned long long ut = 0, st = 0;
    if (p)
        sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st);
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

double tracker_kernel_cpu(void)
{
    DIR *d = opendir("/proc");
    double sum = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f) && (strncmp(comm, "kdamond", 7) == 0 || strncmp(comm, "kswapd", 6) == 0))
            sum += tracker_proc_cpu(atoi(e->d_name));
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return sum;
}

/* loci_tier_totals of the libloci in this process, if there is one. */
static bool read_totals(loci_tier_totals_t *t)
{
    int (*totals)(loci_tier_totals_t *) = (int (*)(loci_tier_totals_t *))dlsym(RTLD_DEFAULT, "loci_tier_totals");
    return totals && totals(t) == 0;
}

bool loci_totals(const char **source, uint64_t *moved, uint64_t *pingpong)
{
    loci_tier_totals_t t;
    if (!read_totals(&t) || t.arenas == 0)
        return false;
    *source = t.source;
    *moved = t.bytes_promoted + t.bytes_demoted;
    *pingpong = t.bytes_pingpong;
    return true;
}

void cpu_now(cpu_t *c)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    *c = (cpu_t){.user = (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec / 1e6,
                 .sys = (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec / 1e6,
                 .kernel = tracker_kernel_cpu()};
    loci_tier_totals_t t;
    if (read_totals(&t))
        c->loci = t.cpu_seconds;
}
