/*
 * Memory the whole job shares, and a checkpoint that restarts on another node.
 * Each run is one step of a job on one node; run the steps on different nodes
 * (scripts/demo.sh runs them in network namespaces of a throw-away Ceph cluster).
 *
 *   job_memory [-i INTENT] write REGION          fill REGION (16 MiB of doubles) and sync it
 *   job_memory [-i INTENT] read REGION           open REGION read-only, check every value
 *   job_memory [-i INTENT] save REGION CKPT      step 1 in REGION and in a DRAM array,
 *                                                checkpoint both as CKPT, wait for the drain
 *                                                to the store; then go on to step 2
 *   job_memory [-i INTENT] restore REGION CKPT   restore CKPT: REGION and the DRAM array
 *                                                must hold step 1 again, bit for bit
 *   job_memory [-i INTENT] remove REGION
 *
 * INTENT defaults to "access=job": memory every node of the job reaches, the
 * aggregate store (docs/STORE.md). The drain to the store is configured, not
 * coded: `[checkpoint] drain = agg0` in LOCI_CONFIG (docs/CHECKPOINT.md).
 * Exits 0 when the step did what it says, 1 with loci's message when not.
 */
#include <loci.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { REGION_VALUES = 2 << 20, DRAM_VALUES = 128 << 10 }; /* 16 MiB and 1 MiB of doubles */

static double dram[DRAM_VALUES]; /* a variable of the program, in plain DRAM */

/* What step `step` of the "simulation" holds at index i: exact in a double. */
static double value(int step, size_t i) { return step * 1e7 + (double)i; }

static void fill(double *v, size_t n, int step)
{
    for (size_t i = 0; i < n; i++)
        v[i] = value(step, i);
}

/* 0 when v[0..n) is step `step` bit for bit (whole numbers: equal values, equal bits), else 1
 * with where it differs. */
static int check(const char *what, const double *v, size_t n, int step)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != value(step, i)) {
            printf("FAIL %s: value %zu is %.0f, step %d has %.0f\n", what, i, v[i], step, value(step, i));
            return 1;
        }
    return 0;
}

static int fail(const char *what)
{
    printf("FAIL %s: %s\n", what, loci_last_error());
    return 1;
}

static double *open_region(const char *name, const char *intent, unsigned flags)
{
    return loci_region_open(name, REGION_VALUES * sizeof(double), intent, flags);
}

static int do_write(const char *name, const char *intent)
{
    double *field = open_region(name, intent, LOCI_REGION_CREATE);
    if (!field)
        return fail("open");
    fill(field, REGION_VALUES, 1);
    if (loci_region_sync(field) != 0) /* durable, and visible to every node from now on */
        return fail("sync");
    loci_region_close(field);
    printf("wrote region \"%s\": %zu MiB (%s), synced\n", name, REGION_VALUES * sizeof(double) >> 20, intent);
    return 0;
}

static int do_read(const char *name, const char *intent)
{
    const double *field = open_region(name, intent, LOCI_REGION_READONLY);
    if (!field)
        return fail("open");
    int rc = check(name, field, REGION_VALUES, 1);
    loci_region_close((void *)field);
    if (rc == 0)
        printf("read region \"%s\": all %d values as written\n", name, REGION_VALUES);
    return rc;
}

/* The levels loci_ckpt_list gives checkpoint ckpt, in words. */
static const char *levels_of(const char *ckpt)
{
    static loci_ckpt_info_t all[64];
    int n = loci_ckpt_list(all, 64);
    for (int i = 0; i < n && i < 64; i++)
        if (strcmp(all[i].name, ckpt) == 0)
            return all[i].levels == (LOCI_CKPT_LOCAL | LOCI_CKPT_STORE) ? "this node's directory and the store"
                   : all[i].levels == LOCI_CKPT_STORE                   ? "the store"
                                                                        : "this node's directory";
    return "nowhere";
}

static int do_save(const char *name, const char *ckpt, const char *intent)
{
    double *field = open_region(name, intent, LOCI_REGION_CREATE);
    if (!field)
        return fail("open");
    if (loci_ckpt_register("dram", dram, sizeof dram) != 0)
        return fail("register");
    fill(field, REGION_VALUES, 1);
    fill(dram, DRAM_VALUES, 1);
    if (loci_ckpt_save(ckpt) != 0) /* every registered variable and every region open read-write */
        return fail("save");
    int rc = loci_ckpt_wait(ckpt); /* the background drain to the store */
    if (rc == LOCI_ENOENT)
        printf("level 1 only, not drained: %s\n", loci_last_error());
    else if (rc != 0)
        return fail("drain");
    printf("saved \"%s\" at step 1 (region \"%s\" + %zu KiB of DRAM), in %s\n", ckpt, name, sizeof dram >> 10,
           levels_of(ckpt));
    fill(field, REGION_VALUES, 2); /* the job goes on after the checkpoint */
    fill(dram, DRAM_VALUES, 2);
    if (loci_region_sync(field) != 0)
        return fail("sync");
    loci_region_close(field);
    printf("went on to step 2 (region synced)\n");
    return 0;
}

static int do_restore(const char *name, const char *ckpt, const char *intent)
{
    double *field = open_region(name, intent, 0);
    if (!field)
        return fail("open");
    if (loci_ckpt_register("dram", dram, sizeof dram) != 0)
        return fail("register");
    if (check(name, field, REGION_VALUES, 2) == 0)
        printf("region \"%s\" holds step 2 before the restore\n", name);
    if (loci_ckpt_restore(ckpt) != 0) {
        int rc = fail("restore");
        loci_region_close(field); /* its lock released now, not after the store's lock_ttl */
        return rc;
    }
    int rc = check(name, field, REGION_VALUES, 1) | check("dram", dram, DRAM_VALUES, 1);
    loci_region_close(field);
    if (rc == 0)
        printf("restored \"%s\": region \"%s\" and the DRAM array hold step 1, bit for bit\n", ckpt, name);
    return rc;
}

int main(int argc, char **argv)
{
    const char *intent = "access=job";
    int opt;
    while ((opt = getopt(argc, argv, "i:")) != -1)
        if (opt == 'i')
            intent = optarg;
        else
            return 2;
    int n = argc - optind;
    const char *cmd = n > 0 ? argv[optind] : "", *name = n > 1 ? argv[optind + 1] : "",
               *ckpt = n > 2 ? argv[optind + 2] : "";
    if (strcmp(cmd, "write") == 0 && n == 2)
        return do_write(name, intent);
    if (strcmp(cmd, "read") == 0 && n == 2)
        return do_read(name, intent);
    if (strcmp(cmd, "save") == 0 && n == 3)
        return do_save(name, ckpt, intent);
    if (strcmp(cmd, "restore") == 0 && n == 3)
        return do_restore(name, ckpt, intent);
    if (strcmp(cmd, "remove") == 0 && n == 2)
        return loci_region_remove(name, intent) == 0 ? (printf("removed region \"%s\"\n", name), 0) : fail("remove");
    fprintf(stderr, "usage: job_memory [-i INTENT] write|read|remove REGION | save|restore REGION CKPT\n"
                    "(see the head of examples/job_memory.c)\n");
    return 2;
}
