/*
 * NVM partition (loci.h "nvm"; docs/NVM.md): persistent named regions
 * (persist.c), prefetch / flush / evict of any loci memory (range.c) and the
 * paged caches' counters (stats.c). The mapping itself is the providers'
 * (file: mode=mmap, paged: mode=paged); this layer decides which region and
 * which provider, and keeps the regions open in this process.
 */
#ifndef LOCI_NVM_H
#define LOCI_NVM_H

#include "provider/provider.h"

#include <stdio.h>

/** The open persistent region containing addr: its start, size and
 *  provider. false when addr is in none. */
bool nvm_region_of(const void *addr, void **base, size_t *size, const provider_ops_t **ops);

/** Sync and close every region still open (loci_fini). */
void nvm_fini(void);

/** The paged caches' counters as a table (loci_stats_print). */
void nvm_stats_print(FILE *f);

#endif
