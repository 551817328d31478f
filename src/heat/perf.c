/*
 * The hardware access source (heat.h): the CPU samples this process's own
 * loads with their data addresses, through perf_event_open, where the CPU
 * and perf_event_paranoid allow it without root (exclude_kernel).
 *
 * Events: Intel PEBS load latency — the core PMU's `mem-loads` event from
 * sysfs (event=0xcd,umask=0x1,ldlat=3: loads slower than 3 cycles), precise
 * (PEBS gives the data address), on both core types of a hybrid CPU
 * (cpu_core, cpu_atom); else AMD IBS op (the ibs_op PMU; data addresses of
 * loads and stores since Linux 6.1). Arm SPE writes its samples to the AUX
 * area, which this source does not decode: refused, saying so. A machine
 * without a CPU PMU (this project's TCG VM, many containers) is refused with
 * the reason, as is perf_event_paranoid 3 (Debian's and Ubuntu's default)
 * without CAP_PERFMON.
 *
 * One ring buffer per CPU; on it, an event per thread of the process at
 * open (inherited by the threads they create later), all sending their
 * samples there (PERF_EVENT_IOC_SET_OUTPUT). heat_collect drains the rings:
 * each sample's data address falls in a page of a watched range or nowhere;
 * a granule's heat is the share of its pages sampled at least once in the
 * interval. It sees user-space loads (stores too with IBS) at the sampling
 * rate, none of the kernel's, and costs the PMU's interrupts plus reading
 * the rings in heat_collect. What only real hardware can confirm is listed
 * in docs/TIERING.md.
 */
#include "heat/heat_internal.h"
#include "os/perf.h"
#include "os/vm.h"
#include "grow.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEVICES "/sys/bus/event_source/devices"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define RING_PAGES 8 /* per CPU: ~1000 samples between two collects */
#define SAMPLE_HZ 4000
#define IBS_PERIOD 0x10000 /* ops between IBS samples (a multiple of 16) */

typedef struct {
    int nfds, ncpus;
    int *fds;                                 /* every event */
    struct perf_event_mmap_page **rings;      /* one per CPU (NULL where it could not be had) */
    uint64_t lost;                            /* samples the kernel dropped (a full ring) */
} perf_t;

typedef struct {
    uint64_t *seen;     /* bit per page: sampled this interval */
    uint32_t *distinct; /* per granule: pages sampled this interval */
} prange_t;

/* --- choosing the event (sysfs) ------------------------------------------ */


static bool exists(const char *devices, const char *pmu, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s%s%s", devices, pmu, *rel ? "/" : "", rel);
    return access(path, F_OK) == 0;
}

/* Put `value` into the attr field and bits a PMU's format file names
 * ("config:0-7", "config1:0-15", "config:0-7,32-35"). */
static int place_term(struct perf_event_attr *a, const char *format, uint64_t value)
{
    char field[16];
    int at = 0;
    if (sscanf(format, "%15[a-z0-9]:%n", field, &at) != 1 || !at)
        return -1;
    __u64 *dst = strcmp(field, "config") == 0    ? &a->config
                    : strcmp(field, "config1") == 0 ? &a->config1
                    : strcmp(field, "config2") == 0 ? &a->config2
                                                    : NULL;
    if (!dst)
        return -1;
    for (const char *s = format + at; *s;) {
        unsigned lo, hi;
        int n = 0;
        if (sscanf(s, "%u-%u%n", &lo, &hi, &n) != 2) {
            if (sscanf(s, "%u%n", &lo, &n) != 1)
                return -1;
            hi = lo;
        }
        if (hi < lo || hi > 63)
            return -1;
        for (unsigned b = lo; b <= hi; b++, value >>= 1)
            *dst |= (value & 1) << b;
        s += n;
        s += *s == ',';
    }
    return 0;
}

/* attr for PMU `pmu`'s event `name` as sysfs spells it ("event=0xcd,umask=0x1,ldlat=3"). */
static int sysfs_event(const char *devices, const char *pmu, const char *name, struct perf_event_attr *a)
{
    char path[512], spec[256], type[32];
    snprintf(path, sizeof path, "%s/%s/type", devices, pmu);
    a->type = (uint32_t)atoi(heat__read_line(path, type, sizeof type));
    snprintf(path, sizeof path, "%s/%s/events/%s", devices, pmu, name);
    char *save = NULL;
    for (char *term = strtok_r((char *)heat__read_line(path, spec, sizeof spec), ",", &save); term;
         term = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(term, '=');
        uint64_t value = eq ? strtoull(eq + 1, NULL, 0) : 1;
        if (eq)
            *eq = '\0';
        char format[64];
        snprintf(path, sizeof path, "%s/%s/format/%s", devices, pmu, term);
        if (place_term(a, heat__read_line(path, format, sizeof format), value) != 0)
            return -1;
    }
    return spec[0] && a->type ? 0 : -1;
}

static void common_attr(struct perf_event_attr *a)
{
    a->size = sizeof *a;
    a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
    a->exclude_kernel = 1; /* this process's own accesses: what paranoid 2 allows */
    a->exclude_hv = 1;
    a->inherit = 1; /* threads created later */
}

int heat__perf_choose(const char *devices, const char *paranoid_file, bool privileged, heat_perf_choice_t *c,
                      char *why, size_t len)
{
    memset(c, 0, sizeof *c);
    static const char *const intel[] = {"cpu_core", "cpu_atom", "cpu"};
    for (size_t i = 0; i < 3 && c->nevents < 2; i++) {
        if (!exists(devices, intel[i], "events/mem-loads"))
            continue;
        struct perf_event_attr *a = &c->events[c->nevents].attr;
        if (sysfs_event(devices, intel[i], "mem-loads", a) != 0)
            return heat__refuse(why, len, LOCI_ENOTSUP, "the %s PMU's mem-loads event cannot be read from %s",
                                intel[i], devices);
        common_attr(a);
        a->precise_ip = 2; /* PEBS: the sample's data address is the load's */
        a->freq = 1;
        a->sample_freq = SAMPLE_HZ;
        snprintf(c->events[c->nevents++].pmu, sizeof c->events[0].pmu, "%s", intel[i]);
        snprintf(c->what, sizeof c->what, "Intel PEBS mem-loads (%s%s)", c->nevents > 1 ? "cpu_core, " : "", intel[i]);
    }
    if (c->nevents == 0 && exists(devices, "ibs_op", "")) {
        struct perf_event_attr *a = &c->events[0].attr;
        char path[512], type[32];
        snprintf(path, sizeof path, "%s/ibs_op/type", devices);
        a->type = (uint32_t)atoi(heat__read_line(path, type, sizeof type));
        common_attr(a);
        a->sample_period = IBS_PERIOD;
        snprintf(c->events[c->nevents++].pmu, sizeof c->events[0].pmu, "ibs_op");
        snprintf(c->what, sizeof c->what, "AMD IBS op (ibs_op)");
    }
    if (c->nevents == 0) {
        DIR *d = opendir(devices);
        char spe[300] = "", core[16] = "";
        for (struct dirent *e; d && (e = readdir(d));) {
            if (strncmp(e->d_name, "arm_spe", 7) == 0)
                snprintf(spe, sizeof spe, "%s", e->d_name);
            if (strcmp(e->d_name, "cpu") == 0)
                snprintf(core, sizeof core, "cpu");
        }
        if (d)
            closedir(d);
        if (spe[0])
            return heat__refuse(why, len, LOCI_ENOTSUP, "Arm SPE (%s) is here, but its samples come through the "
                                                        "AUX area, which this source does not decode", spe);
        if (core[0])
            return heat__refuse(why, len, LOCI_ENOTSUP, "the CPU PMU has no mem-loads event (%s/cpu/events/mem-loads:"
                                                        " not an Intel CPU with PEBS load latency, or a VM that hides "
                                                        "PEBS) and there is no AMD IBS (ibs_op)", devices);
        return heat__refuse(why, len, LOCI_ENOTSUP, "no CPU PMU: %s has no cpu, cpu_core, ibs_op or arm_spe "
                                                    "(a VM without a virtual PMU, or a container that hides it)",
                            devices);
    }
    char buf[16];
    const char *p = heat__read_line(paranoid_file, buf, sizeof buf);
    if (!*p)
        return heat__refuse(why, len, LOCI_ENOTSUP, "%s is missing: a kernel without perf events", paranoid_file);
    c->paranoid = atoi(p);
    if (c->paranoid >= 3 && !privileged)
        return heat__refuse(why, len, LOCI_EPERM, "perf_event_paranoid is %d: unprivileged perf_event_open is off "
                                                  "(Debian's and Ubuntu's default); allow this process's own "
                                                  "samples with `sysctl kernel.perf_event_paranoid=2`, or grant it "
                                                  "CAP_PERFMON", c->paranoid);
    return 0;
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set. */
static bool privileged(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    unsigned long long eff = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1)
            break;
    if (f)
        fclose(f);
    return (eff >> 38 & 1) || (eff >> 21 & 1);
}

/* Try each chosen event on this thread (opened and closed: nothing left). */
static int try_open(heat_perf_choice_t *c, char *why, size_t len)
{
    for (int i = 0; i < c->nevents; i++) {
        struct perf_event_attr a = c->events[i].attr;
        a.inherit = 0;
        int fd = perf_open(&a, 0, -1);
        if (fd < 0) {
            int e = errno;
            return heat__refuse(why, len, e == EACCES || e == EPERM ? LOCI_EPERM : LOCI_ENOTSUP,
                                "perf_event_open of %s for this process's user-space loads: %s%s", c->what,
                                strerror(e),
                                e == EACCES || e == EPERM ? " (perf_event_paranoid, a seccomp filter or a "
                                                            "container's policy forbids it)"
                                                          : " (the PMU refuses these settings: exclude_kernel, "
                                                            "precise sampling)");
        }
        close(fd);
    }
    return 0;
}

static int perf_probe(const heat_config_t *cfg, char *why, size_t len)
{
    (void)cfg;
    heat_perf_choice_t c;
    int rc = heat__perf_choose(DEVICES, PARANOID, privileged(), &c, why, len);
    return rc ? rc : try_open(&c, why, len);
}

/* --- the events and their rings ------------------------------------------ */

static void free_source(perf_t *p)
{
    for (int i = 0; i < p->nfds; i++)
        close(p->fds[i]);
    for (int cpu = 0; cpu < p->ncpus; cpu++)
        if (p->rings && p->rings[cpu])
            perf_unmap_ring(p->rings[cpu], RING_PAGES);
    free(p->fds);
    free(p->rings);
    free(p);
}

/* The thread ids of this process now. */
static int list_threads(pid_t **out)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    size_t cap = 0;
    *out = NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        pid_t *grown = grow_for_one(*out, (size_t)n, &cap, sizeof *grown, 16);
        if (!grown)
            break;
        *out = grown;
        (*out)[n++] = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

static int perf_open_source(heat_t *h, char *why, size_t len)
{
    heat_perf_choice_t c;
    int rc = heat__perf_choose(DEVICES, PARANOID, privileged(), &c, why, len);
    if (rc)
        return rc;
    perf_t *p = calloc(1, sizeof *p);
    pid_t *tids = NULL;
    int ntids = list_threads(&tids);
    p->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
    p->rings = calloc((size_t)p->ncpus, sizeof *p->rings);
    p->fds = calloc((size_t)p->ncpus * (size_t)ntids * (size_t)c.nevents, sizeof *p->fds);
    if (!p->rings || !p->fds || ntids == 0) {
        free(tids);
        free_source(p);
        return heat__refuse(why, len, LOCI_ENOMEM, "out of memory");
    }
    int opened_rings = 0, first_error = 0;
    for (int cpu = 0; cpu < p->ncpus; cpu++) {
        int ring_fd = -1;
        for (int t = 0; t < ntids; t++)
            for (int e = 0; e < c.nevents; e++) {
                int fd = perf_open(&c.events[e].attr, tids[t], cpu);
                if (fd < 0) {
                    /* offline CPU (ENODEV), a thread gone (ESRCH), the other core type's PMU on this CPU (ENOENT...) */
                    first_error = first_error ? first_error : errno;
                    continue;
                }
                p->fds[p->nfds++] = fd;
                if (ring_fd < 0) {
                    struct perf_event_mmap_page *ring = perf_map_ring(fd, RING_PAGES);
                    if (ring != MAP_FAILED) {
                        p->rings[cpu] = ring;
                        ring_fd = fd;
                        opened_rings++;
                    }
                } else if (perf_set_output(fd, ring_fd) != 0) {
                    first_error = first_error ? first_error : errno;
                }
            }
    }
    free(tids);
    if (opened_rings == 0) {
        free_source(p);
        return heat__refuse(why, len, LOCI_ENOTSUP, "%s: no event could be opened and mapped on any CPU (%s)", c.what,
                            strerror(first_error ? first_error : ENODEV));
    }
    h->src = p;
    loci__log(LOCI_LOG_INFO, "perf source: %s on %d CPUs, %d events", c.what, opened_rings, p->nfds);
    return 0;
}

static void perf_close(heat_t *h, bool in_child)
{
    (void)in_child; /* (the child's copies of the fds and rings are its own to close) */
    perf_t *p = h->src;
    for (size_t i = 0; i < h->nranges; i++) {
        prange_t *pr = h->ranges[i]->src;
        if (pr) {
            free(pr->seen);
            free(pr->distinct);
            free(pr);
        }
    }
    if (p)
        free_source(p);
}

static int perf_watch(heat_t *h, heat_range_t *r)
{
    (void)h;
    prange_t *pr = calloc(1, sizeof *pr);
    if (pr) {
        pr->seen = calloc((r->size / vm_page_size() + 63) / 64, sizeof(uint64_t));
        pr->distinct = calloc(r->ngranules, sizeof(uint32_t));
    }
    if (!pr || !pr->seen || !pr->distinct) {
        if (pr) {
            free(pr->seen);
            free(pr->distinct);
        }
        free(pr);
        return loci__fail(LOCI_ENOMEM, "perf source: out of memory watching %zu bytes", r->size);
    }
    r->src = pr;
    return 0;
}

static void perf_unwatch(heat_t *h, heat_range_t *r)
{
    (void)h;
    prange_t *pr = r->src;
    free(pr->seen);
    free(pr->distinct);
    free(pr);
    r->src = NULL;
}

/* --- samples into granules ----------------------------------------------- */

void heat__perf_bin(heat_t *h, uintptr_t addr)
{
    heat_range_t *r = heat__range_of(h, addr);
    if (!r)
        return;
    prange_t *pr = r->src;
    size_t page = (addr - r->base) / vm_page_size();
    if (!(pr->seen[page / 64] >> (page % 64) & 1)) {
        pr->seen[page / 64] |= 1ull << (page % 64);
        pr->distinct[heat__granule_of(r, addr)]++;
    }
}

void heat__perf_records(heat_t *h, const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head, uint64_t *lost)
{
    uint8_t record[256]; /* one record, gathered when it wraps around the end */
    while (head - tail >= sizeof(struct perf_event_header)) {
        struct perf_event_header hdr;
        for (size_t i = 0; i < sizeof hdr; i++)
            ((uint8_t *)&hdr)[i] = data[(tail + i) & (size - 1)];
        if (hdr.size < sizeof hdr || hdr.size > head - tail)
            break; /* (a torn record: the kernel writes whole ones, so only a bug gets here) */
        if (hdr.size <= sizeof record) {
            for (size_t i = 0; i < hdr.size; i++)
                record[i] = data[(tail + i) & (size - 1)];
            const uint64_t *body = (const uint64_t *)(record + sizeof hdr);
            /* PERF_SAMPLE_TID | PERF_SAMPLE_ADDR: u32 pid, u32 tid; u64 addr */
            if (hdr.type == PERF_RECORD_SAMPLE && hdr.size >= sizeof hdr + 16 && (pid_t)(uint32_t)body[0] == h->owner)
                heat__perf_bin(h, (uintptr_t)body[1]); /* (a forked child inherits the events: not its samples) */
            else if (hdr.type == PERF_RECORD_LOST && hdr.size >= sizeof hdr + 16)
                *lost += body[1]; /* u64 id, u64 lost */
        }
        tail += hdr.size;
    }
}

void heat__perf_end_interval(heat_t *h)
{
    size_t page = vm_page_size();
    for (size_t i = 0; i < h->nranges; i++) {
        heat_range_t *r = h->ranges[i];
        prange_t *pr = r->src;
        for (size_t g = 0; g < r->ngranules; g++) {
            r->counts[g].obs += heat__granule_size(r, g) / page;
            r->counts[g].hits += pr->distinct[g];
            pr->distinct[g] = 0;
        }
        memset(pr->seen, 0, (r->size / page + 63) / 64 * sizeof(uint64_t));
    }
}

static int perf_refresh(heat_t *h)
{
    perf_t *p = h->src;
    size_t size = RING_PAGES * vm_page_size();
    for (int cpu = 0; p && cpu < p->ncpus; cpu++) {
        struct perf_event_mmap_page *ring = p->rings[cpu];
        if (!ring)
            continue;
        uint64_t head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE), tail = ring->data_tail;
        heat__perf_records(h, (const uint8_t *)ring + vm_page_size(), size, tail, head, &p->lost);
        __atomic_store_n(&ring->data_tail, head, __ATOMIC_RELEASE);
    }
    heat__perf_end_interval(h);
    return 0;
}

static double perf_cpu(const heat_t *h)
{
    (void)h;
    return 0; /* no thread of its own: reading the rings is heat_collect's, counted there */
}

const heat_ops_t heat_perf_ops = {
    .id = HEAT_SOURCE_PERF,
    .probe = perf_probe,
    .open = perf_open_source,
    .close = perf_close,
    .watch = perf_watch,
    .unwatch = perf_unwatch,
    .refresh = perf_refresh,
    .thread_cpu_seconds = perf_cpu,
};
