/* `loci resolve "<intent>"`: the ranked candidates of an intent on this
 * machine, with their figures, and why every other target was dropped. */
#include "commands.h"
#include "format.h"
#include "intent/intent.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The kernel's memory tier of t's node, -1 when there is none known. */
static int memory_tier(const struct loci_target *t)
{
    int tier = loci_target_memory_tier(t, NULL, 0, NULL);
    return tier >= 0 ? tier : -1;
}

/* What tier=auto does with the candidates, in one line. */
static const char *tiering_note(const resolution_t *res)
{
    if (!res->tier_auto)
        return NULL;
    if (res->ncandidates == 1)
        return "tier=auto: one candidate here, so the arena stays where it starts";
    return res->by_speed ? "tier=auto with no other term: every memory kind of this node, fastest first (the "
                           "kernel's memory tier, then bandwidth); hot arenas fill rank 1 up to its budget, the "
                           "rest go down the ranks"
                         : "tier=auto: hot arenas fill rank 1 up to its budget, the rest go down the ranks";
}

static void print_json(const intent_t *in, const resolution_t *res, const char *why)
{
    printf("{\n  \"intent\": ");
    json_string(stdout, in->canonical);
    printf(",\n  \"initiator\": %d,\n  \"strict\": %s,\n  \"candidates\": [\n", res->initiator,
           res->strict ? "true" : "false");
    for (int i = 0; i < res->ncandidates; i++) {
        const struct loci_target *t = res->candidates[i];
        char tier[16] = "null";
        if (memory_tier(t) >= 0)
            snprintf(tier, sizeof tier, "%d", memory_tier(t));
        printf("    {\"rank\": %d, \"name\": \"%s\", \"kind\": \"%s\", \"numa_node\": %d, \"memory_tier\": %s, "
               "\"bandwidth_mbps\": %" PRIu64 ", \"latency_ns\": %" PRIu64 ", \"capacity\": %" PRIu64 "}%s\n",
               i + 1, t->name, topo_kind_name(t->kind), t->numa_node, tier, topo_bandwidth(t, res->initiator),
               topo_latency(t, res->initiator), t->capacity.value, i + 1 < res->ncandidates ? "," : "");
    }
    printf("  ],\n  \"tiering\": ");
    if (tiering_note(res))
        json_string(stdout, tiering_note(res));
    else
        printf("null");
    printf(",\n  \"dropped\": [");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", why);
    int k = 0;
    for (char *save, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        printf("%s\n    {\"name\": ", k++ ? "," : "");
        json_string(stdout, line);
        printf(", \"why\": ");
        json_string(stdout, colon + 2);
        printf("}");
    }
    printf("\n  ]\n}\n");
}

int cmd_resolve(int argc, char **argv)
{
    const char *text = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        int rc = tool_view_option(argc, argv, &i, &json);
        if (rc > 0)
            return rc;
        if (rc == 0)
            continue;
        if (!text)
            text = argv[i];
        else {
            fprintf(stderr, "usage: loci resolve \"<intent>\" [--json] [--from NODE]\n");
            return 2;
        }
    }
    intent_t in;
    resolution_t res;
    if (intent_parse(text ? text : "", &in) != 0 || intent_resolve(&in, &res) != 0) {
        fprintf(stderr, "loci resolve: %s\n", loci_last_error());
        return 1;
    }
    char why[4096];
    intent_explain(&in, &res, why, sizeof why);
    if (json) {
        print_json(&in, &res, why);
        return 0;
    }
    printf("intent \"%s\" from NUMA node %d: %s placement\n\n", in.canonical, res.initiator,
           res.strict ? "bound (constraints)" : "preferred (hints only)");
    printf("%4s  %-8s %-5s %4s %4s %12s %10s %12s\n", "RANK", "TARGET", "KIND", "NODE", "TIER", "BANDWIDTH",
           "LATENCY", "CAPACITY");
    for (int i = 0; i < res.ncandidates; i++) {
        const struct loci_target *t = res.candidates[i];
        char tier[16] = "-";
        if (memory_tier(t) >= 0)
            snprintf(tier, sizeof tier, "%d", memory_tier(t));
        printf("%4d  %-8s %-5s %4d %4s %7" PRIu64 " MB/s %7" PRIu64 " ns %8" PRIu64 " MiB\n", i + 1, t->name,
               topo_kind_name(t->kind), t->numa_node, tier, topo_bandwidth(t, res.initiator),
               topo_latency(t, res.initiator), t->capacity.value >> 20);
    }
    if (tiering_note(&res))
        printf("\n%s\n", tiering_note(&res));
    if (why[0])
        printf("\nnot candidates:\n%s", why);
    return 0;
}
