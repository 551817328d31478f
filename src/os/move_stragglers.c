/*
 * The last pass of a NUMA move (vm_move_stragglers, vm.h): the pages mbind
 * left outside the destination, each moved by move_pages, which says per
 * page why one stays — where mbind says only that some did. A move the
 * kernel refused with room loci counted (the node test, TIERING.md "One
 * node, several processes") names its cause here: no page the kernel would
 * give there (with the room loci counts, node_room.c), a page off the LRU,
 * one mapped by another process.
 */
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>

/* Why move_pages left pages where they were, tallied by its per-page status. */
typedef struct {
    size_t nomem, busy, shared, failed, other;
    int other_errno, call_errno, example;
} straggler_tally_t;

#define MIGRATION_FAILED (PLACE_MAX_NODES + 1) /* no status: taken for migration, not migrated */

static void tally_straggler(straggler_tally_t *t, int status, int was_on)
{
    if (status == MIGRATION_FAILED)
        t->failed++;
    else if (status == -ENOMEM)
        t->nomem++;
    else if (status == -EBUSY || status == -EAGAIN)
        t->busy++;
    else if (status == -EACCES)
        t->shared++;
    else {
        t->other++;
        t->other_errno = -status;
    }
    t->example = was_on;
}

int vm_move_stragglers(void *addr, size_t size, const place_t *to)
{
    if (to->simulated || to->policy == PLACE_LOCAL)
        return 0;
    enum { BATCH = 1024 };
    void *pages[BATCH], *misplaced[BATCH];
    int status[BATCH], was_on[BATCH], nodes[BATCH];
    int node = vm_mask_first(to->nodemask);
    if (node < 0) /* (vm_migrate refuses an empty mask before this pass; never shift by -1) */
        return loci__fail(LOCI_EINVAL, "a move to an empty NUMA node mask");
    straggler_tally_t t = {.example = -1};
    size_t page = vm_page_size(), n = size / page, left = 0;
    for (size_t i = 0; i < n; i += BATCH) {
        unsigned long k = n - i < BATCH ? n - i : BATCH, m = 0;
        for (unsigned long j = 0; j < k; j++)
            pages[j] = (char *)addr + (i + j) * page;
        if (move_pages(0, k, pages, NULL, status, 0) != 0)
            return loci__fail(LOCI_EIO, "move_pages (query) of %lu pages at %p: %s", k, pages[0], strerror(errno));
        for (unsigned long j = 0; j < k; j++)
            if (status[j] >= 0 && (status[j] >= PLACE_MAX_NODES || !(to->nodemask[status[j] / 64] >> (status[j] % 64) & 1))) {
                was_on[m] = status[j];
                nodes[m] = node;
                misplaced[m++] = pages[j];
            }
        if (m == 0)
            continue;
        /* A page the kernel took but could not migrate gets no status (the call returns how many
         * failed): it keeps MIGRATION_FAILED. */
        for (unsigned long j = 0; j < m; j++)
            status[j] = MIGRATION_FAILED;
        if (move_pages(0, m, misplaced, nodes, status, MPOL_MF_MOVE) < 0)
            t.call_errno = errno; /* ENOMEM: the migration's allocation failed, the rest not tried */
        for (unsigned long j = 0; j < m; j++)
            if (status[j] != node) {
                left++;
                tally_straggler(&t, status[j], was_on[j]);
            }
    }
    if (left == 0)
        return 0;
    char where[128], why[384];
    int w = 0;
    if (t.nomem)
        w += snprintf(why + w, sizeof why - (size_t)w, "%s%zu: no free memory on node %d the kernel would give (ENOMEM)",
                      w ? "; " : "", t.nomem, node);
    if (t.busy && w < (int)sizeof why)
        w += snprintf(why + w, sizeof why - (size_t)w, "%s%zu: not on the kernel's LRU lists (busy: isolated, locked or pinned)",
                      w ? "; " : "", t.busy);
    if (t.failed && w < (int)sizeof why) {
        uint64_t room = 0;
        char room_s[32] = "unknown";
        place_t at = {0};
        at.nodemask[node / 64] = 1ull << (node % 64);
        if (vm_nodes_free(&at, &room) == 0)
            units_format_size((size_t)room, room_s, sizeof room_s);
        if (t.call_errno == ENOMEM)
            w += snprintf(why + w, sizeof why - (size_t)w,
                          "%s%zu: the kernel gave no page on node %d (ENOMEM), where loci counts %s of room", w ? "; " : "",
                          t.failed, node, room_s);
        else
            w += snprintf(why + w, sizeof why - (size_t)w, "%s%zu: taken for migration and not migrated (%s)",
                          w ? "; " : "", t.failed, t.call_errno ? strerror(t.call_errno) : "referenced elsewhere");
    }
    if (t.shared && w < (int)sizeof why)
        w += snprintf(why + w, sizeof why - (size_t)w, "%s%zu: mapped by another process too", w ? "; " : "", t.shared);
    if (t.other && w < (int)sizeof why)
        snprintf(why + w, sizeof why - (size_t)w, "%s%zu: %s", w ? "; " : "", t.other, strerror(t.other_errno));
    return loci__fail(LOCI_EIO, "%zu of the %zu pages at %p are still outside nodes %s (e.g. on node %d) — %s", left,
                      n, addr, vm_nodemask_str(to->nodemask, where, sizeof where), t.example, why);
}
