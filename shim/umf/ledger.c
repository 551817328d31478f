/*
 * What the loci UMF providers of this process handed out.
 *
 * UMF sees pieces: what a provider's alloc returned, and what
 * allocation_split and allocation_merge made of them since; it frees
 * pieces. loci sees blocks, from loci_arena_aligned_alloc, freed whole. A
 * block is freed when no piece covers any of its bytes any more (its live
 * bytes reach 0): a split block goes when both halves went, a piece merged
 * over two blocks frees both. Pieces are kept by address so that a pointer
 * no provider handed out, a second free, a wrong size or another
 * provider's piece is refused here instead of reaching loci.
 *
 * One lock for every provider: it guards table updates only, never a loci
 * call (blocks to free are taken out under it and freed after).
 */
#include "umf_shim.h"

#include "addr_table.h" /* src/util */

#include <pthread.h>
#include <stdlib.h>

typedef struct {
    uintptr_t start;
    size_t size;
    const void *owner;
} piece_t;

typedef struct block {
    uintptr_t base;
    size_t size, live; /* live: bytes some piece covers */
    const void *owner;
    struct block *next; /* on the list of blocks to free, once out of the table */
} block_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static addr_table_t pieces = ADDR_TABLE_INIT, blocks = ADDR_TABLE_INIT;

static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

int ledger_add(const void *owner, void *ptr, size_t size)
{
    piece_t *p = malloc(sizeof *p);
    block_t *b = malloc(sizeof *b);
    bool added = false;
    if (p && b) {
        *p = (piece_t){(uintptr_t)ptr, size, owner};
        *b = (block_t){(uintptr_t)ptr, size, size, owner, NULL};
        pthread_mutex_lock(&lock);
        added = addr_table_add(&pieces, p->start, size, p);
        if (added && !(added = addr_table_add(&blocks, b->base, size, b)))
            addr_table_remove(&pieces, p->start);
        pthread_mutex_unlock(&lock);
    }
    if (!added) {
        free(p);
        free(b);
    }
    return added ? 0 : LOCI_ENOMEM;
}

/* Owner's piece starting exactly at ptr, or NULL; the lock held. */
static piece_t *piece_at(const void *owner, const void *ptr)
{
    piece_t *p = addr_table_find(&pieces, (uintptr_t)ptr);
    return p && p->start == (uintptr_t)ptr && p->owner == owner ? p : NULL;
}

/* Take [from, to) off the live bytes of the blocks under it, and the blocks
 * left with none out of the table onto *dead; the lock held. */
static void release(uintptr_t from, uintptr_t to, block_t **dead)
{
    while (from < to) {
        block_t *b = addr_table_find(&blocks, from);
        uintptr_t end = b->base + b->size < to ? b->base + b->size : to;
        b->live -= end - from;
        if (b->live == 0) {
            addr_table_remove(&blocks, b->base);
            b->next = *dead;
            *dead = b;
        }
        from = end;
    }
}

static void free_blocks(block_t *dead)
{
    while (dead) {
        block_t *next = dead->next;
        loci_free((void *)dead->base);
        free(dead);
        dead = next;
    }
}

int ledger_free(const void *owner, void *ptr, size_t size, size_t *freed)
{
    block_t *dead = NULL;
    pthread_mutex_lock(&lock);
    piece_t *p = piece_at(owner, ptr);
    *freed = p ? p->size : 0;
    bool ok = p && (size == 0 || size == p->size);
    if (ok) {
        addr_table_remove(&pieces, p->start);
        release(p->start, p->start + p->size, &dead);
    }
    pthread_mutex_unlock(&lock);
    if (ok)
        free(p);
    free_blocks(dead);
    return ok ? 0 : LOCI_EINVAL;
}

bool ledger_holds(const void *owner, const void *ptr, size_t size)
{
    pthread_mutex_lock(&lock);
    const piece_t *p = addr_table_find(&pieces, (uintptr_t)ptr);
    bool holds = p && p->owner == owner && size <= p->size - ((uintptr_t)ptr - p->start);
    pthread_mutex_unlock(&lock);
    return holds;
}

/* Split and merge change entries of the table in an order where only the
 * first step may need room: an entry taken out while another stays leaves
 * room to put one back (the table is given back only when it empties). */

int ledger_split(const void *owner, void *ptr, size_t total, size_t first)
{
    piece_t *second = malloc(sizeof *second);
    if (!second)
        return LOCI_ENOMEM;
    int rc = LOCI_EINVAL;
    pthread_mutex_lock(&lock);
    piece_t *p = piece_at(owner, ptr);
    if (p && p->size == total && first > 0 && first < total) {
        *second = (piece_t){p->start + first, total - first, owner};
        rc = addr_table_add(&pieces, second->start, second->size, second) ? 0 : LOCI_ENOMEM;
    }
    if (rc == 0) { /* the first half's entry shrinks: out, and back with its size */
        addr_table_remove(&pieces, p->start);
        p->size = first;
        addr_table_add(&pieces, p->start, first, p);
    }
    pthread_mutex_unlock(&lock);
    if (rc != 0)
        free(second);
    return rc;
}

int ledger_merge(const void *owner, void *low, void *high, size_t total)
{
    pthread_mutex_lock(&lock);
    piece_t *lo = piece_at(owner, low), *hi = piece_at(owner, high);
    bool ok = lo && hi && lo->start + lo->size == hi->start && lo->size + hi->size == total;
    if (ok) { /* the low entry grows over the high one, which then goes */
        addr_table_remove(&pieces, lo->start);
        lo->size = total;
        addr_table_add(&pieces, lo->start, total, lo);
        addr_table_remove(&pieces, hi->start);
    }
    pthread_mutex_unlock(&lock);
    if (ok)
        free(hi);
    return ok ? 0 : LOCI_EINVAL;
}

void ledger_forget(const void *owner)
{
    pthread_mutex_lock(&lock);
    for (size_t i = pieces.n; i-- > 0;) /* from the end: removals leave the entries before in place */
        if (((piece_t *)pieces.v[i].value)->owner == owner)
            free(addr_table_remove(&pieces, pieces.v[i].base));
    for (size_t i = blocks.n; i-- > 0;)
        if (((block_t *)blocks.v[i].value)->owner == owner)
            free(addr_table_remove(&blocks, blocks.v[i].base));
    pthread_mutex_unlock(&lock);
}
