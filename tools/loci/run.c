/*
 * `loci run --intent "<intent>" -- cmd args...`: numactl, but portable and by
 * intent. The intent is resolved on this machine, its placement becomes the
 * memory policy of the command (set_mempolicy is inherited across exec).
 * With `--tier auto` the intent is instead the one of the command's
 * auto-tiered per-site arenas (run_tier.c), and no task policy is set:
 * tiering moves those arenas, the rest stays where the kernel puts it.
 * With `--memkind` a program built for memkind runs on loci's libmemkind
 * (run_memkind.c), alone or with either of the others.
 */
#include "os/vm.h"
#include "alloc/allocator.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int exec_command(char **command)
{
    execvp(command[0], command);
    fprintf(stderr, "loci run: cannot run %s: %m\n", command[0]);
    return 127;
}

static int usage(void)
{
    fprintf(stderr, "usage: loci run --intent \"<intent>\" [--from NODE] [--verbose] -- command [args...]\n"
                    "       loci run --tier auto [--intent \"<terms>\"] [--tier-threshold SIZE] [--verbose] -- "
                    "command [args...]\n"
                    "       loci run --memkind [--intent ... | --tier auto ...] [--verbose] -- command [args...]\n");
    return 2;
}

int cmd_run(int argc, char **argv)
{
    const char *text = NULL, *tier = NULL, *threshold = NULL;
    bool verbose = false, memkind = false;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--intent") == 0 && i + 1 < argc)
            text = argv[++i];
        else if (strcmp(argv[i], "--tier") == 0 && i + 1 < argc)
            tier = argv[++i];
        else if (strcmp(argv[i], "--tier-threshold") == 0 && i + 1 < argc)
            threshold = argv[++i];
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = true;
        else if (strcmp(argv[i], "--memkind") == 0)
            memkind = true;
        else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
            int rc = tool_set_initiator(argv[++i]);
            if (rc)
                return rc;
        } else
            return usage();
    }
    if (tier && strcmp(tier, "auto") != 0) {
        fprintf(stderr, "loci run: --tier %s: the only tiering is auto (each heap allocation site's big blocks in "
                        "an arena placed by measured access, docs/TIERING.md); write --tier auto\n", tier);
        return 2;
    }
    if (threshold && !tier) {
        fprintf(stderr, "loci run: --tier-threshold goes with --tier auto (it says which heap blocks are tiered)\n");
        return 2;
    }
    if ((!text && !tier && !memkind) || i + 1 >= argc)
        return usage();
    char **command = argv + i + 1;
    if (memkind) {
        int rc = run_memkind_prepare(command, tier != NULL, verbose);
        if (rc || (!text && !tier))
            return rc ? rc : exec_command(command);
    }
    if (tier) {
        int rc = run_tier_prepare(text, threshold, command, verbose);
        return rc ? rc : exec_command(command);
    }

    intent_t in;
    resolution_t res;
    if (intent_parse(text, &in) != 0 || intent_resolve(&in, &res) != 0) {
        fprintf(stderr, "loci run: %s\n", loci_last_error());
        return 1;
    }
    if (res.candidates[0]->numa_node < 0) {
        fprintf(stderr, "loci run: intent \"%s\" resolves to %s, which is not a NUMA node: a whole program "
                        "can only be placed on NUMA memory (use the API or the front ends for file tiers)\n",
                in.canonical, res.candidates[0]->name);
        return 1;
    }
    place_t place;
    allocator_place(&res, 0, &place);
    if (res.strict && res.fallback != FALLBACK_NULL && place.policy == PLACE_BIND)
        /* the program cannot be told "full": let it use every target that satisfies the constraints */
        for (int k = 1; k < res.ncandidates; k++) {
            int node = res.candidates[k]->numa_node;
            if (node >= 0)
                place.nodemask[node / 64] |= 1ull << (node % 64);
        }
    if (vm_set_task_policy(&place) != 0) {
        fprintf(stderr, "loci run: %s\n", loci_last_error());
        return 1;
    }
    if (verbose)
        fprintf(stderr, "loci run: intent \"%s\": %s memory on %s%s\n", in.canonical,
                place.policy == PLACE_BIND ? "bound" : place.policy == PLACE_INTERLEAVE ? "interleaved" : "preferred",
                res.candidates[0]->name, place.policy == PLACE_INTERLEAVE ? " and the other candidates" : "");
    return exec_command(command);
}
