/* What libloci-tier.so exports beside the malloc family (include/loci_tier.h). */
#include "tier.h"

#include <stdint.h>

TIER_EXPORT int loci_tier_sites(loci_tier_site_t *out, int max) { return site_list(out, max); }

TIER_EXPORT size_t loci_tier_threshold(void) { return tier_threshold(); }

TIER_EXPORT void *loci_tier_alloc(const void *caller, size_t alignment, size_t size, int zero)
{
    if (size < tier_threshold() || (alignment & (alignment - 1)))
        return NULL;
    return place_alloc(caller, alignment, size, zero != 0);
}

TIER_EXPORT void loci_tier_free(void *ptr)
{
    if (ptr)
        place_free(ptr);
}
