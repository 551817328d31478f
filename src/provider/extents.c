/* Address-keyed records of provider extents (see extents.h). */
#include "provider/provider.h"
#include "provider/extents.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xtable_fork(xtable_t *t, loci_fork_phase_t phase) { loci__fork_mutex(&t->lock, phase); }

int xtable_add(xtable_t *t, const xrec_t *r)
{
    xrec_t *rec = malloc(sizeof *rec);
    char *path = rec && r->path ? strdup(r->path) : NULL;
    bool added = false;
    if (rec && (path || !r->path)) {
        *rec = *r;
        rec->path = path;
        pthread_mutex_lock(&t->lock);
        added = addr_table_add(&t->records, rec->base, rec->size, rec);
        pthread_mutex_unlock(&t->lock);
    }
    if (!added) {
        free(path);
        free(rec);
        return loci__fail(LOCI_ENOMEM, "out of memory recording an extent");
    }
    return 0;
}

bool xtable_remove(xtable_t *t, uintptr_t base, xrec_t *out)
{
    pthread_mutex_lock(&t->lock);
    xrec_t *rec = addr_table_remove(&t->records, base);
    pthread_mutex_unlock(&t->lock);
    if (!rec)
        return false;
    *out = *rec; /* its path is the caller's now */
    free(rec);
    return true;
}

bool xtable_find(xtable_t *t, uintptr_t addr, xrec_t *out, char *pathbuf, size_t len)
{
    pthread_mutex_lock(&t->lock);
    const xrec_t *rec = addr_table_find(&t->records, addr);
    if (rec) {
        *out = *rec;
        if (pathbuf && len)
            snprintf(pathbuf, len, "%s", rec->path ? rec->path : "");
        out->path = pathbuf;
    }
    pthread_mutex_unlock(&t->lock);
    return rec != NULL;
}

bool xtable_rekey(xtable_t *t, uintptr_t from, uintptr_t to)
{
    pthread_mutex_lock(&t->lock);
    xrec_t *rec = addr_table_find(&t->records, from);
    bool found = rec && rec->base == from && addr_table_rekey(&t->records, from, to);
    if (found)
        rec->base = to;
    pthread_mutex_unlock(&t->lock);
    return found;
}

void xtable_each_held(xtable_t *t, void (*fn)(xrec_t *r, void *arg), void *arg)
{
    for (size_t i = 0; i < t->records.n; i++)
        fn(t->records.v[i].value, arg);
}
