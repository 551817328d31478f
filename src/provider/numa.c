/*
 * numa provider: anonymous private memory placed with mbind.
 * alloc = mmap (aligned by over-map + trim) + mbind per policy (+ mlock when
 * pinned); move = a copy mremapped over the extent (move_copy.c) or
 * mbind(MOVE|STRICT), then every page's node checked;
 * purge = MADV_DONTNEED (the policy stays with the mapping, so purged pages
 * come back on the same nodes); adopt = a fresh mapping the extent's
 * provider hands it over to (provider_adopt); hand_over = a copy under
 * write-protection, mremapped over the extent (vm_copy_over). numa_node_move
 * and numa_node_available serve shm too.
 */
#include "provider/provider_impl.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <string.h>

#define MIGRATE_PASSES 3 /* mbind passes over an extent before its misplaced pages fail the move */

static void *numa_alloc(const place_t *place, size_t size, size_t alignment)
{
    void *p = vm_map_aligned(size, alignment, -1, 0);
    if (p == MAP_FAILED) {
        char sz[32];
        return loci__fail_null(LOCI_ENOMEM, "numa: mmap of %s failed: %s", units_format_size(size, sz, sizeof sz),
                               strerror(errno));
    }
    int rc = vm_apply_policy(p, size, place, 0);
    if (rc == 0 && place->pinned)
        rc = vm_pin(p, size);
    if (rc != 0) {
        vm_unmap(p, size);
        errno = loci__errno_of(rc);
        return NULL;
    }
    return p;
}

static int numa_free(void *addr, size_t size) { return provider_unmap("numa", addr, size, true); }

int numa_node_move(void *addr, size_t size, const place_t *to, bool shared)
{
    if (to->simulated)
        return 0;
    if (to->policy == PLACE_LOCAL) /* back to first touch; pages stay where they are */
        return vm_reset_policy(addr, size) == 0
                   ? 0
                   : loci__fail(LOCI_EINVAL, "numa: mbind(MPOL_DEFAULT): %s", strerror(errno));
    /* A copy into fresh memory placed per `to`, mremapped over the extent,
     * where it applies; else mbind moves the pages. Either sets the policy
     * future faults follow. Then each page's node is checked, not taken on
     * trust. */
    int rc = shared ? 1 : vm_move_copy(addr, size, to);
    if (rc != 1) /* a failed copy left the extent as it was and says why: not a misplacement */
        return rc == 0 ? vm_check_placed(addr, size, to) : rc;
    /* Pages mbind did not move get more passes: busy under load, or mapped
     * while it ran (mbind moves only the pages mapped when its walk passes
     * them: another process sharing the memory may fault one in) */
    for (int pass = 0; pass < MIGRATE_PASSES; pass++) {
        rc = vm_migrate(addr, size, to);
        if (rc != 0 && rc != LOCI_EIO) /* LOCI_EIO: some pages did not migrate; the check counts them */
            return rc;
        if ((rc = vm_check_placed(addr, size, to)) != LOCI_EIO)
            return rc;
    }
    /* The last pass page by page: the kernel then says why a page stays */
    return vm_move_stragglers(addr, size, to);
}

static int numa_move(void *addr, size_t size, const place_t *to) { return numa_node_move(addr, size, to, false); }

static int numa_adopt(void *addr, size_t size, const place_t *to, const provider_ops_t *from, bool live)
{
    return provider_adopt(&provider_numa, NULL, addr, size, to, from, live);
}

static int numa_hand_over(void *addr, void *into, size_t size, const place_t *to)
{
    (void)to; /* `into` is placed already */
    return vm_copy_over(addr, into, size, true);
}

static const char *numa_why_not_live(const provider_ops_t *into)
{
    (void)into; /* copies go into memory of any kind */
    return vm_copy_over_refusal(true);
}

static int numa_purge(void *addr, size_t size)
{
    if (vm_drop(addr, size) != 0)
        return loci__fail(LOCI_EINVAL, "numa: madvise(DONTNEED, %p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

int numa_node_available(const place_t *place, uint64_t *bytes)
{
    if (place->simulated || place->policy == PLACE_LOCAL)
        return LOCI_ENOTSUP;
    return vm_nodes_free(place, bytes);
}

static const provider_move_ops_t numa_moves = {
    .move = numa_move,
    .adopt = numa_adopt,
    .hand_over = numa_hand_over,
    .why_not_live = numa_why_not_live,
    .disown = NULL, /* nothing kept per extent */
};

const provider_ops_t provider_numa = {
    .name = "numa",
    .alloc = numa_alloc,
    .free = numa_free,
    .purge = numa_purge,
    .populate = vm_populate,
    .available = numa_node_available,
    .move = &numa_moves,
};
