/*
 * Level 2 of checkpoints: the drain to the job's store (docs/CHECKPOINT.md).
 * With `[checkpoint] drain = TARGET` in LOCI_CONFIG, loci_ckpt_save writes
 * level 1 (the node's checkpoint directory) and returns; a background
 * thread then copies the checkpoint's chunks that the store does not hold
 * yet to objects "loci-ckpt/chunks/<pool id>" (pool ids are never reused
 * for other bytes: a chunk drained once is never sent again) and LAST puts
 * the manifest, as object "loci-ckpt/<name>". A crash at any point leaves
 * level 2 as it was, plus chunk objects no manifest names yet: only whole
 * checkpoints are visible there. The next process drains what is pending.
 */
#include "ckpt/ckpt.h"
#include "jobstore/jobstore.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUEUE_MAX 64

typedef enum { QUEUED, DRAINING, DONE } job_state_t;

typedef struct {
    char name[NVM_NAME_MAX + 1]; /* unique in the queue */
    job_state_t state;
    bool again;  /* saved again while DRAINING: drain once more */
    int result;  /* DONE: 0, or LOCI_E* */
    uint64_t done; /* DRAINING: chunk bytes in the store so far */
} job_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static job_t jobs[QUEUE_MAX];
static size_t njobs;
static bool running;

/* Chunk i of v (a pool file of d) into the job store, unless it is there. */
static int drain_chunk(const ckpt_dir_t *d, struct jobstore *rp, const ckpt_var_t *v, uint64_t i,
                       unsigned char *buf, uint64_t *sent)
{
    char oid[64], id[17];
    ckpt_id_name(v->chunks[i].id, id);
    snprintf(oid, sizeof oid, CKPT_STORE_CHUNKS "%s", id);
    int rc = jobstore_object_exists(rp, oid);
    if (rc == 0)
        return 0;
    if (rc != LOCI_ENOENT)
        return rc;
    int fd = openat(d->pool, id, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return loci__fail(LOCI_ENOENT, "%s/chunks/%s: %s", d->path, id, strerror(errno));
    ssize_t got = pread(fd, buf, v->chunk, 0); /* a chunk is at most that */
    close(fd);
    if (got < 0)
        return loci__fail(LOCI_EIO, "%s/chunks/%s: %s", d->path, id, strerror(errno));
    /* what goes to the store is what the manifest says: a bad chunk stops here */
    if (!ckpt_sum_equal(XXH3_128bits(buf, (size_t)got), v->chunks[i].sum))
        return loci__fail(LOCI_EIO, "%s/chunks/%s fails its checksum: not drained", d->path, id);
    if ((rc = jobstore_object_put(rp, oid, buf, (size_t)got)) == 0)
        *sent += (uint64_t)got;
    return rc;
}

/* Drain checkpoint `name` of the directory to `target` now: its chunks the
 * store lacks (*sent counts their bytes), then its manifest. */
static int ckpt_drain_now(const char *name, const char *target, uint64_t *sent)
{
    struct jobstore *rp = ckpt_target_pool(target);
    if (!rp)
        return ckpt_fail_in(LOCI_EIO, "checkpoint \"%s\" not drained", name);
    ckpt_guard_t *guard; /* no GC removes a chunk found below before the manifest names it */
    int rc = ckpt_store_guard(rp, false, &guard);
    if (rc != 0)
        return ckpt_fail_in(rc, "checkpoint \"%s\" not drained", name);
    ckpt_dir_t d;
    if ((rc = ckpt_dir_open(&d, false, false)) != 0) {
        ckpt_store_unguard(guard);
        return rc;
    }
    ckpt_manifest_t m = {0}, there;
    unsigned char *buf = malloc(CKPT_CHUNK);
    rc = buf ? ckpt_manifest_read(d.fd, name, &m) : loci__fail(LOCI_ENOMEM, "out of memory draining");
    /* Saves go on meanwhile: pool files never change, and one that a GC
     * removes (its checkpoint replaced) ends this drain; the save that
     * replaced it queued its own. */
    flock(d.fd, LOCK_UN);
    bool before = false; /* drained before (or whole there at its save) */
    if (rc == 0 && ckpt_store_manifest_get(rp, name, &there) == 0) {
        before = ckpt_sum_equal(there.sum, m.sum);
        ckpt_manifest_free(&there);
    }
    uint64_t total = rc == 0 ? ckpt_stored_bytes(&m, false) : 0, done = 0;
    for (size_t k = 0; rc == 0 && !before && k < m.nvars; k++) {
        unsigned char *bigger = m.vars[k].chunk > CKPT_CHUNK ? realloc(buf, m.vars[k].chunk) : buf;
        if (!bigger)
            rc = loci__fail(LOCI_ENOMEM, "out of memory draining");
        else
            buf = bigger;
        for (uint64_t i = 0; rc == 0 && !m.vars[k].snap && i < m.vars[k].nchunks; i++) {
            if (m.vars[k].chunks[i].id == CKPT_ZERO)
                continue;
            if ((rc = drain_chunk(&d, rp, &m.vars[k], i, buf, sent)) != 0)
                rc = ckpt_fail_in(rc, "checkpoint \"%s\" not drained to %s: variable \"%s\", chunk %llu", name,
                                  target, m.vars[k].name, (unsigned long long)i);
            else
                ckpt_progress(name, "drain", done += ckpt_chunk_len(&m.vars[k], i), total);
        }
    }
    char *text = NULL;
    size_t len;
    if (rc == 0 && !before && (rc = ckpt_manifest_text(&m, &text, &len)) == 0) /* last: whole at level 2 now */
        rc = ckpt_store_manifest_put_to(rp, name, text, len);
    free(text);
    /* The store's record that this node held it at level 1 only goes, unless
     * a save replaced it meanwhile: the directory's lock keeps saves out
     * between the look at the record and its removal. */
    if (rc == 0 && flock(d.fd, LOCK_SH) == 0)
        rc = ckpt_level1_forget(&d, &m, rp);
    ckpt_manifest_free(&m);
    ckpt_dir_close(&d);
    ckpt_store_unguard(guard);
    free(buf);
    return rc;
}

/* ---- the background drain --------------------------------------------------- */

static job_t *find(const char *name)
{
    for (size_t j = 0; j < njobs; j++)
        if (strcmp(jobs[j].name, name) == 0)
            return &jobs[j];
    return NULL;
}

/* Queue `name` unless it is queued (under lock): a new job, or NULL when the queue is full. */
static job_t *enqueue(const char *name)
{
    job_t *jb = find(name);
    if (!jb && njobs == QUEUE_MAX) { /* forget the oldest finished one */
        size_t j = 0;
        while (j < njobs && jobs[j].state != DONE)
            j++;
        if (j < njobs) {
            memmove(&jobs[j], &jobs[j + 1], (njobs - j - 1) * sizeof *jobs);
            njobs--;
        }
    }
    if (!jb && njobs < QUEUE_MAX) {
        jb = &jobs[njobs++];
        *jb = (job_t){.state = DONE};
        snprintf(jb->name, sizeof jb->name, "%s", name);
    }
    if (jb && jb->state == DRAINING)
        jb->again = true;
    else if (jb)
        jb->state = QUEUED;
    return jb;
}

static int resume_one(const char *name, void *arg)
{
    (void)arg;
    if (!find(name))
        enqueue(name); /* one drained already costs a look at its manifest in the store */
    return 0;
}

/* The first drain of a process also takes the directory's checkpoints that
 * a killed process may have left undrained (resumed: their chunks already
 * in the store are not sent again). */
static void resume_pending(void)
{
    static bool resumed;
    ckpt_dir_t d;
    if (resumed || ckpt_dir_open(&d, false, false) != 0)
        return;
    resumed = true;
    pthread_mutex_lock(&lock);
    ckpt_dir_manifest_each(&d, resume_one, NULL);
    pthread_mutex_unlock(&lock);
    ckpt_dir_close(&d);
}

/* The drain thread's progress hook: how far its job is, for loci_ckpt_list. */
static void note_progress(const char *ckpt, const char *what, uint64_t done, uint64_t total, void *arg)
{
    (void)what, (void)total, (void)arg;
    pthread_mutex_lock(&lock);
    job_t *jb = find(ckpt);
    if (jb && jb->state == DRAINING)
        jb->done = done;
    pthread_mutex_unlock(&lock);
}

static void *drainer(void *arg)
{
    (void)arg;
    ckpt_progress_set(note_progress, NULL);
    resume_pending();
    pthread_mutex_lock(&lock);
    for (;;) {
        job_t *jb = NULL;
        for (size_t j = 0; j < njobs && !jb; j++)
            if (jobs[j].state == QUEUED)
                jb = &jobs[j];
        if (!jb)
            break;
        char name[NVM_NAME_MAX + 1];
        memcpy(name, jb->name, sizeof name);
        jb->state = DRAINING;
        jb->done = 0;
        pthread_mutex_unlock(&lock);
        uint64_t sent = 0;
        const char *target = ckpt_drain_target();
        int rc = target ? ckpt_drain_now(name, target, &sent)
                        : loci__fail(LOCI_ENOENT, "no [checkpoint] drain target in LOCI_CONFIG any more");
        if (rc != 0)
            loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
        pthread_mutex_lock(&lock);
        jb = find(name); /* a DRAINING job stays in the queue */
        jb->state = jb->again ? QUEUED : DONE;
        jb->again = false;
        jb->result = rc;
        pthread_cond_broadcast(&changed);
    }
    running = false;
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* fork: the child has no drain thread; what it had queued or was draining
 * is left to the parent (its waiters are told instead of waiting forever). */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void)
{
    running = false;
    for (size_t j = 0; j < njobs; j++)
        if (jobs[j].state != DONE) {
            jobs[j].state = DONE;
            jobs[j].result = LOCI_EIO;
        }
    pthread_mutex_unlock(&lock);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void) { pthread_atfork(before_fork, after_fork_parent, after_fork_child); }

int ckpt_drain_queue(const char *name)
{
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&lock);
    job_t *jb = enqueue(name);
    int rc = 0;
    if (!jb)
        rc = loci__fail(LOCI_EBUSY, "%d checkpoints wait for their drain already; \"%s\" stays at level 1 "
                                    "(`loci ckpt drain %s` later)", QUEUE_MAX, name, name);
    pthread_t t;
    if (rc == 0 && !running) {
        if (pthread_create(&t, NULL, drainer, NULL) == 0) {
            pthread_detach(t);
            running = true;
        } else {
            jb->state = DONE;
            jb->result = rc = loci__fail(LOCI_ENOMEM, "cannot start the drain thread");
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

uint64_t ckpt_drain_done(const char *name)
{
    pthread_mutex_lock(&lock);
    job_t *jb = find(name);
    uint64_t done = jb && jb->state == DRAINING ? jb->done : 0;
    pthread_mutex_unlock(&lock);
    return done;
}

bool ckpt_drain_pending(const char *name)
{
    pthread_mutex_lock(&lock);
    job_t *jb = find(name);
    bool pending = jb && jb->state != DONE;
    pthread_mutex_unlock(&lock);
    return pending;
}

int loci_ckpt_wait(const char *ckpt)
{
    int rc = ckpt_entry_check(ckpt);
    if (rc != 0)
        return rc;
    const char *target = ckpt_drain_target();
    pthread_mutex_lock(&lock);
    job_t *jb;
    while ((jb = find(ckpt)) && jb->state != DONE)
        pthread_cond_wait(&changed, &lock);
    rc = jb ? jb->result : 1;
    pthread_mutex_unlock(&lock);
    if (rc != 1)
        return rc ? loci__fail(rc, "checkpoint \"%s\" is not on the store: its drain failed; `loci ckpt drain %s` "
                                   "tries again", ckpt, ckpt)
                  : 0;
    /* not queued in this process: drain it now (resuming one a dead process left) */
    if (!target)
        return loci__fail(LOCI_ENOENT, "checkpoint \"%s\": no drain target; configure [checkpoint] drain = TARGET "
                                       "(a store target) in LOCI_CONFIG", ckpt);
    uint64_t sent = 0;
    return ckpt_drain_now(ckpt, target, &sent);
}

int loci_ckpt_drain(const char *ckpt, const char *target)
{
    int rc = ckpt_entry_check(ckpt);
    if (rc == 0 && !target && !(target = ckpt_drain_target()))
        rc = loci__fail(LOCI_EINVAL, "no target to drain checkpoint \"%s\" to: give one, or configure "
                                     "[checkpoint] drain = TARGET in LOCI_CONFIG", ckpt);
    uint64_t sent = 0;
    return rc ? rc : ckpt_drain_now(ckpt, target, &sent);
}
