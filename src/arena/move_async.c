/*
 * Asynchronous arena moves (SICM's stated future work): the move runs on a
 * thread of its own while the caller goes on; allocations in the arena wait
 * for it as for any move. What is refused up front (arguments, a shared
 * arena, an impossible pair of targets) is refused at once; everything else
 * is reported by loci_arena_move_wait, message included.
 */
#include "arena/arena.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loci_arena_move {
    loci_arena_t *ar;
    const struct loci_target *dst;
    pthread_t thread;
    _Atomic int done;
    int rc;
    char why[1024]; /* the worker's loci_last_error(), handed to the waiter */
};

static void *run(void *arg)
{
    loci_arena_move_request_t *m = arg;
    loci_arena_t *ar = m->ar;
    m->rc = arena_move(ar, m->dst, false); /* the program asked for it */
    if (m->rc != 0)
        snprintf(m->why, sizeof m->why, "%s", loci_last_error());
    /* the arena may be destroyed as soon as this is seen */
    pthread_mutex_lock(&ar->async_lock);
    if (--ar->async_pending == 0)
        pthread_cond_broadcast(&ar->async_done);
    pthread_mutex_unlock(&ar->async_lock);
    atomic_store_explicit(&m->done, 1, memory_order_release);
    return NULL;
}

loci_arena_move_request_t *loci_arena_move_async(loci_arena_t *ar, const loci_target_t *dst)
{
    int rc = arena_move_check(ar, dst);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    loci_arena_move_request_t *m = calloc(1, sizeof *m);
    if (!m)
        return loci__fail_null(LOCI_ENOMEM, "out of memory starting an arena move");
    m->ar = ar;
    m->dst = dst;
    pthread_mutex_lock(&ar->async_lock);
    ar->async_pending++;
    pthread_mutex_unlock(&ar->async_lock);
    int e = pthread_create(&m->thread, NULL, run, m);
    if (e == 0)
        return m;
    pthread_mutex_lock(&ar->async_lock);
    if (--ar->async_pending == 0)
        pthread_cond_broadcast(&ar->async_done);
    pthread_mutex_unlock(&ar->async_lock);
    free(m);
    return loci__fail_null(LOCI_ENOMEM, "cannot start a thread for the arena move: %s", strerror(e));
}

int loci_arena_move_done(const loci_arena_move_request_t *m)
{
    if (!m)
        return loci__fail(LOCI_EINVAL, "loci_arena_move_done: NULL move");
    return atomic_load_explicit(&m->done, memory_order_acquire);
}

int loci_arena_move_wait(loci_arena_move_request_t *m)
{
    if (!m)
        return loci__fail(LOCI_EINVAL, "loci_arena_move_wait: NULL move");
    pthread_join(m->thread, NULL);
    int rc = m->rc;
    if (rc != 0)
        loci__fail(rc, "%s", m->why);
    free(m);
    return rc;
}

void arena_async_drain(loci_arena_t *ar)
{
    pthread_mutex_lock(&ar->async_lock);
    while (ar->async_pending)
        pthread_cond_wait(&ar->async_done, &ar->async_lock);
    pthread_mutex_unlock(&ar->async_lock);
}
