/*
 * [tiering] of LOCI_CONFIG (docs/TIERING.md, "Budgets and configuration"):
 *
 *   [tiering]
 *   source = auto        auto | perf | damon | faults | dirty (heat_open: the first that works, or that one)
 *   interval = 200ms     one plan per interval, 10 ms to 60 s
 *   budget = 90%         share of each target's capacity auto arenas may fill (0-100 %), or a size;
 *                        [target X] tiering_budget overrides it for X
 *   rate = 1GB/s         bytes moved per second at most
 *   sample = 2%          the faults source: share of each arena's pages sampled per interval
 *                        (not given: heat's default, HEAT_DEFAULT_SAMPLE_SHARE)
 *
 * Values are checked when the first auto arena reads them, each message
 * saying the file and line (topo keeps them as text, with where).
 */
#include "tiering/tiering.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INTERVAL_MS 200
#define DEFAULT_BUDGET 0.9
#define DEFAULT_RATE (1000ull * 1000 * 1000) /* 1 GB/s */

/* The value of `key`, or NULL when not given; *where its "file:line". */
static const char *value_of(const char *key, const char **where)
{
    return topo_config_value("tiering", key, where);
}

static int bad(const char *where, const char *key, const char *value, const char *expected)
{
    return loci__fail(LOCI_ECONFIG, "%s: [tiering] %s = %s: expected %s", where, key, value, expected);
}

/* "10%" or "0.1": a share in (0, 1]. */
static bool parse_share(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (*end == '%') {
        v /= 100;
        end++;
    }
    *out = v;
    return end != text && !*end && errno == 0 && v > 0 && v <= 1;
}

/* "200ms", "1.5s": 10 ms to 60 s, in ms. */
static bool parse_interval(const char *text, unsigned *ms)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (strcmp(end, "s") == 0)
        v *= 1000;
    else if (strcmp(end, "ms") != 0)
        return false;
    *ms = (unsigned)v;
    return end != text && errno == 0 && v >= 10 && v <= 60000;
}

static int read_source(tiering_config_t *c)
{
    const char *where, *v = value_of("source", &where);
    if (!v || heat_source_parse(v, &c->source) == 0)
        return 0;
    return bad(where, "source", v, HEAT_SOURCE_NAMES);
}

int tiering_config_read(tiering_config_t *c)
{
    *c = (tiering_config_t){.source = HEAT_SOURCE_NONE, .interval_ms = DEFAULT_INTERVAL_MS,
                            .budget = {.set = true, .share = DEFAULT_BUDGET}, .rate = DEFAULT_RATE,
                            .sample = 0 /* heat's default */};
    int rc = read_source(c);
    if (rc)
        return rc;
    const char *where, *v;
    uint64_t n;
    if ((v = value_of("interval", &where)) && !parse_interval(v, &c->interval_ms))
        return bad(where, "interval", v, "a time from 10ms to 60s, e.g. 200ms or 1s");
    if ((v = value_of("budget", &where)) && !topo_budget_parse(v, &c->budget))
        return bad(where, "budget", v, "a share of each target's capacity from 0% to 100% (e.g. 90%) or a size "
                                       "(e.g. 16GiB); one target's own: [target X] tiering_budget");
    if ((v = value_of("rate", &where))) {
        if (!units_parse_bandwidth(v, &n) || n == 0)
            return bad(where, "rate", v, "bytes per second of at least 1MB/s, e.g. 1GB/s or 500MB/s");
        c->rate = n * 1000 * 1000;
    }
    if ((v = value_of("sample", &where)) && !parse_share(v, &c->sample))
        return bad(where, "sample", v, "a share of pages above 0 and at most 100%, e.g. 10% or 0.1");
    return 0;
}

uint64_t tiering_budget_bytes(const tiering_config_t *c, const struct loci_target *t)
{
    const topo_budget_t *b = t->tiering_budget.set ? &t->tiering_budget : &c->budget;
    return b->bytes ? b->bytes : (uint64_t)(b->share * (double)t->capacity.value);
}
