/*
 * Checkpoints of regions on the job's store (docs/CHECKPOINT.md): their
 * chunks are kept by RADOS self-managed snapshots, not copied, and the
 * manifest of such a checkpoint is kept in the store too, as object
 * "loci-ckpt/<name>", so that another node finds it. Here: the manifests in
 * the store and the garbage collection of snapshots no manifest refers to.
 */
#include "ckpt/ckpt.h"
#include "chunkstore/rados_objects.h"
#include "topo/topo.h"
#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_PREFIX CKPT_STORE_MANIFESTS
#define MANIFEST_MAX ((size_t)1 << 30)

struct ckpt_snap_ref {
    char target[16];
    char region[NVM_NAME_MAX + 1];
    uint64_t snap;
};

struct jobstore *ckpt_target_pool(const char *target)
{
    const loci_target_t *t = loci_target_by_name(target);
    if (!t)
        return loci__fail_null(LOCI_ENOENT, "store target %s named by the checkpoint does not exist here: configure "
                                            "it in LOCI_CONFIG as where the checkpoint was saved", target);
    if (t->kind != KIND_STORE || !t->store)
        return loci__fail_null(LOCI_EIO, "target %s named by the checkpoint %s", target,
                               t->kind != KIND_STORE ? "is not a store" : t->unreachable ? t->unreachable
                                                                                          : "has no cluster behind it");
    return t->store;
}

int ckpt_snap_targets_each(const ckpt_manifest_t *m,
                           int (*fn)(const char *target, const ckpt_manifest_t *m, void *arg), void *arg)
{
    for (size_t i = 0; i < m->nvars; i++) {
        const ckpt_var_t *v = &m->vars[i];
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = m->vars[k].snap && strcmp(m->vars[k].target, v->target) == 0;
        int rc = v->snap && !seen ? fn(v->target, m, arg) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct {
    const char *text;
    size_t len;
} blob_t;

int ckpt_store_manifest_put_to(struct jobstore *rp, const char *name, const char *text, size_t len)
{
    char oid[NVM_NAME_MAX + 16];
    snprintf(oid, sizeof oid, MANIFEST_PREFIX "%s", name);
    return jobstore_object_put(rp, oid, text, len);
}

static int put_one(const char *target, const ckpt_manifest_t *m, void *arg)
{
    const blob_t *b = arg;
    struct jobstore *rp = ckpt_target_pool(target);
    int rc = rp ? ckpt_store_manifest_put_to(rp, m->name, b->text, b->len) : LOCI_EIO;
    return rc ? ckpt_fail_in(rc, "its manifest in %s", target) : 0;
}

int ckpt_store_manifest_put(const ckpt_manifest_t *m, const char *text, size_t len)
{
    blob_t b = {text, len};
    return ckpt_snap_targets_each(m, put_one, &b);
}

int ckpt_store_manifest_get(struct jobstore *rp, const char *name, ckpt_manifest_t *m)
{
    char oid[NVM_NAME_MAX + 16], *text;
    size_t len;
    snprintf(oid, sizeof oid, MANIFEST_PREFIX "%s", name);
    int rc = jobstore_object_get(rp, oid, MANIFEST_MAX, &text, &len);
    if (rc != 0)
        return rc;
    rc = ckpt_manifest_parse(name, text, len, m);
    free(text);
    return rc;
}

static int remove_one(const char *target, const ckpt_manifest_t *m, void *arg)
{
    (void)arg;
    struct jobstore *rp = ckpt_target_pool(target);
    if (!rp)
        return LOCI_EIO;
    ckpt_manifest_t there;
    int rc = ckpt_store_manifest_get(rp, m->name, &there);
    if (rc == LOCI_ENOENT)
        return 0;
    bool same = rc == 0 && ckpt_sum_equal(there.sum, m->sum);
    if (rc == 0)
        ckpt_manifest_free(&there);
    char oid[NVM_NAME_MAX + 16];
    snprintf(oid, sizeof oid, MANIFEST_PREFIX "%s", m->name);
    return same ? jobstore_object_remove(rp, oid) : 0;
}

int ckpt_store_manifest_remove(const ckpt_manifest_t *m)
{
    int rc = ckpt_snap_targets_each(m, remove_one, NULL);
    const char *drain = ckpt_drain_target();
    bool named = false; /* the drain target is one of the snapshots' stores */
    for (size_t i = 0; drain && i < m->nvars && !named; i++)
        named = m->vars[i].snap && strcmp(m->vars[i].target, drain) == 0;
    return rc == 0 && drain && !named ? remove_one(drain, m, NULL) : rc;
}

int ckpt_store_manifest_remove_from(struct jobstore *rp, const char *name)
{
    char oid[NVM_NAME_MAX + 16];
    snprintf(oid, sizeof oid, MANIFEST_PREFIX "%s", name);
    return jobstore_object_remove(rp, oid);
}

int ckpt_level2_stores(struct jobstore **out, int max)
{
    const char *drain = ckpt_drain_target();
    if (drain) {
        struct jobstore *rp = ckpt_target_pool(drain);
        if (!rp)
            return ckpt_fail_in(LOCI_EIO, "level 2 of checkpoints ([checkpoint] drain = %s) cannot be read", drain);
        out[0] = rp;
        return 1;
    }
    int n = 0;
    for (int i = 0; i < loci_target_count() && n < max; i++) {
        const loci_target_t *t = loci_target_at(i);
        if (t->kind == KIND_STORE && t->store)
            out[n++] = t->store;
    }
    return n;
}

int ckpt_store_find(const char *name, ckpt_manifest_t *m, struct jobstore **out)
{
    struct jobstore *stores[CKPT_LEVEL2_MAX];
    int n = ckpt_level2_stores(stores, CKPT_LEVEL2_MAX);
    if (n < 0)
        return n;
    for (int i = 0; i < n; i++) {
        int e = ckpt_store_manifest_get(stores[i], name, m);
        if (e == LOCI_ENOENT)
            continue;
        if (e != 0)
            return ckpt_fail_in(e, "checkpoint \"%s\" in %s", name, jobstore_target(stores[i]));
        *out = stores[i];
        return 0;
    }
    int rc = ckpt_level1_elsewhere(name); /* a listing of the stores: only when it is not there */
    return rc ? rc
              : loci__fail(LOCI_ENOENT, "no checkpoint \"%s\" here nor in a store%s", name,
                           ckpt_drain_target() ? "" : " (none configured: [checkpoint] drain = TARGET)");
}

typedef struct {
    int (*fn)(const char *name, void *arg);
    void *arg;
} each_t;

/* Manifests only: "loci-ckpt/<name>", not the chunks under "loci-ckpt/chunks/". */
static int each_manifest(const char *name, void *arg)
{
    const each_t *e = arg;
    return strchr(name, '/') ? 0 : e->fn(name, e->arg);
}

int ckpt_store_manifest_each(struct jobstore *rp, int (*fn)(const char *name, void *arg), void *arg)
{
    each_t e = {fn, arg};
    return jobstore_object_each(rp, MANIFEST_PREFIX, each_manifest, &e);
}

/* ---- garbage collection of snapshots ---------------------------------------- */

static int add_ref(ckpt_snap_refs_t *refs, const ckpt_var_t *v)
{
    struct ckpt_snap_ref *p = grow_for_one(refs->v, refs->n, &refs->cap, sizeof *p, 64);
    if (!p)
        return loci__fail(LOCI_ENOMEM, "out of memory collecting store snapshots");
    refs->v = p;
    struct ckpt_snap_ref *r = &refs->v[refs->n++];
    *r = (struct ckpt_snap_ref){.snap = v->snap};
    snprintf(r->target, sizeof r->target, "%s", v->target);
    snprintf(r->region, sizeof r->region, "%s", v->name);
    return 0;
}

int ckpt_snap_refs_add(ckpt_snap_refs_t *refs, const ckpt_manifest_t *m)
{
    int rc = 0;
    for (size_t i = 0; i < m->nvars && rc == 0; i++)
        if (m->vars[i].snap)
            rc = add_ref(refs, &m->vars[i]);
    return rc;
}

void ckpt_snap_refs_free(ckpt_snap_refs_t *refs)
{
    free(refs->v);
    *refs = (ckpt_snap_refs_t){0};
}

typedef struct {
    struct jobstore *rp;
    int (*fn)(const ckpt_manifest_t *m, void *arg);
    void *arg;
} marking_t;

static int mark_one(const char *name, void *arg)
{
    const marking_t *k = arg;
    ckpt_manifest_t m;
    int rc = ckpt_store_manifest_get(k->rp, name, &m);
    if (rc == LOCI_ENOENT) /* removed meanwhile */
        return 0;
    if (rc != 0) /* what it refers to cannot be told: removing anything could lose it */
        return ckpt_fail_in(rc, "nothing collected in %s", jobstore_target(k->rp));
    rc = k->fn(&m, k->arg);
    ckpt_manifest_free(&m);
    return rc;
}

/* A record of a checkpoint whole at some node's level 1: what it refers to stays too. */
static int mark_record(ckpt_level1_t *r, void *arg)
{
    const marking_t *k = arg;
    return k->fn(&r->m, k->arg);
}

int ckpt_store_manifest_mark(struct jobstore *rp, int (*fn)(const ckpt_manifest_t *m, void *arg), void *arg)
{
    marking_t k = {rp, fn, arg};
    int rc = ckpt_store_manifest_each(rp, mark_one, &k);
    return rc ? rc : ckpt_level1_each(rp, NULL, true, mark_record, &k);
}

/* A checkpoint kept in the store (another node's too): its snapshots stay. */
static int add_stored(const ckpt_manifest_t *m, void *refs) { return ckpt_snap_refs_add(refs, m); }

int ckpt_snap_sweep(ckpt_snap_refs_t *refs, loci_ckpt_gc_stats_t *out)
{
    /* refs holds this directory's references: their regions are swept */
    /* the stores' own manifests, once per target */
    size_t own = refs->n;
    for (size_t i = 0; i < own; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(refs->v[k].target, refs->v[i].target) == 0;
        struct jobstore *rp = seen ? NULL : ckpt_target_pool(refs->v[i].target);
        if (seen)
            continue;
        int rc = rp ? ckpt_store_manifest_mark(rp, add_stored, refs) : LOCI_EIO;
        if (rc != 0)
            return rc;
    }
    /* each region of this directory's checkpoints, once */
    uint64_t *keep = malloc((refs->n ? refs->n : 1) * sizeof *keep);
    if (!keep)
        return loci__fail(LOCI_ENOMEM, "out of memory collecting store snapshots");
    int rc = 0;
    for (size_t i = 0; i < own && rc == 0; i++) {
        const struct ckpt_snap_ref *r = &refs->v[i];
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(refs->v[k].target, r->target) == 0 && strcmp(refs->v[k].region, r->region) == 0;
        if (seen)
            continue;
        size_t nkeep = 0;
        for (size_t k = 0; k < refs->n; k++)
            if (strcmp(refs->v[k].target, r->target) == 0 && strcmp(refs->v[k].region, r->region) == 0)
                keep[nkeep++] = refs->v[k].snap;
        struct jobstore *rp = ckpt_target_pool(r->target);
        int e = rp ? chunkstore_rados_sweep_snaps(rp, r->region, keep, nkeep, &out->snaps_kept, &out->snaps_removed)
                   : LOCI_EIO;
        if (e == LOCI_EBUSY || e == LOCI_ENOENT) /* open for writing (maybe saving), or removed: not now */
            loci__log(LOCI_LOG_INFO, "snapshots of region \"%s\" not collected: %s", r->region, loci_last_error());
        else
            rc = e;
    }
    free(keep);
    return rc;
}
