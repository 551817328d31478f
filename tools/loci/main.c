/* `loci`: what memory this machine has, and placing data by intent. */
#include "commands.h"
#include "loci.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"info", cmd_info, "list this machine's memory targets [--json] [--from NODE]"},
    {"resolve", cmd_resolve, "rank this machine's targets for an intent \"<intent>\" [--json] [--from NODE]"},
    {"run", cmd_run, "run a command with its memory placed by intent --intent \"<intent>\" -- cmd args..., or its heap tiered: --tier auto -- cmd args..., or a memkind program on loci: --memkind -- cmd args..."},
    {"bench", cmd_bench, "measure bandwidth and latency of each target [--target NAME] [--save FILE]"},
    {"weights", cmd_weights, "interleave weights from the nodes' bandwidths beside the kernel's [--set] [--from NODE]"},
    {"ckpt", cmd_ckpt, "checkpoints: ls | show NAME [-v] | verify NAME | rm NAME | drain NAME [TARGET] | gc"},
    {"devdax", cmd_devdax, "persistent regions on a device-DAX target: ls DEVICE | wipe DEVICE --yes"},
    {"tier", cmd_tier, "what tiering does in your process PID, live: auto arenas, heat, targets, moves PID [--watch [SECONDS]] | --node"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: loci COMMAND [options]   (loci --version, loci --help)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nenvironment: LOCI_TOPOLOGY=file.xml (simulate a machine), LOCI_CONFIG=file.ini,\n"
               "LOCI_STORE_DIR=dir (ssd0), LOCI_LOG=error|warn|info|debug, LOCI_PROGRESS=1|0 (progress on\n"
               "stderr always|never; default: when it is a terminal). See docs/.\n");
}

/* The library's version; the header's too when this program was built
 * against another one. */
static int version(void)
{
    if (strcmp(loci_version(), LOCI_VERSION) == 0)
        printf("loci %s\n", loci_version());
    else
        printf("loci %s (built against loci.h %s)\n", loci_version(), LOCI_VERSION);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
        return version();
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            if (loci_init() != 0) {
                fprintf(stderr, "loci: %s\n", loci_last_error());
                return 1;
            }
            int rc = commands[i].run(argc - 1, argv + 1);
            loci_fini();
            return rc;
        }
    fprintf(stderr, "loci: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
