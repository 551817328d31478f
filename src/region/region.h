/*
 * NVM partition (loci.h "nvm"; docs/NVM.md): persistent named regions
 * (region.c), prefetch / flush / evict of any loci memory (range.c), the
 * paged caches' counters (stats.c), and the rule for names that become file
 * names (names.c; checkpoints, in src/ckpt above, use it too). The mapping
 * itself is the providers' (file: mode=mmap, paged: mode=paged); this layer
 * decides which region and which provider, and keeps the regions open in
 * this process.
 */
#ifndef LOCI_REGION_H
#define LOCI_REGION_H

#include "provider/provider.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

/** The open persistent region containing addr: its start, size and
 *  provider. false when addr is in none. */
bool region_of(const void *addr, void **base, size_t *size, const provider_ops_t **ops);

/** The target of the open persistent region containing addr (its tier, or
 *  the job's store), and the region's name copied into name (NVM_NAME_MAX + 1
 *  bytes; may be NULL). NULL when addr is in none. */
const struct loci_target *region_target(const void *addr, char *name);

/* From the lowest open region's start to the highest one's end (0, 0 when
 * none), stored under region.c's lock and read without it: the calls that
 * take any pointer look a region up only for an address inside, so that a
 * free of a block never takes the regions' lock. */
extern _Atomic uintptr_t region__span_lo, region__span_hi;

/** False when addr cannot be in an open region (one comparison). Read while
 *  another region opens or closes, the span may be wider than the regions,
 *  never narrower around one that stays open. */
static inline bool nvm_region_may_hold(const void *addr)
{
    uintptr_t lo = atomic_load_explicit(&region__span_lo, memory_order_relaxed);
    return (uintptr_t)addr - lo < atomic_load_explicit(&region__span_hi, memory_order_relaxed) - lo;
}

/** Longest name of a region, checkpoint or checkpointed variable. */
#define NVM_NAME_MAX 128

/** 0 when `name` is a plain file name (1 to NVM_NAME_MAX of [A-Za-z0-9._-],
 *  not starting with '.' or '-', no ".."), else LOCI_EINVAL with a message
 *  starting "<what> name" (names.c). */
int region_check_name(const char *what, const char *name);

/** The first file tier, store or persistent device-DAX target `intent`
 *  (NULL or "": "persist") resolves to, as loci_region_open places regions:
 *  its place and provider. 0 or LOCI_E*. */
int region_resolve_filetier(const char *intent, unsigned flags, place_t *place, const provider_ops_t **ops);

/** The first file tier (a directory: no store, no device) `intent` (NULL or
 *  "": "persist") resolves to: where checkpoints keep their files. */
int region_resolve_dir(const char *intent, place_t *place);

/** Call fn for each persistent region open in this process, under the
 *  regions' lock: fn must not open or close regions. */
void region_foreach(void (*fn)(const char *name, void *base, size_t size, unsigned flags,
                                   const provider_ops_t *ops, void *arg),
                        void *arg);

/** Sync and close every region still open (loci_fini). */
void region_fini(void);

/** The paged caches' counters as a table (loci_stats_print). */
void region_stats_print(FILE *f);

#endif
