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

/* Room for len bytes on the place's nodes, as the provider of private
 * memory there counts it; unknown (simulated) counts as room. */
static bool has_room(const place_t *p, size_t len)
{
    uint64_t free_bytes;
    const provider_ops_t *ops = provider_for(p->target, false);
    return !ops || ops->available(p, &free_bytes) != 0 || free_bytes >= len;
}

/* Only NUMA nodes can bind memory mapped elsewhere. */
static int bindable(const loci_allocator_t *a, int i)
{
    const struct loci_target *t = allocator_res(a)->candidates[i];
    if (t->numa_node >= 0)
        return 0;
    return loci__fail(LOCI_ENOTSUP, "intent \"%s\" resolves to %s: memory mapped elsewhere can only be bound to NUMA "
                                    "nodes (ask for CPU memory, e.g. without persist/kind=ssd/use=gpu)", a->intent,
                      t->name);
}

/* What a fallback asks of a candidate: where len bytes would go. */
struct range {
    const loci_allocator_t *a;
    size_t len;
    place_t *out;
    int rc; /* a candidate that cannot bind: stop with this */
};

static bool place_on(loci_allocator_t *local, int i, void *arg)
{
    struct range *g = arg;
    if (local == g->a) /* fallback=default from the local allocator itself: its best has no room */
        return false;
    if (local) { /* fallback=default: the local allocator's best, room or not, as the kernel finds it */
        allocator_place(allocator_res(local), 0, g->out);
        return true;
    }
    if ((g->rc = bindable(g->a, i)) != 0)
        return true;
    allocator_place(allocator_res(g->a), i, g->out);
    return has_room(g->out, g->len);
}

/* The place of the best candidate with room, else where the intent's fallback goes. */
static int choose(loci_allocator_t *a, size_t len, place_t *out)
{
    const resolution_t *r = allocator_res(a);
    int rc = bindable(a, 0);
    if (rc)
        return rc;
    allocator_place(r, 0, out);
    if (has_room(out, len))
        return 0;
    char why[300];
    snprintf(why, sizeof why, "no room to place %zu bytes on %s", len, r->candidates[0]->name);
    struct range g = {a, len, out, 0};
    if (allocator_fallback(r, a->intent, why, place_on, &g))
        return g.rc;
    if (r->fallback == FALLBACK_NEXT) {
        /* No candidate has room for all of it. The memory exists already (an MPI
         * window may be larger than any node and mostly untouched): a preference
         * still holds — the kernel puts what the best candidate cannot take on
         * other nodes — where a binding would end with the OOM killer. */
        allocator_place(r, 0, out);
        if (!place_is_strict(out))
            return 0;
    }
    return loci__fail(LOCI_ENOMEM, "intent \"%s\": %s (fallback=%s)", a->intent, why,
                      allocator_fallback_name(r->fallback));
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
    loci_allocator_t *a = allocator_get(intent);
    if (!a)
        return loci__code_of_errno(errno); /* the resolver said why */
    place_t place;
    rc = choose(a, len, &place);
    return rc ? rc : vm_place_range(addr, len, &place);
}
