/*
 * The access-measurement object (heat.h): which source it uses and why the
 * others were skipped, the watched ranges (sorted, with their per-granule
 * counts), collecting the counts into heat samples, and the window the
 * sources observe in, adapted to what they saw. The sources do the
 * measuring (perf.c, damon.c, faults.c, dirty.c): this file, the top of
 * src/heat, names their ops tables and none of them calls it
 * (heat_internal.h).
 */
#include "heat/heat_internal.h"
#include "grow.h"
#include "os/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The order sources are tried in: the one that sees most for least first.
 * perf sees the program's loads themselves at a few thousand samples a
 * second, for the PMU's interrupts; damon sees reads and writes of every
 * region, paid by a kernel thread, with no fault in the program; faults sees
 * reads and writes of sampled pages, but costs the program a fault per
 * sampled page it touches and needs the arenas in shared memory; dirty needs
 * nothing at all, but sees writes only (a hot array the program only reads
 * reads cold) and costs a fault per page written in a window. */
static const heat_ops_t *const sources[] = {&heat_perf_ops, &heat_damon_ops, &heat_faults_ops, &heat_dirty_ops};
#define NSOURCES (sizeof sources / sizeof sources[0])

const char *heat_source_name(heat_source_t s)
{
    switch (s) {
    case HEAT_SOURCE_PERF: return "perf";
    case HEAT_SOURCE_DAMON: return "damon";
    case HEAT_SOURCE_FAULTS: return "faults";
    case HEAT_SOURCE_DIRTY: return "dirty";
    default: return "none";
    }
}

int heat_source_parse(const char *name, heat_source_t *out)
{
    if (name && strcasecmp(name, "auto") == 0) {
        *out = HEAT_SOURCE_NONE;
        return 0;
    }
    for (heat_source_t s = HEAT_SOURCE_PERF; name && s <= HEAT_SOURCE_DIRTY; s++)
        if (strcasecmp(name, heat_source_name(s)) == 0) {
            *out = s;
            return 0;
        }
    return loci__fail(LOCI_EINVAL, "access source \"%s\" is unknown: use " HEAT_SOURCE_NAMES,
                      name ? name : "(null)");
}

static double own_cpu_s(void) { return heat__thread_cpu_s(pthread_self()); }

static int checked_config(const heat_config_t *in, heat_config_t *out)
{
    *out = in ? *in : (heat_config_t){0};
    if (out->interval_ms == 0)
        out->interval_ms = HEAT_DEFAULT_INTERVAL_MS;
    if (out->sample_share == 0)
        out->sample_share = HEAT_DEFAULT_SAMPLE_SHARE;
    if (out->interval_ms > 60000)
        return loci__fail(LOCI_EINVAL, "access measurement: an interval of %u ms is too long: use 1 to 60000 ms",
                          out->interval_ms);
    if (!(out->sample_share > 0 && out->sample_share <= 1))
        return loci__fail(LOCI_EINVAL, "access measurement: a sample share of %g is outside (0, 1]: use e.g. 0.02 "
                                       "for 2 %% of each range's pages per interval", out->sample_share);
    if (out->window_ms > out->interval_ms)
        return loci__fail(LOCI_EINVAL, "access measurement: a window of %u ms is longer than the interval (%u ms)",
                          out->window_ms, out->interval_ms);
    if ((unsigned)out->only > HEAT_SOURCE_DIRTY)
        return loci__fail(LOCI_EINVAL, "access measurement: source %d is unknown", (int)out->only);
    return 0;
}

/* Append "name: why" to the "; "-separated list in buf. */
static void add_reason(char *buf, size_t len, heat_source_t s, const char *why)
{
    size_t at = strlen(buf);
    if (at < len)
        snprintf(buf + at, len - at, "%s%s: %s", at ? "; " : "", heat_source_name(s), why);
}

heat_source_t heat_probe(const heat_config_t *cfg, char *why, size_t len)
{
    heat_config_t c;
    if (len)
        why[0] = '\0';
    if (checked_config(cfg, &c) != 0) {
        snprintf(why, len, "%s", loci_last_error());
        return HEAT_SOURCE_NONE;
    }
    for (size_t i = 0; i < NSOURCES; i++) {
        if (c.only != HEAT_SOURCE_NONE && c.only != sources[i]->id)
            continue;
        char reason[512] = "";
        if (sources[i]->probe(&c, reason, sizeof reason) == 0)
            return sources[i]->id;
        add_reason(why, len, sources[i]->id, reason);
    }
    return HEAT_SOURCE_NONE;
}

/* The window a measurement starts with: the one configured, else a tenth of
 * the interval (measured under TCG: a paced program's hot pages are seen in
 * most such windows, its cold ones in few), never under the source's shortest. */
static void first_window(heat_t *h)
{
    uint64_t interval = (uint64_t)h->cfg.interval_ms * 1000;
    uint64_t w = h->cfg.window_ms ? (uint64_t)h->cfg.window_ms * 1000 : interval / 10;
    w = w > h->ops->min_window_us ? w : h->ops->min_window_us;
    atomic_store(&h->window_us, w < interval ? w : interval);
}

/* Every measurement this process opened, for heat_hold: whoever moves
 * memory (an arena) does not know which one watches it. Taken before a
 * measurement's own lock. */
static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;
static heat_t *opened;

static void list_opened(heat_t *h)
{
    pthread_mutex_lock(&opened_lock);
    h->next_opened = opened;
    opened = h;
    pthread_mutex_unlock(&opened_lock);
}

static void unlist_opened(heat_t *h)
{
    pthread_mutex_lock(&opened_lock);
    for (heat_t **p = &opened; *p; p = &(*p)->next_opened)
        if (*p == h) {
            *p = h->next_opened;
            break;
        }
    pthread_mutex_unlock(&opened_lock);
}

void heat_fork(loci_fork_phase_t phase) { loci__fork_mutex(&opened_lock, phase); }

/* A measurement of this process with its checked configuration, no source yet. */
static int heat_new(const heat_config_t *cfg, heat_t **out)
{
    heat_t *h = calloc(1, sizeof *h);
    if (!h)
        return loci__fail(LOCI_ENOMEM, "access measurement: out of memory");
    int rc = checked_config(cfg, &h->cfg);
    if (rc != 0) {
        free(h);
        return rc;
    }
    pthread_mutex_init(&h->lock, NULL);
    h->owner = getpid();
    *out = h;
    return 0;
}

int heat_open(const heat_config_t *cfg, heat_t **out)
{
    *out = NULL;
    heat_t *h;
    int rc = heat_new(cfg, &h);
    if (rc != 0)
        return rc;
    rc = LOCI_ENOTSUP;
    for (size_t i = 0; i < NSOURCES && !h->ops; i++) {
        const heat_ops_t *s = sources[i];
        if (h->cfg.only != HEAT_SOURCE_NONE && h->cfg.only != s->id)
            continue;
        char reason[512] = "";
        rc = s->probe(&h->cfg, reason, sizeof reason);
        if (rc == 0) {
            h->ops = s; /* (open may look at it, and at the window) */
            first_window(h);
            rc = s->open(h, reason, sizeof reason);
            if (rc != 0)
                h->ops = NULL;
        }
        if (rc != 0)
            add_reason(h->skipped, sizeof h->skipped, s->id, reason);
    }
    if (!h->ops) {
        rc = h->cfg.only != HEAT_SOURCE_NONE
                 ? loci__fail(rc, "the %s access source does not work here: %s", heat_source_name(h->cfg.only),
                              strchr(h->skipped, ' ') + 1)
                 : loci__fail(LOCI_ENOTSUP, "no access source works here: %s", h->skipped);
        pthread_mutex_destroy(&h->lock);
        free(h);
        return rc;
    }
    if (h->skipped[0])
        loci__log(LOCI_LOG_INFO, "access measurement by %s (skipped: %s)", heat_source_name(h->ops->id), h->skipped);
    list_opened(h);
    *out = h;
    return 0;
}

int heat__open_unstarted(const heat_ops_t *ops, const heat_config_t *cfg, heat_t **out)
{
    int rc = heat_new(cfg, out);
    if (rc != 0)
        return rc;
    (*out)->ops = ops;
    first_window(*out);
    list_opened(*out);
    return 0;
}

heat_source_t heat_source(const heat_t *h) { return h ? h->ops->id : HEAT_SOURCE_NONE; }
const char *heat_how(const heat_t *h) { return h && h->ops->how && h->src ? h->ops->how(h) : ""; }
uint64_t heat_window_us(const heat_t *h) { return heat__window_us(h); }

uint64_t heat_wanted_window_us(const heat_t *h)
{
    return h->ops->min_window_us ? atomic_load(&h->window_us) : 0;
}

void heat_limit_window(heat_t *h, uint64_t most_us)
{
    /* never under the source's shortest: it cannot observe in less */
    atomic_store(&h->window_most_us, most_us && most_us < h->ops->min_window_us ? h->ops->min_window_us : most_us);
}
const char *heat_skipped(const heat_t *h) { return h ? h->skipped : ""; }
bool heat_needs_shared_memory(const heat_t *h) { return h && h->ops->needs_shared_memory; }
bool heat_needs_base_pages(const heat_t *h) { return h && h->ops->needs_base_pages; }

/* Calls in a fork's child on a measurement its parent opened fail, saying so. */
static int parents(const heat_t *h)
{
    return loci__fail(LOCI_EINVAL, "this access measurement (%s) belongs to process %d, which forked this one: "
                                   "a child opens its own (heat_open)", heat_source_name(h->ops->id), (int)h->owner);
}

static void free_range(heat_range_t *r)
{
    free(r->counts);
    free(r);
}

void heat_close(heat_t *h)
{
    if (!h)
        return;
    bool in_child = getpid() != h->owner;
    unlist_opened(h);
    if (!in_child) { /* (a child's copy of the lock may be held by a thread it does not have) */
        pthread_mutex_lock(&h->lock);
        for (; h->nranges > 0; h->nranges--) { /* out of the table as it goes: the source runs on until closed */
            h->ops->unwatch(h, h->ranges[h->nranges - 1]);
            free_range(h->ranges[h->nranges - 1]);
        }
        pthread_mutex_unlock(&h->lock);
    }
    h->ops->close(h, in_child);
    for (size_t i = 0; i < h->nranges; i++) /* (a child's copies) */
        free_range(h->ranges[i]);
    free(h->ranges);
    free(h->held);
    run_share_free(&h->ran);
    if (!in_child)
        pthread_mutex_destroy(&h->lock);
    free(h);
}

int heat_watch(heat_t *h, void *base, size_t size, uint64_t tag)
{
    if (getpid() != h->owner)
        return parents(h);
    uintptr_t b = (uintptr_t)base;
    size_t page = vm_page_size();
    if (size == 0 || b % page || size % page || b + size < b)
        return loci__fail(LOCI_EINVAL, "access measurement: cannot watch %zu bytes at %p: the range must be "
                                       "non-empty and page-aligned (%zu bytes), start and size", size, base, page);
    heat_range_t *r = calloc(1, sizeof *r);
    size_t ngranules = (size + HEAT_GRANULE - 1) / HEAT_GRANULE;
    if (r)
        r->counts = calloc(ngranules, sizeof *r->counts);
    if (!r || !r->counts) {
        free(r);
        return loci__fail(LOCI_ENOMEM, "access measurement: out of memory watching %zu bytes", size);
    }
    *r = (heat_range_t){.base = b, .size = size, .tag = tag, .ngranules = ngranules, .counts = r->counts};
    pthread_mutex_lock(&h->lock);
    size_t at = heat__range_index(h, b);
    int rc = 0;
    if ((at < h->nranges && h->ranges[at]->base < b + size) ||
        (at > 0 && h->ranges[at - 1]->base + h->ranges[at - 1]->size > b))
        rc = loci__fail(LOCI_EINVAL, "access measurement: [%p, +%zu) overlaps a range watched already "
                                     "(unwatch it first)", base, size);
    heat_range_t **grown = rc ? NULL : grow_for_one(h->ranges, h->nranges, &h->cap, sizeof *h->ranges, 16);
    if (!rc && !grown)
        rc = loci__fail(LOCI_ENOMEM, "access measurement: out of memory watching %zu bytes", size);
    if (!rc) { /* in its place first: a source may hand the kernel all ranges in order */
        h->ranges = grown;
        memmove(&h->ranges[at + 1], &h->ranges[at], (h->nranges - at) * sizeof *h->ranges);
        h->ranges[at] = r;
        h->nranges++;
        rc = h->ops->watch(h, r);
        if (rc) {
            h->nranges--;
            memmove(&h->ranges[at], &h->ranges[at + 1], (h->nranges - at) * sizeof *h->ranges);
        }
    }
    pthread_mutex_unlock(&h->lock);
    if (rc)
        free_range(r);
    return rc;
}

void heat_unwatch(heat_t *h, void *base, size_t size)
{
    if (getpid() != h->owner)
        return;
    pthread_mutex_lock(&h->lock);
    size_t at = heat__range_index(h, (uintptr_t)base);
    heat_range_t *r = at < h->nranges ? h->ranges[at] : NULL;
    if (r && r->base == (uintptr_t)base && r->size == size) {
        h->ops->unwatch(h, r);
        memmove(&h->ranges[at], &h->ranges[at + 1], (h->nranges - at - 1) * sizeof *h->ranges);
        h->nranges--;
        free_range(r);
    } else {
        loci__log(LOCI_LOG_DEBUG, "access measurement: [%p, +%zu) is not watched as such: left alone", base, size);
    }
    pthread_mutex_unlock(&h->lock);
}

/* Under h->lock: hold [b, +size) of h still, mapping back what its source
 * unmapped in the ranges it overlaps. */
static int hold_one(heat_t *h, uintptr_t b, size_t size)
{
    heat_span_t *grown = grow_for_one(h->held, h->nheld, &h->cap_held, sizeof *h->held, 4);
    if (!grown)
        return loci__fail(LOCI_ENOMEM, "access measurement: out of memory holding [%p, +%zu) still for a move",
                          (void *)b, size);
    h->held = grown;
    h->held[h->nheld++] = (heat_span_t){b, size};
    size_t i = heat__range_index(h, b);
    if (i > 0 && h->ranges[i - 1]->base + h->ranges[i - 1]->size > b) /* one that starts before b */
        i--;
    for (; h->ops->hold && h->src && i < h->nranges && h->ranges[i]->base < b + size; i++) {
        heat_range_t *r = h->ranges[i];
        uintptr_t lo = r->base > b ? r->base : b, hi = r->base + r->size < b + size ? r->base + r->size : b + size;
        h->ops->hold(h, r, lo, hi - lo);
    }
    return 0;
}

/* Under h->lock: take back one hold of exactly [b, +size), if h has one. */
static void release_one(heat_t *h, uintptr_t b, size_t size)
{
    for (size_t i = 0; i < h->nheld; i++)
        if (h->held[i].base == b && h->held[i].size == size) {
            h->held[i] = h->held[--h->nheld];
            return;
        }
}

int heat_hold(void *base, size_t size)
{
    int rc = 0;
    pthread_mutex_lock(&opened_lock);
    heat_t *failed = NULL;
    for (heat_t *h = opened; h && !failed; h = h->next_opened)
        if (h->owner == getpid()) {
            pthread_mutex_lock(&h->lock);
            if ((rc = hold_one(h, (uintptr_t)base, size)) != 0)
                failed = h;
            pthread_mutex_unlock(&h->lock);
        }
    for (heat_t *undo = opened; failed && undo != failed; undo = undo->next_opened) /* (all or none held) */
        if (undo->owner == getpid()) {
            pthread_mutex_lock(&undo->lock);
            release_one(undo, (uintptr_t)base, size);
            pthread_mutex_unlock(&undo->lock);
        }
    pthread_mutex_unlock(&opened_lock);
    return rc;
}

void heat_release(void *base, size_t size)
{
    pthread_mutex_lock(&opened_lock);
    for (heat_t *h = opened; h; h = h->next_opened)
        if (h->owner == getpid()) {
            pthread_mutex_lock(&h->lock);
            release_one(h, (uintptr_t)base, size);
            pthread_mutex_unlock(&h->lock);
        }
    pthread_mutex_unlock(&opened_lock);
}

/* The window is too long while the median observation finds its granule
 * touched more often than BUSY (a program that never sleeps touches even its
 * colder pages in nearly every window, and nothing tells them apart); too
 * short while the hot end reads low — nine observations in ten find their
 * granule touched less often than FAINT, as when a sampled source whose
 * faults take milliseconds under emulation sees few of its sampled pages
 * touched in a short window, however hot, leaving hot and cold closer than
 * the policy's hysteresis — and the median is QUIET enough to double safely.
 * Halving a window whose median reads over 0.4 (a touch rate of 0.51 a
 * window) leaves over 0.23, which does not double; doubling one whose median
 * reads 0.2 leaves 0.36, which does not halve: neither rule undoes the other. */
#define BUSY 0.4
#define QUIET 0.2
#define FAINT 0.5
#define BINS 20

/* The heat under which `share` of the observations lie, from a histogram of
 * BINS bins (the upper edge of the bin it falls in). */
static double percentile(const double *by_heat, double obs, double share)
{
    double below = 0, at = 0;
    for (int b = 0; b < BINS && below < share * obs; b++) {
        below += by_heat[b];
        at = (double)(b + 1) / BINS;
    }
    return at;
}

/* A process starved of CPU for a while (more runnable threads than CPUs)
 * touches its memory less than it does as it usually runs, and all its
 * granules read colder than they are: in the node test (2 CPUs, 5 processes
 * and their tiering threads), one worker's hot arenas fell from 0.89 to 0.37
 * in 4 intervals, its cold ones with them, and lost their place on the fast
 * node to another process's hot arena, and came back 9 intervals later
 * (ping-pong). Such an interval's readings are taken as they would have read
 * had it run its usual share — the highest of late, falling by USUAL_FALL of
 * the gap each collect: a program that runs fewer threads for good soon
 * reads as it runs, and one that always has more threads than CPUs reads as
 * it always has. A fall of less than FAINT_STARVING is noise. True: the
 * readings were so taken. */
#define USUAL_FALL 0.125
#define FAINT_STARVING 1.1

static bool correct_for_cpu(heat_t *h, heat_sample_t *v, size_t n)
{
    double share = run_share_next(&h->ran), usual = h->usual_share;
    if (share < 0)
        return false; /* unknown: the first collect, or no schedstat */
    h->usual_share = share >= usual ? share : usual + USUAL_FALL * (share - usual);
    double ratio = share > 0 ? usual / share : HEAT_MOST_CORRECTION;
    if (!(ratio > FAINT_STARVING))
        return false;
    loci__log(LOCI_LOG_DEBUG, "access measurement (%s): the process ran %.0f %% of the time it could since the "
              "last collect, %.0f %% as it usually runs: its heat read as if it had run that", heat_source_name(h->ops->id),
              100 * share, 100 * usual);
    for (size_t i = 0; i < n; i++)
        v[i].heat = heat__as_if_ran(v[i].heat, ratio);
    return true;
}

/* The next window from this collect's samples, between the source's shortest
 * and the interval. Only on a full picture: with some granules not observed
 * yet (DAMON's first reports cover what it was given first), the median
 * would be the others'. */
static void adapt_window(heat_t *h, const heat_sample_t *v, size_t n)
{
    double by_heat[BINS] = {0}, obs = 0;
    size_t observed = 0;
    for (size_t i = 0; i < n; i++) {
        int bin = (int)(v[i].heat * BINS);
        by_heat[bin < BINS ? bin : BINS - 1] += (double)v[i].observations;
        obs += (double)v[i].observations;
        observed += v[i].observations > 0;
    }
    if (obs == 0 || 10 * observed < 9 * n)
        return;
    double median = percentile(by_heat, obs, 0.5), p90 = percentile(by_heat, obs, 0.9);
    /* from the window the samples were observed in (limited, maybe: heat_limit_window) */
    uint64_t w = heat__window_us(h), interval = (uint64_t)h->cfg.interval_ms * 1000, next = w;
    if (median > BUSY)
        next = w / 2 > h->ops->min_window_us ? w / 2 : h->ops->min_window_us;
    else if (p90 < FAINT && median <= QUIET)
        next = 2 * w < interval ? 2 * w : interval;
    if (next != w)
        loci__log(LOCI_LOG_DEBUG, "access measurement (%s): window %.1f ms -> %.1f ms (heat of %.0f observations: "
                  "median %.2f, 90th percentile %.2f)", heat_source_name(h->ops->id), (double)w / 1e3,
                  (double)next / 1e3, obs, median, p90);
    atomic_store(&h->window_us, next);
}

int heat_collect(heat_t *h, heat_sample_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (getpid() != h->owner)
        return parents(h);
    pthread_mutex_lock(&h->lock);
    double cpu = own_cpu_s();
    int rc = h->ops->refresh(h);
    h->collect_cpu_ns += (uint64_t)((own_cpu_s() - cpu) * 1e9);
    size_t total = 0;
    for (size_t i = 0; i < h->nranges; i++)
        total += h->ranges[i]->ngranules;
    heat_sample_t *v = rc == 0 && total ? malloc(total * sizeof *v) : NULL;
    if (rc == 0 && total && !v)
        rc = loci__fail(LOCI_ENOMEM, "access measurement: out of memory for %zu samples", total);
    for (size_t i = 0, k = 0; v && i < h->nranges; i++) {
        heat_range_t *r = h->ranges[i];
        for (size_t g = 0; g < r->ngranules; g++, k++) {
            heat_count_t *c = &r->counts[g];
            double heat = c->obs ? c->hits / (double)c->obs : 0;
            v[k] = (heat_sample_t){.base = r->base + g * HEAT_GRANULE, .size = heat__granule_size(r, g),
                                   .tag = r->tag, .heat = heat > 1 ? 1 : heat, .observations = c->obs};
            *c = (heat_count_t){0};
        }
    }
    /* a starved interval's readings, raw or taken as if it had run, say nothing of the window: read
     * as if, a median of 0.1 corrected 2.7 times read 0.45 and halved it, every process of the node
     * read colder at the node's shorter window, and a hot arena waited 11 intervals (node test) */
    bool starved = v && correct_for_cpu(h, v, total);
    if (v && !starved && !h->cfg.window_ms)
        adapt_window(h, v, total);
    pthread_mutex_unlock(&h->lock);
    *out = v;
    *n = v ? total : 0;
    return rc;
}

double heat_cpu_seconds(const heat_t *h)
{
    return h->ops->thread_cpu_seconds(h) + (double)h->collect_cpu_ns / 1e9;
}
