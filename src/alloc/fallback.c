/*
 * The intent's fallback (fallback=next|default|null|abort): where to go when
 * the best candidate cannot take what is asked. One policy for allocations
 * (allocator_on_fail, alloc.c) and for memory placed in place
 * (loci_place_range, place_range.c); each says what "taking it" means.
 */
#include "alloc/allocator.h"

#include <stdio.h>
#include <stdlib.h>

const char *allocator_fallback_name(intent_fallback_t f)
{
    switch (f) {
    case FALLBACK_DEFAULT: return "default";
    case FALLBACK_NULL: return "null";
    case FALLBACK_ABORT: return "abort";
    default: return "next";
    }
}

bool allocator_fallback(loci_allocator_t *a, const char *why, allocator_try_fn try_on, void *arg)
{
    const resolution_t *r = &a->res;
    switch (r->fallback) {
    case FALLBACK_NEXT:
        for (int i = 1; i < r->ncandidates; i++)
            if (try_on(a, i, arg))
                return true;
        return false;
    case FALLBACK_DEFAULT: {
        loci_allocator_t *local = allocator_get("");
        return local && try_on(local, 0, arg);
    }
    case FALLBACK_ABORT:
        fprintf(stderr, "loci: intent \"%s\": %s (fallback=abort)\n", a->intent, why);
        abort();
    case FALLBACK_NULL:
        break;
    }
    return false;
}
