/*
 * What tiering did, for the program (loci_tier_stats, loci_tier_totals) and
 * for the LOCI_STATS report (core/stats.c): per auto arena its size, heat,
 * target and bytes moved; totals of bytes promoted, demoted and moved back
 * within 10 intervals (ping-pong), and the CPU time tiering costs; and the
 * node's totals at the last interval (ledger.c): what all the user's
 * tiering processes held on each target, against its node budget.
 */
#include "tiering/tiering.h"

#include <inttypes.h>

int loci_tier_stats(const loci_arena_t *ar, loci_tier_stats_t *out)
{
    if (!ar || !out)
        return loci__fail(LOCI_EINVAL, "loci_tier_stats: NULL %s", ar ? "loci_tier_stats_t" : "arena");
    tiering_lock();
    const tier_arena_t *t = tiering_find(ar);
    if (t)
        *out = (loci_tier_stats_t){t->bytes, t->track.heat, loci_arena_target(ar), t->bytes_moved, t->moves};
    tiering_unlock();
    if (!t)
        return loci__fail(LOCI_EINVAL, "loci_tier_stats: arena \"%s\" is not a tier=auto arena (create it with "
                                       "tier=auto in its intent)", ar->intent);
    return 0;
}

int loci_tier_site_name(const loci_arena_t *ar, char *buf, size_t len)
{
    if (!ar || !buf || !len)
        return loci__fail(LOCI_EINVAL, "loci_tier_site_name: %s", !ar ? "NULL arena" : "no room for the name");
    tiering_lock();
    const tier_arena_t *t = tiering_find(ar);
    if (t)
        snprintf(buf, len, "%s/%u#%u", t->site.where ? t->site.where : "?", t->site.size_class, t->site.ordinal);
    tiering_unlock();
    if (!t)
        return loci__fail(LOCI_EINVAL, "loci_tier_site_name: arena \"%s\" is not a tier=auto arena", ar->intent);
    return 0;
}

int loci_tier_totals(loci_tier_totals_t *out)
{
    if (!out)
        return loci__fail(LOCI_EINVAL, "loci_tier_totals: NULL loci_tier_totals_t");
    tiering_lock();
    const tier_totals_t *tot = tiering_totals();
    uint64_t n = 0;
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        n++;
    *out = (loci_tier_totals_t){n, tot->promoted, tot->demoted, tot->pingpong, tot->moves, tot->intervals,
                                tot->cpu_seconds + tiering_heat_cpu_seconds(), tiering_source_name(), tot->paused};
    tiering_unlock();
    return 0;
}

/* The node's totals at this process's last interval: nothing when it never shared the node. */
static void node_totals_print(FILE *f)
{
    tiering_node_totals_t n;
    tiering_ledger_totals(&n);
    if (!n.ntargets)
        return;
    fprintf(f, "  node at the last interval (%u tiering processes of yours):", n.processes);
    for (uint32_t k = 0; k < n.ntargets; k++)
        fprintf(f, " %s %" PRIu64 " B of %" PRIu64 " B node budget%s", n.targets[k].name, n.held[k], n.node_budget[k],
                k + 1 < n.ntargets ? "," : "");
    fputc('\n', f);
}

void tiering_stats_print(FILE *f)
{
    loci_tier_totals_t tot;
    loci_tier_totals(&tot);
    if (tot.arenas == 0 && tot.moves == 0)
        return;
    fprintf(f, "  %-36s %-8s %14s %8s %14s %12s  %s\n", "AUTO ARENA (intent)", "TARGET", "BYTES", "HEAT", "MOVED",
            "MOVES", "SITE (frames/class#n)");
    tiering_lock();
    for (tier_arena_t *t = tiering_arenas(); t; t = t->next)
        fprintf(f, "  %-36s %-8s %14" PRIu64 " %8.4f %14" PRIu64 " %12" PRIu64 "  %s/%u#%u\n", t->ar->intent,
                loci_arena_target(t->ar)->name, t->bytes, t->track.heat, t->bytes_moved, t->moves,
                t->site.where ? t->site.where : "?", t->site.size_class, t->site.ordinal);
    tiering_unlock();
    fprintf(f, "  tiering (%s source%s): %" PRIu64 " B promoted, %" PRIu64 " B demoted, %" PRIu64
               " B moved back within 10 intervals, %" PRIu64 " moves in %" PRIu64 " intervals, %.3f s CPU\n",
            tot.source, tot.paused ? ", paused" : "", tot.bytes_promoted, tot.bytes_demoted, tot.bytes_pingpong,
            tot.moves, tot.intervals, tot.cpu_seconds);
    node_totals_print(f);
}
