/*
 * Checkpoints of regions on the job's store (docs/CHECKPOINT.md): their
 * chunks are kept by RADOS self-managed snapshots, not copied, and the
 * manifest of such a checkpoint is kept in the store too (ckpt_store.c), so
 * that another node finds it. Here, above the stores' manifests and level
 * 1's records: finding a checkpoint at level 2 (or where it is instead),
 * a GC's mark of everything the stores keep, and the garbage collection of
 * snapshots no manifest refers to.
 */
#include "ckpt/ckpt.h"
#include "chunkstore/rados_objects.h"
#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ckpt_snap_ref {
    char target[16];
    char region[NVM_NAME_MAX + 1];
    uint64_t snap;
};

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
