/* `loci devdax ls|wipe DEVICE`: the persistent regions in a device-DAX
 * target's region directory (docs/NVM.md "Regions on devdax"), and the
 * administrator's way out of a directory that fails its checks. DEVICE is
 * the target's name (pmem0) or its node (/dev/dax0.0). */
#include "provider/provider.h"
#include "commands.h"
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char usage[] = "usage: loci devdax ls DEVICE | loci devdax wipe DEVICE --yes\n"
                            "  DEVICE: a device-DAX target's name (pmem0) or node (/dev/dax0.0)\n";

static const struct loci_target *device(const char *arg)
{
    const topo_t *t = topo_get();
    for (int i = 0; i < t->ntargets; i++) {
        const struct loci_target *tg = &t->targets[i];
        if (tg->dax_align && (strcmp(tg->name, arg) == 0 || (tg->path && strcmp(tg->path, arg) == 0)))
            return tg;
    }
    fprintf(stderr, "loci devdax: %s is no device-DAX target of this machine (`loci info` lists them)\n", arg);
    return NULL;
}

static void print_region(const char *name, uint64_t offset, uint64_t length, unsigned uid, uint64_t generation,
                         void *arg)
{
    char len[32];
    (*(int *)arg)++;
    printf("%-32s %12s  offset 0x%-12" PRIx64 " uid %-6u generation %" PRIu64 "\n", name,
           units_format_size(length, len, sizeof len), offset, uid, generation);
}

int cmd_devdax(int argc, char **argv)
{
    bool ls = argc == 3 && strcmp(argv[1], "ls") == 0;
    bool wipe = argc == 4 && strcmp(argv[1], "wipe") == 0 && strcmp(argv[3], "--yes") == 0;
    if (!ls && !wipe) {
        fprintf(stderr, "%s%s", argc >= 2 && strcmp(argv[1], "wipe") == 0
                                    ? "loci devdax wipe forgets every region on the device: add --yes\n"
                                    : "",
                usage);
        return 2;
    }
    const struct loci_target *tg = device(argv[2]);
    if (!tg)
        return 1;
    if (wipe) {
        if (provider_devdax_wipe(tg) != 0) {
            fprintf(stderr, "loci devdax: %s\n", loci_last_error());
            return 1;
        }
        printf("%s (%s): region directory wiped; the next region created formats it again\n", tg->name, tg->path);
        return 0;
    }
    int n = 0;
    if (provider_devdax_regions(tg, print_region, &n) != 0) {
        fprintf(stderr, "loci devdax: %s\n", loci_last_error());
        return 1;
    }
    if (n == 0)
        printf("%s (%s): no persistent regions\n", tg->name, tg->path);
    return 0;
}
