/*
 * loci_ckpt_restore and loci_ckpt_verify. A restore first matches every
 * variable and region of this process with the checkpoint (by kind and
 * name, sizes equal) and verifies the checksum of every chunk it is going to
 * put in place; only then does it write anything. Regions in chunk layout
 * get the checkpoint's chunk files linked back (a temporary name renamed
 * over "c<index>"; a zero chunk's file removed) and their cache dropped;
 * everything else is copied back into memory.
 */
#include "os/vm.h"
#include "ckpt/ckpt.h"
#include "chunkstore/chunkstore.h"
#include "paged/paged.h"
#include "chunkstore/rados_objects.h"
#include "jobstore/jobstore.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const ckpt_item_t *it;
    const ckpt_var_t *v;
    int dirfd;    /* a region's chunk directory when its chunk files are relinked, else -1 */
    uint64_t *ino; /* then the inode of each of its chunk files now */
    chunkstore_rados_snap_t *sn; /* a region saved in the job store: read at its snapshot */
} plan_t;

static const char *kind_name(ckpt_kind_t k) { return k == CKPT_REGION ? "region" : "variable"; }

/* Where the chunks of a checkpoint are: this node's checkpoint directory
 * (level 1), or the job store it was drained to (level 2: rp set). */
typedef struct {
    ckpt_dir_t dir;
    bool opened;           /* dir is open (and locked) */
    struct jobstore *rp;
} source_t;

/* Drained chunk i of v: its object, malloc'd into *data. */
static int get_drained(struct jobstore *rp, const ckpt_var_t *v, uint64_t i, char **data, size_t *len)
{
    char oid[64], id[17];
    ckpt_id_name(v->chunks[i].id, id);
    snprintf(oid, sizeof oid, CKPT_STORE_CHUNKS "%s", id);
    int rc = jobstore_object_get(rp, oid, v->chunk, data, len);
    return rc == LOCI_ENOENT ? loci__fail(LOCI_EIO, "object %s is missing from %s", oid, jobstore_target(rp)) : rc;
}

/* Chunk i of v against its checksum: a copied chunk has its exact length, a
 * linked chunk file at most that (its tail is zeros). */
static int check_drained(struct jobstore *rp, const char *ckpt, const ckpt_var_t *v, uint64_t i)
{
    char *data = NULL;
    size_t got, len = ckpt_chunk_len(v, i);
    int rc = get_drained(rp, v, i, &data, &got);
    if (rc == 0 && (v->linked ? got > len : got != len))
        rc = loci__fail(LOCI_EIO, "has %zu bytes, %s %zu", got, v->linked ? "more than its" : "not", len);
    else if (rc == 0 && !ckpt_sum_equal(XXH3_128bits(data, got), v->chunks[i].sum))
        rc = loci__fail(LOCI_EIO, "fails its checksum");
    free(data);
    return rc ? ckpt_fail_in(rc, "checkpoint \"%s\" in %s is corrupt: %s \"%s\", chunk %llu", ckpt,
                             jobstore_target(rp), kind_name(v->kind), v->name, (unsigned long long)i)
              : 0;
}

static int check_chunk(const ckpt_dir_t *d, const char *ckpt, const ckpt_var_t *v, uint64_t i, void *buf)
{
    char id[17];
    ckpt_id_name(v->chunks[i].id, id);
    ckpt_sum_t sum;
    uint64_t bytes;
    size_t len = ckpt_chunk_len(v, i);
    int rc = ckpt_sum_pool(d, v->chunks[i].id, buf, CKPT_CHUNK, &sum, &bytes, "chunk");
    if (rc == 0 && (v->linked ? bytes > len : bytes != len))
        rc = loci__fail(LOCI_EIO, "has %llu bytes, %s %zu", (unsigned long long)bytes,
                        v->linked ? "more than its" : "not", len);
    else if (rc == 0 && !ckpt_sum_equal(sum, v->chunks[i].sum))
        rc = loci__fail(LOCI_EIO, "fails its checksum");
    return rc ? ckpt_fail_in(rc, "checkpoint \"%s\" is corrupt: %s \"%s\", chunk %llu (%s/chunks/%s)", ckpt,
                             kind_name(v->kind), v->name, (unsigned long long)i, d->path, id)
              : 0;
}

/* Chunk i of v read at its store snapshot into buf (the chunk's length,
 * zeros past what the object holds). */
static int read_snap_chunk(chunkstore_rados_snap_t *sn, const ckpt_var_t *v, uint64_t i, unsigned char *buf)
{
    size_t len = ckpt_chunk_len(v, i), got;
    int rc = chunkstore_rados_snap_read(sn, i, buf, len, &got);
    if (rc == 0)
        memset(buf + got, 0, len - got);
    return rc;
}

/* Chunk i of a variable kept by a store snapshot against its checksum. */
static int check_snap_chunk(chunkstore_rados_snap_t *sn, const char *ckpt, const ckpt_var_t *v, uint64_t i,
                            unsigned char *buf)
{
    int rc = read_snap_chunk(sn, v, i, buf);
    if (rc == 0 && !ckpt_sum_equal(XXH3_128bits(buf, ckpt_chunk_len(v, i)), v->chunks[i].sum))
        rc = loci__fail(LOCI_EIO, "fails its checksum");
    return rc ? ckpt_fail_in(rc, "checkpoint \"%s\" is corrupt: region \"%s\", chunk %llu (%s snapshot %llu)", ckpt,
                             v->name, (unsigned long long)i, v->target, (unsigned long long)v->snap)
              : 0;
}

/* The snapshot of v to read, or NULL + loci__fail naming the checkpoint. */
static chunkstore_rados_snap_t *open_snap(const char *ckpt, const ckpt_var_t *v)
{
    struct jobstore *rp = ckpt_target_pool(v->target);
    chunkstore_rados_snap_t *sn = rp ? chunkstore_rados_snap_open(rp, v->name, v->snap) : NULL;
    if (!sn)
        ckpt_fail_in(ckpt_code_of(errno), "checkpoint \"%s\", region \"%s\"", ckpt, v->name);
    return sn;
}

/* Chunk i of a relinked region already is the checkpoint's file (which
 * lives while the checkpoint refers to it: its inode is that file's). */
static bool in_place(const plan_t *p, uint64_t i)
{
    return p->v->chunks[i].ino != 0 && p->ino[i] == p->v->chunks[i].ino;
}

/* How item it is restored from v: relinking when both are chunk files of the
 * same size, else copying. */
static int plan(const char *ckpt, const ckpt_manifest_t *m, const ckpt_item_t *it, bool local, plan_t *p)
{
    const ckpt_var_t *v = ckpt_manifest_find(m, it->kind, it->name);
    *p = (plan_t){it, v, -1, NULL, NULL};
    if (!v)
        return loci__fail(LOCI_ENOENT, "checkpoint \"%s\" has no %s \"%s\"; nothing restored (unregister it, or "
                                       "close the region, to restore the rest)", ckpt, kind_name(it->kind), it->name);
    if (v->size != it->size)
        return loci__fail(LOCI_EINVAL, "%s \"%s\" has %zu bytes here but %llu in checkpoint \"%s\"; nothing "
                                       "restored", kind_name(it->kind), it->name, it->size,
                          (unsigned long long)v->size, ckpt);
    if (!vm_accessible(it->base, it->size, true)) /* before anything is overwritten */
        return loci__fail(LOCI_ENOTSUP, "%s \"%s\": its %zu bytes at %p are not all writable now (read-only, "
                                        "PROT_NONE or unmapped); nothing restored", kind_name(it->kind), it->name,
                          it->size, it->base);
    if (v->snap) /* read at the snapshot, copied into the memory whatever it is */
        return (p->sn = open_snap(ckpt, v)) ? 0 : LOCI_EIO;
    if (!it->paged || !v->linked || !local)
        return 0;
    region_chunks_t rc;
    int r = paged_chunks(it->base, &rc);
    if (r != 0)
        return ckpt_fail_in(r, "region \"%s\"", it->name);
    if (rc.dirfd < 0 || rc.chunk != v->chunk || rc.nchunks != v->nchunks) { /* copied back instead */
        if (rc.dirfd >= 0)
            close(rc.dirfd);
        return 0;
    }
    p->dirfd = rc.dirfd;
    return ckpt_chunk_inodes(p->dirfd, v->nchunks, &p->ino);
}

static int copy_back(const source_t *src, const plan_t *p, unsigned char *buf)
{
    const ckpt_dir_t *d = &src->dir;
    const ckpt_var_t *v = p->v;
    for (uint64_t i = 0; i < v->nchunks; i++) {
        size_t len = ckpt_chunk_len(v, i);
        char *to = (char *)p->it->base + i * v->chunk;
        if (v->chunks[i].id == CKPT_ZERO) {
            memset(to, 0, len);
            continue;
        }
        if (p->sn) { /* written back as head, with the region's context: the snapshot stays */
            int rc = read_snap_chunk(p->sn, v, i, buf);
            if (rc != 0)
                return ckpt_fail_in(rc, "region \"%s\", chunk %llu", v->name, (unsigned long long)i);
            memcpy(to, buf, len);
            continue;
        }
        if (src->rp) {
            char *data;
            size_t got;
            int rc = get_drained(src->rp, v, i, &data, &got);
            if (rc != 0)
                return ckpt_fail_in(rc, "%s \"%s\", chunk %llu", kind_name(v->kind), v->name, (unsigned long long)i);
            memcpy(to, data, got < len ? got : len); /* a linked chunk file's tail is zeros */
            memset(to + (got < len ? got : len), 0, got < len ? len - got : 0);
            free(data);
            continue;
        }
        char id[17];
        ckpt_id_name(v->chunks[i].id, id);
        int fd = openat(d->pool, id, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return loci__fail(LOCI_EIO, "%s \"%s\", chunk %llu: %s/chunks/%s: %s", kind_name(v->kind), v->name,
                              (unsigned long long)i, d->path, id, strerror(errno));
        for (size_t done = 0; done < len;) { /* through buf: paged memory may refuse read(2) into it */
            size_t want = len - done < CKPT_CHUNK ? len - done : CKPT_CHUNK;
            ssize_t got = pread(fd, buf, want, (off_t)done);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                close(fd);
                return loci__fail(LOCI_EIO, "%s \"%s\", chunk %llu: %s", kind_name(v->kind), v->name,
                                  (unsigned long long)i, strerror(errno));
            }
            memset(buf + got, 0, want - (size_t)got); /* a linked chunk file's tail */
            memcpy(to + done, buf, want);
            done += want;
        }
        close(fd);
    }
    return 0;
}

static int relink_one(const ckpt_dir_t *d, const plan_t *p, uint64_t i, unsigned char *buf)
{
    char name[24], id[17], tmp[64];
    chunkstore_chunk_name(i, name);
    if (p->v->chunks[i].id == CKPT_ZERO)
        return unlinkat(p->dirfd, name, 0) == 0 || errno == ENOENT
                   ? 0
                   : loci__fail(ckpt_code_of(errno), "cannot remove chunk file %s: %s", name, strerror(errno));
    ckpt_id_name(p->v->chunks[i].id, id);
    /* named as the provider's copy-on-write files, which it removes when their process is gone */
    snprintf(tmp, sizeof tmp, "%s.cow.%ld.%ld", name, (long)getpid(), (long)gettid());
    unlinkat(p->dirfd, tmp, 0);
    int rc = 0;
    if (linkat(d->pool, id, p->dirfd, tmp, 0) != 0) {
        if (errno != EXDEV)
            return loci__fail(ckpt_code_of(errno), "cannot link %s/chunks/%s as %s: %s", d->path, id, tmp,
                              strerror(errno));
        int fd = openat(p->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        uint64_t bytes;
        rc = fd < 0 ? loci__fail(ckpt_code_of(errno), "cannot create %s: %s", tmp, strerror(errno))
                    : ckpt_copy_file(d->pool, id, fd, buf, CKPT_CHUNK, &bytes);
        if (rc == 0 && fdatasync(fd) != 0)
            rc = loci__fail(ckpt_code_of(errno), "cannot sync %s: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    if (rc == 0 && renameat(p->dirfd, tmp, p->dirfd, name) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot rename %s to %s: %s", tmp, name, strerror(errno));
    if (rc != 0)
        unlinkat(p->dirfd, tmp, 0);
    return rc;
}

static int relink_back(const ckpt_dir_t *d, const plan_t *p, unsigned char *buf)
{
    int rc = 0;
    for (uint64_t i = 0; i < p->v->nchunks && rc == 0; i++)
        if (p->v->chunks[i].id == CKPT_ZERO || !in_place(p, i))
            rc = relink_one(d, p, i, buf);
    if (rc == 0 && fsync(p->dirfd) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot sync the region's directory: %s", strerror(errno));
    int reload = paged_reload(p->it->base); /* even after a failure: some files may have changed */
    rc = rc ? rc : reload;
    return rc ? ckpt_fail_in(rc, "region \"%s\"", p->it->name) : 0;
}

/* Chunk i of v against its checksum, wherever it is. */
static int check_any(const source_t *src, chunkstore_rados_snap_t *sn, const char *ckpt, const ckpt_var_t *v, uint64_t i,
                     unsigned char *buf)
{
    return sn ? check_snap_chunk(sn, ckpt, v, i, buf)
           : src->rp ? check_drained(src->rp, ckpt, v, i)
                     : check_chunk(&src->dir, ckpt, v, i, buf);
}

/* With a drain target, the same name may be at both levels with other
 * contents (saved again on another node): the newer one wins, said. */
static int newer_in_store(const char *ckpt, source_t *src, ckpt_manifest_t *m)
{
    const char *drain = ckpt_drain_target();
    struct jobstore *rp = drain ? ckpt_target_pool(drain) : NULL;
    ckpt_manifest_t there;
    if (!rp || ckpt_store_manifest_get(rp, ckpt, &there) != 0)
        return 0; /* not there, or unreachable: this node's */
    if (ckpt_sum_equal(there.sum, m->sum) || !ckpt_manifest_newer(&there, m)) {
        if (!ckpt_sum_equal(there.sum, m->sum))
            loci__log(LOCI_LOG_INFO, "checkpoint \"%s\": this node's is newer than the one in %s; using this node's",
                      ckpt, drain);
        ckpt_manifest_free(&there);
        return 0;
    }
    loci__log(LOCI_LOG_WARN, "checkpoint \"%s\": %s holds a newer one (saved %lld) than this node's (saved %lld): "
                             "using the one in %s", ckpt, drain, (long long)there.saved_s, (long long)m->saved_s, drain);
    ckpt_manifest_free(m);
    *m = there;
    src->rp = rp;
    return 0;
}

/* Checkpoint `ckpt`: from this node's checkpoint directory (opened in src),
 * else from the job store it was drained to (level 2: with the directory or
 * the manifest gone, e.g. on another node). unload(src) after, whatever the result. */
static int load(const char *ckpt, source_t *src, ckpt_manifest_t *m)
{
    *src = (source_t){0};
    int rc = ckpt_dir_open(&src->dir, false, false);
    src->opened = rc == 0;
    if (rc == 0)
        rc = ckpt_manifest_read(src->dir.fd, ckpt, m);
    if (rc == 0)
        return newer_in_store(ckpt, src, m);
    if (rc != LOCI_ENOENT)
        return rc;
    char local[512], store[1024];
    snprintf(local, sizeof local, "%s", loci_last_error());
    rc = ckpt_store_find(ckpt, m, &src->rp);
    snprintf(store, sizeof store, "%s", loci_last_error()); /* not formatted into itself */
    if (rc == LOCI_ENOENT && !src->opened) /* where "here" is */
        rc = loci__fail(rc, "%s; %s", local, store);
    return rc;
}

static void unload(source_t *src)
{
    if (src->opened)
        ckpt_dir_close(&src->dir);
    src->opened = false;
}

static int restore(const char *ckpt, const source_t *src, const ckpt_manifest_t *m, const ckpt_item_t *items,
                   size_t n)
{
    plan_t *plans = calloc(n, sizeof *plans);
    unsigned char *buf = malloc(CKPT_CHUNK);
    int rc = 0;
    if (!plans || !buf)
        rc = loci__fail(LOCI_ENOMEM, "out of memory restoring checkpoint \"%s\"", ckpt);
    size_t planned = 0;
    for (; planned < n && rc == 0; planned++)
        rc = plan(ckpt, m, &items[planned], !src->rp, &plans[planned]);
    for (size_t k = 0; k < n && rc == 0; k++) /* every checksum before the first write */
        for (uint64_t i = 0; i < plans[k].v->nchunks && rc == 0; i++)
            if (plans[k].v->chunks[i].id != CKPT_ZERO && (plans[k].dirfd < 0 || !in_place(&plans[k], i)))
                rc = check_any(src, plans[k].sn, ckpt, plans[k].v, i, buf);
    for (size_t k = 0; k < n && rc == 0; k++)
        rc = plans[k].dirfd >= 0 ? relink_back(&src->dir, &plans[k], buf) : copy_back(src, &plans[k], buf);
    for (size_t k = 0; plans && k < planned; k++) {
        if (plans[k].dirfd >= 0)
            close(plans[k].dirfd);
        free(plans[k].ino);
        chunkstore_rados_snap_close(plans[k].sn);
    }
    free(buf);
    free(plans);
    return rc;
}

int loci_ckpt_restore(const char *ckpt)
{
    ckpt_item_t *items;
    size_t n;
    int rc = ckpt_begin(ckpt, "restore into", &items, &n);
    if (rc != 0)
        return rc;
    source_t src;
    ckpt_manifest_t m = {0};
    if ((rc = load(ckpt, &src, &m)) == 0)
        rc = restore(ckpt, &src, &m, items, n);
    ckpt_manifest_free(&m);
    unload(&src);
    free(items);
    return rc;
}

int loci_ckpt_verify(const char *ckpt)
{
    int rc = ckpt_entry_check(ckpt);
    if (rc != 0)
        return rc;
    source_t src = {0};
    ckpt_manifest_t m = {0};
    unsigned char *buf = malloc(CKPT_CHUNK);
    rc = buf ? load(ckpt, &src, &m) : loci__fail(LOCI_ENOMEM, "out of memory verifying a checkpoint");
    uint64_t bad = 0, total = 0, bytes = rc == 0 ? ckpt_stored_bytes(&m, true) : 0, done = 0;
    char first[1024] = "";
    for (size_t k = 0; rc == 0 && k < m.nvars; k++) {
        chunkstore_rados_snap_t *sn = m.vars[k].snap ? open_snap(ckpt, &m.vars[k]) : NULL;
        if (m.vars[k].snap && !sn) { /* the snapshot is gone: every chunk of it is */
            total += m.vars[k].nchunks;
            if (bad++ == 0)
                snprintf(first, sizeof first, "%s", loci_last_error());
            for (uint64_t i = 0; i < m.vars[k].nchunks; i++)
                done += m.vars[k].chunks[i].id != CKPT_ZERO ? ckpt_chunk_len(&m.vars[k], i) : 0;
            ckpt_progress(ckpt, "verify", done, bytes);
            continue;
        }
        for (uint64_t i = 0; i < m.vars[k].nchunks; i++) {
            if (m.vars[k].chunks[i].id == CKPT_ZERO)
                continue;
            total++;
            if (check_any(&src, sn, ckpt, &m.vars[k], i, buf) != 0 && bad++ == 0)
                snprintf(first, sizeof first, "%s", loci_last_error());
            ckpt_progress(ckpt, "verify", done += ckpt_chunk_len(&m.vars[k], i), bytes);
        }
        chunkstore_rados_snap_close(sn);
    }
    if (rc == 0 && bad > 0)
        rc = loci__fail(LOCI_EIO, "%s (%llu of %llu chunks are bad)", first, (unsigned long long)bad,
                        (unsigned long long)total);
    ckpt_manifest_free(&m);
    free(buf);
    unload(&src);
    return rc;
}
