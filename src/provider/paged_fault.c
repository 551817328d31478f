/*
 * The process's userfaultfd and the threads that serve its faults. Opened on
 * first use. Four threads poll it and each serves the faults it reads, so
 * that one slow store read does not hold up the faults of other chunks (they
 * mostly wait for the store, so more of them than CPUs keeps the store busy). Between faults they fill the chunks the cache asked to
 * read ahead (a small queue, counted by an eventfd), so that a sequential
 * reader finds its next chunks read, or being read, in parallel. The threads
 * never touch paged memory themselves: every access to it goes through the
 * kernel (UFFDIO_COPY, O_DIRECT writes).
 *
 * fork(): the child has neither descriptor nor threads, nor the paged memory
 * (mapped MADV_DONTFORK); it starts afresh on its first paged allocation.
 */
#include "provider/paged.h"
#include "provider/vm.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define THREADS 4
#define MAX_QUEUED 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int uffd = -1;
static int queued_fd = -1; /* eventfd (semaphore): one count per queued readahead */
static bool user_only;
static int nthreads;
static pthread_t threads[THREADS];
/* The check for unrestricted access, made once: 1 = fine, else the LOCI_E*. */
static int access_rc;
static char access_why[512];

/* The readahead queue: a ring of (region, chunk), each region held. */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    paged_region_t *region;
    uint64_t chunk;
} queue[MAX_QUEUED];
static unsigned queue_head, queue_len;

void paged_readahead(paged_region_t *r, uint64_t chunk)
{
    pthread_mutex_lock(&queue_lock);
    bool known = queue_len == MAX_QUEUED;
    for (unsigned i = 0; i < queue_len && !known; i++)
        known = queue[(queue_head + i) % MAX_QUEUED].region == r && queue[(queue_head + i) % MAX_QUEUED].chunk == chunk;
    if (!known) {
        paged_region_hold(r);
        queue[(queue_head + queue_len++) % MAX_QUEUED].region = r;
        queue[(queue_head + queue_len - 1) % MAX_QUEUED].chunk = chunk;
        uint64_t one = 1;
        if (write(queued_fd, &one, sizeof one) != (ssize_t)sizeof one)
            loci__log(LOCI_LOG_WARN, "mode=paged: eventfd: %s", strerror(errno));
    }
    pthread_mutex_unlock(&queue_lock);
}

/* One queued readahead, if the eventfd gives this thread one. */
static void read_ahead(int efd)
{
    uint64_t one;
    if (read(efd, &one, sizeof one) != (ssize_t)sizeof one)
        return; /* another thread took it */
    pthread_mutex_lock(&queue_lock);
    paged_region_t *r = queue_len ? queue[queue_head].region : NULL;
    uint64_t chunk = r ? queue[queue_head].chunk : 0;
    if (r) {
        queue_head = (queue_head + 1) % MAX_QUEUED;
        queue_len--;
    }
    pthread_mutex_unlock(&queue_lock);
    if (r) {
        cache_readahead(r, chunk);
        paged_region_put(r);
    }
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg, efd = queued_fd;
    size_t page = vm_page_size();
    struct pollfd p[2] = {{fd, POLLIN, 0}, {efd, POLLIN, 0}};
    for (;;) {
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        uffd_fault_t f;
        int n;
        while ((n = uffd_read(fd, &f)) == 1) {
            paged_region_t *r = paged_region_get(f.addr);
            if (r) {
                cache_fault(r, &f);
                paged_region_put(r);
            } else { /* its region went away meanwhile */
                uffd_wake(fd, (void *)(f.addr & ~(uintptr_t)(page - 1)), page);
            }
        }
        if (n < 0)
            break;
        if (p[1].revents & POLLIN) /* faults first: one readahead, then look again */
            read_ahead(efd);
    }
    loci__log(LOCI_LOG_ERROR, "mode=paged: a fault-handling thread stops: %s", loci_last_error());
    return NULL;
}

static void reset_in_child(void)
{
    pthread_mutex_init(&lock, NULL);
    if (uffd >= 0)
        close(uffd); /* the parent's: it serves the parent's memory */
    if (queued_fd >= 0)
        close(queued_fd);
    uffd = queued_fd = -1;
    pthread_mutex_init(&queue_lock, NULL);
    queue_len = 0; /* the regions queued are the parent's */
    nthreads = 0;
    access_rc = 0; /* the child may run as another user: check again */
}

static void start_threads(int fd)
{
    /* Signals go to the application's threads, never to these. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (nthreads < THREADS && pthread_create(&threads[nthreads], NULL, serve, (void *)(intptr_t)fd) == 0) {
        pthread_detach(threads[nthreads]);
        nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void watch_forks(void) { pthread_atfork(NULL, NULL, reset_in_child); }

static void lock_state(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_forks);
    pthread_mutex_lock(&lock);
}

int paged_uffd(bool forced)
{
    lock_state();
    int rc = uffd;
    if (rc < 0 && (rc = uffd_open(forced, &user_only)) >= 0)
        uffd = rc;
    if (rc >= 0 && queued_fd < 0 && (queued_fd = eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
        rc = loci__fail(LOCI_ENOMEM, "mode=paged: eventfd: %s", strerror(errno));
    if (rc >= 0 && nthreads == 0) {
        start_threads(rc);
        if (nthreads == 0)
            rc = loci__fail(LOCI_ENOMEM, "mode=paged: cannot start a fault-handling thread: %s", strerror(errno));
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int paged_check_access(const char **why)
{
    lock_state();
    if (access_rc == 0) {
        int fd = uffd;
        if (fd < 0 || user_only) { /* not tried yet, or only a user-mode one was had */
            bool only;
            fd = uffd_open(false, &only);
            if (fd >= 0 && uffd < 0)
                uffd = fd; /* keep it: the first paged allocation comes next */
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
