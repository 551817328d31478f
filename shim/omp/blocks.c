/*
 * Who made each block: the allocator the program named, the one whose memory
 * it is, its size. omp_free needs no allocator from the program (loci finds
 * any of its blocks), but this record is what routes a runtime-made pointer
 * back to the runtime, catches a wrong allocator or a foreign pointer, and
 * gives omp_realloc the bytes to copy. A hash table split into stripes, each
 * under its own lock, so threads freeing different blocks rarely meet.
 */
#include "shim.h"

#include <pthread.h>
#include <stdlib.h>

#define STRIPES 64

typedef struct node {
    shim_block_t b;
    struct node *next;
} node_t;

static struct stripe {
    pthread_mutex_t lock;
    node_t **buckets;
    size_t nbuckets, count;
} stripes[STRIPES] = {[0 ... STRIPES - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}};

/* fork(): no stripe may stay locked by a thread the child does not have. */
static void fork_lock(void)
{
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_lock(&stripes[i].lock);
}

static void fork_unlock(void)
{
    for (int i = 0; i < STRIPES; i++)
        pthread_mutex_unlock(&stripes[i].lock);
}

__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

static uint64_t hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull; /* Fibonacci hashing */
    return h ^ (h >> 29);
}

static struct stripe *stripe_of(const void *p) { return &stripes[hash(p) % STRIPES]; }

static node_t **bucket(struct stripe *s, const void *p) { return &s->buckets[(hash(p) / STRIPES) % s->nbuckets]; }

/* Double the buckets when chains grow past two on average. */
static void grow(struct stripe *s)
{
    size_t n = s->nbuckets ? 2 * s->nbuckets : 64;
    node_t **old = s->buckets, **fresh = calloc(n, sizeof *fresh);
    if (!fresh)
        return; /* longer chains, still correct */
    size_t old_n = s->nbuckets;
    s->buckets = fresh;
    s->nbuckets = n;
    for (size_t i = 0; i < old_n; i++)
        for (node_t *e = old[i], *next; e; e = next) {
            next = e->next;
            node_t **b = bucket(s, e->b.ptr);
            e->next = *b;
            *b = e;
        }
    free(old);
}

bool shim_block_add(const shim_block_t *b)
{
    node_t *e = malloc(sizeof *e);
    if (!e)
        return false;
    e->b = *b;
    struct stripe *s = stripe_of(b->ptr);
    pthread_mutex_lock(&s->lock);
    if (s->count >= 2 * s->nbuckets)
        grow(s);
    bool ok = s->nbuckets > 0;
    if (ok) {
        node_t **head = bucket(s, b->ptr);
        e->next = *head;
        *head = e;
        s->count++;
    }
    pthread_mutex_unlock(&s->lock);
    if (!ok)
        free(e);
    return ok;
}

/* The link pointing at ptr's node, or NULL; under the stripe's lock. */
static node_t **link_of(struct stripe *s, const void *ptr)
{
    if (!s->nbuckets)
        return NULL;
    for (node_t **l = bucket(s, ptr); *l; l = &(*l)->next)
        if ((*l)->b.ptr == ptr)
            return l;
    return NULL;
}

static bool lookup(const void *ptr, shim_block_t *out, bool take)
{
    struct stripe *s = stripe_of(ptr);
    pthread_mutex_lock(&s->lock);
    node_t **l = link_of(s, ptr), *e = l ? *l : NULL;
    if (e) {
        *out = e->b;
        if (take) {
            *l = e->next;
            s->count--;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (e && take)
        free(e);
    return e != NULL;
}

bool shim_block_find(const void *ptr, shim_block_t *out) { return lookup(ptr, out, false); }

void shim_block_resize(const void *ptr, size_t size, size_t charge)
{
    struct stripe *s = stripe_of(ptr);
    pthread_mutex_lock(&s->lock);
    node_t **l = link_of(s, ptr);
    if (l) {
        (*l)->b.size = size;
        (*l)->b.charge = charge;
    }
    pthread_mutex_unlock(&s->lock);
}

bool shim_block_take(const void *ptr, shim_block_t *out) { return lookup(ptr, out, true); }

void shim_blocks_forget(omp_handle_t a)
{
    for (int i = 0; i < STRIPES; i++) {
        struct stripe *s = &stripes[i];
        pthread_mutex_lock(&s->lock);
        for (size_t k = 0; k < s->nbuckets; k++)
            for (node_t **l = &s->buckets[k]; *l;) {
                node_t *e = *l;
                if (e->b.made_by == a) {
                    *l = e->next;
                    s->count--;
                    free(e);
                } else {
                    l = &e->next;
                }
            }
        pthread_mutex_unlock(&s->lock);
    }
}
