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
 *   floor = 5%           the node ledger: share of each target's node budget every process keeps
 *                        at least for its hottest arenas (0-100 %), or a size; floors that add up to
 *                        more than a target are scaled down together (plan_share)
 *   node_budget = 90%    share of each target's capacity all the user's processes on the node may
 *                        fill together, or a size (not given: each target's budget)
 *
 * Values are checked when the first auto arena reads them, each message
 * saying the file and line (topo keeps them as text, with where).
 */
#include "tiering/tiering.h"
#include "units.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_INTERVAL_MS 200
#define DEFAULT_BUDGET 0.9
#define DEFAULT_RATE (1000ull * 1000 * 1000) /* 1 GB/s */
#define DEFAULT_FLOOR 0.05

/* The value of `key`, or NULL when not given; *where its "file:line". */
static const char *value_of(const char *key, const char **where)
{
    return topo_config_value("tiering", key, where);
}

static int bad(const char *where, const char *key, const char *value, const char *why, const char *expected)
{
    return loci__fail(LOCI_ECONFIG, "%s: [tiering] %s = %s: %s; expected %s", where, key, value, why, expected);
}

static int read_source(tiering_config_t *c)
{
    const char *where, *v = value_of("source", &where);
    if (!v || heat_source_parse(v, &c->source) == 0)
        return 0;
    return bad(where, "source", v, "not a heat source", HEAT_SOURCE_NAMES);
}

int tiering_config_read(tiering_config_t *c)
{
    *c = (tiering_config_t){.source = HEAT_SOURCE_NONE, .interval_ms = DEFAULT_INTERVAL_MS,
                            .budget = {.set = true, .share = DEFAULT_BUDGET}, .rate = DEFAULT_RATE,
                            .sample = 0 /* heat's default */, .floor = {.set = true, .share = DEFAULT_FLOOR}};
    int rc = read_source(c);
    if (rc)
        return rc;
    const char *where, *v, *why;
    uint64_t n;
    if ((v = value_of("interval", &where))) {
        if (!units_parse_duration(v, false, &n, &why) || ((n < 10 || n > 60000) && (why = "out of range")))
            return bad(where, "interval", v, why, "a time from 10ms to 60s, e.g. 200ms or 1s");
        c->interval_ms = (unsigned)n;
    }
    if ((v = value_of("budget", &where)) && !topo_budget_parse(v, &c->budget, &why))
        return bad(where, "budget", v, why, "a share of each target's capacity from 0% to 100% (e.g. 90%) or a size "
                                            "(e.g. 16GiB); one target's own: [target X] tiering_budget");
    if ((v = value_of("rate", &where))) {
        if (!units_parse_bandwidth(v, &n, &why) || (n == 0 && (why = "0 MB/s")) ||
            (n > UINT64_MAX / 1000000 && (why = "too large: beyond what 64 bits hold in bytes per second")))
            return bad(where, "rate", v, why, "bytes per second of at least 1MB/s, e.g. 1GB/s or 500MB/s");
        c->rate = n * 1000 * 1000;
    }
    if ((v = value_of("sample", &where)) &&
        (!units_parse_share(v, false, &c->sample, &why) || (c->sample == 0 && (why = "0 pages"))))
        return bad(where, "sample", v, why, "a share of pages above 0 and at most 100%, e.g. 10% or 0.1");
    if ((v = value_of("floor", &where)) && !topo_budget_parse(v, &c->floor, &why))
        return bad(where, "floor", v, why, "a share of each target's node budget from 0% to 100% (e.g. 5%) or a "
                                           "size (e.g. 1GiB) that every process keeps at least");
    if ((v = value_of("node_budget", &where)) && !topo_budget_parse(v, &c->node_budget, &why))
        return bad(where, "node_budget", v, why, "a share of each target's capacity from 0% to 100% (e.g. 90%) or "
                                                 "a size (e.g. 64GiB) for all your processes on the node together");
    return 0;
}

static uint64_t bytes_of(const topo_budget_t *b, uint64_t whole)
{
    return b->bytes ? b->bytes : (uint64_t)(b->share * (double)whole);
}

uint64_t tiering_budget_bytes(const tiering_config_t *c, const struct loci_target *t)
{
    return bytes_of(t->tiering_budget.set ? &t->tiering_budget : &c->budget, t->capacity.value);
}

uint64_t tiering_node_budget_bytes(const tiering_config_t *c, const struct loci_target *t)
{
    return c->node_budget.set ? bytes_of(&c->node_budget, t->capacity.value) : tiering_budget_bytes(c, t);
}

uint64_t tiering_floor_bytes(const tiering_config_t *c, uint64_t node_bytes)
{
    uint64_t b = bytes_of(&c->floor, node_bytes);
    return b < node_bytes ? b : node_bytes; /* a floor larger than the target: the whole target (plan_share
                                             * scales floors that add up to more down together) */
}
