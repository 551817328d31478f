/*
 * A connection to one pool of a RADOS cluster (jobstore.h): configured
 * from the target's keys, every timeout set before connecting, so that a
 * cluster that is down, a wrong conf or a missing pool each end with a
 * message saying what to fix.
 */
#include "jobstore/jobstore.h"
#include "clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jobstore {
    rados_t cluster;
    jobstore_params_t params;
    char target[16];
    rados_ioctx_t io; /* for cluster-wide questions (space); data I/O gets its own */
    _Atomic int64_t unreachable_until; /* CLOCK_MONOTONIC s: fail fast until then */
    pid_t owner;          /* the process whose librados threads serve it (not a fork child) */
    _Atomic bool shut;    /* shut down at exit: every call fails */
    struct jobstore *next; /* in `live` */
};

/* ---- shut down at exit ---------------------------------------------------
 * librados's threads must not outlive exit(), which destroys the library's
 * static objects under them: a process that connected and returned from
 * main at once (store_node resolve, `loci info` with a store configured)
 * died in 2 of 150 runs on a loaded host, of SIGSEGV or an uncaught
 * boost::bad_get, after its output. At exit every connection of this
 * process with no I/O context open is shut down; one still doing I/O
 * (another thread writing a region, a writer lock renewed) is left to the
 * process's end as before, for shutting it under that I/O would be worse. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static jobstore_t *live;
static long in_use; /* I/O contexts open and cluster calls under way, all connections (under live_lock) */

static void shut_down_at_exit(void)
{
    pthread_mutex_lock(&live_lock);
    for (jobstore_t *rp = live; rp && in_use == 0; rp = rp->next)
        if (rp->owner == getpid() && !rp->shut) { /* (a fork child's copies have no threads to stop) */
            rados_ioctx_destroy(rp->io);
            rados_shutdown(rp->cluster);
            rp->shut = true;
        }
    pthread_mutex_unlock(&live_lock);
}

/* A fork child's list holds its parent's connections (skipped at its exit);
 * the lock may have been held by a parent thread at the fork. */
static void unlock_in_child(void) { pthread_mutex_init(&live_lock, NULL); }

static void watch_exit(void)
{
    atexit(shut_down_at_exit);
    pthread_atfork(NULL, NULL, unlock_in_child);
}

static void go_live(jobstore_t *rp)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_exit);
    pthread_mutex_lock(&live_lock);
    rp->owner = getpid();
    rp->next = live;
    live = rp;
    pthread_mutex_unlock(&live_lock);
}

/* Out of `live`; true when it was shut down at exit already. */
static bool leave_live(jobstore_t *rp)
{
    pthread_mutex_lock(&live_lock);
    for (jobstore_t **at = &live; *at; at = &(*at)->next)
        if (*at == rp) {
            *at = rp->next;
            break;
        }
    bool shut = rp->shut;
    pthread_mutex_unlock(&live_lock);
    return shut;
}

static int refuse_shut(const jobstore_t *rp, const char *what)
{
    return loci__fail(LOCI_EIO, "%s: %s: the process is exiting and its connection to the cluster of %s was shut "
                                "down", rp->target, what, rp->params.conf);
}

/* A use of rp's cluster begins (an I/O context, a question to the
 * monitors): the exit keeps the connection until its end. 0, or
 * refuse_shut. */
static int begin_use(jobstore_t *rp, const char *what)
{
    pthread_mutex_lock(&live_lock);
    bool shut = rp->shut;
    in_use += !shut;
    pthread_mutex_unlock(&live_lock);
    return shut ? refuse_shut(rp, what) : 0;
}

static void end_use(void)
{
    pthread_mutex_lock(&live_lock);
    in_use--;
    pthread_mutex_unlock(&live_lock);
}

int jobstore_check(jobstore_t *rp, const char *what)
{
    if (rp->shut)
        return refuse_shut(rp, what);
    int64_t until = atomic_load(&rp->unreachable_until);
    if (!until || (int64_t)clock_mono_s() >= until)
        return 0;
    return loci__fail(LOCI_EIO, "%s: %s: the cluster of %s (pool %s) did not answer within %u s moments ago; not "
                                "waiting again before %lld s have passed", rp->target, what, rp->params.conf,
                      rp->params.pool, rp->params.timeout_s, (long long)(until - (int64_t)clock_mono_s()));
}

const jobstore_params_t *jobstore_params(const jobstore_t *rp) { return &rp->params; }
const char *jobstore_target(const jobstore_t *rp) { return rp->target; }

static int errno_code(int err)
{
    switch (-err) {
    case ENOSPC: case EDQUOT: return LOCI_ENOSPC;
    case ENOENT: return LOCI_ENOENT;
    case EBUSY: return LOCI_EBUSY;
    case EEXIST: return LOCI_EEXIST;
    case EPERM: case EACCES: return LOCI_EPERM;
    default: return LOCI_EIO;
    }
}

int jobstore_fail(jobstore_t *rp, int err, const char *what)
{
    if (err == -ETIMEDOUT)
        atomic_store(&rp->unreachable_until, (int64_t)clock_mono_s() + rp->params.timeout_s);
    const char *hint = err == -ETIMEDOUT ? " (no answer within the target's timeout: is the cluster up and "
                                           "reachable from this node?)"
                       : err == -ENOSPC || err == -EDQUOT ? " (the pool is full or at its quota: free space or "
                                                            "raise the quota with 'ceph osd pool set-quota')"
                                                          : "";
    return loci__fail(errno_code(err), "%s: %s on %s (pool %s, %s): %s%s", rp->target, what, rp->target,
                      rp->params.pool, rp->params.conf, strerror(-err), hint);
}

static int set_conf(rados_t c, const char *key, const char *value, const jobstore_params_t *p, const char *target)
{
    int rc = rados_conf_set(c, key, value);
    return rc == 0 ? 0
                   : loci__fail(LOCI_ECONFIG, "%s: librados refuses %s = %s (%s) for %s", target, key, value,
                                strerror(-rc), p->conf);
}

/* The conf must be a readable regular file: librados reads what it can and
 * says nothing useful about a typo in the path. */
static int check_conf(const jobstore_params_t *p, const char *target)
{
    if (access(p->conf, R_OK) != 0)
        return loci__fail(LOCI_ECONFIG, "[target %s] conf = %s: %s; give the ceph.conf of the cluster (e.g. "
                                        "/etc/ceph/ceph.conf, or DIR/ceph.conf of scripts/store-cluster.sh)",
                          target, p->conf, strerror(errno));
    return 0;
}

static int configure(rados_t c, const jobstore_params_t *p, const char *target)
{
    int rc = rados_conf_read_file(c, p->conf);
    if (rc < 0)
        return loci__fail(LOCI_ECONFIG, "[target %s] conf = %s: librados cannot read it (%s)", target, p->conf,
                          strerror(-rc));
    char t[16];
    snprintf(t, sizeof t, "%u", p->timeout_s);
    /* The timeouts bound every call, whatever the site's conf says. */
    if ((rc = set_conf(c, "client_mount_timeout", t, p, target)) || (rc = set_conf(c, "rados_mon_op_timeout", t, p, target)) ||
        (rc = set_conf(c, "rados_osd_op_timeout", t, p, target)))
        return rc;
    if (p->keyring[0] && (rc = set_conf(c, "keyring", p->keyring, p, target)))
        return rc;
    /* librados logs to stderr by default: loci reports errors itself. */
    (void)rados_conf_set(c, "log_to_stderr", "false");
    (void)rados_conf_set(c, "err_to_stderr", "false");
    (void)rados_conf_set(c, "log_file", "");
    return 0;
}

int jobstore_connect(const jobstore_params_t *p, const char *target, jobstore_t **out)
{
    int rc = check_conf(p, target);
    if (rc)
        return rc;
    jobstore_t *rp = calloc(1, sizeof *rp);
    if (!rp)
        return loci__fail(LOCI_ENOMEM, "out of memory connecting to %s", target);
    rp->params = *p;
    if (!rp->params.timeout_s)
        rp->params.timeout_s = 30;
    if (!rp->params.lock_ttl_s)
        rp->params.lock_ttl_s = 30;
    snprintf(rp->target, sizeof rp->target, "%s", target);
    rc = rados_create(&rp->cluster, p->user[0] ? p->user : NULL);
    if (rc < 0) {
        free(rp);
        return loci__fail(LOCI_EIO, "%s: rados_create(%s): %s", target, p->user[0] ? p->user : "admin", strerror(-rc));
    }
    if ((rc = configure(rp->cluster, &rp->params, target)) != 0)
        goto fail;
    if ((rc = rados_connect(rp->cluster)) < 0) {
        rc = loci__fail(rc == -EPERM || rc == -EACCES ? LOCI_EPERM : LOCI_EIO,
                        "%s: cannot connect to the cluster of %s: %s%s", target, p->conf, strerror(-rc),
                        rc == -ETIMEDOUT || rc == -EINTR ? " (no monitor answered within the timeout: is it up and "
                                                           "reachable from this node?)"
                        : rc == -EPERM || rc == -EACCES ? " (check user and keyring)"
                                                         : "");
        goto fail;
    }
    if ((rc = rados_ioctx_create(rp->cluster, p->pool, &rp->io)) < 0) {
        rc = rc == -ENOENT ? loci__fail(LOCI_ENOENT, "%s: the cluster of %s has no pool '%s'; create it with "
                                                     "'ceph osd pool create %s' (or fix pool = in LOCI_CONFIG)",
                                        target, p->conf, p->pool, p->pool)
                           : jobstore_fail(rp, rc, "opening the pool");
        goto fail;
    }
    rados_ioctx_set_namespace(rp->io, p->ns[0] ? p->ns : NULL);
    go_live(rp);
    *out = rp;
    return 0;
fail:
    rados_shutdown(rp->cluster);
    free(rp);
    return rc;
}

void jobstore_disconnect(jobstore_t *rp)
{
    if (!rp)
        return;
    if (!leave_live(rp)) {
        rados_ioctx_destroy(rp->io);
        rados_shutdown(rp->cluster);
    }
    free(rp);
}

rados_ioctx_t jobstore_ioctx(jobstore_t *rp)
{
    rados_ioctx_t io;
    if (begin_use(rp, "opening an I/O context") != 0) /* (ends at jobstore_ioctx_close) */
        return NULL;
    int rc = rados_ioctx_create(rp->cluster, rp->params.pool, &io);
    if (rc < 0) {
        end_use();
        jobstore_fail(rp, rc, "opening an I/O context");
        return NULL;
    }
    rados_ioctx_set_namespace(io, rp->params.ns[0] ? rp->params.ns : NULL);
    /* A full pool answers ENOSPC/EDQUOT at once (locks and xattrs included)
     * instead of holding every write until space comes back. */
    rados_set_pool_full_try(io);
    return io;
}

void jobstore_ioctx_close(rados_ioctx_t io)
{
    if (!io)
        return;
    rados_ioctx_destroy(io);
    end_use();
}

/* The pool's replication factor, from the monitor ("size" of the pool). */
static unsigned pool_size(jobstore_t *rp)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "{\"prefix\": \"osd pool get\", \"pool\": \"%s\", \"var\": \"size\", \"format\": \"json\"}",
             rp->params.pool);
    const char *cmds[] = {cmd};
    char *out = NULL, *status = NULL;
    size_t outlen = 0, statuslen = 0;
    unsigned size = 1;
    if (rados_mon_command(rp->cluster, cmds, 1, "", 0, &out, &outlen, &status, &statuslen) == 0 && out) {
        const char *s = strstr(out, "\"size\":");
        if (s && sscanf(s + 7, "%u", &size) != 1)
            size = 1;
    }
    rados_buffer_free(out);
    rados_buffer_free(status);
    return size ? size : 1;
}

int jobstore_space(jobstore_t *rp, uint64_t *capacity, uint64_t *available)
{
    struct rados_cluster_stat_t st;
    int rc = begin_use(rp, "asking the cluster for its space");
    if (rc != 0)
        return rc;
    rc = rados_cluster_stat(rp->cluster, &st);
    unsigned replicas = rc == 0 && st.kb ? pool_size(rp) : 1;
    end_use();
    if (rc < 0)
        return jobstore_fail(rp, rc, "asking the cluster for its space");
    if (st.kb == 0) /* no manager reports usage: unknown, not empty */
        return loci__fail(LOCI_EIO, "%s: the cluster reports no space figures (is a ceph-mgr running?)", rp->target);
    *capacity = st.kb * 1024 / replicas;
    *available = st.kb_avail * 1024 / replicas;
    return 0;
}
