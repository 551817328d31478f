/*
 * memkind's statistics from loci's counters: a kind's bytes are those of its
 * arenas (loci_arena_stats) or, interleaved, of its allocator; NULL sums
 * every kind. memkind_get_capacity is the capacity of the targets a kind
 * may use from the calling thread (a pmem kind: its max_size when it has
 * one; -1 for the kinds memkind answers -1 for: the preferred, 1 GiB and
 * high-bandwidth huge-page kinds). loci counts live, so memkind_update_cached_stats has nothing to do.
 */
#include "memkind_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* In-use and peak bytes of kind k. */
static void kind_counters(struct memkind *k, uint64_t *in_use, uint64_t *peak)
{
    loci_stats_t s;
    for (int i = -1; i < MK_MAX_TARGETS; i++) {
        loci_arena_t *a = atomic_load(i < 0 ? &k->tiered : &k->arenas[i]);
        if (a && loci_arena_stats(a, &s) == 0) {
            *in_use += s.bytes_in_use;
            *peak += s.bytes_peak;
        }
    }
    if ((k->take & INTERLEAVED) && atomic_load(&k->used)) {
        loci_allocator_t *a = plan_interleaved(k);
        if (a && loci_allocator_stats(a, &s) == 0) {
            *in_use += s.bytes_in_use;
            *peak += s.bytes_peak;
        }
        loci_allocator_destroy(a);
    }
}

typedef struct {
    uint64_t in_use, peak;
} totals_t;

static bool add_up(struct memkind *k, const void *arg)
{
    totals_t *t = (totals_t *)arg;
    kind_counters(k, &t->in_use, &t->peak);
    return false;
}

MK_EXPORT int memkind_update_cached_stats(void) { return MEMKIND_SUCCESS; }

MK_EXPORT int memkind_get_stat(memkind_t kind, memkind_stat_type stat, size_t *value)
{
    if (!value || (unsigned)stat >= MEMKIND_STAT_TYPE_MAX_VALUE ||
        (kind && kind_check("memkind_get_stat", kind) != MEMKIND_SUCCESS))
        return MEMKIND_ERROR_INVALID;
    totals_t t = {0, 0};
    if (kind)
        kind_counters(kind, &t.in_use, &t.peak);
    else
        kinds_find(add_up, &t);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    switch (stat) {
    case MEMKIND_STAT_TYPE_ALLOCATED:
        *value = (size_t)t.in_use;
        break;
    case MEMKIND_STAT_TYPE_ACTIVE: /* the pages its live blocks span */
        *value = (size_t)((t.in_use + page - 1) / page * page);
        break;
    default: /* resident: the most it has held */
        *value = (size_t)((t.peak + page - 1) / page * page);
        break;
    }
    return MEMKIND_SUCCESS;
}

MK_EXPORT ssize_t memkind_get_capacity(memkind_t kind)
{
    int why;
    const plan_t *p;
    if (kind_check("memkind_get_capacity", kind) != MEMKIND_SUCCESS || (kind->take & NO_CAPACITY) ||
        !(p = plan_of(kind, &why)))
        return -1;
    if (kind->max_bytes)
        return (ssize_t)kind->max_bytes;
    uint64_t sum = 0;
    for (int i = 0; i < p->n; i++) {
        loci_target_info_t info;
        if (loci_target_info(loci_target_at(p->target[i]), &info) == 0)
            sum += info.capacity;
    }
    return (ssize_t)sum;
}

typedef struct {
    FILE *out;
    bool json;
    int count;
} print_t;

static bool print_kind(struct memkind *k, const void *arg)
{
    print_t *pr = (print_t *)arg;
    uint64_t in_use = 0, peak = 0;
    kind_counters(k, &in_use, &peak);
    if (!peak)
        return false;
    if (pr->json)
        fprintf(pr->out, "%s{\"name\": \"%s\", \"allocated\": %llu, \"peak\": %llu}", pr->count ? ", " : "", k->name,
                (unsigned long long)in_use, (unsigned long long)peak);
    else
        fprintf(pr->out, "%-44s %14llu %14llu\n", k->name, (unsigned long long)in_use, (unsigned long long)peak);
    pr->count++;
    return false;
}

static void write_stderr(void *opaque, const char *text) { fputs(text, stderr); }

/* memkind prints jemalloc's report; loci's is per kind (the kinds that
 * allocated) and, in text, loci's own per allocator and target. */
MK_EXPORT int memkind_stats_print(void (*write_cb)(void *, const char *), void *cbopaque, memkind_stat_print_opt opts)
{
    unsigned known = MEMKIND_STAT_PRINT_JSON_FORMAT | MEMKIND_STAT_PRINT_OMIT_GENERAL |
                     MEMKIND_STAT_PRINT_OMIT_MERGED_ARENA | MEMKIND_STAT_PRINT_OMIT_DESTROYED_MERGED_ARENA |
                     MEMKIND_STAT_PRINT_OMIT_PER_ARENA | MEMKIND_STAT_PRINT_OMIT_PER_SIZE_CLASS_BINS |
                     MEMKIND_STAT_PRINT_OMIT_PER_SIZE_CLASS_LARGE | MEMKIND_STAT_PRINT_OMIT_MUTEX |
                     MEMKIND_STAT_PRINT_OMIT_EXTENT;
    if ((unsigned)opts & ~known)
        return MEMKIND_ERROR_INVALID;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return MEMKIND_ERROR_MALLOC;
    print_t pr = {out, (opts & MEMKIND_STAT_PRINT_JSON_FORMAT) != 0, 0};
    fputs(pr.json ? "{\"memkind\": {\"kinds\": [" : "memkind on loci: bytes per kind\nkind                         "
                                                     "                      allocated           peak\n", out);
    kinds_find(print_kind, &pr);
    fputs(pr.json ? "]}}\n" : "", out);
    if (!pr.json && !(opts & MEMKIND_STAT_PRINT_OMIT_GENERAL))
        loci_stats_print(out);
    fclose(out);
    (write_cb ? write_cb : write_stderr)(cbopaque, text);
    free(text);
    return MEMKIND_SUCCESS;
}
