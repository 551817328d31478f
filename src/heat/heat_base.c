/*
 * What the sources and heat.c share, below them all (as mm/damon/ops-common.c
 * is below DAMON's operations sets): finding the watched range that holds an
 * address, a refusal's reason, a thread's CPU time, a kernel file's line,
 * the schedule of a source's windows. It calls no other file of src/heat,
 * so no source calls up into heat.c.
 */
#include "heat/heat_internal.h"
#include "clock.h"
#include "text_file.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int heat__refuse(char *why, size_t len, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return code;
}

double heat__thread_cpu_s(pthread_t thread)
{
    clockid_t clock;
    struct timespec ts;
    if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0)
        return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double heat__as_if_ran(double heat, double ratio)
{
    ratio = ratio < HEAT_MOST_CORRECTION ? ratio : HEAT_MOST_CORRECTION;
    if (!(ratio > 1) || !(heat > 0) || heat >= 1)
        return heat;
    return 1 - pow(1 - heat, ratio);
}

const char *heat__read_line(const char *path, char *buf, size_t len)
{
    text_first_line(path, buf, len);
    return buf;
}

size_t heat__range_index(const heat_t *h, uintptr_t addr)
{
    size_t lo = 0, hi = h->nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->ranges[mid]->base < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

heat_range_t *heat__range_of(const heat_t *h, uintptr_t addr)
{
    size_t i = heat__range_index(h, addr + 1); /* the first range starting after addr */
    if (i == 0)
        return NULL;
    heat_range_t *r = h->ranges[i - 1];
    return addr - r->base < r->size ? r : NULL;
}

bool heat__held(const heat_t *h, uintptr_t base, size_t size)
{
    for (size_t i = 0; i < h->nheld; i++)
        if (h->held[i].base < base + size && base < h->held[i].base + h->held[i].size)
            return true;
    return false;
}

/* --- the windows' schedule ------------------------------------------------ */

static uint64_t interval_ns(const heat_t *h) { return (uint64_t)h->cfg.interval_ms * 1000000; }

uint64_t heat__window_us(const heat_t *h)
{
    uint64_t w = atomic_load(&h->window_us), interval = (uint64_t)h->cfg.interval_ms * 1000;
    uint64_t most = atomic_load(&h->window_most_us);
    w = most && most < w ? most : w;
    return w < interval ? w : interval;
}

static uint64_t window_ns(const heat_t *h) { return heat__window_us(h) * 1000; }

void heat__window_init(const heat_t *h, heat_window_t *w)
{
    *w = (heat_window_t){.next_ns = clock_mono_ns() + interval_ns(h) - window_ns(h)};
}

heat_window_due_t heat__window_due(const heat_t *h, const heat_window_t *w, uint64_t now, uint64_t *until)
{
    uint64_t at = w->open ? w->opened_ns + window_ns(h) : w->next_ns;
    if (now >= at)
        return w->open ? HEAT_WINDOW_CLOSE : HEAT_WINDOW_OPEN;
    *until = at;
    return HEAT_WINDOW_WAIT;
}

void heat__window_opened(heat_window_t *w, uint64_t now)
{
    w->open = true;
    w->opened_ns = now;
}

bool heat__window_collect_closes(const heat_t *h, const heat_window_t *w, uint64_t now)
{
    return w->open && (2 * (now - w->opened_ns) >= window_ns(h) || window_ns(h) >= interval_ns(h));
}

void heat__window_closed(const heat_t *h, heat_window_t *w, uint64_t now, bool collected)
{
    w->open = false;
    /* the next one ends when the next collect is due: an interval after this
     * collect, or (no collect came) an interval after this one ended */
    uint64_t end = collected ? now + interval_ns(h) : w->opened_ns + window_ns(h) + interval_ns(h);
    w->next_ns = end - window_ns(h);
}
