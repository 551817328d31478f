/*
 * Locks on store objects that a dead holder cannot keep (jobstore.h):
 * RADOS advisory locks (cls_lock) taken for lock_ttl seconds and renewed by
 * one background thread every third of that while held. A process killed
 * on any node stops renewing, and its lock expires — never held forever.
 */
#include "jobstore/jobstore.h"
#include "random_id.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define LOCK_NAME "loci"
#define READERS_TAG "loci-readers"

typedef struct held {
    rados_ioctx_t io;
    char oid[512], cookie[40], what[160];
    bool exclusive;
    unsigned ttl_s;
    struct held *next;
} held_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static held_t *held;
static bool renewer_running;

/* A child of fork() holds none of its parent's locks and has no renewer:
 * it starts with an empty list (the parent's entries are left, unreachable). */
static void reset_in_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&wake, NULL);
    held = NULL;
    renewer_running = false;
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

static int take(const held_t *h, uint8_t flags)
{
    struct timeval ttl = {.tv_sec = h->ttl_s};
    return h->exclusive ? rados_lock_exclusive(h->io, h->oid, LOCK_NAME, h->cookie, h->what, &ttl, flags)
                        : rados_lock_shared(h->io, h->oid, LOCK_NAME, h->cookie, READERS_TAG, h->what, &ttl, flags);
}

/* Renew every held lock a third of its time-to-live before it runs out. */
static void *renewer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (held) {
        unsigned period = held->ttl_s / 3 ? held->ttl_s / 3 : 1;
        for (held_t *h = held; h; h = h->next)
            if (h->ttl_s / 3 && h->ttl_s / 3 < period)
                period = h->ttl_s / 3;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += period;
        if (pthread_cond_timedwait(&wake, &lock, &until) != ETIMEDOUT)
            continue;
        /* MUST_RENEW: a renewal never takes the lock anew. One that reaches the OSD
         * late — queued in the kernel while this node was cut off, delivered once the
         * link is back, perhaps after this process died — must not bring back a lock
         * that expired meanwhile. */
        for (held_t *h = held; h; h = h->next) {
            int rc = take(h, LIBRADOS_LOCK_FLAG_MUST_RENEW);
            if (rc < 0) /* it may be someone else's by now: say so, loudly */
                loci__log(LOCI_LOG_ERROR, "%s: renewing its %s lock failed (%s): another process may take it",
                          h->what, h->exclusive ? "writer" : "reader", strerror(-rc));
        }
    }
    renewer_running = false;
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Who holds the lock now, for the message of a refusal. */
static void describe_holder(rados_ioctx_t io, const char *oid, char *buf, size_t len)
{
    int exclusive = 0;
    char tag[64], clients[512], cookies[512], addrs[512];
    size_t tag_len = sizeof tag, clients_len = sizeof clients, cookies_len = sizeof cookies,
           addrs_len = sizeof addrs;
    ssize_t n = rados_list_lockers(io, oid, LOCK_NAME, &exclusive, tag, &tag_len, clients, &clients_len, cookies,
                                   &cookies_len, addrs, &addrs_len);
    if (n > 0)
        snprintf(buf, len, "%s held by %s at %s%s", exclusive ? "a writer's lock" : "readers' locks", clients, addrs,
                 n > 1 ? " and others" : "");
    else
        snprintf(buf, len, "a lock");
}

int jobstore_lock_take(jobstore_t *rp, rados_ioctx_t io, const char *oid, bool exclusive, const char *what)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    held_t *h = calloc(1, sizeof *h);
    if (!h)
        return loci__fail(LOCI_ENOMEM, "out of memory locking %s", what);
    uint64_t r[2] = {random_id(), random_id()};
    h->io = io;
    h->exclusive = exclusive;
    h->ttl_s = jobstore_params(rp)->lock_ttl_s;
    snprintf(h->oid, sizeof h->oid, "%s", oid);
    snprintf(h->cookie, sizeof h->cookie, "%016llx%016llx", (unsigned long long)r[0], (unsigned long long)r[1]);
    snprintf(h->what, sizeof h->what, "%s", what);
    int rc = take(h, 0);
    if (rc == -EBUSY || rc == -EEXIST) {
        char holder[1600];
        describe_holder(io, oid, holder, sizeof holder);
        free(h);
        return loci__fail(LOCI_EBUSY, "%s is %s; %s (a lock of a process that died expires after %u s)", what,
                          exclusive ? "open for writing or reading elsewhere" : "open for writing elsewhere", holder,
                          jobstore_params(rp)->lock_ttl_s);
    }
    if (!exclusive && (rc == -ENOSPC || rc == -EDQUOT)) {
        /* A full pool takes no lock: nobody can write it either, so read. */
        loci__log(LOCI_LOG_WARN, "%s: opened for reading without a reader's lock: the pool is full", what);
        free(h);
        return 0;
    }
    if (rc < 0) {
        free(h);
        return jobstore_fail(rp, rc, "taking a lock");
    }
    pthread_mutex_lock(&lock);
    h->next = held;
    held = h;
    if (!renewer_running) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        renewer_running = pthread_create(&t, &attr, renewer, NULL) == 0;
        pthread_attr_destroy(&attr);
        if (!renewer_running)
            loci__log(LOCI_LOG_WARN, "%s: no thread to renew its lock: it expires after %u s", what, h->ttl_s);
    }
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    return 0;
}

void jobstore_lock_release(rados_ioctx_t io, const char *oid)
{
    pthread_mutex_lock(&lock);
    held_t *h = NULL;
    for (held_t **p = &held; *p; p = &(*p)->next)
        if ((*p)->io == io && strcmp((*p)->oid, oid) == 0) {
            h = *p;
            *p = h->next;
            break;
        }
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    if (!h)
        return;
    int rc = rados_unlock(io, oid, LOCK_NAME, h->cookie);
    if (rc < 0 && rc != -ENOENT)
        loci__log(LOCI_LOG_WARN, "%s: releasing its lock: %s (it expires after %u s)", h->what, strerror(-rc), h->ttl_s);
    free(h);
}
