/*
 * A persistent named region by intent: data that outlives the process.
 *
 *   pmem_region write|check|remove ["intent"]     (default intent: "persist,kind=pmem")
 *
 * write: create the region "loci-example-region" (8 MiB) where the intent
 * places persistent regions, fill it with a pattern, sync it, close it.
 * check (a later process, after a crash even): open it by name, say where it
 * lies, and verify the pattern. remove: delete it. With "persist,kind=pmem"
 * the region lies on persistent memory where the machine has some — a
 * device-DAX node (/dev/daxX.Y) or a DAX file system — and on the SSD tier
 * where it has none.
 */
#include <loci.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NAME "loci-example-region"
#define SIZE ((size_t)8 << 20)

static unsigned char pattern(size_t i) { return (unsigned char)(i * 131 + (i >> 12)); }

static void where(const void *p)
{
    loci_target_info_t in;
    const loci_target_t *t = loci_ptr_target(p);
    const char *path = loci_target_path(t);
    loci_target_info(t, &in);
    printf("    region \"%s\", %zu bytes at %p, on %s (%s%s%s)\n", NAME, loci_region_size(p), p, in.name, in.kind,
           path ? ", " : "", path ? path : "");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "", *intent = argc > 2 ? argv[2] : "persist,kind=pmem";
    if (strcmp(mode, "write") != 0 && strcmp(mode, "check") != 0 && strcmp(mode, "remove") != 0) {
        fprintf(stderr, "usage: pmem_region write|check|remove [\"intent\"]\n");
        return 2;
    }
    printf("%s, intent \"%s\"\n", mode, intent);
    if (strcmp(mode, "remove") == 0) {
        if (loci_region_remove(NAME, intent) != 0) {
            fprintf(stderr, "    %s\n", loci_last_error());
            return 1;
        }
        printf("    removed\n");
        return 0;
    }
    bool writing = strcmp(mode, "write") == 0;
    unsigned char *p = loci_region_open(NAME, writing ? SIZE : 0, intent, writing ? LOCI_REGION_CREATE : 0);
    if (!p) {
        fprintf(stderr, "    %s\n", loci_last_error());
        return 1;
    }
    where(p);
    size_t wrong = 0;
    for (size_t i = 0; i < SIZE; i++)
        if (writing)
            p[i] = pattern(i);
        else
            wrong += p[i] != pattern(i);
    if (writing && loci_region_sync(p) != 0) {
        fprintf(stderr, "    sync: %s\n", loci_last_error());
        return 1;
    }
    printf(writing ? "    written and synced: it survives this process\n"
                   : wrong ? "    %zu bytes differ from what was written\n"
                           : "    every byte as written by the earlier process\n",
           wrong);
    loci_region_close(p);
    return wrong != 0;
}
