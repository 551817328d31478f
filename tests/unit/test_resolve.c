/*
 * The resolver on the five reference machines: for each (machine, initiator,
 * intent), the ranked candidates expected from the figures in
 * tests/topologies/README.md, or the error. Also the messages for intents
 * nothing satisfies, and `loci resolve`'s explanations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "intent/intent.h"
#include "topo/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load(const char *machine)
{
    static char current[64];
    if (strcmp(current, machine) == 0)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.xml", getenv("LOCI_TEST_TOPOLOGIES"), machine);
    loci_fini();
    setenv("LOCI_TOPOLOGY", path, 1);
    if (loci_init() != 0)
        fail_msg("%s: %s", machine, loci_last_error());
    snprintf(current, sizeof current, "%s", machine);
}

/* "dram0,hbm0" for the candidates, or the error code as "E<code>". */
static void resolve_to_text(const char *intent, char *out, size_t len, resolution_t *res)
{
    intent_t in;
    int rc = intent_parse(intent, &in);
    if (rc == 0)
        rc = intent_resolve(&in, res);
    if (rc != 0) {
        snprintf(out, len, "E%d", rc);
        return;
    }
    out[0] = '\0';
    for (int i = 0; i < res->ncandidates; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", i ? "," : "", res->candidates[i]->name);
    }
}

typedef struct {
    const char *machine;
    int initiator;
    const char *intent;
    const char *expected; /* ranked names, or "E-3" (LOCI_ENOENT), "E-1" (LOCI_EINVAL) */
} resolve_case_t;

#define NONE "E-3"
#define BAD "E-1"

static const resolve_case_t cases[] = {
    /* KNL flat: DDR 90 GB/s 130 ns 96 GiB; MCDRAM 380 GB/s 150 ns 16 GiB */
    {"knl-flat", 0, "", "dram0"},
    {"knl-flat", 0, "bandwidth=high", "hbm0,dram0"},
    {"knl-flat", 0, "bandwidth=high!", "hbm0"},
    {"knl-flat", 0, "latency=low", "dram0,hbm0"},
    {"knl-flat", 0, "latency=low!", NONE},
    {"knl-flat", 0, "capacity=large", "dram0,hbm0"},
    {"knl-flat", 0, "capacity=large!", NONE},
    {"knl-flat", 0, "kind=hbm", "hbm0,dram0"},
    {"knl-flat", 0, "kind=hbm!", "hbm0"},
    {"knl-flat", 0, "kind=cxl!", NONE},
    {"knl-flat", 0, "target=hbm0!", "hbm0"},
    {"knl-flat", 0, "target=node:1!", "hbm0"},
    {"knl-flat", 0, "target=nosuch", NONE},
    {"knl-flat", 0, "persist", "ssd0"},
    {"knl-flat", 0, "kind=ssd,mode=paged", "ssd0"},
    {"knl-flat", 0, "near=nic!", NONE},
    {"knl-flat", 0, "use=gpu", NONE},
    {"knl-flat", 0, "bandwidth=high!,latency=low", "hbm0"},
    {"knl-flat", 0, "access=node", "dram0"},
    {"knl-flat", 0, "latency=low,bandwidth=high", "dram0,hbm0"},
    {"knl-flat", 0, "bandwith=high", BAD},
    /* Xeon Max, 2 sockets: DRAM 0,1 (CPUs), HBM 2 (socket 0), 3 (socket 1); HMAT local only */
    {"xeonmax-2s", 0, "", "dram0,dram1"},
    {"xeonmax-2s", 1, "", "dram1,dram0"},
    {"xeonmax-2s", 0, "bandwidth=high", "hbm0,dram0,dram1,hbm1"},
    {"xeonmax-2s", 0, "bandwidth=high!", "hbm0"},
    {"xeonmax-2s", 1, "bandwidth=high!", "hbm1"},
    {"xeonmax-2s", 0, "latency=low", "dram0,hbm0,dram1,hbm1"},
    {"xeonmax-2s", 0, "capacity=large", "dram0,dram1,hbm0,hbm1"},
    {"xeonmax-2s", 0, "near=pe", "dram0,hbm0,dram1,hbm1"},
    {"xeonmax-2s", 0, "near=pe!", "dram0,hbm0"},
    {"xeonmax-2s", 1, "near=pe!", "dram1,hbm1"},
    {"xeonmax-2s", 0, "kind=hbm", "hbm0,hbm1,dram0,dram1"},
    {"xeonmax-2s", 1, "kind=hbm!", "hbm1,hbm0"},
    {"xeonmax-2s", 0, "near=numa:3", "hbm1,dram0,hbm0,dram1"},
    {"xeonmax-2s", 0, "near=numa:3!", "hbm1"},
    {"xeonmax-2s", 0, "bandwidth=high,partition=interleave", "hbm0,dram0,dram1,hbm1"},
    {"xeonmax-2s", 1, "bandwidth=high", "hbm1,dram1,dram0,hbm0"},
    {"xeonmax-2s", 1, "latency=low", "dram1,hbm1,dram0,hbm0"},
    {"xeonmax-2s", 0, "kind=cxl!", NONE},
    {"xeonmax-2s", 0, "target=hbm1!", "hbm1"},
    {"xeonmax-2s", 0, "latency=low!", NONE},
    /* DRAM + CXL expander: CXL 4x capacity, 2.5x latency, 0.3x bandwidth */
    {"cxl-expander", 0, "", "dram0"},
    {"cxl-expander", 0, "capacity=large", "cxl0,dram0"},
    {"cxl-expander", 0, "capacity=large!", "cxl0"},
    {"cxl-expander", 0, "kind=cxl", "cxl0,dram0"},
    {"cxl-expander", 0, "latency=low", "dram0,cxl0"},
    {"cxl-expander", 0, "bandwidth=high", "dram0,cxl0"},
    {"cxl-expander", 0, "bandwidth=high!", NONE},
    {"cxl-expander", 0, "latency=low!", NONE},
    {"cxl-expander", 0, "capacity=large,fallback=null", "cxl0,dram0"},
    {"cxl-expander", 0, "kind=cxl!", "cxl0"},
    {"cxl-expander", 0, "kind=hbm!", NONE},
    {"cxl-expander", 0, "target=cxl0", "cxl0,dram0"},
    {"cxl-expander", 0, "near=pe", "dram0,cxl0"}, /* both local to the one socket: distance decides */
    {"cxl-expander", 0, "capacity=large,latency=low", "cxl0,dram0"},
    {"cxl-expander", 0, "latency=low,capacity=large", "dram0,cxl0"},
    {"cxl-expander", 0, "persist,kind=ssd", "ssd0"},
    {"cxl-expander", 0, "access=node,capacity=large", "cxl0,dram0"},
    {"cxl-expander", 0, "use=cpu,kind=cxl", "cxl0,dram0"},
    /* Grace-Hopper: GPU memory is a CPU-less NUMA node of kind gpu */
    {"grace-hopper", 0, "", "dram0"},
    {"grace-hopper", 0, "bandwidth=high", "dram0"}, /* GPU memory only when asked for */
    {"grace-hopper", 0, "use=gpu", "gpu0"},
    {"grace-hopper", 0, "kind=gpu", "gpu0,dram0"},
    {"grace-hopper", 0, "near=gpu", "dram0"},
    {"grace-hopper", 0, "near=gpu!,use=gpu", "gpu0"},
    {"grace-hopper", 0, "target=gpu0!", "gpu0"},
    {"grace-hopper", 0, "use=gpu:0", "gpu0"},
    {"grace-hopper", 0, "use=gpu,bandwidth=high!", NONE}, /* 400 GB/s from the CPU: not above LPDDR */
    {"grace-hopper", 0, "latency=low", "dram0"},
    {"grace-hopper", 0, "capacity=large", "dram0"},
    {"grace-hopper", 0, "kind=hbm!", NONE},
    {"grace-hopper", 0, "near=gpu!", "dram0"},
    {"grace-hopper", 0, "use=cpu,kind=gpu", "gpu0,dram0"},
    {"grace-hopper", 0, "persist", "ssd0"},
    /* 2 sockets, the NIC on socket 1 */
    {"nic-socket1", 0, "near=nic", "dram1,dram0"},
    {"nic-socket1", 0, "near=nic!", "dram1"},
    {"nic-socket1", 1, "near=nic!", "dram1"},
    {"nic-socket1", 0, "near=nic:0!", "dram1"},
    {"nic-socket1", 0, "near=nic:1!", NONE},
    {"nic-socket1", 0, "near=pe", "dram0,dram1"},
    {"nic-socket1", 1, "near=pe", "dram1,dram0"},
    {"nic-socket1", 0, "bandwidth=high,near=nic", "dram0,dram1"}, /* earlier hints weigh more */
    {"nic-socket1", 0, "near=nic,bandwidth=high", "dram1,dram0"},
    {"nic-socket1", 0, "access=global", NONE}, /* no store: node-local ssd0 is no answer */
    {"nic-socket1", 0, "", "dram0,dram1"},
    {"nic-socket1", 1, "", "dram1,dram0"},
    {"nic-socket1", 1, "near=nic", "dram1,dram0"},
    {"nic-socket1", 0, "near=gpu!", NONE},
    {"nic-socket1", 0, "target=dram1", "dram1,dram0"},
    {"nic-socket1", 1, "latency=low", "dram1,dram0"},
};

/* Each case resolved on its machine from its initiator, as expected. */
static void expect_cases(const resolve_case_t *list, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        const resolve_case_t *k = &list[c];
        load(k->machine);
        assert_int_equal(loci_set_initiator(k->initiator), 0);
        char got[256];
        resolution_t res;
        resolve_to_text(k->intent, got, sizeof got, &res);
        if (strcmp(got, k->expected) != 0)
            fail_msg("%s from node %d, intent \"%s\": expected %s, got %s (%s)", k->machine, k->initiator,
                     k->intent, k->expected, got, loci_last_error());
        loci_set_initiator(-1);
    }
}

static void expected_resolutions(void **state) { expect_cases(cases, sizeof cases / sizeof *cases); }

static void traits_and_strictness(void **state)
{
    load("knl-flat");
    char got[256];
    resolution_t res;
    resolve_to_text("bandwidth=high,fallback=null,align=2MiB,pinned", got, sizeof got, &res);
    assert_string_equal(got, "hbm0,dram0");
    assert_false(res.strict); /* hints only: preferred placement */
    assert_int_equal(res.fallback, FALLBACK_NULL);
    assert_int_equal(res.align, 2u << 20);
    assert_true(res.pinned);
    resolve_to_text("bandwidth=high!,partition=interleave", got, sizeof got, &res);
    assert_true(res.strict); /* a constraint: bound placement */
    assert_int_equal(res.partition, PARTITION_INTERLEAVE);
    resolve_to_text("kind=ssd,mode=paged,cache=64MiB,chunk=256KiB", got, sizeof got, &res);
    assert_int_equal(res.mode, MODE_PAGED);
    assert_int_equal(res.cache, 64u << 20);
    assert_int_equal(res.chunk, 256u << 10);
}

static void unsatisfiable_names_constraint_and_targets(void **state)
{
    load("cxl-expander");
    char got[256];
    resolution_t res;
    resolve_to_text("capacity=large, bandwidth=high!", got, sizeof got, &res);
    assert_string_equal(got, NONE);
    const char *msg = loci_last_error();
    assert_non_null(strstr(msg, "intent \"capacity=large,bandwidth=high!\""));
    assert_non_null(strstr(msg, "no target satisfies 'bandwidth=high!' (term 2"));
    assert_non_null(strstr(msg, "dram0 (dram, 100000 MB/s, 110 ns)"));
    assert_non_null(strstr(msg, "cxl0 (cxl, 30000 MB/s, 275 ns)"));

    resolve_to_text("target=hbm9", got, sizeof got, &res);
    assert_non_null(strstr(loci_last_error(), "unknown target 'hbm9' at 1; this machine has dram0"));
}

static void explanations(void **state)
{
    load("knl-flat");
    intent_t in;
    resolution_t res;
    assert_int_equal(intent_parse("bandwidth=high!", &in), 0);
    assert_int_equal(intent_resolve(&in, &res), 0);
    char buf[1024];
    assert_int_equal(intent_explain(&in, &res, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "dram0: dropped by 'bandwidth=high!': 90000 MB/s is not above dram0's 90000 MB/s"));
    assert_non_null(strstr(buf, "ssd0: a file tier"));
}

/* tier=auto: the candidates as without it; terms that leave it nowhere to go refused, naming them */
static void tier_auto(void **state)
{
    load("xeonmax-2s");
    char got[256];
    resolution_t res;
    resolve_to_text("bandwidth=high,tier=auto", got, sizeof got, &res);
    assert_string_equal(got, "hbm0,dram0,dram1,hbm1");
    assert_true(res.tier_auto);
    resolve_to_text("bandwidth=high", got, sizeof got, &res);
    assert_false(res.tier_auto);
    resolve_to_text("kind=hbm!,tier=auto", got, sizeof got, &res); /* two HBM nodes: still a choice */
    assert_string_equal(got, "hbm0,hbm1");

    resolve_to_text("target=hbm0,tier=auto", got, sizeof got, &res);
    assert_string_equal(got, BAD);
    assert_non_null(strstr(loci_last_error(), "'target=hbm0' (term 1) names one target, and tier=auto (term 2)"));
    resolve_to_text("bandwidth=high!,tier=auto", got, sizeof got, &res);
    assert_string_equal(got, BAD);
    assert_non_null(strstr(loci_last_error(), "'bandwidth=high!' (term 1) leaves hbm0 as the only target, so "
                                              "tier=auto (term 2) could never move the arena"));
    assert_non_null(strstr(loci_last_error(), "write it as a hint, without '!'"));
    resolve_to_text("kind=ssd,mode=paged,tier=auto", got, sizeof got, &res);
    assert_string_equal(got, BAD);
    assert_non_null(strstr(loci_last_error(), "mode=paged"));

    load("grace-hopper"); /* one CPU memory node (GPU memory only when asked for): not refused */
    resolve_to_text("tier=auto", got, sizeof got, &res);
    assert_string_equal(got, "dram0");
    assert_true(res.tier_auto);
}

/* Set the kernel memory tier of NUMA node `node` (a live machine's sysfs
 * gives them; an injected topology has none). */
static void set_memory_tier(int node, int tier)
{
    topo_node(topo_get(), node)->memtier = tier;
}

/* tier=auto and no other term: every memory kind of the node a plain program
 * may use, fastest first — the kernel's memory tiers when every candidate has
 * one, else bandwidth — never a file tier, GPU memory or the store */
static void tier_auto_alone(void **state)
{
    static const resolve_case_t alone[] = {
        {"knl-flat", 0, "tier=auto", "hbm0,dram0"},
        {"knl-flat", 0, "fallback=null,align=4096,tier=auto", "hbm0,dram0"}, /* traits prefer nothing */
        {"xeonmax-2s", 0, "tier=auto", "hbm0,dram0,dram1,hbm1"},
        {"xeonmax-2s", 1, "tier=auto", "hbm1,dram1,dram0,hbm0"},
        {"cxl-expander", 0, "tier=auto", "dram0,cxl0"},
        {"cxl-expander", 0, "access=node,tier=auto", "dram0,cxl0"},
        {"nic-socket1", 1, "tier=auto", "dram1,dram0"},
        {"grace-hopper", 0, "tier=auto", "dram0"},              /* gpu0 only when asked for */
        {"grace-hopper", 0, "use=cpu+gpu,tier=auto", "gpu0"}, /* asked for: managed memory */
        {"knl-flat", 0, "persist,tier=auto", "ssd0"},          /* a file tier only when asked for */
        {"knl-flat", 0, "capacity=large,tier=auto", "dram0,hbm0"}, /* a hint: ranked by it, as before */
        {"knl-flat", 0, "", "dram0"},                           /* without tier=auto: DRAM, as before */
    };
    expect_cases(alone, sizeof alone / sizeof *alone);

    /* the kernel's tiers over bandwidth: hbm0 (node 2) put in a slower tier goes last */
    load("xeonmax-2s");
    char got[256];
    resolution_t res;
    set_memory_tier(0, 4), set_memory_tier(1, 4), set_memory_tier(2, 22), set_memory_tier(3, 4);
    resolve_to_text("tier=auto", got, sizeof got, &res);
    assert_string_equal(got, "dram0,dram1,hbm1,hbm0"); /* tier 4 by bandwidth, then tier 22 */
    assert_true(res.by_speed);
    resolve_to_text("bandwidth=high,tier=auto", got, sizeof got, &res); /* a hint: the tiers do not rank */
    assert_string_equal(got, "hbm0,dram0,dram1,hbm1");
    assert_false(res.by_speed);
    set_memory_tier(3, -1); /* one candidate with no tier: bandwidth alone decides */
    resolve_to_text("tier=auto", got, sizeof got, &res);
    assert_string_equal(got, "hbm0,dram0,dram1,hbm1");
    set_memory_tier(0, -1), set_memory_tier(1, -1), set_memory_tier(2, -1);
}

static int teardown(void **state)
{
    loci_fini();
    unsetenv("LOCI_TOPOLOGY");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expected_resolutions),
        cmocka_unit_test(traits_and_strictness),
        cmocka_unit_test(unsatisfiable_names_constraint_and_targets),
        cmocka_unit_test(explanations),
        cmocka_unit_test(tier_auto),
        cmocka_unit_test(tier_auto_alone),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
