/*
 * The RADOS chunk store (chunkstore.h): a variable is laid out in objects of
 * `object` bytes, a whole number of chunks each (the cache's unit need not
 * be the store's: an OSD's cost is per operation, and a 4 MiB object pays it
 * once where 256 KiB chunks pay it 16 times); object i is
 * "<prefix>/<i as 16 hex digits>" in the target's pool (NVMalloc: a chunk
 * on a benefactor, placed by CRUSH), chunks written at their offsets in it.
 * A missing object, or bytes past its end, read as zeros. The dirty page
 * runs of an object go out as ONE atomic write op (one OSD round trip and
 * one journal flush instead of one per page or chunk; runs that continue
 * each other one extent), acknowledged — i.e. durable on the OSDs — when it
 * returns. The objects are reached through src/jobstore alone (object_io.c,
 * xattrs.c): this file maps chunks to objects and names them.
 *
 * Named regions keep their size, object size and layout as xattrs of the
 * object "loci-region/<name>", which also carries the writer's (exclusive)
 * or the readers' (shared) lock, expiring when its holder dies (lock.c).
 * Layout 1 (regions made before objects were told from chunks: no
 * loci.layout) has an object per chunk and opens as such. Layout 2 keeps
 * the object size where layout 1 kept the chunk (loci.chunk: the bytes
 * each object holds, in both) and the cache's chunk in loci.cache_chunk:
 * a loci of layout 1 opens it as a region of object-sized chunks and
 * reads and writes the right bytes, instead of misreading it.
 * Private extents (loci_alloc on the store) are "loci-anon/<host>.<pid>.<random>"
 * and their objects go when the extent is freed.
 */
#include "chunkstore/rados_objects.h"
#include "filetier/filetier.h"
#include "units.h"
#include "random_id.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REGION_PREFIX "loci-region/"
#define ANON_PREFIX "loci-anon/"
#define XATTR_SIZE "loci.size"
#define XATTR_CHUNK "loci.chunk" /* bytes per object: a chunk in layout 1, an object in layout 2 */
#define XATTR_SNAPC "loci.snapc" /* the region's snapshot context: "SEQ SNAP..." newest first */
#define XATTR_LAYOUT "loci.layout" /* "2"; absent: layout 1, an object per chunk */
#define XATTR_CACHE_CHUNK "loci.cache_chunk" /* layout 2: the chunk of the cache, a divisor of loci.chunk */
#define LAYOUT 2 /* what this loci writes; it reads 1 and 2 */
#define REMOVE_BATCH 64
#define READS_IN_FLIGHT 16
#define READ_PIECE ((size_t)1 << 20) /* a read of a whole object goes in pieces of this, all in flight: 4 MiB asked
                                      * of one OSD in one piece left a reader with 4 reads in flight (issue 40) */
#define WRITES_IN_FLIGHT 16
#define OID_MAX 340 /* prefix + "/" + 16 hex digits */

/* The layout of a region or private memory: sizes in bytes. */
typedef struct {
    uint64_t size;
    size_t chunk, object; /* object: a multiple of chunk */
} layout_t;

typedef struct {
    chunkstore_t base;
    jobstore_t *pool;
    rados_ioctx_t io;
    size_t chunk, object;
    bool readonly, anonymous, locked;
    char prefix[300];   /* objects are prefix + "/" + chunk index */
    char meta_oid[300]; /* named regions: the metadata (and lock) object */
    char what[300];     /* "agg0 region \"m\"" */
    pthread_mutex_t lock;
    uint64_t *written;  /* anonymous: bit per chunk written once (removed at close); a writable
                         * region: bit per chunk written since last_snap */
    uint64_t last_snap; /* a writable region: the snapshot this store took last (0: none) */
} object_chunks_t;

static object_chunks_t *rs_of(chunkstore_t *s) { return (object_chunks_t *)s; }

static void object_oid(const char *prefix, uint64_t index, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%016llx", prefix, (unsigned long long)index);
}

/* The bytes of [off, off+len) that lie in off's object. */
static size_t in_object(size_t object, uint64_t off, size_t len)
{
    size_t left = object - off % object;
    return left < len ? left : len;
}

static int fail(const object_chunks_t *r, int err, const char *op, uint64_t off)
{
    char what[400];
    snprintf(what, sizeof what, "%s object %llu (bytes %llu+) of %s", op, (unsigned long long)(off / r->object),
             (unsigned long long)off, r->what);
    return jobstore_fail(r->pool, err, what);
}

/* ---- ops ------------------------------------------------------------------- */

/* The part of a read in each object is read in pieces of up to READ_PIECE,
 * all in flight at once (up to READS_IN_FLIGHT): a readahead batch of a
 * whole object is one round trip, its pieces served in parallel. */
static int objects_read(chunkstore_t *s, uint64_t off, void *buf, size_t len)
{
    object_chunks_t *r = rs_of(s);
    int rc = jobstore_check(r->pool, r->what);
    while (rc == 0 && len) {
        jobstore_io_read_t rd[READS_IN_FLIGHT];
        char oid[READS_IN_FLIGHT][OID_MAX];
        uint64_t at[READS_IN_FLIGHT];
        unsigned k = 0, failed;
        for (; len && k < READS_IN_FLIGHT; k++) {
            size_t n = in_object(r->object, off, len < READ_PIECE ? len : READ_PIECE);
            object_oid(r->prefix, off / r->object, oid[k], sizeof oid[k]);
            rd[k] = (jobstore_io_read_t){.oid = oid[k], .off = off % r->object, .buf = buf, .len = n};
            at[k] = off;
            buf = (char *)buf + n;
            off += n;
            len -= n;
        }
        int err = jobstore_io_read(r->io, rd, k, &failed);
        if (err < 0)
            rc = fail(r, err, "reading", at[failed]);
        for (unsigned j = 0; rc == 0 && j < k; j++) /* never written: zeros, like a chunk file that does not exist */
            memset((char *)rd[j].buf + rd[j].got, 0, rd[j].len - rd[j].got);
    }
    return rc;
}

/* The chunks of [off, off+len) written (or about to be). */
static void note_written(object_chunks_t *r, uint64_t off, size_t len)
{
    if (!r->written || !len)
        return;
    pthread_mutex_lock(&r->lock);
    for (uint64_t chunk = off / r->chunk; chunk <= (off + len - 1) / r->chunk; chunk++)
        r->written[chunk / 64] |= 1ull << (chunk % 64);
    pthread_mutex_unlock(&r->lock);
}

/* The runs of each object go out as one atomic write op, runs that continue
 * each other (a sequential writer's chunks) as one extent, the writes of up
 * to WRITES_IN_FLIGHT objects at once: a run of a sequential writer's chunks
 * costs one op per object and one round trip, not one per chunk. Each write
 * is bounded by the cluster's rados_osd_op_timeout. */
static int objects_write_runs(chunkstore_t *s, const chunkstore_run_t *runs, unsigned n)
{
    object_chunks_t *r = rs_of(s);
    int rc = jobstore_check(r->pool, r->what);
    /* The runs as extents of their objects (a run lies inside one object). */
    jobstore_io_extent_t *extents = rc ? NULL : malloc((n ? n : 1) * sizeof *extents);
    uint64_t *at = rc ? NULL : malloc((n ? n : 1) * sizeof *at); /* each extent's offset in the store */
    if (rc == 0 && (!extents || !at)) {
        free(extents);
        free(at);
        return loci__fail(LOCI_ENOMEM, "out of memory writing %s", r->what);
    }
    unsigned nx = 0;
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        jobstore_io_extent_t *last = nx ? &extents[nx - 1] : NULL;
        note_written(r, runs[i].off, runs[i].len); /* before: a write that timed out may still have been applied */
        if (last && at[nx - 1] + last->len == runs[i].off && runs[i].off % r->object &&
            (const char *)last->buf + last->len == runs[i].buf) {
            last->len += runs[i].len;
            continue;
        }
        at[nx] = runs[i].off;
        extents[nx++] = (jobstore_io_extent_t){runs[i].off % r->object, runs[i].buf, runs[i].len};
    }
    const jobstore_io_extent_t *ext = extents;
    const uint64_t *ext_at = at;
    while (rc == 0 && nx) {
        jobstore_io_write_t w[WRITES_IN_FLIGHT];
        char oid[WRITES_IN_FLIGHT][OID_MAX];
        uint64_t first[WRITES_IN_FLIGHT];
        unsigned k = 0, failed;
        for (; nx && k < WRITES_IN_FLIGHT; k++) {
            uint64_t object = ext_at[0] / r->object;
            unsigned m = 1;
            while (m < nx && ext_at[m] / r->object == object)
                m++;
            object_oid(r->prefix, object, oid[k], sizeof oid[k]);
            w[k] = (jobstore_io_write_t){oid[k], ext, m};
            first[k] = ext_at[0];
            ext += m;
            ext_at += m;
            nx -= m;
        }
        int err = jobstore_io_write(r->io, w, k, &failed);
        if (err < 0)
            rc = err == -ENOMEM ? loci__fail(LOCI_ENOMEM, "out of memory writing %s", r->what)
                                : fail(r, err, "writing", first[failed]);
    }
    free(extents);
    free(at);
    return rc;
}

static int objects_write(chunkstore_t *s, uint64_t off, const void *buf, size_t len)
{
    object_chunks_t *r = rs_of(s);
    while (len) { /* one op per object */
        size_t n = in_object(r->object, off, len);
        chunkstore_run_t run = {off, buf, n};
        int rc = objects_write_runs(s, &run, 1);
        if (rc)
            return rc;
        buf = (const char *)buf + n;
        off += n;
        len -= n;
    }
    return 0;
}

/* Writes are acknowledged by the OSDs when they return: nothing is pending. */
static int objects_sync(chunkstore_t *s)
{
    (void)s;
    return 0;
}

static int objects_discard(chunkstore_t *s, uint64_t off, size_t len)
{
    object_chunks_t *r = rs_of(s);
    char oid[OID_MAX];
    const char *oids[] = {oid};
    while (len) {
        uint64_t inner = off % r->object;
        size_t n = in_object(r->object, off, len);
        object_oid(r->prefix, off / r->object, oid, sizeof oid);
        note_written(r, off, n);
        bool whole = inner == 0 && (n == r->object || off + n >= s->size); /* nothing of it is left */
        int rc = whole ? jobstore_io_remove(r->io, oids, 1) : jobstore_io_zero(r->io, oid, inner, n);
        if (rc == -ENOMEM)
            return loci__fail(LOCI_ENOMEM, "out of memory discarding in %s", r->what);
        if (rc < 0 && rc != -ENOENT)
            return fail(r, rc, "discarding", off);
        off += n;
        len -= n;
    }
    return 0;
}

/* Was a chunk of object i written (a bit set in `which`, bit per chunk)? */
static bool object_written(const object_chunks_t *r, uint64_t i, const uint64_t *which)
{
    uint64_t per = r->object / r->chunk, nchunks = (r->base.size + r->chunk - 1) / r->chunk;
    for (uint64_t c = i * per; c < (i + 1) * per && c < nchunks; c++)
        if (which[c / 64] & (1ull << (c % 64)))
            return true;
    return false;
}

/* Remove the objects of r whose chunks have a bit set in `which` (NULL:
 * all), REMOVE_BATCH at a time in flight. */
static int remove_objects(object_chunks_t *r, const uint64_t *which)
{
    uint64_t nobjects = (r->base.size + r->object - 1) / r->object;
    char(*oid)[OID_MAX] = malloc(REMOVE_BATCH * sizeof *oid);
    const char *oids[REMOVE_BATCH];
    int first_error = oid ? 0 : -ENOMEM;
    for (uint64_t i = 0; oid && i < nobjects;) {
        unsigned k = 0;
        for (; i < nobjects && k < REMOVE_BATCH; i++)
            if (!which || object_written(r, i, which)) {
                object_oid(r->prefix, i, oid[k], sizeof oid[k]);
                oids[k] = oid[k];
                k++;
            }
        int rc = jobstore_io_remove(r->io, oids, k);
        if (rc < 0 && !first_error)
            first_error = rc;
    }
    free(oid);
    return first_error ? jobstore_fail(r->pool, first_error, "removing a region's objects") : 0;
}

static void objects_close(chunkstore_t *s)
{
    object_chunks_t *r = rs_of(s);
    if (r->anonymous) { /* freed memory: its objects go */
        int rc = remove_objects(r, r->written);
        if (rc)
            loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
    }
    if (r->locked)
        jobstore_lock_release(r->io, r->meta_oid);
    jobstore_ioctx_close(r->io);
    pthread_mutex_destroy(&r->lock);
    free(r->written);
    free(r);
}

static const chunkstore_ops_t objects_ops = {
    .name = "rados",
    .read = objects_read,
    .write = objects_write,
    .write_runs = objects_write_runs,
    .borrows_pages = true,
    .sync = objects_sync,
    .discard = objects_discard,
    .close = objects_close,
};

/* ---- making stores ----------------------------------------------------------- */

/* The object size for chunks of `chunk` bytes: `asked` (object=, else the
 * target's object =), which must be whole chunks; or by default
 * STORE_RADOS_OBJECT, in whole chunks, one chunk at least. 0 + loci__fail. */
static size_t object_for(jobstore_t *rp, size_t chunk, uint64_t asked)
{
    char a[32], b[32];
    if (!asked)
        asked = jobstore_params(rp)->object;
    if (!asked)
        return STORE_RADOS_OBJECT > chunk ? STORE_RADOS_OBJECT / chunk * chunk : chunk;
    if (asked % chunk == 0 && asked <= JOBSTORE_OBJECT_MAX)
        return (size_t)asked;
    (void)loci__fail(LOCI_EINVAL, "%s: object=%s must be a whole number of chunks (chunk=%s) and at most 64 MiB",
                     jobstore_target(rp), units_format_size(asked, a, sizeof a), units_format_size(chunk, b, sizeof b));
    return 0;
}

static object_chunks_t *store_new(jobstore_t *rp, uint64_t size, size_t chunk, const char *what)
{
    object_chunks_t *r = calloc(1, sizeof *r);
    if (!r)
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening %s", what);
    if (!(r->io = jobstore_ioctx(rp))) {
        free(r);
        return NULL;
    }
    r->base = (chunkstore_t){&objects_ops, size, false, jobstore_params(rp)->timeout_s, 0};
    r->pool = rp;
    r->chunk = chunk;
    pthread_mutex_init(&r->lock, NULL);
    snprintf(r->what, sizeof r->what, "%s", what);
    return r;
}

chunkstore_t *chunkstore_rados_anonymous(jobstore_t *rp, uint64_t size, size_t chunk, uint64_t object)
{
    char what[64], host[64] = "";
    snprintf(what, sizeof what, "%s paged memory", jobstore_target(rp));
    size_t per = object_for(rp, chunk, object);
    object_chunks_t *r = per ? store_new(rp, size, chunk, what) : NULL;
    if (!r)
        return NULL;
    r->object = per;
    r->base.unit = per;
    uint64_t nchunks = (size + chunk - 1) / chunk;
    if (!(r->written = calloc((nchunks + 63) / 64, sizeof *r->written))) {
        objects_close(&r->base);
        return loci__fail_null(LOCI_ENOMEM, "out of memory opening %s", what);
    }
    r->anonymous = true;
    gethostname(host, sizeof host - 1);
    snprintf(r->prefix, sizeof r->prefix, ANON_PREFIX "%s.%d.%016llx", host, (int)getpid(),
             (unsigned long long)random_id());
    return &r->base;
}

static void region_oid(const char *name, char *buf, size_t len) { snprintf(buf, len, REGION_PREFIX "%s", name); }

/* Xattr `name` of a region's metadata as a positive number (absent: 0):
 * 0, or an error naming the region. */
static int meta_number(jobstore_t *rp, rados_ioctx_t io, const char *oid, const char *region, const char *name,
                       unsigned long long *out)
{
    char text[32];
    int rc = jobstore_xattr_get(io, oid, name, text, sizeof text);
    *out = 0;
    if (rc == -ENODATA)
        return 0;
    if (rc < 0) {
        char what[200];
        snprintf(what, sizeof what, "reading the metadata of region \"%s\"", region);
        return jobstore_fail(rp, rc, what);
    }
    if (sscanf(text, "%llu", out) != 1 || *out == 0)
        return loci__fail(LOCI_EINVAL, "%s: object %s of region \"%s\" has an invalid %s (\"%s\"): it was not made "
                                       "by loci; remove the region or fix the object", jobstore_target(rp), oid,
                          region, name, text);
    return 0;
}

/* A region's layout from its metadata object: 0, LOCI_ENOENT (no such
 * region), or an error naming what is wrong with it. Layout 1 (no
 * loci.layout) has one object per chunk. */
static int read_meta(jobstore_t *rp, rados_ioctx_t io, const char *oid, const char *name, layout_t *out)
{
    char sz[32];
    int a = jobstore_xattr_get(io, oid, XATTR_SIZE, sz, sizeof sz);
    if (a == -ENOENT || a == -ENODATA)
        return LOCI_ENOENT;
    unsigned long long size = 0, chunk = 0, layout = 0, object = 0;
    int rc = meta_number(rp, io, oid, name, XATTR_SIZE, &size);
    if (rc == 0)
        rc = meta_number(rp, io, oid, name, XATTR_CHUNK, &object);
    if (rc == 0)
        rc = meta_number(rp, io, oid, name, XATTR_LAYOUT, &layout);
    if (rc == 0 && layout > 1)
        rc = meta_number(rp, io, oid, name, XATTR_CACHE_CHUNK, &chunk);
    if (rc != 0)
        return rc;
    if (layout > LAYOUT)
        return loci__fail(LOCI_EINVAL, "%s: region \"%s\" has layout %llu (%s of %s), made by a newer loci; this one "
                                       "reads layouts 1 and %d: open it with that loci", jobstore_target(rp), name,
                          layout, XATTR_LAYOUT, oid, LAYOUT);
    if (layout <= 1)
        chunk = object;
    if (!size || !chunk || chunk % 4096 || !object || object % chunk)
        return loci__fail(LOCI_EINVAL, "%s: object %s of region \"%s\" has no valid %s/%s/%s attributes: it was not "
                                       "made by loci; remove the region or fix the object", jobstore_target(rp), oid,
                          name, XATTR_SIZE, XATTR_CHUNK, XATTR_CACHE_CHUNK);
    *out = (layout_t){size, (size_t)chunk, (size_t)object};
    return 0;
}

/* A missing metadata object whose chunk 0 exists: deleted behind loci's back. */
static int missing_region(jobstore_t *rp, rados_ioctx_t io, const char *name, unsigned flags)
{
    char oid[OID_MAX];
    snprintf(oid, sizeof oid, REGION_PREFIX "%s/%016llx", name, 0ull);
    if (jobstore_io_exists(io, oid) == 0)
        return loci__fail(LOCI_EIO, "region \"%s\" in %s has chunk objects but its metadata object " REGION_PREFIX
                                    "%s is gone (deleted behind loci's back): its size is unknown; remove the region "
                                    "with loci_region_remove and write it again", name, jobstore_target(rp), name);
    return loci__fail(LOCI_ENOENT, "region \"%s\" does not exist in %s (pool %s)%s", name, jobstore_target(rp),
                      jobstore_params(rp)->pool, flags & LOCI_READONLY ? "" : " (pass LOCI_CREATE to create it)");
}

/* Create the metadata object of a new region: exclusively, in one op. */
static int create_meta(jobstore_t *rp, rados_ioctx_t io, const char *oid, const char *what, const layout_t *l)
{
    char sz[32], ob[32], layout[8], ch[32];
    snprintf(sz, sizeof sz, "%llu", (unsigned long long)l->size);
    snprintf(ob, sizeof ob, "%zu", l->object);
    snprintf(layout, sizeof layout, "%d", LAYOUT);
    snprintf(ch, sizeof ch, "%zu", l->chunk);
    const jobstore_xattr_t attrs[] = {{XATTR_SIZE, sz}, {XATTR_CHUNK, ob}, {XATTR_LAYOUT, layout}, {XATTR_CACHE_CHUNK, ch}};
    int rc = jobstore_xattr_create(io, oid, attrs, 4);
    if (rc == -ENOMEM)
        return loci__fail(LOCI_ENOMEM, "out of memory creating a region");
    char op_what[400];
    snprintf(op_what, sizeof op_what, "creating the metadata of %s", what);
    return rc == -EEXIST ? LOCI_EEXIST : rc < 0 ? jobstore_fail(rp, rc, op_what) : 0;
}

/* A size asked that the region does not have (0: none asked): LOCI_EINVAL
 * naming both and the key to leave out. */
static int other_size(jobstore_t *rp, const char *name, const char *key, uint64_t has, uint64_t asked)
{
    char a[32], b[32];
    if (!asked || asked == has)
        return 0;
    return loci__fail(LOCI_EINVAL, "region \"%s\" in %s has %ss of %s, not the %s=%s asked; open it without %s= (or "
                                   "remove it to change it)", name, jobstore_target(rp), key,
                      units_format_size(has, a, sizeof a), key, units_format_size(asked, b, sizeof b), key);
}

chunkstore_t *chunkstore_rados_open_region(jobstore_t *rp, const char *name, unsigned flags, uint64_t *size,
                                           size_t *chunk, size_t *object)
{
    char what[300];
    snprintf(what, sizeof what, "%s region \"%s\"", jobstore_target(rp), name);
    size_t asked_chunk = *chunk, asked_object = *object;
    object_chunks_t *r = store_new(rp, 0, asked_chunk ? asked_chunk : STORE_RADOS_CHUNK, what);
    if (!r)
        return NULL;
    region_oid(name, r->meta_oid, sizeof r->meta_oid);
    snprintf(r->prefix, sizeof r->prefix, "%s", r->meta_oid);
    r->readonly = flags & LOCI_READONLY;
    layout_t has = {0};
    int rc = read_meta(rp, r->io, r->meta_oid, name, &has);
    bool created = false;
    if (rc == LOCI_ENOENT && (flags & LOCI_CREATE)) {
        layout_t l = {*size, r->chunk, object_for(rp, r->chunk, asked_object)};
        rc = !l.object ? LOCI_EINVAL : create_meta(rp, r->io, r->meta_oid, what, &l);
        created = rc == 0;
        if (rc == LOCI_EEXIST) /* created meanwhile elsewhere: open it */
            rc = 0;
        if (rc == 0)
            rc = read_meta(rp, r->io, r->meta_oid, name, &has);
    }
    if (rc == LOCI_ENOENT)
        rc = missing_region(rp, r->io, name, flags);
    /* The lock after the metadata: a lock on a missing object would create it. */
    if (rc == 0 && (rc = jobstore_lock_take(rp, r->io, r->meta_oid, !r->readonly, what)) == 0)
        r->locked = true;
    if (rc == 0 && *size && has.size != *size)
        rc = filetier_size_mismatch(name, has.size, *size);
    if (rc == 0)
        rc = other_size(rp, name, "chunk", has.chunk, asked_chunk);
    if (rc == 0)
        rc = other_size(rp, name, "object", has.object, asked_object);
    /* A writer writes with the region's snapshot context, or its writes
     * would not keep the checkpoints' bytes (snapc.c). */
    jobstore_snapc_t snapc;
    if (rc == 0 && !r->readonly && (rc = jobstore_snapc_read(rp, r->io, r->meta_oid, &snapc)) == 0)
        rc = jobstore_snapc_apply(rp, r->io, &snapc);
    uint64_t nchunks = has.chunk ? (has.size + has.chunk - 1) / has.chunk : 0;
    if (rc == 0 && !r->readonly && !(r->written = calloc((nchunks + 63) / 64 + 1, sizeof *r->written)))
        rc = loci__fail(LOCI_ENOMEM, "out of memory opening %s", what);
    if (rc != 0) {
        objects_close(&r->base);
        errno = loci__errno_of(rc);
        return NULL;
    }
    r->base.size = has.size;
    r->base.created = created; /* no object of it exists: the cache reads none */
    r->base.unit = has.object;
    r->chunk = has.chunk;
    r->object = has.object;
    *size = has.size;
    *chunk = has.chunk;
    *object = has.object;
    return &r->base;
}

int chunkstore_rados_remove_region(jobstore_t *rp, const char *name)
{
    char what[300];
    snprintf(what, sizeof what, "%s region \"%s\"", jobstore_target(rp), name);
    object_chunks_t *r = store_new(rp, 0, 4096, what);
    if (!r)
        return LOCI_EIO; /* store_new said why */
    region_oid(name, r->meta_oid, sizeof r->meta_oid);
    snprintf(r->prefix, sizeof r->prefix, "%s", r->meta_oid);
    layout_t l;
    int rc = read_meta(rp, r->io, r->meta_oid, name, &l);
    if (rc == LOCI_ENOENT)
        rc = missing_region(rp, r->io, name, LOCI_READONLY);
    if (rc == 0 && (rc = jobstore_lock_take(rp, r->io, r->meta_oid, true, what)) == 0)
        r->locked = true;
    if (rc == 0) {
        r->base.size = l.size;
        r->chunk = l.chunk;
        r->object = l.object;
        rc = remove_objects(r, NULL);
    }
    jobstore_snapc_t snapc; /* checkpoints of it go with it: their snapshots hold its old chunks */
    if (rc == 0 && (rc = jobstore_snapc_read(rp, r->io, r->meta_oid, &snapc)) == 0)
        for (unsigned i = 0; i < snapc.n && rc == 0; i++)
            rc = jobstore_snapc_remove(rp, r->meta_oid, snapc.snaps[i]);
    if (rc == 0) {
        jobstore_lock_release(r->io, r->meta_oid);
        r->locked = false;
        const char *oids[] = {r->meta_oid};
        int e = jobstore_io_remove(r->io, oids, 1);
        if (e < 0 && e != -ENOENT)
            rc = jobstore_fail(rp, e, "removing a region's metadata");
    }
    objects_close(&r->base);
    return rc;
}

/* ---- snapshots of regions (checkpoints) -------------------------------------- */

static object_chunks_t *region_writer(chunkstore_t *s)
{
    object_chunks_t *r = s && s->ops == &objects_ops ? rs_of(s) : NULL;
    return r && !r->anonymous && !r->readonly ? r : NULL;
}

jobstore_t *chunkstore_rados_region_pool(chunkstore_t *s)
{
    object_chunks_t *r = region_writer(s);
    return r ? r->pool : NULL;
}

size_t chunkstore_rados_chunk(chunkstore_t *s) { return rs_of(s)->chunk; }

int chunkstore_rados_snapshot(chunkstore_t *s, uint64_t *snap)
{
    object_chunks_t *r = region_writer(s);
    if (!r)
        return loci__fail(LOCI_ENOTSUP, "only a store region open writable can be snapshotted");
    jobstore_snapc_t c;
    pthread_mutex_lock(&r->lock); /* no write-back runs meanwhile: the caller flushed */
    int rc = jobstore_snapc_take(r->pool, r->io, r->meta_oid, r->what, &c);
    if (rc == 0) {
        *snap = c.snaps[0];
        r->last_snap = c.snaps[0];
        memset(r->written, 0, ((s->size + r->chunk - 1) / r->chunk + 63) / 64 * sizeof *r->written);
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

bool chunkstore_rados_unchanged(chunkstore_t *s, uint64_t snap, uint64_t chunk)
{
    object_chunks_t *r = region_writer(s);
    if (!r || !snap)
        return false;
    pthread_mutex_lock(&r->lock);
    bool same = r->last_snap == snap && !(r->written[chunk / 64] & (1ull << (chunk % 64)));
    pthread_mutex_unlock(&r->lock);
    return same;
}

struct chunkstore_rados_snap {
    jobstore_t *pool;
    rados_ioctx_t io;
    layout_t layout; /* the region's, as it is now (a snapshot of it has the same) */
    char prefix[300], what[300];
};

chunkstore_rados_snap_t *chunkstore_rados_snap_open(jobstore_t *rp, const char *name, uint64_t snap)
{
    chunkstore_rados_snap_t *sn = calloc(1, sizeof *sn);
    if (!sn)
        return loci__fail_null(LOCI_ENOMEM, "out of memory reading a snapshot");
    if (!(sn->io = jobstore_ioctx(rp))) {
        free(sn);
        return NULL;
    }
    sn->pool = rp;
    region_oid(name, sn->prefix, sizeof sn->prefix);
    snprintf(sn->what, sizeof sn->what, "%s region \"%s\" at snapshot %llu", jobstore_target(rp), name,
             (unsigned long long)snap);
    jobstore_snapc_t c;
    int rc = read_meta(rp, sn->io, sn->prefix, name, &sn->layout);
    if (rc == 0)
        rc = jobstore_snapc_read(rp, sn->io, sn->prefix, &c);
    if (rc == LOCI_ENOENT)
        rc = loci__fail(LOCI_ENOENT, "%s: the region's metadata object %s is gone", sn->what, sn->prefix);
    else if (rc == 0 && !jobstore_snapc_has(&c, snap))
        rc = loci__fail(LOCI_ENOENT, "%s: the region has no such snapshot (removed behind loci's back?)", sn->what);
    if (rc != 0) {
        chunkstore_rados_snap_close(sn);
        return NULL;
    }
    jobstore_snapc_view(sn->io, snap);
    return sn;
}

int chunkstore_rados_snap_read(chunkstore_rados_snap_t *sn, uint64_t chunk, void *buf, size_t len, size_t *got)
{
    char oid[OID_MAX];
    uint64_t off = chunk * sn->layout.chunk;
    object_oid(sn->prefix, off / sn->layout.object, oid, sizeof oid);
    /* no object at the snapshot, or one that ends before: got 0, zeros */
    jobstore_io_read_t rd = {.oid = oid, .off = off % sn->layout.object, .buf = buf, .len = len};
    unsigned failed;
    int n = jobstore_io_read(sn->io, &rd, 1, &failed);
    if (n < 0) {
        char what[400];
        snprintf(what, sizeof what, "reading chunk %llu of %s", (unsigned long long)chunk, sn->what);
        return jobstore_fail(sn->pool, n, what);
    }
    *got = rd.got;
    return 0;
}

void chunkstore_rados_snap_close(chunkstore_rados_snap_t *sn)
{
    if (!sn)
        return;
    jobstore_ioctx_close(sn->io);
    free(sn);
}

int chunkstore_rados_sweep_snaps(jobstore_t *rp, const char *name, const uint64_t *keep, size_t nkeep, uint64_t *kept,
                            uint64_t *removed)
{
    char oid[300], what[400];
    region_oid(name, oid, sizeof oid);
    snprintf(what, sizeof what, "%s region \"%s\" (collecting its snapshots)", jobstore_target(rp), name);
    rados_ioctx_t io = jobstore_ioctx(rp);
    if (!io)
        return LOCI_EIO;
    /* The writer's lock: no save of the region is between taking its
     * snapshot and publishing the manifest that names it. */
    int rc = jobstore_lock_take(rp, io, oid, true, what);
    jobstore_snapc_t c;
    if (rc == 0) {
        if ((rc = jobstore_snapc_read(rp, io, oid, &c)) == 0)
            for (unsigned i = 0; i < c.n && rc == 0; i++) {
                bool wanted = false;
                for (size_t k = 0; k < nkeep && !wanted; k++)
                    wanted = keep[k] == c.snaps[i];
                if (wanted)
                    ++*kept;
                else if ((rc = jobstore_snapc_remove(rp, oid, c.snaps[i])) == 0)
                    ++*removed;
            }
        jobstore_lock_release(io, oid);
    }
    jobstore_ioctx_close(io);
    return rc;
}
