/*
 * The process's userfaultfd and the threads that serve it. Opened on first
 * use. Four threads poll it and each serves the faults it reads, so that one
 * slow store read does not hold up the faults of other chunks; four more fill
 * the chunks the cache asks to read ahead (readahead_queue.c), so that a
 * sequential reader finds its next chunks read, or being read, in parallel.
 * They mostly wait for the store: more of them than CPUs keeps several reads
 * in flight. None of them touches paged memory: every access to it goes
 * through the kernel (UFFDIO_COPY, O_DIRECT writes).
 *
 * fork(): the child has neither descriptor nor threads, nor the paged memory
 * (mapped MADV_DONTFORK); it starts afresh on its first paged allocation.
 */
#include "paged/paged_internal.h"
#include "os/vm.h"
#include "thread.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FAULT_THREADS 4
#define READAHEAD_THREADS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int uffd = -1;
static bool user_only;
static _Atomic bool can_move;  /* the descriptor moves pages (UFFDIO_MOVE) */
static _Atomic bool can_share; /* it serves shared memory (uffd_caps_t.shared) */
static int nthreads; /* started, of FAULT_THREADS + READAHEAD_THREADS */
/* The check for unrestricted access, made once: 1 = fine, else the LOCI_E*. */
static int access_rc;
static char access_why[512];

/* Each readahead thread takes the queue's next batch and reads it at once
 * (cache_readahead). */
static void *read_ahead(void *arg)
{
    for (;;) {
        uint64_t chunk;
        unsigned n, epoch;
        paged_region_t *r = readahead_queue_take(&chunk, &n, &epoch);
        cache_readahead(r, chunk, n, epoch);
        paged_region_put(r);
    }
    return NULL;
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    size_t page = vm_page_size();
    struct pollfd p = {fd, POLLIN, 0};
    for (;;) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            break;
        uffd_fault_t f;
        int n;
        for (;;) {
            uint64_t stamp = cache_install_stamp(); /* before the read: see stale_faults.c */
            if ((n = uffd_read(fd, &f)) != 1)
                break;
            paged_region_t *r = paged_region_get(f.addr);
            if (r) {
                cache_fault(r, &f, stamp);
                paged_region_put(r);
            } else { /* its region went away meanwhile */
                uffd_wake(fd, (void *)(f.addr & ~(uintptr_t)(page - 1)), page);
            }
        }
        if (n < 0)
            break;
    }
    loci__log(LOCI_LOG_ERROR, "mode=paged: a fault-handling thread stops: %s", loci_last_error());
    return NULL;
}

static void reset_in_child(void)
{
    pthread_mutex_init(&lock, NULL);
    if (uffd >= 0)
        close(uffd); /* the parent's: it serves the parent's memory */
    uffd = -1;
    nthreads = 0;
    access_rc = 0; /* the child may run as another user: check again */
}

static void start_threads(int fd)
{
    for (pthread_t t; nthreads < FAULT_THREADS + READAHEAD_THREADS; nthreads++) {
        if (thread_start_quiet(&t, nthreads < FAULT_THREADS ? serve : read_ahead, (void *)(intptr_t)fd) != 0)
            break;
        pthread_detach(t);
    }
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

static void lock_state(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    pthread_mutex_lock(&lock);
}

/* The process's descriptor from now on, and what it can do (state lock held). */
static void keep(int fd, const uffd_caps_t *caps)
{
    uffd = fd;
    user_only = caps->user_only;
    atomic_store(&can_move, caps->move);
    atomic_store(&can_share, caps->shared);
}

int paged_uffd(bool forced)
{
    lock_state();
    int rc = uffd;
    uffd_caps_t caps;
    if (rc < 0 && (rc = uffd_open(forced, &caps)) >= 0)
        keep(rc, &caps);
    if (rc >= 0 && nthreads < FAULT_THREADS + READAHEAD_THREADS) {
        start_threads(rc);
        if (nthreads <= FAULT_THREADS) /* no fault thread, or no readahead one */
            rc = loci__fail(LOCI_ENOMEM, "mode=paged: cannot start the fault-handling threads: %s", strerror(errno));
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

bool paged_uffd_moves(void) { return atomic_load(&can_move); }

bool paged_uffd_shares(void) { return atomic_load(&can_share); }

int paged_check_access(const char **why)
{
    lock_state();
    if (access_rc == 0) {
        int fd = uffd;
        if (fd < 0 || user_only) { /* not tried yet, or only a user-mode one was had */
            uffd_caps_t caps;
            fd = uffd_open(false, &caps);
            if (fd >= 0 && uffd < 0)
                keep(fd, &caps); /* the first paged allocation comes next */
            else if (fd >= 0)
                close(fd);
        }
        access_rc = fd >= 0 ? 1 : fd;
        if (fd < 0)
            snprintf(access_why, sizeof access_why, "%s", loci_last_error());
    }
    int rc = access_rc == 1 ? 0 : access_rc;
    pthread_mutex_unlock(&lock);
    *why = access_why;
    return rc;
}
