/*
 * Garbage collection of drained chunks in the job store (docs/CHECKPOINT.md):
 * the objects "loci-ckpt/chunks/<pool id>" of the drain target's store that
 * no manifest names — neither one in the store (any node's) nor one of this
 * node's checkpoint directory (maybe not drained yet).
 *
 * A drain looks for a chunk in the store and, finding it, relies on it
 * until its manifest is put. So drains on every node hold a shared RADOS
 * lock on object GUARD_OID from their first look to their put, and the GC
 * takes it exclusively: it never removes a chunk a drain has counted on. A
 * drain killed midway leaves chunks no manifest names; the GC removes them
 * and the next drain sends them again. The lock expires with its holder.
 */
#include "ckpt/ckpt.h"
#include "jobstore/jobstore.h"
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GUARD_OID "loci-ckpt-gc"

struct ckpt_guard {
    rados_ioctx_t io;
};

int ckpt_store_guard(struct jobstore *rp, bool exclusive, ckpt_guard_t **out)
{
    ckpt_guard_t *g = malloc(sizeof *g);
    if (!g)
        return loci__fail(LOCI_ENOMEM, "out of memory locking the drained checkpoint chunks");
    if (!(g->io = jobstore_ioctx(rp))) {
        free(g);
        return LOCI_EIO;
    }
    const char *what = exclusive ? "checkpoint chunks of the store (gc)" : "checkpoint chunks of the store (drain)";
    double until = clock_mono_s() + jobstore_params(rp)->timeout_s;
    int rc;
    /* A drain waits for a GC (they are short); a GC gives way to drains. */
    while ((rc = jobstore_lock_take(rp, g->io, GUARD_OID, exclusive, what)) == LOCI_EBUSY && !exclusive &&
           clock_mono_s() < until)
        nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
    if (rc != 0) {
        jobstore_ioctx_close(g->io);
        free(g);
        return rc;
    }
    *out = g;
    return 0;
}

void ckpt_store_unguard(ckpt_guard_t *g)
{
    if (!g)
        return;
    jobstore_lock_release(g->io, GUARD_OID);
    jobstore_ioctx_close(g->io);
    free(g);
}

typedef struct {
    struct jobstore *rp;
    ckpt_ids_t *ids;    /* named by a manifest */
    ckpt_ids_t garbage; /* chunk objects none names */
    uint64_t kept;      /* chunk objects some manifest names */
} sweep_t;

static int mark_stored(const ckpt_manifest_t *m, void *ids) { return ckpt_ids_add(ids, m); }

/* Listed first, removed after: the listing is not disturbed by removals. */
static int note_garbage(const char *name, void *arg)
{
    sweep_t *w = arg;
    uint64_t id;
    if (!ckpt_id_of(name, &id)) /* not loci's name for a chunk: not ours to remove */
        return 0;
    if (ckpt_ids_has(w->ids, id)) {
        w->kept++;
        return 0;
    }
    return ckpt_ids_push(&w->garbage, id);
}

int ckpt_store_chunks_sweep(ckpt_ids_t *ids, loci_ckpt_gc_stats_t *out)
{
    const char *target = ckpt_drain_target();
    if (!target)
        return 0;
    sweep_t w = {.rp = ckpt_target_pool(target), .ids = ids};
    if (!w.rp)
        return ckpt_fail_in(LOCI_EIO, "drained checkpoint chunks not collected");
    ckpt_guard_t *guard;
    int rc = ckpt_store_guard(w.rp, true, &guard);
    if (rc == LOCI_EBUSY) {
        loci__log(LOCI_LOG_INFO, "drained checkpoint chunks in %s not collected now: a drain is running (%s)", target,
                  loci_last_error());
        return 0;
    }
    if (rc != 0)
        return rc;
    rc = ckpt_store_manifest_mark(w.rp, mark_stored, ids);
    ckpt_ids_sort(ids);
    if (rc == 0)
        rc = jobstore_object_each(w.rp, CKPT_STORE_CHUNKS, note_garbage, &w);
    out->store_chunks_kept += w.kept;
    for (size_t i = 0; i < w.garbage.n && rc == 0; i++) {
        char oid[64], id[17];
        ckpt_id_name(w.garbage.v[i], id);
        snprintf(oid, sizeof oid, CKPT_STORE_CHUNKS "%s", id);
        if ((rc = jobstore_object_remove(w.rp, oid)) == 0)
            out->store_chunks_removed++;
    }
    ckpt_store_unguard(guard);
    ckpt_ids_free(&w.garbage);
    return rc;
}
