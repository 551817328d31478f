/*
 * Access measurement (issue 29): how often the process touches the address
 * ranges it is asked to watch, whatever the machine offers to see it.
 *
 * A layer of its own, below arenas and above os/: it knows nothing of
 * arenas, only of watched ranges and the caller's tag for each (the tiering
 * policy, above arenas, passes an arena's extents with the arena as tag).
 * Sources are tried in order and the first that works is used; each one that
 * was skipped keeps the reason, for `loci info` and `loci tier`:
 *
 *   perf   hardware sampling of this process's own loads (perf_event_open,
 *          exclude_kernel; Intel PEBS mem-loads / load latency, AMD IBS op,
 *          Arm SPE): sample addresses binned into the watched ranges
 *   damon  DAMON virtual-address monitoring of this process through sysfs
 *          (/sys/kernel/mm/damon/admin, root or a delegated kdamond)
 *   faults the portable source: sampled minor faults through userfaultfd on
 *          shared-memory-backed ranges (a sampled page's PTE is zapped; the
 *          next access, read or write, faults to the sampler, which counts it
 *          and maps the page back) — needs the watched memory to be shmem
 *          (heat_needs_shared_memory) and nothing else
 *
 * All sources report in one form (heat_sample_t): for each watched range,
 * cut into granules of at most HEAT_GRANULE bytes, the share of the
 * interval's observations that found it accessed, in [0, 1], and how many
 * observations that share rests on. Thread-safe: one collector thread calls
 * heat_collect while others add and remove ranges.
 */
#ifndef LOCI_HEAT_H
#define LOCI_HEAT_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Granule: the largest piece a watched range is reported in. */
#define HEAT_GRANULE (2u << 20)

typedef enum { HEAT_SOURCE_NONE = 0, HEAT_SOURCE_PERF, HEAT_SOURCE_DAMON, HEAT_SOURCE_FAULTS } heat_source_t;

typedef struct heat heat_t;

/** What the caller wants measured and how hard (from [tiering]). */
typedef struct {
    unsigned interval_ms;       /* one collection per interval (the policy's period) */
    double sample_share;        /* faults: share of each range's pages sampled per interval, (0, 1] */
    heat_source_t only;         /* HEAT_SOURCE_NONE: try all in order; else just this one */
} heat_config_t;

/** One granule's heat over the last interval. */
typedef struct {
    uintptr_t base;
    size_t size;
    uint64_t tag;               /* the tag its range was watched with */
    double heat;                /* share of observations that found it accessed, 0..1 */
    uint64_t observations;      /* what that share rests on (0: nothing seen yet) */
} heat_sample_t;

/** Open the first source that works (cfg->only: that one or an error naming
 *  why not). 0, or LOCI_ENOTSUP when none works, with every reason in the
 *  message. */
int heat_open(const heat_config_t *cfg, heat_t **out);
void heat_close(heat_t *h);

heat_source_t heat_source(const heat_t *h);
const char *heat_source_name(heat_source_t s);
/** Why each source before the chosen one was skipped ("perf: ...; damon: ..."). */
const char *heat_skipped(const heat_t *h);
/** The source only sees memory the caller maps as shared memory (faults). */
bool heat_needs_shared_memory(const heat_t *h);

/** Watch / stop watching [base, base+size) (page-aligned) under `tag`. */
int heat_watch(heat_t *h, void *base, size_t size, uint64_t tag);
void heat_unwatch(heat_t *h, void *base, size_t size);

/** The heat of every watched granule since the last call (*out: malloc'd,
 *  the caller frees it). LOCI_EIO when the source stopped working (the
 *  message says why): the caller pauses tiering and leaves data where it is. */
int heat_collect(heat_t *h, heat_sample_t **out, size_t *n);

/** CPU seconds the source's own threads spent (for the 3 %-of-a-core goal). */
double heat_cpu_seconds(const heat_t *h);

#endif
