/*
 * The checkpoints of the directory: listing, removal, and the pool's
 * garbage collection. A pool chunk lives while a manifest refers to it: GC
 * marks the ids of every manifest and sweeps the rest, with the files left
 * by interrupted saves, holding the directory's lock exclusively so that no
 * save is between writing chunks and renaming its manifest meanwhile.
 */
#include "dir.h"
#include "ckpt/ckpt.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- list ------------------------------------------------------------------ */

typedef struct {
    const ckpt_dir_t *dir;      /* the directory, or NULL */
    struct jobstore *rp;      /* the level-2 store being listed */
    loci_ckpt_info_t *v;
    ckpt_sum_t *sums;           /* of v's manifests */
    size_t n, cap;
} infos_t;

/* Add (or, at level 2, mark) checkpoint m. */
static int add_manifest(infos_t *l, const ckpt_manifest_t *m, unsigned level)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, m->name) == 0 && ckpt_sum_equal(l->sums[i], m->sum)) {
            l->v[i].levels |= level;
            l->v[i].drained_bytes = l->v[i].store_bytes; /* whole at level 2 now */
            return 0;
        }
    size_t cap = l->cap, cap_sums = l->cap; /* two arrays side by side: one capacity once both grew */
    loci_ckpt_info_t *v = grow_for_one(l->v, l->n, &cap, sizeof *v, 16);
    if (v)
        l->v = v;
    ckpt_sum_t *sums = v ? grow_for_one(l->sums, l->n, &cap_sums, sizeof *sums, 16) : NULL;
    if (!sums)
        return loci__fail(LOCI_ENOMEM, "out of memory listing checkpoints");
    l->sums = sums, l->cap = cap;
    loci_ckpt_info_t *in = &l->v[l->n];
    l->sums[l->n++] = m->sum;
    ckpt_info_of(m, in);
    bool pending = level == LOCI_CKPT_LOCAL && ckpt_drain_pending(m->name);
    in->levels = level;
    in->drain_pending = pending;
    in->drained_bytes = level == LOCI_CKPT_STORE ? in->store_bytes : pending ? ckpt_drain_done(m->name) : 0;
    return 0;
}

void ckpt_info_of(const ckpt_manifest_t *m, loci_ckpt_info_t *out)
{
    *out = (loci_ckpt_info_t){.seq = m->seq, .saved = m->saved_s, .vars = m->nvars,
                              .store_bytes = ckpt_stored_bytes(m, false)};
    snprintf(out->name, sizeof out->name, "%s", m->name);
    for (size_t k = 0; k < m->nvars; k++) {
        out->bytes += m->vars[k].size;
        for (uint64_t i = 0; i < m->vars[k].nchunks; i++)
            out->chunks += m->vars[k].chunks[i].id != CKPT_ZERO;
    }
}

/* Manifest m of `level`, just read (rc: how that went), into the list; one
 * that cannot be read is warned about and left out. */
static int add_read(infos_t *l, int rc, ckpt_manifest_t *m, unsigned level)
{
    if (rc == LOCI_ENOMEM)
        return rc;
    if (rc != 0) {
        loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
        return 0;
    }
    rc = add_manifest(l, m, level);
    ckpt_manifest_free(m);
    return rc;
}

static int add_info(const char *name, void *arg)
{
    infos_t *l = arg;
    ckpt_manifest_t m;
    return add_read(l, ckpt_manifest_read(l->dir->fd, name, &m), &m, LOCI_CKPT_LOCAL);
}

static int add_stored_info(const char *name, void *arg)
{
    infos_t *l = arg;
    ckpt_manifest_t m;
    return add_read(l, ckpt_store_manifest_get(l->rp, name, &m), &m, LOCI_CKPT_STORE);
}

static int by_seq(const void *a, const void *b)
{
    const loci_ckpt_info_t *x = a, *y = b; /* save numbers are per directory: time first */
    if (x->saved != y->saved)
        return x->saved < y->saved ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int loci_ckpt_list(loci_ckpt_info_t *out, int max)
{
    if (max < 0 || (max > 0 && !out))
        return loci__fail(LOCI_EINVAL, "loci_ckpt_list: %s", max < 0 ? "negative max" : "NULL array");
    int rc = topo_ensure();
    if (rc != 0)
        return rc;
    ckpt_dir_t d;
    infos_t l = {0};
    rc = ckpt_dir_open(&d, false, false);
    if (rc != 0 && rc != LOCI_ENOENT) /* none: nothing saved here yet */
        return rc;
    if (rc == 0) {
        l.dir = &d;
        rc = ckpt_dir_manifest_each(&d, add_info, &l);
        ckpt_dir_close(&d);
    } else {
        rc = 0;
    }
    struct jobstore *stores[CKPT_LEVEL2_MAX];
    int nstores = rc == 0 ? ckpt_level2_stores(stores, CKPT_LEVEL2_MAX) : 0;
    if (nstores < 0) /* level 2 unreachable: level 1 is listed */
        loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
    for (int i = 0; rc == 0 && i < nstores; i++) {
        l.rp = stores[i];
        rc = ckpt_store_manifest_each(l.rp, add_stored_info, &l);
    }
    if (rc == 0) {
        if (l.n > 0)
            qsort(l.v, l.n, sizeof *l.v, by_seq);
        if (max > 0 && l.n > 0)
            memcpy(out, l.v, (l.n < (size_t)max ? l.n : (size_t)max) * sizeof *l.v);
        rc = l.n > INT32_MAX ? INT32_MAX : (int)l.n;
    }
    free(l.v);
    free(l.sums);
    return rc;
}

/* ---- remove ---------------------------------------------------------------- */

/* A checkpoint not in this node's directory: whole in the store (saved on
 * another node, or this node's directory lost), its manifest there goes;
 * else whole only at another node's level 1 (a node lost), the store's
 * records of it go, so that their snapshots can be collected. */
static int remove_stored(const char *ckpt)
{
    ckpt_manifest_t m;
    struct jobstore *rp;
    int rc = ckpt_store_find(ckpt, &m, &rp);
    if (rc == 0) {
        ckpt_manifest_free(&m);
        return ckpt_store_manifest_remove_from(rp, ckpt);
    }
    if (rc != LOCI_ENOENT)
        return rc;
    char why[1024];
    snprintf(why, sizeof why, "%s", loci_last_error());
    unsigned removed;
    if ((rc = ckpt_level1_remove_all(ckpt, &removed)) != 0)
        return rc;
    if (removed == 0)
        return loci__fail(LOCI_ENOENT, "%s", why);
    loci__log(LOCI_LOG_INFO, "removed the store's record of checkpoint \"%s\" (%s)", ckpt, why);
    return 0;
}

int loci_ckpt_remove(const char *ckpt)
{
    int rc = ckpt_entry_check(ckpt);
    ckpt_dir_t d;
    if (rc == 0 && (rc = ckpt_dir_open(&d, true, false)) == LOCI_ENOENT)
        return remove_stored(ckpt);
    if (rc != 0)
        return rc;
    char file[NVM_NAME_MAX + 16];
    snprintf(file, sizeof file, "%s.manifest", ckpt);
    ckpt_manifest_t m;
    bool have = ckpt_manifest_read(d.fd, ckpt, &m) == 0; /* a corrupt one is removed all the same */
    if (unlinkat(d.fd, file, 0) != 0)
        rc = errno == ENOENT ? remove_stored(ckpt)
                             : loci__fail(ckpt_code_of(errno), "cannot remove checkpoint \"%s\": %s", ckpt,
                                          strerror(errno));
    else if (fsync(d.fd) != 0)
        rc = loci__fail(ckpt_code_of(errno), "cannot sync %s: %s", d.path, strerror(errno));
    if (rc == 0 && have) /* its copy in the store, if it is this one */
        rc = ckpt_store_manifest_remove(&m);
    if (rc == 0 && have) /* or the store's record that this node holds it */
        rc = ckpt_level1_forget(&d, &m, NULL);
    if (have)
        ckpt_manifest_free(&m);
    ckpt_dir_close(&d);
    return rc;
}

/* ---- gc -------------------------------------------------------------------- */

typedef struct {
    const ckpt_dir_t *dir;
    ckpt_ids_t ids;         /* marked: referenced by a manifest */
    ckpt_snap_refs_t snaps; /* store snapshots referenced by a manifest */
    loci_ckpt_gc_stats_t out;
} gc_t;

static int mark(const char *name, void *arg)
{
    gc_t *g = arg;
    ckpt_manifest_t m;
    int rc = ckpt_manifest_read(g->dir->fd, name, &m);
    if (rc != 0) /* its chunks cannot be told: deleting anything could lose them */
        return ckpt_fail_in(rc, "nothing collected");
    rc = ckpt_snap_refs_add(&g->snaps, &m);
    if (rc == 0)
        rc = ckpt_ids_add(&g->ids, &m);
    ckpt_manifest_free(&m);
    return rc;
}

static int remove_file(int dir, const char *entry, uint64_t *bytes)
{
    struct stat st;
    if (fstatat(dir, entry, &st, AT_SYMLINK_NOFOLLOW) == 0)
        *bytes += (uint64_t)st.st_size;
    if (unlinkat(dir, entry, 0) != 0 && errno != ENOENT)
        return loci__fail(ckpt_code_of(errno), "cannot remove %s: %s", entry, strerror(errno));
    return 0;
}

/* A pool entry: kept when marked; anything else goes (a chunk of a killed
 * save, or a stray file). */
static int sweep_pool(int dirfd, const char *path, const char *entry, void *arg)
{
    (void)dirfd, (void)path;
    gc_t *g = arg;
    uint64_t id, bytes = 0;
    if (ckpt_id_of(entry, &id) && ckpt_ids_has(&g->ids, id)) {
        g->out.chunks_kept++;
        return 0;
    }
    int rc = remove_file(g->dir->pool, entry, &bytes);
    g->out.chunks_removed++;
    g->out.bytes_removed += bytes;
    return rc;
}

/* The directory's temporary manifests of saves that never finished. */
static int sweep_temps(int dirfd, const char *path, const char *entry, void *arg)
{
    (void)dirfd, (void)path;
    gc_t *g = arg;
    uint64_t bytes = 0;
    if (strncmp(entry, ".tmp-", 5) != 0)
        return 0;
    g->out.temps_removed++;
    return remove_file(g->dir->fd, entry, &bytes);
}

int loci_ckpt_gc(loci_ckpt_gc_stats_t *out)
{
    ckpt_dir_t d;
    int rc = ckpt_dir_open(&d, true, false);
    if (rc == LOCI_ENOENT) { /* no checkpoint directory: only the store's chunks to collect */
        loci_ckpt_gc_stats_t none = {0};
        ckpt_ids_t ids = {0};
        rc = ckpt_store_chunks_sweep(&ids, &none);
        ckpt_ids_free(&ids);
        if (out)
            *out = none;
        return rc;
    }
    if (rc != 0)
        return rc;
    gc_t g = {.dir = &d};
    char pool[sizeof d.path + 8];
    snprintf(pool, sizeof pool, "%s/chunks", d.path);
    rc = ckpt_dir_manifest_each(&d, mark, &g);
    if (rc == 0) {
        ckpt_ids_sort(&g.ids);
        rc = dir_each_entry(d.pool, pool, sweep_pool, &g);
    }
    if (rc == 0)
        rc = dir_each_entry(d.fd, d.path, sweep_temps, &g);
    if (rc == 0 && (fsync(d.pool) != 0 || fsync(d.fd) != 0))
        rc = loci__fail(ckpt_code_of(errno), "cannot sync %s: %s", d.path, strerror(errno));
    if (rc == 0 && g.snaps.n > 0)
        rc = ckpt_snap_sweep(&g.snaps, &g.out);
    if (rc == 0)
        rc = ckpt_store_chunks_sweep(&g.ids, &g.out);
    ckpt_dir_close(&d);
    ckpt_snap_refs_free(&g.snaps);
    ckpt_ids_free(&g.ids);
    if (out)
        *out = g.out;
    return rc;
}
