/* Address-keyed records of provider extents (see extents.h). */
#include "provider/provider.h"
#include "provider/extents.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of the first record with base > addr. */
static size_t upper(const xtable_t *t, uintptr_t addr)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->v[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void xtable_fork(xtable_t *t, loci_fork_phase_t phase) { loci__fork_mutex(&t->lock, phase); }

int xtable_add(xtable_t *t, const xrec_t *r)
{
    xrec_t rec = *r;
    rec.path = NULL;
    if (r->path && !(rec.path = strdup(r->path)))
        return loci__fail(LOCI_ENOMEM, "out of memory recording an extent");
    pthread_mutex_lock(&t->lock);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        xrec_t *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&t->lock);
            free(rec.path);
            return loci__fail(LOCI_ENOMEM, "out of memory recording an extent");
        }
        t->v = v;
        t->cap = cap;
    }
    size_t i = upper(t, rec.base);
    memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof *t->v);
    t->v[i] = rec;
    t->n++;
    pthread_mutex_unlock(&t->lock);
    return 0;
}

bool xtable_remove(xtable_t *t, uintptr_t base, xrec_t *out)
{
    pthread_mutex_lock(&t->lock);
    size_t i = upper(t, base);
    bool found = i > 0 && t->v[i - 1].base == base;
    if (found) {
        *out = t->v[i - 1];
        memmove(&t->v[i - 1], &t->v[i], (t->n - i) * sizeof *t->v);
        t->n--;
    }
    if (t->n == 0) { /* give the array back when the last extent goes */
        free(t->v);
        t->v = NULL;
        t->cap = 0;
    }
    pthread_mutex_unlock(&t->lock);
    return found;
}

bool xtable_find(xtable_t *t, uintptr_t addr, xrec_t *out, char *pathbuf, size_t len)
{
    pthread_mutex_lock(&t->lock);
    size_t i = upper(t, addr);
    bool found = i > 0 && addr - t->v[i - 1].base < t->v[i - 1].size;
    if (found) {
        *out = t->v[i - 1];
        if (pathbuf && len) {
            snprintf(pathbuf, len, "%s", out->path ? out->path : "");
        }
        out->path = pathbuf;
    }
    pthread_mutex_unlock(&t->lock);
    return found;
}

bool xtable_rekey(xtable_t *t, uintptr_t from, uintptr_t to)
{
    pthread_mutex_lock(&t->lock);
    size_t i = upper(t, from);
    bool found = i > 0 && t->v[i - 1].base == from;
    if (found) { /* take it out and put it back where `to` sorts */
        xrec_t r = t->v[i - 1];
        memmove(&t->v[i - 1], &t->v[i], (t->n - i) * sizeof *t->v);
        t->n--;
        r.base = to;
        size_t j = upper(t, to);
        memmove(&t->v[j + 1], &t->v[j], (t->n - j) * sizeof *t->v);
        t->v[j] = r;
        t->n++;
    }
    pthread_mutex_unlock(&t->lock);
    return found;
}
