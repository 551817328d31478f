/*
 * Pool ids, below every file that names a chunk: the 16 lowercase hex
 * digits a pool file (and a drained chunk's object) is named by, read and
 * written, and sets of ids — the chunks some manifests refer to, or that a
 * save created.
 */
#include "ckpt/ckpt.h"
#include "grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ckpt_id_name(uint64_t id, char out[17]) { snprintf(out, 17, "%016" PRIx64, id); }

bool ckpt_hex64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char ch = s[i];
        unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0') : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10) : 16;
        if (d == 16)
            return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

bool ckpt_id_of(const char *name, uint64_t *id) { return strlen(name) == 16 && ckpt_hex64(name, id); }

/* ---- sets ------------------------------------------------------------------ */

static int by_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ckpt_ids_push(ckpt_ids_t *ids, uint64_t id)
{
    uint64_t *v = grow_for_one(ids->v, ids->n, &ids->cap, sizeof *v, 1024);
    if (!v)
        return loci__fail(LOCI_ENOMEM, "out of memory collecting checkpoint chunks");
    ids->v = v;
    ids->v[ids->n++] = id;
    return 0;
}

int ckpt_ids_add(ckpt_ids_t *ids, const ckpt_manifest_t *m)
{
    int rc = 0;
    for (size_t k = 0; k < m->nvars; k++) /* a store snapshot keeps its chunks: not ours */
        for (uint64_t i = 0; !m->vars[k].snap && i < m->vars[k].nchunks && rc == 0; i++)
            if (m->vars[k].chunks[i].id != CKPT_ZERO)
                rc = ckpt_ids_push(ids, m->vars[k].chunks[i].id);
    return rc;
}

void ckpt_ids_sort(ckpt_ids_t *ids)
{
    if (ids->n > 0)
        qsort(ids->v, ids->n, sizeof *ids->v, by_id);
}

bool ckpt_ids_has(const ckpt_ids_t *ids, uint64_t id)
{
    return ids->n > 0 && bsearch(&id, ids->v, ids->n, sizeof *ids->v, by_id) != NULL;
}

void ckpt_ids_free(ckpt_ids_t *ids)
{
    free(ids->v);
    *ids = (ckpt_ids_t){0};
}
