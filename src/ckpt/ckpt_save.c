/*
 * loci_ckpt_save: every variable into the chunk pool, then the manifest.
 *
 * Memory is checksummed chunk by chunk where it is; a chunk summing as the
 * previous checkpoint's same chunk is shared, an all-zero one is stored as
 * "zero", and any other is copied into a bounce buffer, summed again there
 * (the bytes written are the bytes summed even if the variable changes
 * under us) and written from it (paged memory may refuse write(2) from it).
 * A region in chunk layout costs no copy: each chunk file still the inode
 * the previous checkpoint linked is shared without being read, each other
 * one is hard-linked into the pool and summed once.
 *
 * Order for crash safety: chunk files written (their write-back started at
 * once, fdatasync'd in a window behind), the pool directory fsync'd, then the
 * manifest written and renamed (ckpt_manifest_write). Until that rename the
 * new chunks are referenced by nothing: a kill leaves garbage for the GC, a
 * failure deletes them at once.
 */
#include "os/vm.h"
#include "clock.h"
#include "ckpt/ckpt.h"
#include "chunkstore/chunkstore.h"
#include "paged/paged.h"
#include "chunkstore/rados_objects.h"
#include "os/file_space.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SYNC_WINDOW 32 /* chunk files written whose fdatasync is still to come */

typedef struct {
    ckpt_dir_t *dir;
    const ckpt_manifest_t *prev; /* the latest checkpoint, or NULL */
    ckpt_manifest_t *cur;
    unsigned char *buf;          /* CKPT_CHUNK bytes */
    loci_ckpt_stats_t st;
    ckpt_ids_t created;          /* pool files made by this save */
    int pending[SYNC_WINDOW];    /* ring of fds to fdatasync */
    size_t npending, head;
    bool in_job_store;           /* a region was snapshotted: the job store is told (tell_job_store) */
} save_t;

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static loci_ckpt_stats_t last_save;
static bool saved_once;

/* The manifest this process saved last, kept parsed: the next save's
 * "previous checkpoint" is usually it, and reading it back costs a line per
 * chunk. Used only while the file still ends with its checksum. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static ckpt_manifest_t cached;
static char cached_dir[4096];
static bool have_cached;

/* Take the cached manifest into *m when it is `name`, save `seq`, of d. */
static bool take_cached(ckpt_dir_t *d, const char *name, uint64_t seq, ckpt_manifest_t *m)
{
    pthread_mutex_lock(&cache_lock);
    bool hit = have_cached && cached.seq == seq && strcmp(cached.name, name) == 0 &&
               strcmp(cached_dir, d->path) == 0 && ckpt_manifest_has_sum(d->fd, name, cached.sum);
    if (hit) {
        *m = cached;
        cached = (ckpt_manifest_t){0};
        have_cached = false;
    }
    pthread_mutex_unlock(&cache_lock);
    return hit;
}

/* Keep *m (taken over) as the cached manifest of d. */
static void keep_cached(ckpt_dir_t *d, ckpt_manifest_t *m)
{
    pthread_mutex_lock(&cache_lock);
    ckpt_manifest_free(&cached);
    cached = *m;
    *m = (ckpt_manifest_t){0};
    snprintf(cached_dir, sizeof cached_dir, "%s", d->path);
    have_cached = true;
    pthread_mutex_unlock(&cache_lock);
}

/* The layer's one fini lives here, in a file above the registrations, so
 * that no file below calls up into this one. */
void ckpt_fini(void)
{
    ckpt_register_fini();
    pthread_mutex_lock(&cache_lock);
    ckpt_manifest_free(&cached);
    have_cached = false;
    pthread_mutex_unlock(&cache_lock);
}

static int remember(save_t *sv, uint64_t id) { return ckpt_ids_push(&sv->created, id); }

static int sync_oldest(save_t *sv)
{
    int fd = sv->pending[sv->head];
    sv->head = (sv->head + 1) % SYNC_WINDOW;
    sv->npending--;
    int rc = fdatasync(fd) == 0 ? 0 : loci__fail(ckpt_code_of(errno), "cannot sync a chunk in %s/chunks: %s",
                                                 sv->dir->path, strerror(errno));
    close(fd);
    return rc;
}

static int sync_all(save_t *sv)
{
    int rc = 0;
    while (sv->npending > 0) {
        int r = sync_oldest(sv);
        rc = rc ? rc : r;
    }
    return rc;
}

/* A new pool file holding buf[0..len): write-back started now, waited for
 * SYNC_WINDOW files later, so that the device works while we sum. */
static int write_chunk(save_t *sv, const void *buf, size_t len, uint64_t *id)
{
    int fd = ckpt_pool_create(sv->dir, id);
    if (fd < 0)
        return fd;
    int rc = remember(sv, *id);
    if (rc == 0)
        rc = ckpt_write_all(fd, buf, len, 0, "a checkpoint chunk");
    if (rc != 0) {
        close(fd);
        return rc;
    }
    file_writeback_start(fd, 0, len);
    if (sv->npending == SYNC_WINDOW && (rc = sync_oldest(sv)) != 0) {
        close(fd);
        return rc;
    }
    sv->pending[(sv->head + sv->npending++) % SYNC_WINDOW] = fd;
    sv->st.chunks_written++;
    sv->st.bytes_written += len;
    return 0;
}

static bool all_zero(const unsigned char *p, size_t len) { return p[0] == 0 && memcmp(p, p + 1, len - 1) == 0; }

/* Checksum of len zero bytes (len <= CKPT_CHUNK), through buf. */
static ckpt_sum_t zero_sum(unsigned char *buf, size_t len)
{
    memset(buf, 0, len);
    return XXH3_128bits(buf, len);
}

/* A variable (or a region not in chunk layout) chunk by chunk. Summed in
 * place, so that an unchanged or zero chunk costs one pass over it; a chunk
 * to write is copied to the bounce buffer and summed again there, so that
 * the sum recorded is that of the bytes written. */
static int save_memory(save_t *sv, const ckpt_item_t *it)
{
    const ckpt_var_t *pv = ckpt_manifest_find(sv->prev, it->kind, it->name);
    if (pv && (pv->linked || pv->size != it->size || pv->chunk != CKPT_CHUNK))
        pv = NULL;
    if (!vm_accessible(it->base, it->size, false)) /* made unreadable since it was registered */
        return loci__fail(LOCI_ENOTSUP, "\"%s\": the CPU cannot read all of its %zu bytes at %p now "
                                        "(PROT_NONE or unmapped since it was registered); make it readable or "
                                        "unregister it", it->name, it->size, it->base);
    ckpt_var_t *v = ckpt_manifest_add(sv->cur, it->name, it->kind, false, it->size, CKPT_CHUNK);
    if (!v)
        return LOCI_ENOMEM;
    ckpt_sum_t zero = zero_sum(sv->buf, CKPT_CHUNK);
    for (uint64_t i = 0; i < v->nchunks; i++) {
        size_t off = i * CKPT_CHUNK, len = it->size - off < CKPT_CHUNK ? it->size - off : CKPT_CHUNK;
        const unsigned char *p = (const unsigned char *)it->base + off;
        ckpt_sum_t sum = XXH3_128bits(p, len);
        sv->st.bytes_hashed += len;
        if (ckpt_sum_equal(sum, len == CKPT_CHUNK ? zero : zero_sum(sv->buf, len)) && all_zero(p, len)) {
            sv->st.chunks_zero++;
            continue; /* id CKPT_ZERO */
        }
        if (pv && pv->chunks[i].id != CKPT_ZERO && ckpt_sum_equal(pv->chunks[i].sum, sum)) {
            v->chunks[i] = pv->chunks[i];
            sv->st.chunks_shared++;
            continue;
        }
        memcpy(sv->buf, p, len);
        v->chunks[i].sum = XXH3_128bits(sv->buf, len);
        sv->st.bytes_hashed += len;
        int rc = write_chunk(sv, sv->buf, len, &v->chunks[i].id);
        if (rc != 0)
            return ckpt_fail_in(rc, "variable \"%s\", chunk %llu", it->name, (unsigned long long)i);
    }
    return 0;
}

/* Chunk file `name` of a region not shared from the previous checkpoint:
 * linked into the pool and summed; across file systems summed, and copied
 * unless it sums as before. */
static int take_chunk(save_t *sv, int dirfd, const char *name, const ckpt_chunk_t *before, ckpt_chunk_t *out)
{
    uint64_t bytes;
    int rc = ckpt_pool_link(sv->dir, dirfd, name, &out->id);
    if (rc == 0) {
        struct stat st;
        char id[17];
        ckpt_id_name(out->id, id);
        if ((rc = remember(sv, out->id)) == 0 && fstatat(sv->dir->pool, id, &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = loci__fail(LOCI_EIO, "chunks/%s: %s", id, strerror(errno));
        if (rc == 0)
            rc = ckpt_sum_pool(sv->dir, out->id, sv->buf, CKPT_CHUNK, &out->sum, &bytes, name);
        out->ino = rc == 0 ? (uint64_t)st.st_ino : 0;
        sv->st.chunks_linked++;
        sv->st.bytes_linked += rc == 0 ? bytes : 0;
        sv->st.bytes_hashed += rc == 0 ? bytes : 0;
        return rc;
    }
    if (rc != LOCI_ENOTSUP)
        return rc;
    int in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return loci__fail(LOCI_EIO, "cannot open chunk file %s: %s", name, strerror(errno));
    rc = ckpt_sum_fd(in, sv->buf, CKPT_CHUNK, &out->sum, &bytes, name);
    close(in);
    sv->st.bytes_hashed += bytes;
    if (rc == 0 && before && before->id != CKPT_ZERO && ckpt_sum_equal(before->sum, out->sum)) {
        out->id = before->id;
        sv->st.chunks_shared++;
        return 0;
    }
    int fd = rc ? rc : ckpt_pool_create(sv->dir, &out->id);
    if (fd < 0)
        return fd;
    if ((rc = remember(sv, out->id)) == 0)
        rc = ckpt_copy_file(dirfd, name, fd, sv->buf, CKPT_CHUNK, &bytes);
    if (rc == 0 && fdatasync(fd) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot sync a chunk in %s/chunks: %s", sv->dir->path, strerror(errno));
    close(fd);
    sv->st.chunks_written++;
    sv->st.bytes_written += bytes;
    return rc;
}

/* A region in chunk layout: each chunk file still the inode the previous
 * checkpoint linked is shared; that file is never written again (the
 * region copies a chunk file linked elsewhere before writing it), and it
 * cannot go while that checkpoint refers to it. When the region's version
 * is the one the previous checkpoint recorded, all of them are: its chunk
 * list is taken as it is, without listing the directory. */
static int save_chunk_files(save_t *sv, const ckpt_item_t *it, const region_chunks_t *rc)
{
    if (rc->chunk == 0 || rc->nchunks * rc->chunk < it->size)
        return loci__fail(LOCI_EIO, "region \"%s\": %llu chunks of %zu bytes cannot hold its %zu bytes", it->name,
                          (unsigned long long)rc->nchunks, rc->chunk, it->size);
    const ckpt_var_t *pv = ckpt_manifest_find(sv->prev, CKPT_REGION, it->name);
    if (pv && (!pv->linked || pv->chunk != rc->chunk))
        pv = NULL;
    ckpt_var_t *v = ckpt_manifest_add(sv->cur, it->name, CKPT_REGION, true, it->size, rc->chunk);
    if (!v)
        return LOCI_ENOMEM;
    v->version = rc->version;
    if (pv && pv->version == rc->version && pv->nchunks == v->nchunks) {
        /* the same open region, no chunk file changed since: no need to look at them */
        for (uint64_t i = 0; i < v->nchunks; i++) {
            v->chunks[i] = pv->chunks[i];
            if (v->chunks[i].id == CKPT_ZERO)
                sv->st.chunks_zero++;
            else
                sv->st.chunks_shared++;
        }
        return 0;
    }
    uint64_t *ino = NULL;
    int r = ckpt_chunk_inodes(rc->dirfd, v->nchunks, &ino);
    for (uint64_t i = 0; r == 0 && i < v->nchunks; i++) {
        const ckpt_chunk_t *before = pv && i < pv->nchunks ? &pv->chunks[i] : NULL;
        char name[24];
        if (ino[i] == 0) {
            sv->st.chunks_zero++;
        } else if (before && before->id != CKPT_ZERO && before->ino == ino[i]) {
            v->chunks[i] = *before;
            sv->st.chunks_shared++;
        } else {
            chunkstore_chunk_name(i, name);
            if ((r = take_chunk(sv, rc->dirfd, name, before, &v->chunks[i])) != 0)
                r = ckpt_fail_in(r, "region \"%s\", chunk %llu", it->name, (unsigned long long)i);
        }
    }
    free(ino);
    return r;
}

/* Chunk i of a snapshot, read into sv->buf and summed, or zero. */
static int sum_snap_chunk(save_t *sv, chunkstore_rados_snap_t *sn, const ckpt_var_t *v, uint64_t i)
{
    size_t len = (size_t)(v->size - i * v->chunk < v->chunk ? v->size - i * v->chunk : v->chunk), got;
    int rc = chunkstore_rados_snap_read(sn, i, sv->buf, len, &got);
    if (rc != 0)
        return rc;
    memset(sv->buf + got, 0, len - got);
    sv->st.bytes_hashed += got;
    if (got == 0 || all_zero(sv->buf, len)) {
        sv->st.chunks_zero++;
        return 0;
    }
    v->chunks[i] = (ckpt_chunk_t){.id = CKPT_IN_SNAP, .sum = XXH3_128bits(sv->buf, len)};
    sv->st.chunks_linked++;
    sv->st.bytes_linked += len;
    return 0;
}

/* A region in the job store: one self-managed snapshot keeps all its chunks
 * (the OSDs copy a chunk on its next write), and nothing is sent. Each chunk
 * is summed at the snapshot — except those this opening has not written
 * since the previous checkpoint's snapshot, whose sums are that one's. */
static int save_snapshot(save_t *sv, const ckpt_item_t *it, chunkstore_t *chunk_store, struct jobstore *rp)
{
    const char *target = jobstore_target(rp);
    size_t chunk = chunkstore_rados_chunk(chunk_store);
    const ckpt_var_t *pv = ckpt_manifest_find(sv->prev, CKPT_REGION, it->name);
    if (pv && (!pv->snap || pv->chunk != chunk || pv->size != it->size || strcmp(pv->target, target) != 0))
        pv = NULL;
    ckpt_var_t *v = ckpt_manifest_add(sv->cur, it->name, CKPT_REGION, false, it->size, chunk);
    bool *same = v ? calloc(v->nchunks ? v->nchunks : 1, sizeof *same) : NULL;
    if (!same) {
        free(same);
        return loci__fail(LOCI_ENOMEM, "out of memory saving region \"%s\"", it->name);
    }
    for (uint64_t i = 0; pv && i < v->nchunks; i++)
        same[i] = chunkstore_rados_unchanged(chunk_store, pv->snap, i);
    snprintf(v->target, sizeof v->target, "%s", target);
    int rc = chunkstore_rados_snapshot(chunk_store, &v->snap);
    sv->in_job_store = true;
    chunkstore_rados_snap_t *sn = rc ? NULL : chunkstore_rados_snap_open(rp, it->name, v->snap);
    if (rc == 0 && !sn)
        rc = ckpt_code_of(errno);
    for (uint64_t i = 0; rc == 0 && i < v->nchunks; i++) {
        if (!same[i]) {
            rc = sum_snap_chunk(sv, sn, v, i);
            continue;
        }
        v->chunks[i] = pv->chunks[i];
        if (v->chunks[i].id == CKPT_ZERO)
            sv->st.chunks_zero++;
        else
            sv->st.chunks_shared++;
    }
    chunkstore_rados_snap_close(sn);
    free(same);
    return rc ? ckpt_fail_in(rc, "region \"%s\" on %s", it->name, target) : 0;
}

static int save_item(save_t *sv, const ckpt_item_t *it)
{
    sv->st.vars++;
    sv->st.bytes += it->size;
    if (!it->paged)
        return save_memory(sv, it);
    region_chunks_t rc;
    int r = paged_chunks(it->base, &rc); /* written back and durable: the one flush of this save */
    if (r != 0)
        return ckpt_fail_in(r, "region \"%s\"", it->name);
    struct jobstore *rp = chunkstore_rados_region_pool(rc.store);
    if (rp && chunkstore_rados_chunk(rc.store) <= CKPT_CHUNK)
        return save_snapshot(sv, it, rc.store, rp);
    if (rc.dirfd < 0)
        return save_memory(sv, it); /* no chunk files (a flat file, or big chunks in the job store): copied */
    r = save_chunk_files(sv, it, &rc);
    close(rc.dirfd);
    return r;
}

typedef struct {
    const ckpt_dir_t *dir;
    uint64_t seq;                   /* highest save number so far */
    char best[NVM_NAME_MAX + 1];    /* its checkpoint */
} latest_t;

static int consider(const char *name, void *arg)
{
    latest_t *l = arg;
    uint64_t q;
    if ((q = ckpt_manifest_seq(l->dir->fd, name)) > l->seq) {
        l->seq = q;
        memcpy(l->best, name, sizeof l->best);
    }
    return 0;
}

/* The latest checkpoint of the directory (highest save number), loaded, and
 * that number. A corrupt one shares nothing (warned). */
static int find_latest(ckpt_dir_t *d, ckpt_manifest_t *m, bool *have, uint64_t *seq)
{
    latest_t l = {.dir = d};
    int rc = ckpt_dir_manifest_each(d, consider, &l);
    const char *best = l.best;
    *seq = l.seq;
    *have = false;
    if (rc != 0 || !best[0])
        return rc;
    if (take_cached(d, best, *seq, m)) {
        *have = true;
        return 0;
    }
    rc = ckpt_manifest_read(d->fd, best, m);
    if (rc == LOCI_ENOMEM)
        return rc;
    if (rc != 0)
        loci__log(LOCI_LOG_WARN, "%s; this save shares no chunk with it", loci_last_error());
    *have = rc == 0;
    return 0;
}

static int other_target(const char *target, const ckpt_manifest_t *m, void *drain)
{
    return strcmp(target, drain) != 0;
}

/* Are the chunks of m outside its snapshots in the store of the drain
 * target (its snapshots' one) already: zeros, or the very pool files of
 * prev, which is whole there (its manifest there is prev: same checksum)?
 * An unchanged checkpoint's DRAM data drained before. The caller holds the
 * guard of the drained chunks (no GC removes them meanwhile). */
static bool drained_before(const ckpt_manifest_t *m, const ckpt_manifest_t *prev, struct jobstore *rp)
{
    for (size_t k = 0; k < m->nvars; k++) {
        const ckpt_var_t *v = &m->vars[k], *pv = v->snap ? NULL : ckpt_manifest_find(prev, v->kind, v->name);
        for (uint64_t i = 0; !v->snap && i < v->nchunks; i++)
            if (v->chunks[i].id != CKPT_ZERO && (!pv || i >= pv->nchunks || pv->chunks[i].id != v->chunks[i].id))
                return false;
    }
    ckpt_manifest_t there;
    if (ckpt_store_manifest_get(rp, prev->name, &there) != 0)
        return false;
    bool same = ckpt_sum_equal(there.sum, prev->sum);
    ckpt_manifest_free(&there);
    return same;
}

/* A checkpoint naming store snapshots, told to the stores of its snapshots
 * (so that every node finds it, and their GC keeps its snapshots): its
 * manifest when every chunk is in the store already — in its snapshots, or
 * drained with prev (the directory's previous checkpoint) when nothing of
 * them changed — whole at level 2 at no more cost than the manifest (and
 * this node's record of an earlier one of that name goes); else the record
 * that this node holds it whole at level 1 only, which a drain follows
 * with the manifest (twice the bytes for an unchanged one). Its DRAM and
 * file-tier chunks reach the store only by a drain: one that is not
 * configured is not implied (docs/CHECKPOINT.md, "Two levels"). */
static int tell_job_store(const ckpt_dir_t *d, ckpt_manifest_t *m, const ckpt_manifest_t *prev, const char *drain)
{
    char *text;
    size_t len;
    int rc = ckpt_manifest_text(m, &text, &len);
    if (rc != 0)
        return rc;
    bool whole = ckpt_stored_bytes(m, false) == 0;
    ckpt_guard_t *guard = NULL;
    struct jobstore *rp = !whole && drain && prev && ckpt_snap_targets_each(m, other_target, (void *)drain) == 0
                              ? ckpt_target_pool(drain)
                              : NULL;
    if (rp && ckpt_store_guard(rp, false, &guard) == 0)
        whole = drained_before(m, prev, rp);
    rc = whole ? ckpt_store_manifest_put(m, text, len) : ckpt_level1_put(d, m, text, len, drain);
    ckpt_store_unguard(guard); /* (after the put: the manifest names the chunks now) */
    if (rc == 0 && whole)
        rc = ckpt_level1_forget(d, m, NULL);
    free(text);
    return rc;
}

static int save(const char *name, ckpt_dir_t *d, const ckpt_item_t *items, size_t n)
{
    double t0 = clock_mono_s();
    ckpt_manifest_t prev, cur = {0};
    bool have_prev = false, published = false;
    save_t sv = {.dir = d, .cur = &cur};
    int rc = find_latest(d, &prev, &have_prev, &cur.seq);
    if (rc != 0)
        return rc;
    sv.prev = have_prev ? &prev : NULL;
    snprintf(cur.name, sizeof cur.name, "%s", name);
    cur.seq++;
    if (!(sv.buf = malloc(CKPT_CHUNK)))
        rc = loci__fail(LOCI_ENOMEM, "out of memory saving checkpoint \"%s\"", name);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = save_item(&sv, &items[i]);
    int synced = sync_all(&sv);
    rc = rc ? rc : synced;
    if (rc == 0 && fsync(d->pool) != 0) /* the new names in the pool */
        rc = loci__fail(ckpt_code_of(errno), "cannot sync %s/chunks: %s", d->path, strerror(errno));
    if (rc == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        cur.saved_s = ts.tv_sec;
        cur.saved_ns = ts.tv_nsec;
        uint64_t bytes = 0;
        rc = ckpt_manifest_write(d->fd, &cur, &bytes, &published);
        sv.st.bytes_written += bytes;
    }
    const char *drain = rc == 0 ? ckpt_drain_target() : NULL; /* (a lookup that fails sets the last error) */
    if (rc == 0 && sv.in_job_store)
        rc = tell_job_store(d, &cur, sv.prev, drain);
    if (rc != 0 && !published) { /* referenced by no manifest: give their space back now */
        char id[17];
        for (size_t i = 0; i < sv.created.n; i++) {
            ckpt_id_name(sv.created.v[i], id);
            unlinkat(d->pool, id, 0);
        }
    }
    sv.st.chunks = sv.st.chunks_written + sv.st.chunks_linked + sv.st.chunks_shared + sv.st.chunks_zero;
    sv.st.seconds = clock_mono_s() - t0;
    if (rc == 0) {
        pthread_mutex_lock(&stats_lock);
        last_save = sv.st;
        saved_once = true;
        pthread_mutex_unlock(&stats_lock);
        keep_cached(d, &cur);
        if (drain && ckpt_drain_queue(name) != 0) /* level 1 is saved all the same */
            loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
    }
    ckpt_ids_free(&sv.created);
    free(sv.buf);
    ckpt_manifest_free(&cur);
    if (have_prev)
        ckpt_manifest_free(&prev);
    return rc;
}

int loci_ckpt_save(const char *ckpt)
{
    ckpt_item_t *items;
    size_t n;
    int rc = ckpt_begin(ckpt, "save", &items, &n);
    if (rc != 0)
        return rc;
    ckpt_dir_t d;
    if ((rc = ckpt_dir_open(&d, true, true)) == 0) {
        rc = save(ckpt, &d, items, n);
        ckpt_dir_close(&d);
    }
    free(items);
    return rc ? ckpt_fail_in(rc, "checkpoint \"%s\" not saved", ckpt) : 0;
}

int loci_ckpt_last_save(loci_ckpt_stats_t *out)
{
    if (!out)
        return loci__fail(LOCI_EINVAL, "loci_ckpt_last_save: NULL argument");
    pthread_mutex_lock(&stats_lock);
    bool have = saved_once;
    *out = last_save;
    pthread_mutex_unlock(&stats_lock);
    return have ? 0 : loci__fail(LOCI_ENOENT, "no checkpoint was saved by this process");
}
