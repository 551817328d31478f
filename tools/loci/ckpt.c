/* `loci ckpt`: the checkpoints in the checkpoint directory (docs/CHECKPOINT.md). */
#include "commands.h"
#include "loci.h"
#include "ckpt/ckpt.h"
#include "jobstore/jobstore.h"
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *when(int64_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(buf, len, "%" PRId64, t);
    return buf;
}

static int fail(void)
{
    fprintf(stderr, "loci ckpt: %s\n", loci_last_error());
    return 1;
}

/* A bar for drains and verifies (progress.c decides whether it is drawn). */
static void show_progress(const char *ckpt, const char *what, uint64_t done, uint64_t total, void *arg)
{
    (void)arg;
    char label[64];
    snprintf(label, sizeof label, "%s %.24s%s", what, ckpt, strlen(ckpt) > 24 ? "..." : "");
    progress_bar(label, done, total);
}

/* Run a long operation of checkpoint `name` (verify or drain) with its progress shown. */
static int with_progress(int (*op)(const char *name, const char *target), const char *name, const char *target)
{
    if (progress_on())
        ckpt_progress_set(show_progress, NULL);
    int rc = op(name, target);
    ckpt_progress_set(NULL, NULL);
    progress_end();
    return rc;
}

static int verify(const char *name, const char *target)
{
    (void)target;
    return loci_ckpt_verify(name);
}

/* One line of `loci ckpt ls`: a checkpoint loci_ckpt_list describes, or one
 * that a store records as whole only at another node's level 1 (node set). */
typedef struct {
    loci_ckpt_info_t info;
    char node[256];
} row_t;

typedef struct {
    row_t *v;
    size_t n;
} rows_t;

static int add_row(rows_t *rows, const loci_ckpt_info_t *info, const char *node)
{
    row_t *v = realloc(rows->v, (rows->n + 1) * sizeof *v);
    if (!v)
        return LOCI_ENOMEM;
    rows->v = v;
    v[rows->n].info = *info;
    snprintf(v[rows->n].node, sizeof v[rows->n].node, "%s", node);
    rows->n++;
    return 0;
}

/* A store's record of a checkpoint whole at some node's level 1, unless that
 * checkpoint is listed already (this node's own, or whole in a store too). */
static int add_elsewhere(ckpt_level1_t *r, void *arg)
{
    rows_t *rows = arg;
    for (size_t i = 0; i < rows->n; i++)
        if (strcmp(rows->v[i].info.name, r->m.name) == 0 && rows->v[i].info.seq == r->m.seq &&
            rows->v[i].info.saved == r->m.saved_s)
            return 0;
    loci_ckpt_info_t info;
    ckpt_info_of(&r->m, &info);
    return add_row(rows, &info, r->node);
}

static int by_time(const void *a, const void *b)
{
    const loci_ckpt_info_t *x = &((const row_t *)a)->info, *y = &((const row_t *)b)->info;
    if (x->saved != y->saved)
        return x->saved < y->saved ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int ckpt_ls(void)
{
    /* Usually one listing (each reads every manifest, level 2's over the
     * network); again, with room for all, only when there were more than the
     * room held (the count is the list's whole length). */
    loci_ckpt_info_t *v = NULL;
    int n, room = 64;
    for (;;) {
        loci_ckpt_info_t *bigger = realloc(v, (size_t)room * sizeof *v);
        if (!bigger) {
            free(v);
            fprintf(stderr, "loci ckpt: out of memory listing checkpoints\n");
            return 1;
        }
        v = bigger;
        if ((n = loci_ckpt_list(v, room)) < 0) {
            free(v);
            return fail();
        }
        if (n <= room)
            break;
        room = n;
    }
    rows_t rows = {0};
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++)
        rc = add_row(&rows, &v[i], "");
    free(v);
    if (rc != 0) {
        free(rows.v);
        fprintf(stderr, "loci ckpt: out of memory listing checkpoints\n");
        return 1;
    }
    if (ckpt_level1_all(NULL, add_elsewhere, &rows) != 0) /* those found are listed all the same */
        fprintf(stderr, "loci ckpt: %s\n", loci_last_error());
    if (rows.n > 0)
        qsort(rows.v, rows.n, sizeof *rows.v, by_time);
    const char *origin, *drain = loci_config_intent("checkpoint", "drain", &origin);
    printf("%-24s %6s %-23s %6s %10s %8s  %s\n", "NAME", "SEQ", "SAVED", "VARS", "SIZE", "CHUNKS", "LEVELS");
    for (size_t i = 0; i < rows.n; i++) {
        const loci_ckpt_info_t *in = &rows.v[i].info;
        char t[64], sz[32], levels[320];
        unsigned lv = in->levels;
        if (rows.v[i].node[0])
            snprintf(levels, sizeof levels, "level 1 on node %s only", rows.v[i].node);
        else if (lv == LOCI_CKPT_LOCAL && in->drain_pending)
            snprintf(levels, sizeof levels, "local, draining %.0f%%",
                     in->store_bytes ? 100.0 * (double)in->drained_bytes / (double)in->store_bytes : 0.0);
        else
            snprintf(levels, sizeof levels, "%s",
                     lv == (LOCI_CKPT_LOCAL | LOCI_CKPT_STORE) ? "local+store"
                     : lv == LOCI_CKPT_STORE                  ? "store"
                     : drain                                  ? "local, store pending"
                                                              : "local");
        printf("%-24s %6" PRIu64 " %-23s %6" PRIu64 " %10s %8" PRIu64 "  %s\n", in->name, in->seq,
               when(in->saved, t, sizeof t), in->vars, units_format_size(in->bytes, sz, sizeof sz), in->chunks,
               levels);
    }
    free(rows.v);
    return 0;
}

/* The manifest of `name`, chunk by chunk with -v. */
static int ckpt_show(const char *name, bool chunks)
{
    int rc = region_check_name("checkpoint", name);
    if (rc != 0)
        return fail();
    ckpt_dir_t d;
    ckpt_manifest_t m;
    struct jobstore *rp = NULL;
    bool opened = (rc = ckpt_dir_open(&d, false, false)) == 0;
    if (opened)
        rc = ckpt_manifest_read(d.fd, name, &m);
    if (rc == LOCI_ENOENT) /* not on this node: level 2 */
        rc = ckpt_store_find(name, &m, &rp);
    if (rc != 0) {
        if (opened)
            ckpt_dir_close(&d);
        return fail();
    }
    char t[64], where[sizeof d.path + NVM_NAME_MAX + 64];
    if (rp)
        snprintf(where, sizeof where, "object loci-ckpt/%s of %s", m.name, jobstore_target(rp));
    else
        snprintf(where, sizeof where, "%s/%s.manifest", d.path, m.name);
    printf("checkpoint %s (%s)\nseq %" PRIu64 ", saved %s\n\n", m.name, where, m.seq, when(m.saved_s, t, sizeof t));
    printf("%-7s %-24s %10s %8s %-5s %7s %7s\n", "KIND", "NAME", "SIZE", "CHUNK", "DATA", "CHUNKS", "ZERO");
    for (size_t k = 0; k < m.nvars; k++) {
        const ckpt_var_t *v = &m.vars[k];
        uint64_t zero = 0;
        for (uint64_t i = 0; i < v->nchunks; i++)
            zero += v->chunks[i].id == CKPT_ZERO;
        char sz[32], ch[32];
        printf("%-7s %-24s %10s %8s %-5s %7" PRIu64 " %7" PRIu64 "\n", v->kind == CKPT_REGION ? "region" : "memory",
               v->name, units_format_size(v->size, sz, sizeof sz), units_format_size(v->chunk, ch, sizeof ch),
               v->snap ? "snap" : v->linked ? "link" : "copy", v->nchunks, zero);
        if (v->snap)
            printf("        kept by snapshot %" PRIu64 " of %s (region objects loci-region/%s/...)\n", v->snap,
                   v->target, v->name);
        for (uint64_t i = 0; chunks && i < v->nchunks; i++) {
            if (v->chunks[i].id == CKPT_ZERO)
                printf("    %8" PRIu64 "  zero\n", i);
            else if (v->snap)
                printf("    %8" PRIu64 "  at snapshot %" PRIu64 "  xxh128 %016" PRIx64 "%016" PRIx64 "\n", i, v->snap,
                       v->chunks[i].sum.high64, v->chunks[i].sum.low64);
            else
                printf("    %8" PRIu64 "  chunks/%016" PRIx64 "  xxh128 %016" PRIx64 "%016" PRIx64 "\n", i,
                       v->chunks[i].id, v->chunks[i].sum.high64, v->chunks[i].sum.low64);
        }
    }
    ckpt_manifest_free(&m);
    if (opened)
        ckpt_dir_close(&d);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: loci ckpt ls | show NAME [-v] | verify NAME | rm NAME | drain NAME [TARGET] | gc\n"
                    "  ls      the checkpoints, oldest first, here (local), in the store (the drain target, else\n"
                    "          every store target), and those a store records at another node's level 1\n"
                    "  show    a checkpoint's variables (-v: and each chunk's pool file and checksum)\n"
                    "  verify  check every chunk and the manifest against their checksums\n"
                    "  rm      remove a checkpoint (its chunks go at the next gc)\n"
                    "  drain   copy a checkpoint to the store ([checkpoint] drain, or TARGET) now\n"
                    "  gc      delete the chunks (and store snapshots) no checkpoint refers to\n"
                    "Directory: LOCI_CKPT_DIR, else ckpt/ in the directory of the tier \"persist\" resolves to.\n"
                    "verify and drain show a progress bar on stderr when it is a terminal (LOCI_PROGRESS=1: always,\n"
                    "0: never).\n");
    return 2;
}

int cmd_ckpt(int argc, char **argv)
{
    const char *sub = argc >= 2 ? argv[1] : "";
    if (strcmp(sub, "ls") == 0 && argc == 2)
        return ckpt_ls();
    if (strcmp(sub, "show") == 0 && (argc == 3 || (argc == 4 && strcmp(argv[3], "-v") == 0)))
        return ckpt_show(argv[2], argc == 4);
    if (strcmp(sub, "verify") == 0 && argc == 3) {
        if (with_progress(verify, argv[2], NULL) != 0)
            return fail();
        printf("checkpoint %s: manifest and every chunk match their checksums\n", argv[2]);
        return 0;
    }
    if (strcmp(sub, "rm") == 0 && argc == 3) {
        if (loci_ckpt_remove(argv[2]) != 0)
            return fail();
        printf("removed checkpoint %s (run `loci ckpt gc` to free its chunks)\n", argv[2]);
        return 0;
    }
    if (strcmp(sub, "drain") == 0 && (argc == 3 || argc == 4)) {
        if (with_progress(loci_ckpt_drain, argv[2], argc == 4 ? argv[3] : NULL) != 0)
            return fail();
        printf("checkpoint %s is whole in the store\n", argv[2]);
        return 0;
    }
    if (strcmp(sub, "gc") == 0 && argc == 2) {
        loci_ckpt_gc_stats_t g;
        if (loci_ckpt_gc(&g) != 0)
            return fail();
        char sz[32];
        printf("gc: %" PRIu64 " chunks kept, %" PRIu64 " removed (%s), %" PRIu64 " temporary files removed",
               g.chunks_kept, g.chunks_removed, units_format_size(g.bytes_removed, sz, sizeof sz), g.temps_removed);
        if (g.snaps_kept || g.snaps_removed)
            printf("; store snapshots: %" PRIu64 " kept, %" PRIu64 " removed", g.snaps_kept, g.snaps_removed);
        if (g.store_chunks_kept || g.store_chunks_removed)
            printf("; drained chunks in the store: %" PRIu64 " kept, %" PRIu64 " removed", g.store_chunks_kept,
                   g.store_chunks_removed);
        printf("\n");
        return 0;
    }
    return usage();
}
