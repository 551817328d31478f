/*
 * loci_range_place: memory someone else mapped (an MPI library's window)
 * placed by intent. The target is chosen the way an allocator chooses for
 * its own extents — best candidate with room, else the intent's fallback —
 * and the provider layer binds the range there.
 */
#include "os/vm.h"
#include "alloc/allocator.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const char *fallback_name(intent_fallback_t f)
{
    switch (f) {
    case FALLBACK_DEFAULT: return "default";
    case FALLBACK_NULL: return "null";
    case FALLBACK_ABORT: return "abort";
    default: return "next";
    }
}

/* Room for len bytes on the place's nodes, as the provider of private
 * memory there counts it; unknown (simulated) counts as room. */
static bool has_room(const place_t *p, size_t len)
{
    uint64_t free_bytes;
    const provider_ops_t *ops = provider_for(p->target, false);
    return !ops || ops->available(p, &free_bytes) != 0 || free_bytes >= len;
}

/* The place of the first candidate the intent allows that has room. */
static int choose(const loci_allocator_t *a, size_t len, place_t *out)
{
    const resolution_t *r = &a->res;
    int tries = r->fallback == FALLBACK_NEXT ? r->ncandidates : 1;
    for (int i = 0; i < tries; i++) {
        if (r->candidates[i]->numa_node < 0)
            return loci__fail(LOCI_ENOTSUP,
                              "intent \"%s\" resolves to %s: memory mapped elsewhere can only be bound to "
                              "NUMA nodes (ask for CPU memory, e.g. without persist/kind=ssd/use=gpu)",
                              a->intent, r->candidates[i]->name);
        allocator_place(r, i, out);
        if (has_room(out, len))
            return 0;
    }
    if (r->fallback == FALLBACK_NEXT) {
        /* No candidate has room for all of it. The memory exists already (an MPI
         * window may be larger than any node and mostly untouched): a preference
         * still holds — the kernel puts what the best candidate cannot take on
         * other nodes — where a binding would end with the OOM killer. */
        allocator_place(r, 0, out);
        if (!place_is_strict(out))
            return 0;
    }
    if (r->fallback == FALLBACK_DEFAULT) {
        const loci_allocator_t *local = allocator_get("");
        if (local) {
            allocator_place(&local->res, 0, out);
            return 0;
        }
    }
    if (r->fallback == FALLBACK_ABORT) {
        fprintf(stderr, "loci: intent \"%s\": no room to place %zu bytes on %s (fallback=abort)\n", a->intent,
                len, r->candidates[0]->name);
        abort();
    }
    return loci__fail(LOCI_ENOMEM, "intent \"%s\": no room to place %zu bytes on %s (fallback=%s)", a->intent, len,
                      r->candidates[0]->name, fallback_name(r->fallback));
}

int loci_range_place(void *addr, size_t len, const char *intent)
{
    int rc = topo_ensure();
    if (rc)
        return rc;
    if (len == 0) /* an empty part (MPI windows: NULL or any address) is nothing to place */
        return 0;
    if (!addr)
        return loci__fail(LOCI_EINVAL, "loci_range_place: NULL address");
    const loci_allocator_t *a = allocator_get(intent);
    if (!a)
        return errno == ENOENT ? LOCI_ENOENT : errno == ENOMEM ? LOCI_ENOMEM : LOCI_EINVAL;
    place_t place;
    rc = choose(a, len, &place);
    return rc ? rc : vm_place_range(addr, len, &place);
}
