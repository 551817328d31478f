/*
 * The job's aggregate store as a target (kind store, docs/STORE.md): a
 * RADOS pool every node of the job reaches, persistent, shareable across
 * nodes. Connected at discovery so that `loci info` shows its capacity and
 * free space from the cluster; a cluster that does not answer within the
 * target's timeout leaves the target listed but unreachable, with a warning
 * naming the conf and the error — never a failed or hanging loci_init.
 */
#include "topo/topo_internal.h"

#include <stdlib.h>
#include <string.h>

int topo_add_store(topo_t *t, const char *name, const jobstore_params_t *p)
{
    if (t->ntargets >= t->nnodes + TOPO_MAX_EXTRA_TARGETS)
        return loci__fail(LOCI_ECONFIG, "too many file tiers and stores (at most %d)", TOPO_MAX_EXTRA_TARGETS);
    struct loci_target *tg = topo_add_target(t, KIND_STORE, -1);
    if (!tg)
        return loci__fail(LOCI_ENOMEM, "out of memory adding store %s", name);
    snprintf(tg->name, sizeof tg->name, "%s", name);
    tg->kind_source = SRC_CONFIG;
    tg->flags = LOCI_TARGET_PERSISTENT | LOCI_TARGET_SHAREABLE | LOCI_TARGET_CPU_ACCESSIBLE | LOCI_TARGET_JOB_WIDE;
    if (t->simulated) /* an injected machine has no cluster: placement is recorded only */
        return 0;
    int rc = jobstore_connect(p, name, &tg->store);
    uint64_t capacity = 0, available = 0;
    if (rc == 0 && jobstore_space(tg->store, &capacity, &available) == 0) {
        topo_attr_offer(&tg->capacity, capacity, SRC_OS);
        topo_attr_offer(&tg->available, available, SRC_OS);
    } else if (rc == 0) {
        loci__log(LOCI_LOG_INFO, "%s: capacity unknown: %s", name, loci_last_error());
    }
    if (rc != 0) {
        tg->flags |= LOCI_TARGET_UNREACHABLE;
        tg->unreachable = strdup(loci_last_error());
        tg->unreachable_code = LOCI_EIO;
        loci__log(LOCI_LOG_WARN, "%s is unreachable and will not be used until the next loci_init: %s", name,
                  loci_last_error());
    }
    return 0;
}
