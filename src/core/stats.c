/*
 * The statistics report (loci_stats_print; LOCI_STATS=1 prints it at exit):
 * allocators and targets (alloc/stats.c adds the pool's counters up), the
 * auto arenas and tiering's totals (tiering/stats.c) and the paged caches
 * (region/stats.c).
 */
#include "alloc/allocator.h"
#include "region/region.h"
#include "tiering/tiering.h"

#include <inttypes.h>
#include <stdlib.h>

static void print_allocator(loci_allocator_t *a, void *arg)
{
    loci_stats_t st;
    loci_allocator_stats(a, &st);
    fprintf(arg, "  %-36s %-8s %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
            a->intent[0] ? a->intent : "(local DRAM)", allocator_res(a)->candidates[0]->name, st.bytes_in_use,
            st.bytes_peak, st.allocations, st.frees);
}

void loci_stats_print(FILE *f)
{
    if (topo_ensure())
        return;
    fprintf(f, "loci statistics (bytes are usable bytes of blocks)\n");
    fprintf(f, "  %-36s %-8s %14s %14s %12s %12s\n", "ALLOCATOR (intent)", "BEST", "IN USE", "PEAK",
            "ALLOCS", "FREES");
    allocator_foreach(print_allocator, f);
    fprintf(f, "  %-36s %-8s %14s %14s %12s %12s\n", "TARGET", "", "IN USE", "PEAK", "ALLOCS", "FREES");
    topo_t *t = topo_get();
    for (int i = 0; i < t->ntargets; i++) {
        loci_stats_t st;
        if (loci_target_stats(&t->targets[i], &st) == 0)
            fprintf(f, "  %-36s %-8s %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
                    t->targets[i].name, "", st.bytes_in_use, st.bytes_peak, st.allocations, st.frees);
    }
    tiering_stats_print(f);
    region_stats_print(f);
}

/* Only for a process that used loci: printing must not start it. */
static void print_at_exit(void)
{
    if (topo_get())
        loci_stats_print(stderr);
}

/* At load, so that the report comes however the library was started. */
__attribute__((constructor)) static void arm_at_exit(void)
{
    const char *env = getenv("LOCI_STATS");
    if (env && *env && *env != '0')
        atexit(print_at_exit);
}
