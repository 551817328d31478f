/*
 * Where a kind's blocks go: its plan, the loci targets it tries in turn
 * from the calling thread's NUMA node — its intent's candidates as loci
 * ranks them (or the nodes a MEMKIND_*_NODES variable names, nearest first
 * by NUMA distance, as memkind orders them), cut to the best one for
 * memkind's bind kinds, followed by the DRAM candidates for its preferred
 * kinds (and every other node for the default kinds, as the kernel's default
 * policy spills). Plans are made on first use from each node and kept: memkind too
 * decides its nodes once. Each target gets an arena of the kind's own,
 * bound there ("target=NAME!"), made on first use.
 */
#include "memkind_shim.h"

#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 1024

static int target_index(const loci_target_t *t)
{
    int count = loci_target_count();
    for (int i = 0; i < count && i < MK_MAX_TARGETS; i++)
        if (loci_target_at(i) == t)
            return i;
    return -1;
}

static void plan_add(plan_t *p, int t)
{
    if (t < 0 || p->n >= MK_MAX_TARGETS)
        return;
    for (int i = 0; i < p->n; i++)
        if (p->target[i] == t)
            return;
    p->target[p->n++] = t;
}

/* The candidates of intent from the calling thread, as loci ranks them;
 * false when nothing satisfies it here. */
static bool add_candidates(plan_t *p, const char *intent, bool files)
{
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a)
        return false;
    const loci_target_t *c[MK_MAX_TARGETS];
    int n = loci_allocator_targets(a, c, MK_MAX_TARGETS);
    for (int i = 0; i < n && i < MK_MAX_TARGETS; i++) {
        loci_target_info_t info;
        if (loci_target_info(c[i], &info) == 0 && (files || info.numa_node >= 0))
            plan_add(p, target_index(c[i]));
    }
    loci_allocator_destroy(a);
    return true;
}

/* qsort_r order: nodes nearer to *from first, then by number. */
static int nearer(const void *a, const void *b, void *from)
{
    int na = *(const int *)a, nb = *(const int *)b, node = *(const int *)from;
    int da = numa_distance(node, na), db = numa_distance(node, nb);
    return da != db ? da - db : na - nb;
}

/* The nodes of the override of class c, nearest to the calling thread first. */
static int add_override(plan_t *p, node_class_t c)
{
    unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))];
    int rc = nodes_of_class(c, mask, MAX_NODES);
    if (rc != MEMKIND_SUCCESS)
        return rc;
    int nodes[MAX_NODES], count = 0;
    for (int n = 0; n < MAX_NODES; n++)
        if (mask[n / (8 * sizeof *mask)] & (1ul << (n % (8 * sizeof *mask))))
            nodes[count++] = n;
    int from = loci_initiator();
    qsort_r(nodes, (size_t)count, sizeof *nodes, nearer, &from);
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "node:%d", nodes[i]);
        plan_add(p, target_index(loci_target_by_name(name)));
    }
    return p->n ? MEMKIND_SUCCESS : MEMKIND_ERROR_UNAVAILABLE;
}

static plan_t *plan_make(const struct memkind *k)
{
    plan_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (nodes_overridden(k->nodes))
        p->why = add_override(p, k->nodes);
    else
        p->why = add_candidates(p, k->intent, k->take & TAKE_FILES) && p->n ? MEMKIND_SUCCESS
                                                                             : MEMKIND_ERROR_UNAVAILABLE;
    if (p->n > 1 && (k->take & TAKE_BEST))
        p->n = 1;
    if (p->n && (k->take & THEN_DRAM))
        add_candidates(p, "", false);
    if (p->n && (k->take & THEN_ANY))
        add_candidates(p, "capacity=large", false); /* every NUMA node holding CPU memory */
    return p;
}

static int initiator_slot(void)
{
    int node = loci_initiator();
    return node >= 0 && node < MK_MAX_INITIATORS ? node : 0;
}

const plan_t *plan_of(struct memkind *k, int *why)
{
    _Atomic(plan_t *) *slot = &k->plans[initiator_slot()];
    plan_t *p = atomic_load_explicit(slot, memory_order_acquire);
    if (!p) {
        plan_t *fresh = plan_make(k), *none = NULL;
        if (!fresh) {
            *why = MEMKIND_ERROR_MALLOC;
            return NULL;
        }
        if (atomic_compare_exchange_strong(slot, &none, fresh))
            p = fresh;
        else {
            free(fresh); /* another thread made it first */
            p = none;
        }
    }
    *why = p->why;
    return p->n ? p : NULL;
}

loci_arena_t *plan_arena(struct memkind *k, int t)
{
    loci_arena_t *a = atomic_load_explicit(&k->arenas[t], memory_order_acquire);
    if (a)
        return a;
    loci_target_info_t info;
    if (loci_target_info(loci_target_at(t), &info) != 0)
        return NULL;
    char intent[MK_INTENT_LEN];
    snprintf(intent, sizeof intent, "target=%s!", info.name);
    loci_arena_t *fresh = loci_arena_create(intent, k->max_bytes), *none = NULL;
    if (!fresh) {
        mk_log(LOCI_LOG_INFO, "%s: no arena on %s: %s", k->name, info.name, loci_last_error());
        return NULL;
    }
    if (atomic_compare_exchange_strong(&k->arenas[t], &none, fresh))
        return fresh;
    loci_arena_destroy(fresh); /* another thread made it first */
    return none;
}

loci_allocator_t *plan_interleaved(struct memkind *k)
{
    char intent[MK_INTENT_LEN + 32];
    snprintf(intent, sizeof intent, "%s%spartition=interleave", k->intent, *k->intent ? "," : "");
    return loci_allocator_create(intent);
}

void plan_release(struct memkind *k)
{
    for (int i = 0; i < MK_MAX_INITIATORS; i++)
        free(atomic_exchange(&k->plans[i], NULL));
    for (int i = 0; i < MK_MAX_TARGETS; i++)
        loci_arena_destroy(atomic_exchange(&k->arenas[i], NULL));
    loci_arena_destroy(atomic_exchange(&k->tiered, NULL));
}
