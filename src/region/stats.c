/* Counters of the paged chunk caches: loci_cache_stats and the stats table. */
#include "paged/paged.h"
#include "region/region.h"
#include "units.h"

#include <inttypes.h>

int loci_cache_stats(const void *addr, loci_cache_stats_t *out)
{
    if (!out)
        return loci__fail(LOCI_EINVAL, "loci_cache_stats: NULL argument");
    if (paged_stats(addr, out) != 0)
        return loci__fail(LOCI_ENOENT, "loci_cache_stats: %p is no paged memory (mode=paged)", addr);
    return 0;
}

static void print_cache(const struct loci_target *t, size_t budget, size_t chunk, const loci_cache_stats_t *st, void *arg)
{
    char b[32], c[32], res[32], rd[32], wr[32];
    fprintf(arg, "  %-8s %10s %10s %10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10s %10s %10" PRIu64 "\n",
            t->name, units_format_size(budget, b, sizeof b), units_format_size(chunk, c, sizeof c),
            units_format_size(st->resident_bytes, res, sizeof res), st->faults, st->hits, st->misses, st->pages_dirtied,
            units_format_size(st->bytes_read, rd, sizeof rd), units_format_size(st->bytes_written, wr, sizeof wr),
            st->evictions);
}

void region_stats_print(FILE *f)
{
    loci_cache_stats_t all;
    paged_stats(NULL, &all);
    if (all.faults == 0 && all.misses == 0 && all.cache_bytes == 0)
        return; /* mode=paged was never used */
    fprintf(f, "  %-8s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s\n", "PAGED", "CACHE", "CHUNK", "RESIDENT",
            "FAULTS", "HITS", "MISSES", "DIRTIED", "READ", "WRITTEN", "EVICTIONS");
    paged_foreach_cache(print_cache, f);
    char rd[32], wr[32];
    fprintf(f, "  %-8s %10s %10s %10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10s %10s %10" PRIu64 "\n",
            "(all)", "", "", "", all.faults, all.hits, all.misses, all.pages_dirtied,
            units_format_size(all.bytes_read, rd, sizeof rd), units_format_size(all.bytes_written, wr, sizeof wr),
            all.evictions);
}
