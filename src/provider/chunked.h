/*
 * Persistent regions in chunk layout, as src/nvm sees them (docs/NVM.md).
 * A region made with mode=paged is a directory "<tier dir>/<name>.region":
 * a `meta` file (format, size, chunk size) and one file per chunk,
 * "c%016llx" of its index, made on its first write-back (missing: zeros).
 * A chunk file linked elsewhere too (st_nlink > 1: a checkpoint holds it)
 * is never written in place: the next write-back copies it to a new file
 * renamed over the region's name (copy-on-write), so the other link keeps
 * the old contents.
 */
#ifndef LOCI_PROVIDER_CHUNKED_H
#define LOCI_PROVIDER_CHUNKED_H

#include "provider/provider.h"

#include <stddef.h>
#include <stdint.h>

/** Chunk layout of an open paged persistent region. */
typedef struct {
    int dirfd;        /* the region's directory, a dup the caller closes */
    size_t chunk;     /* bytes per chunk file */
    uint64_t nchunks; /* chunks of the region's size; files may be missing (zeros) */
    uint64_t version; /* equal to one described before: no chunk file changed since (unique across
                       * processes and openings) */
} region_chunks_t;

/** Write back every dirty page of the region at `base` (its start address), make it durable
 *  (provider sync), and describe its chunk files. LOCI_ENOTSUP (with message) when the region is
 *  not in chunk layout (flat file, or not paged).
 *  Linking the files elsewhere is safe while no thread writes the region: with no dirty page
 *  nothing is written back, and every later write-back sees the link and copies. */
int provider_paged_chunks(void *base, region_chunks_t *out);

/** Write back every dirty page of the paged region at `base` and make it durable; then its
 *  chunk store (the region's: valid while it is open). NULL + loci__fail when base is no paged
 *  region or the write-back failed. */
struct store *provider_paged_store(void *base);

/** Drop the region's cached chunks WITHOUT writing them back (its chunk files were just replaced
 *  by a restore; its version changes); the next access reads the files. The caller guarantees no thread touches the
 *  region meanwhile. LOCI_EINVAL when base is no paged region. */
int provider_paged_reload(void *base);

/** The file name of chunk `index`: "c%016llx" (buffer of at least 24 bytes). */
void store_chunk_name(uint64_t index, char *out);

/** The provider that opens the persistent region `name` of place->target
 *  with `flags` (LOCI_CREATE, LOCI_READONLY, LOCI_SHARED): *ops is the one
 *  the intent chose (provider_for_place, mode=paged already turned into
 *  mmap for shared and read-only openings), kept for a flat or new region.
 *  A region in chunk layout is paged whatever the intent's mode (it has no
 *  file to map): *ops and place->file_mode change to paged; LOCI_SHARED,
 *  shareable (access=node and wider) and pinned intents are refused
 *  (LOCI_ENOTSUP), and so is paging that cannot run here unless forced with
 *  mode=paged!. 0 or LOCI_E* with a message. */
int provider_for_region(place_t *place, const char *name, unsigned flags, const provider_ops_t **ops);

#endif
