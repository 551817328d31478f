/*
 * The job's store as checkpoints see it, below every file that uses it
 * (level 1's records, the snapshots' GC, the drain and its GC): the store
 * target a manifest names and its connection, the drain target and the
 * stores level 2 is looked for in, and the manifests of checkpoints whole
 * in a store, object "loci-ckpt/<name>": put, read, removed, listed.
 */
#include "ckpt/ckpt.h"
#include "jobstore/jobstore.h"
#include "topo/topo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_PREFIX CKPT_STORE_MANIFESTS
#define MANIFEST_MAX ((size_t)1 << 30)

/* ---- targets ---------------------------------------------------------------- */

const char *ckpt_drain_target(void)
{
    const char *origin;
    int saved = errno;
    const char *t = loci_config_intent("checkpoint", "drain", &origin);
    errno = saved;
    return t;
}

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

/* ---- manifests in a store --------------------------------------------------- */

int ckpt_store_manifest_put_to(struct jobstore *rp, const char *name, const char *text, size_t len)
{
    char oid[NVM_NAME_MAX + 16];
    snprintf(oid, sizeof oid, MANIFEST_PREFIX "%s", name);
    return jobstore_object_put(rp, oid, text, len);
}

typedef struct {
    const char *text;
    size_t len;
} blob_t;

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
