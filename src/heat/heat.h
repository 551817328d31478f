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
 *   faults sampled minor faults through userfaultfd on shared-memory-backed
 *          ranges (a sampled page's PTE is zapped; the next access, read or
 *          write, faults to the sampler, which counts it and maps the page
 *          back) — needs the watched memory to be shmem
 *          (heat_needs_shared_memory) and a userfaultfd that handles the
 *          kernel's faults too (root, CAP_SYS_PTRACE or the sysctl)
 *   dirty  the source that needs no privilege at all: the pages the
 *          process wrote, from the kernel's per-process interfaces
 *          (asynchronous userfaultfd write-protection read back with
 *          PAGEMAP_SCAN, Linux 6.7+; else soft-dirty bits through
 *          /proc/self/clear_refs and /proc/self/pagemap) — sees writes only
 *
 * All sources report in one form (heat_sample_t): for each watched range,
 * cut into granules of at most HEAT_GRANULE bytes, the share of the
 * interval's observations that found it accessed, in [0, 1], and how many
 * observations that share rests on. An observation watches a page for one
 * *window* (heat_window_us), shorter than the interval: a page touched at a
 * rate r is found accessed with probability 1 - exp(-r * window), so the
 * heat says how often, not only whether, as long as the window is short
 * enough that the colder granules are not touched in every one. The window
 * adapts (heat.c): halved while the median observation finds its granule
 * touched (a program that never sleeps), doubled while the hot end reads low
 * and the median quiet, between the source's shortest and the interval.
 * Thread-safe: one collector thread calls heat_collect while others add and
 * remove ranges.
 *
 * Moving a watched range's pages (mbind): mbind moves only the pages a
 * process maps, and the faults source unmaps the pages it samples while
 * their window is open. The one who watches it unwatches it first and
 * watches it again after (heat_unwatch maps them back); anyone else — an
 * arena moving its own memory, below the tiering policy that watches it —
 * holds it still meanwhile (heat_hold), without knowing who watches it.
 *
 * fork(): a child does not inherit the measurement (the sampler thread, the
 * kdamond and the perf events serve the parent). In the child every call on
 * a heat_t opened before the fork fails with LOCI_EINVAL, saying so, except
 * heat_close, which frees the child's copy and leaves the parent's sampler
 * alone; the child opens its own. The child's view of the watched memory is
 * whole: its mappings are not registered with the parent's userfaultfd, so
 * a page the parent's sampler unmapped is mapped again by the kernel on the
 * child's first access.
 */
#ifndef LOCI_HEAT_H
#define LOCI_HEAT_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Granule: the largest piece a watched range is reported in. */
#define HEAT_GRANULE (2u << 20)

typedef enum {
    HEAT_SOURCE_NONE = 0,
    HEAT_SOURCE_PERF,
    HEAT_SOURCE_DAMON,
    HEAT_SOURCE_FAULTS,
    HEAT_SOURCE_DIRTY
} heat_source_t;

/** The names heat_source_parse takes, for messages. */
#define HEAT_SOURCE_NAMES "auto, perf, damon, faults or dirty"

typedef struct heat heat_t;

/** What the caller wants measured and how hard (from [tiering]). Zeros
 *  take the defaults below. */
typedef struct {
    unsigned interval_ms;       /* one collection per interval (the policy's period), 1..60000 */
    double sample_share;        /* faults: share of each range's pages sampled per interval, (0, 1] */
    heat_source_t only;         /* HEAT_SOURCE_NONE: try all in order; else just this one */
    unsigned window_ms;         /* 0: adaptive, starting at a tenth of the interval; else fixed, <= interval */
} heat_config_t;

#define HEAT_DEFAULT_INTERVAL_MS 100u
#define HEAT_DEFAULT_SAMPLE_SHARE 0.02

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

/** Which source heat_open(cfg) would use, without opening it (nothing is
 *  left behind: no thread, kdamond or event): `loci info`. `why` gets each
 *  skipped source's reason, "; "-separated (all of them when none works). */
heat_source_t heat_probe(const heat_config_t *cfg, char *why, size_t len);

/** "perf", "damon", "faults", "dirty" -> that source, "auto" ->
 *  HEAT_SOURCE_NONE (LOCI_CONFIG's `[tiering] source`): 0, or LOCI_EINVAL
 *  naming the names that are valid. */
int heat_source_parse(const char *name, heat_source_t *out);
/** The source only sees memory the caller maps as shared memory (faults). */
bool heat_needs_shared_memory(const heat_t *h);
/** The source sees a transparent huge page as one page (damon: its PMD's
 *  accessed bit), so that 2 MiB touched anywhere within a check reads as hot
 *  as the hottest: the caller should keep watched memory in base pages. */
bool heat_needs_base_pages(const heat_t *h);

/** Watch / stop watching [base, base+size) (page-aligned) under `tag`.
 *  heat_watch: LOCI_EINVAL for an unaligned or empty range or one that
 *  overlaps a watched one; with the faults source, LOCI_ENOTSUP for memory
 *  that is not shared memory. heat_unwatch takes a range exactly as it was
 *  watched (anything else is ignored) and maps back every page the source
 *  unmapped, at once: the range's data stays where it is, nothing is lost. */
int heat_watch(heat_t *h, void *base, size_t size, uint64_t tag);
void heat_unwatch(heat_t *h, void *base, size_t size);

/** Hold [base, base+size) still while its pages move: every measurement
 *  of this process watching any of it maps back at once what its source
 *  unmapped there, and samples none of it until heat_release with the same
 *  range (holds nest; a range watched meanwhile is held too). 0, or
 *  LOCI_ENOMEM (nothing held). In a fork's child the parent's measurements
 *  are left alone (the child's mappings are whole: heat.h, fork). */
int heat_hold(void *base, size_t size);
void heat_release(void *base, size_t size);

/** fork() handler of the process's list of measurements (heat_hold takes it
 *  inside an arena's lock: its place is after the arenas'). */
void heat_fork(loci_fork_phase_t phase);

/** The heat of every watched granule since the last call (*out: malloc'd,
 *  the caller frees it). LOCI_EIO when the source stopped working (the
 *  message says why): the caller pauses tiering and leaves data where it is.
 *  LOCI_EBUSY when the source's thread did not answer in time (a starved
 *  CPU): no heat this time, the source goes on. */
int heat_collect(heat_t *h, heat_sample_t **out, size_t *n);

/** CPU seconds the source's own threads spent (for the 3 %-of-a-core goal). */
double heat_cpu_seconds(const heat_t *h);

/** The window an observation watches a page for now, in microseconds. */
uint64_t heat_window_us(const heat_t *h);
/** The window its own adaptation wants (what heat_window_us would be
 *  without heat_limit_window); 0 for a source without windows (perf). */
uint64_t heat_wanted_window_us(const heat_t *h);
/** Observe in windows of at most most_us from now on (0: no limit; never
 *  under the source's shortest): processes that compare their heats (the
 *  node ledger) observe in one window, the shortest any of them wants. */
void heat_limit_window(heat_t *h, uint64_t most_us);

/** How the source sees, in a few words ("asynchronous write-protection,
 *  PAGEMAP_SCAN"; "" where there is one way only). */
const char *heat_how(const heat_t *h);

#endif
