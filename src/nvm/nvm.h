/*
 * NVM partition (loci.h "nvm"; docs/NVM.md): persistent named regions
 * (persist.c), prefetch / flush / evict of any loci memory (range.c), the
 * paged caches' counters (stats.c), and the rule for names that become file
 * names (names.c; checkpoints, in src/ckpt above, use it too). The mapping
 * itself is the providers' (file: mode=mmap, paged: mode=paged); this layer
 * decides which region and which provider, and keeps the regions open in
 * this process.
 */
#ifndef LOCI_NVM_H
#define LOCI_NVM_H

#include "provider/provider.h"

#include <stdio.h>

/** The open persistent region containing addr: its start, size and
 *  provider. false when addr is in none. */
bool nvm_region_of(const void *addr, void **base, size_t *size, const provider_ops_t **ops);

/** Longest name of a region, checkpoint or checkpointed variable. */
#define NVM_NAME_MAX 128

/** 0 when `name` is a plain file name (1 to NVM_NAME_MAX of [A-Za-z0-9._-],
 *  not starting with '.' or '-', no ".."), else LOCI_EINVAL with a message
 *  starting "<what> name" (names.c). */
int nvm_check_name(const char *what, const char *name);

/** The first file tier `intent` (NULL or "": "persist") resolves to, as
 *  loci_region_open places regions: its place and provider. 0 or LOCI_E*. */
int nvm_resolve_tier(const char *intent, unsigned flags, place_t *place, const provider_ops_t **ops);

/** Call fn for each persistent region open in this process, under the
 *  regions' lock: fn must not open or close regions. */
void nvm_foreach_region(void (*fn)(const char *name, void *base, size_t size, unsigned flags,
                                   const provider_ops_t *ops, void *arg),
                        void *arg);

/** Sync and close every region still open (loci_fini). */
void nvm_fini(void);

/** The paged caches' counters as a table (loci_stats_print). */
void nvm_stats_print(FILE *f);

#endif
