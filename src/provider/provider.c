/* Which provider serves a target (see provider.h). */
#include "provider/paged.h"

#include <stdatomic.h>

const provider_ops_t *provider_for(const struct loci_target *t, bool shared)
{
    if (!t)
        return NULL;
    if (t->path && t->path[0])
        return &provider_file;
    if (t->numa_node >= 0)
        return shared ? &provider_shm : &provider_numa;
    return NULL;
}

const provider_ops_t *provider_for_place(const place_t *place)
{
    const struct loci_target *t = place->target;
    if (!t || !t->path || !t->path[0] || place->file_mode == FILE_MMAP)
        return provider_for(t, place->shared);
    if (place->file_mode == FILE_PAGED_ONLY)
        return &provider_paged; /* it fails with the reason if it cannot run */
    const char *why = place->shared ? "access=node/job/global needs memory other processes can map"
                      : place->pinned ? "pinned memory cannot leave DRAM"
                                      : NULL;
    if (!why && paged_check_access(&why) == 0)
        return &provider_paged;
    static _Atomic bool told;
    if (!atomic_exchange(&told, true))
        loci__log(LOCI_LOG_WARN, "%s: mode=paged falls back to mode=mmap: %s (write mode=paged! to refuse instead)",
                  t->name, why);
    return &provider_file;
}
