/*
 * What the job's store knows of a checkpoint that is whole only at one
 * node's level 1 (docs/CHECKPOINT.md, "Two levels"). A checkpoint naming
 * store snapshots whose other chunks (DRAM variables, regions in a file
 * tier) are in that node's checkpoint directory only is no checkpoint of the
 * store: its manifest is not put there. The store gets a *record* instead,
 * object "loci-ckpt/level1/<name>/<node id>" in each store of its snapshots:
 *
 *   loci-ckpt-level1 1
 *   node HOST                     the node that holds it (its host name)
 *   dir PATH                      and its checkpoint directory there
 *   drain TARGET|-                the drain target when it was saved
 *   loci-ckpt 1 ...               the manifest, with its checksum
 *
 * so that every other node says where the checkpoint is instead of finding
 * nothing (or a manifest whose chunks it cannot read), and so that their GC
 * keeps its snapshots. The saving node replaces its record at each save of
 * that name, removes it once the checkpoint is whole in the store (its
 * drain, or a later save naming store data only) or removed; `loci ckpt rm`
 * on another node removes the records of a node that is lost.
 */
#include "ckpt/ckpt.h"
#include "jobstore/jobstore.h"
#include "topo/topo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "loci-ckpt-level1 1\n"
#define RECORD_MAX ((size_t)1 << 30)

/* The id of node `host`'s checkpoint directory `dir` (both hashed). */
static uint64_t id_of(const char *host, const char *dir)
{
    char both[256 + 4096 + 1];
    int n = snprintf(both, sizeof both, "%.255s%c%.4095s", host, '\0', dir);
    return XXH3_64bits(both, (size_t)n);
}

/* The object of the record that node `host` holds checkpoint `name` in directory `dir`. */
static void record_oid(const char *name, const char *host, const char *dir, char *oid, size_t len)
{
    snprintf(oid, len, CKPT_STORE_LEVEL1 "%s/%016" PRIx64, name, id_of(host, dir));
}

/* This node's host name. */
static void this_host(char host[256])
{
    if (gethostname(host, 255) != 0)
        snprintf(host, 256, "unknown");
    host[255] = '\0';
}

/* A header value on one line: a newline in a path would end it early. */
static void one_line(FILE *f, const char *key, const char *value)
{
    fprintf(f, "%s ", key);
    for (const char *p = value; *p; p++)
        fputc(*p == '\n' ? '?' : *p, f);
    fputc('\n', f);
}

typedef struct {
    const ckpt_dir_t *dir;
    const char *text;
    size_t len;
    const char *drain;
} put_t;

static int put_one(const char *target, const ckpt_manifest_t *m, void *arg)
{
    const put_t *p = arg;
    char host[256], oid[CKPT_LEVEL1_OID], drain[sizeof ((ckpt_level1_t *)0)->drain], *rec = NULL;
    size_t len = 0;
    snprintf(drain, sizeof drain, "%s", p->drain ? p->drain : "-"); /* what a reader takes (a target name fits) */
    this_host(host);
    record_oid(m->name, host, p->dir->path, oid, sizeof oid);
    FILE *f = open_memstream(&rec, &len);
    if (!f)
        return loci__fail(LOCI_ENOMEM, "out of memory recording checkpoint \"%s\" in %s", m->name, target);
    fputs(MAGIC, f);
    one_line(f, "node", host);
    one_line(f, "dir", p->dir->path);
    one_line(f, "drain", drain);
    fwrite(p->text, 1, p->len, f);
    if (fclose(f) != 0) {
        free(rec);
        return loci__fail(LOCI_ENOMEM, "out of memory recording checkpoint \"%s\" in %s", m->name, target);
    }
    struct jobstore *rp = ckpt_target_pool(target);
    int rc = rp ? jobstore_object_put(rp, oid, rec, len) : LOCI_EIO;
    free(rec);
    return rc ? ckpt_fail_in(rc, "its record in %s", target) : 0;
}

int ckpt_level1_put(const ckpt_dir_t *d, const ckpt_manifest_t *m, const char *text, size_t len, const char *drain)
{
    put_t p = {d, text, len, drain};
    return ckpt_snap_targets_each(m, put_one, &p);
}

/* ---- reading ---------------------------------------------------------------- */

/* The next header line "KEY VALUE\n" at *p (before end) into out. */
static bool header(const char **p, const char *end, const char *key, char *out, size_t outlen)
{
    size_t k = strlen(key);
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    if (!nl || (size_t)(nl - *p) <= k || strncmp(*p, key, k) != 0 || (*p)[k] != ' ' ||
        (size_t)(nl - *p - k - 1) >= outlen)
        return false;
    memcpy(out, *p + k + 1, (size_t)(nl - *p - k - 1));
    out[nl - *p - k - 1] = '\0';
    *p = nl + 1;
    return true;
}

/* Record object `oid` of rp, of checkpoint `name`, into *r. */
static int read_record(struct jobstore *rp, const char *oid, const char *name, ckpt_level1_t *r)
{
    char *text;
    size_t len;
    int rc = jobstore_object_get(rp, oid, RECORD_MAX, &text, &len);
    if (rc != 0)
        return rc;
    const char *p = text, *end = text + len;
    bool ok = len > strlen(MAGIC) && memcmp(text, MAGIC, strlen(MAGIC)) == 0;
    p += ok ? strlen(MAGIC) : 0;
    ok = ok && header(&p, end, "node", r->node, sizeof r->node) && header(&p, end, "dir", r->dir, sizeof r->dir) &&
         header(&p, end, "drain", r->drain, sizeof r->drain);
    rc = ok ? ckpt_manifest_parse(name, p, (size_t)(end - p), &r->m)
            : loci__fail(LOCI_EIO, "checkpoint \"%s\": its header is not loci's", name);
    free(text);
    if (strcmp(r->drain, "-") == 0)
        r->drain[0] = '\0';
    r->rp = rp;
    snprintf(r->oid, sizeof r->oid, "%s", oid);
    return rc ? ckpt_fail_in(rc, "record %s of %s", oid, jobstore_target(rp)) : 0;
}

typedef struct {
    struct jobstore *rp;
    const char *name; /* of the checkpoint, or NULL: every one */
    bool strict;
    int (*fn)(ckpt_level1_t *r, void *arg);
    void *arg;
} each_t;

/* Object CKPT_STORE_LEVEL1 + entry: "<name>/<id>", or "<id>" when e->name is set. */
static int each_record(const char *entry, void *arg)
{
    const each_t *e = arg;
    char name[NVM_NAME_MAX + 1], oid[CKPT_LEVEL1_OID];
    const char *slash = strchr(entry, '/');
    if (e->name)
        snprintf(name, sizeof name, "%s", e->name);
    else if (slash && slash > entry && (size_t)(slash - entry) <= NVM_NAME_MAX)
        snprintf(name, sizeof name, "%.*s", (int)(slash - entry), entry);
    else
        return 0; /* not loci's name for a record */
    snprintf(oid, sizeof oid, CKPT_STORE_LEVEL1 "%s%s%s", e->name ? e->name : "", e->name ? "/" : "", entry);
    ckpt_level1_t *r = calloc(1, sizeof *r);
    if (!r)
        return loci__fail(LOCI_ENOMEM, "out of memory reading checkpoint records");
    int rc = read_record(e->rp, oid, name, r);
    if (rc == 0)
        rc = e->fn(r, e->arg);
    else if (rc == LOCI_ENOENT) /* removed meanwhile */
        rc = 0;
    else if (!e->strict) { /* said, and left out */
        loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
        rc = 0;
    }
    ckpt_manifest_free(&r->m);
    free(r);
    return rc;
}

int ckpt_level1_each(struct jobstore *rp, const char *name, bool strict, int (*fn)(ckpt_level1_t *r, void *arg),
                     void *arg)
{
    char prefix[CKPT_LEVEL1_OID];
    snprintf(prefix, sizeof prefix, CKPT_STORE_LEVEL1 "%s%s", name ? name : "", name ? "/" : "");
    each_t e = {rp, name, strict, fn, arg};
    return jobstore_object_each(rp, prefix, each_record, &e);
}

int ckpt_level1_all(const char *name, int (*fn)(ckpt_level1_t *r, void *arg), void *arg)
{
    int rc = 0;
    for (int i = 0; i < loci_target_count() && rc == 0; i++) {
        const loci_target_t *t = loci_target_at(i);
        if (t->kind == KIND_STORE && t->store) /* records are where the snapshots are: any store */
            rc = ckpt_level1_each(t->store, name, false, fn, arg);
    }
    return rc;
}

/* ---- removing ---------------------------------------------------------------- */

typedef struct {
    const char *name;
    char oid[CKPT_LEVEL1_OID];
    const ckpt_sum_t *sum; /* remove only the record of this manifest, or NULL: whatever it holds */
} forget_t;

static int forget_in(struct jobstore *rp, const forget_t *f)
{
    if (f->sum) {
        ckpt_level1_t *r = calloc(1, sizeof *r);
        if (!r)
            return loci__fail(LOCI_ENOMEM, "out of memory reading a checkpoint record");
        bool same = read_record(rp, f->oid, f->name, r) == 0 && ckpt_sum_equal(r->m.sum, *f->sum);
        ckpt_manifest_free(&r->m);
        free(r);
        if (!same) /* none, another save's (it stays), or unreadable (the next save replaces it) */
            return 0;
    }
    return jobstore_object_remove(rp, f->oid);
}

static int forget_one(const char *target, const ckpt_manifest_t *m, void *arg)
{
    (void)m;
    struct jobstore *rp = ckpt_target_pool(target);
    return rp ? forget_in(rp, arg) : LOCI_EIO;
}

int ckpt_level1_forget(const ckpt_dir_t *d, const ckpt_manifest_t *m, struct jobstore *rp)
{
    char host[256];
    forget_t f = {.name = m->name, .sum = rp ? &m->sum : NULL};
    this_host(host);
    record_oid(m->name, host, d->path, f.oid, sizeof f.oid);
    return rp ? forget_in(rp, &f) : ckpt_snap_targets_each(m, forget_one, &f);
}

static int remove_record(ckpt_level1_t *r, void *arg)
{
    unsigned *removed = arg;
    int rc = jobstore_object_remove(r->rp, r->oid);
    *removed += rc == 0;
    return rc;
}

int ckpt_level1_remove_all(const char *name, unsigned *removed)
{
    *removed = 0;
    return ckpt_level1_all(name, remove_record, removed);
}

/* ---- telling where a checkpoint is ------------------------------------------ */

/* Keep r in *newest (taking its manifest) when it is the newest so far. */
static int keep_newest(ckpt_level1_t *r, void *newest)
{
    ckpt_level1_t *n = newest;
    if (n->rp && !ckpt_manifest_newer(&r->m, &n->m))
        return 0;
    ckpt_manifest_free(&n->m);
    *n = *r;
    r->m = (ckpt_manifest_t){0};
    return 0;
}

/* The newest record of checkpoint `name` in any store into *r (zeroed):
 * whether there is one. */
static bool find_newest(const char *name, ckpt_level1_t *r)
{
    if (ckpt_level1_all(name, keep_newest, r) != 0) /* what was found is said all the same */
        loci__log(LOCI_LOG_WARN, "%s", loci_last_error());
    return r->rp != NULL;
}

/* Where checkpoint r is and what to change to restart elsewhere, into buf. */
static void say_where(const ckpt_level1_t *r, char *buf, size_t len)
{
    const char *target = jobstore_target(r->rp);
    if (r->drain[0]) {
        snprintf(buf, len, "checkpoint \"%s\" was saved on node %s (checkpoint directory %s), level 1 only: its drain "
                           "to %s has not completed; `loci ckpt drain %s` on that node completes it",
                 r->m.name, r->node, r->dir, r->drain, r->m.name);
        return;
    }
    const ckpt_var_t *local = NULL; /* the first variable whose chunks are on that node only */
    for (size_t k = 0; k < r->m.nvars && !local; k++)
        for (uint64_t i = 0; !r->m.vars[k].snap && i < r->m.vars[k].nchunks && !local; i++)
            if (r->m.vars[k].chunks[i].id != CKPT_ZERO)
                local = &r->m.vars[k];
    snprintf(buf, len, "checkpoint \"%s\" was saved on node %s (checkpoint directory %s), level 1 only: %s \"%s\" is "
                       "there, not in %s; configure a drain ([checkpoint] drain = %s in LOCI_CONFIG) to restart "
                       "elsewhere", r->m.name, r->node, r->dir,
             local && local->kind == CKPT_REGION ? "region" : "variable", local ? local->name : "?", target, target);
}

int ckpt_level1_elsewhere(const char *name)
{
    ckpt_level1_t *r = calloc(1, sizeof *r);
    if (!r)
        return loci__fail(LOCI_ENOMEM, "out of memory looking for checkpoint \"%s\"", name);
    int rc = 0;
    if (find_newest(name, r)) {
        char msg[sizeof r->node + sizeof r->dir + 3 * NVM_NAME_MAX + 512]; /* all of it: loci__fail cuts it */
        say_where(r, msg, sizeof msg);
        rc = loci__fail(LOCI_ENOENT, "%s", msg);
    }
    ckpt_manifest_free(&r->m);
    free(r);
    return rc;
}
