/*
 * What loci placed, per allocator and per target: the pool keeps the
 * counters, this file adds them up and prints them (LOCI_STATS=1 at exit).
 */
#include "alloc/allocator.h"
#include "nvm/nvm.h"

#include <inttypes.h>
#include <stdlib.h>

static void add(loci_stats_t *out, const pool_stats_t *st)
{
    out->bytes_in_use += st->bytes_in_use;
    out->bytes_peak += st->bytes_peak;
    out->allocations += st->allocs;
    out->frees += st->frees;
}

int loci_allocator_stats(const loci_allocator_t *a, loci_stats_t *out)
{
    if (!a || !out)
        return loci__fail(LOCI_EINVAL, "loci_allocator_stats: NULL argument");
    *out = (loci_stats_t){0};
    for (int i = 0; i < a->res.ncandidates; i++) {
        pool_heap_t *h = atomic_load_explicit(&((loci_allocator_t *)a)->heaps[i], memory_order_acquire);
        pool_stats_t st;
        if (h && pool_stats_heap(h, &st) == 0)
            add(out, &st);
    }
    return 0;
}

int loci_target_stats(const loci_target_t *t, loci_stats_t *out)
{
    if (!t || !out)
        return loci__fail(LOCI_EINVAL, "loci_target_stats: NULL argument");
    pool_stats_t st;
    int rc = pool_stats_target(t, &st);
    if (rc)
        return rc;
    *out = (loci_stats_t){0};
    add(out, &st);
    return 0;
}

static void print_allocator(loci_allocator_t *a, void *arg)
{
    loci_stats_t st;
    loci_allocator_stats(a, &st);
    fprintf(arg, "  %-36s %-8s %14" PRIu64 " %14" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
            a->intent[0] ? a->intent : "(local DRAM)", a->res.candidates[0]->name, st.bytes_in_use,
            st.bytes_peak, st.allocations, st.frees);
}

void loci_stats_print(FILE *f)
{
    if (loci__ensure_init())
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
    nvm_stats_print(f);
}

static void print_at_exit(void) { loci_stats_print(stderr); }

void stats_arm_at_exit(void)
{
    const char *env = getenv("LOCI_STATS");
    if (env && *env && *env != '0')
        atexit(print_at_exit);
}
