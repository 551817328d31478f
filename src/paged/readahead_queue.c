/*
 * The readahead queue: chunks the cache asks to read ahead for a sequential
 * reader, waiting for a readahead thread (paged_fault.c). A small ring of
 * (region, chunk, epoch), each region held while queued. It sits below both:
 * the cache adds to it and the threads above take from it, so the cache never
 * calls up into the threads that call it.
 */
#include "paged/paged_internal.h"

#include <pthread.h>

#define MAX_QUEUED 64

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static struct {
    paged_region_t *region;
    uint64_t chunk;
    unsigned epoch;
} queue[MAX_QUEUED];
static unsigned queue_head, queue_len;

/* A child of fork() has no readahead thread, nor the regions queued (the parent's). */
static void reset_in_child(void)
{
    pthread_mutex_init(&queue_lock, NULL);
    pthread_cond_init(&queued, NULL);
    queue_len = 0;
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

/* The queue's lock, its reset in a child registered before the queue is first used. */
static void lock_queue(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    pthread_mutex_lock(&queue_lock);
}

void readahead_queue_add(paged_region_t *r, uint64_t chunk)
{
    lock_queue();
    bool skip = queue_len == MAX_QUEUED; /* full, or asked already */
    for (unsigned i = 0; i < queue_len && !skip; i++) {
        unsigned at = (queue_head + i) % MAX_QUEUED;
        skip = queue[at].region == r && queue[at].chunk == chunk;
    }
    if (!skip) {
        unsigned at = (queue_head + queue_len++) % MAX_QUEUED;
        queue[at].region = r;
        queue[at].chunk = chunk;
        queue[at].epoch = r->epoch;
        paged_region_hold(r);
        pthread_cond_signal(&queued);
    }
    pthread_mutex_unlock(&queue_lock);
}

paged_region_t *readahead_queue_take(uint64_t *chunk, unsigned *n, unsigned *epoch)
{
    lock_queue();
    while (queue_len == 0)
        pthread_cond_wait(&queued, &queue_lock);
    paged_region_t *r = queue[queue_head].region;
    *chunk = queue[queue_head].chunk;
    *epoch = queue[queue_head].epoch;
    *n = 0;
    do {
        queue_head = (queue_head + 1) % MAX_QUEUED;
        queue_len--;
        (*n)++;
    } while (queue_len > 0 && *n < r->cache->batch && !unit_start(r->cache, *chunk + *n) &&
             queue[queue_head].region == r && queue[queue_head].chunk == *chunk + *n &&
             queue[queue_head].epoch == *epoch);
    pthread_mutex_unlock(&queue_lock);
    for (unsigned i = 1; i < *n; i++) /* each entry held r: one hold is enough */
        paged_region_put(r);
    return r;
}
