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

enum { BATCH = 1024 }; /* pages per move_pages call */

/* The pages of a range outside the destination, moved a batch at a time as the query finds them. */
typedef struct {
    const place_t *to;
    int node; /* where they go: the mask's first node */
    void *pages[BATCH];
    int was_on[BATCH], nodes[BATCH], status[BATCH];
    unsigned long m;
    size_t left;
    straggler_tally_t t;
} stragglers_t;

static void move_batch(stragglers_t *s)
{
    /* A page the kernel took but could not migrate gets no status (the call returns how many
     * failed): it keeps MIGRATION_FAILED. */
    for (unsigned long j = 0; j < s->m; j++)
        s->status[j] = MIGRATION_FAILED;
    if (s->m && move_pages(0, s->m, s->pages, s->nodes, s->status, MPOL_MF_MOVE) < 0)
        s->t.call_errno = errno; /* ENOMEM: the migration's allocation failed, the rest not tried */
    for (unsigned long j = 0; j < s->m; j++)
        if (s->status[j] != s->node) {
            s->left++;
            tally_straggler(&s->t, s->status[j], s->was_on[j]);
        }
    s->m = 0;
}

static void collect_straggler(void *page, int node, void *arg)
{
    stragglers_t *s = arg; /* negative: not faulted in: the policy will place it */
    if (node < 0 || vm_mask_has(s->to->nodemask, node))
        return;
    s->was_on[s->m] = node;
    s->nodes[s->m] = s->node;
    s->pages[s->m++] = page;
    if (s->m == BATCH)
        move_batch(s);
}

int vm_move_stragglers(void *addr, size_t size, const place_t *to)
{
    if (to->simulated || to->policy == PLACE_LOCAL)
        return 0;
    int node = vm_mask_first(to->nodemask);
    if (node < 0) /* (vm_migrate refuses an empty mask before this pass; never shift by -1) */
        return loci__fail(LOCI_EINVAL, "a move to an empty NUMA node mask");
    /* on the stack (20 KB, as the pass always took): a move made while memory is short gains no
     * allocation that could fail */
    stragglers_t s = {.to = to, .node = node, .t = {.example = -1}};
    int rc = vm_each_page_node(addr, size, collect_straggler, &s);
    if (rc != 0)
        return rc;
    move_batch(&s);
    straggler_tally_t t = s.t;
    size_t left = s.left, n = size / vm_page_size();
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
