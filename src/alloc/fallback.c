/*
 * The intent's fallback (fallback=next|default|null|abort): where to go when
 * the best candidate cannot take what is asked. One policy for allocations
 * (allocator_on_fail, alloc.c), for memory placed in place
 * (loci_range_place, place_range.c) and for an empty arena's first block
 * (src/arena/arena.c); each says what "taking it" means.
 */
#include "alloc/allocator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *allocator_fallback_name(intent_fallback_t f)
{
    switch (f) {
    case FALLBACK_DEFAULT: return "default";
    case FALLBACK_NULL: return "null";
    case FALLBACK_ABORT: return "abort";
    default: return "next";
    }
}

bool allocator_fallback(const resolution_t *r, const char *intent, const char *why, allocator_try_fn try_on, void *arg)
{
    switch (r->fallback) {
    case FALLBACK_NEXT:
        for (int i = 1; i < r->ncandidates; i++)
            if (try_on(NULL, i, arg))
                return true;
        return false;
    case FALLBACK_DEFAULT: {
        loci_allocator_t *local = allocator_get("");
        return local && try_on(local, 0, arg);
    }
    case FALLBACK_ABORT:
        fprintf(stderr, "loci: intent \"%s\": %s (fallback=abort)\n", intent, why);
        abort();
    case FALLBACK_NULL:
        break;
    }
    return false;
}

void *allocator_fallback_failed(const char *what, const char *intent, const resolution_t *r, int code, size_t size,
                                const char *reason)
{
    char candidates[512] = "";
    for (int i = 0; i < r->ncandidates; i++) {
        size_t used = strlen(candidates);
        snprintf(candidates + used, sizeof candidates - used, "%s%s", i ? ", " : "", r->candidates[i]->name);
    }
    return loci__fail_null(code, "%s \"%s\": no room for %zu bytes on %s (fallback=%s): %s", what, intent, size,
                           candidates, allocator_fallback_name(r->fallback), reason);
}
