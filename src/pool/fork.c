/*
 * The pool around fork() (core/fork.c): the registry, then per heap its
 * class locks (ascending: a class lock is only ever tried, never waited
 * for, under another) and its own lock, then the accounts and the page
 * map's leaf lock — the order the pool nests them. The child keeps the
 * other threads' caches as they were: their blocks stay allocated there,
 * never handed out twice.
 */
#include "pool/pool_internal.h"

void pool_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_PREPARE) /* the lists stay as they are until their locks are given back */
        loci__fork_mutex(&pool__registry, phase);
    for (pool_heap_t *h = pool__heaps; h; h = h->next) {
        for (unsigned c = 0; c < NCLASSES; c++)
            loci__fork_mutex(&h->cls[c].lock, phase);
        loci__fork_mutex(&h->lock, phase);
    }
    pool__accounts_fork(phase);
    pool__pagemap_fork(phase);
    if (phase != LOCI_FORK_PREPARE)
        loci__fork_mutex(&pool__registry, phase);
}
