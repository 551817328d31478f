/*
 * Discovery on the five reference machines of tests/topologies (injected with
 * LOCI_TOPOLOGY): the kind of every node, where its figures came from, which
 * devices are near it, and the bandwidth / latency / capacity orderings seen
 * from each initiator. Numbers are those of tests/topologies/README.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load(const char *machine)
{
    const char *dir = getenv("LOCI_TEST_TOPOLOGIES");
    assert_non_null(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.xml", dir, machine);
    loci_fini();
    setenv("LOCI_TOPOLOGY", path, 1);
    if (loci_init() != 0)
        fail_msg("%s: %s", machine, loci_last_error());
}

static loci_target_info_t node_info(int node)
{
    char name[16];
    snprintf(name, sizeof name, "node:%d", node);
    const loci_target_t *t = loci_target_by_name(name);
    assert_non_null(t);
    loci_target_info_t info;
    assert_int_equal(loci_target_info(t, &info), 0);
    return info;
}

typedef struct {
    const char *machine;
    const char *kinds[4]; /* per NUMA node */
    const char *names[4];
} kinds_case_t;

static void kinds_and_names(void **state)
{
    static const kinds_case_t cases[] = {
        {"knl-flat", {"dram", "hbm"}, {"dram0", "hbm0"}},
        {"xeonmax-2s", {"dram", "dram", "hbm", "hbm"}, {"dram0", "dram1", "hbm0", "hbm1"}},
        {"cxl-expander", {"dram", "cxl"}, {"dram0", "cxl0"}},
        {"grace-hopper", {"dram", "gpu"}, {"dram0", "gpu0"}},
        {"nic-socket1", {"dram", "dram"}, {"dram0", "dram1"}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        load(cases[c].machine);
        int numa = 0;
        for (int n = 0; n < 4 && cases[c].kinds[n]; n++, numa++) {
            loci_target_info_t info = node_info(n);
            if (strcmp(info.kind, cases[c].kinds[n]) != 0 || strcmp(info.name, cases[c].names[n]) != 0)
                fail_msg("%s node %d: expected %s (%s), got %s (%s)", cases[c].machine, n,
                         cases[c].names[n], cases[c].kinds[n], info.name, info.kind);
            assert_true(info.flags & LOCI_TARGET_SIMULATED);
            assert_true(info.capacity > 0);
        }
        /* every NUMA node, plus the ssd0 file tier, which is real even here */
        assert_int_equal(loci_target_count(), numa + 1);
        loci_target_info_t ssd;
        assert_int_equal(loci_target_info(loci_target_by_name("ssd0"), &ssd), 0);
        assert_false(ssd.flags & LOCI_TARGET_SIMULATED);
    }
}

typedef enum { BW, LAT, CAP } attr_t;

static uint64_t value(const loci_target_info_t *i, attr_t a)
{
    return a == BW ? i->bandwidth_mbps : a == LAT ? i->latency_ns : i->capacity;
}

/* "a is better than b" for attribute attr, seen from initiator */
typedef struct {
    const char *machine;
    int initiator;
    attr_t attr;
    int better, worse;
} order_case_t;

static void orderings_per_initiator(void **state)
{
    static const order_case_t cases[] = {
        {"knl-flat", 0, BW, 1, 0},      {"knl-flat", 0, LAT, 0, 1},     {"knl-flat", 0, CAP, 0, 1},
        /* xeonmax from package 0: HBM 2 is fastest; remote memory, whatever
         * it is, is slower than local DRAM (the interconnect caps it) */
        {"xeonmax-2s", 0, BW, 2, 0},    {"xeonmax-2s", 0, BW, 0, 1},    {"xeonmax-2s", 0, BW, 0, 3},
        {"xeonmax-2s", 0, LAT, 0, 2},   {"xeonmax-2s", 0, LAT, 2, 1},   {"xeonmax-2s", 0, LAT, 1, 3},
        {"xeonmax-2s", 0, CAP, 0, 2},   {"xeonmax-2s", 0, CAP, 1, 3},
        /* and symmetrically from package 1 */
        {"xeonmax-2s", 1, BW, 3, 1},    {"xeonmax-2s", 1, BW, 1, 0},    {"xeonmax-2s", 1, BW, 1, 2},
        {"xeonmax-2s", 1, LAT, 1, 3},   {"xeonmax-2s", 1, LAT, 3, 0},   {"xeonmax-2s", 1, LAT, 0, 2},
        {"cxl-expander", 0, BW, 0, 1},  {"cxl-expander", 0, LAT, 0, 1}, {"cxl-expander", 0, CAP, 1, 0},
        {"grace-hopper", 0, BW, 0, 1},  {"grace-hopper", 0, LAT, 0, 1}, {"grace-hopper", 0, CAP, 0, 1},
        {"nic-socket1", 0, BW, 0, 1},   {"nic-socket1", 0, LAT, 0, 1},
        {"nic-socket1", 1, BW, 1, 0},   {"nic-socket1", 1, LAT, 1, 0},
    };
    static const char *const attr_names[] = {"bandwidth", "latency", "capacity"};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const order_case_t *k = &cases[c];
        load(k->machine);
        assert_int_equal(loci_set_initiator(k->initiator), 0);
        loci_target_info_t a = node_info(k->better), b = node_info(k->worse);
        uint64_t va = value(&a, k->attr), vb = value(&b, k->attr);
        assert_true(va > 0 && vb > 0); /* never unknown: a lower source always has a value */
        bool ok = k->attr == LAT ? va < vb : va > vb;
        if (!ok)
            fail_msg("%s from node %d: %s of node %d (%llu) should beat node %d (%llu)", k->machine,
                     k->initiator, attr_names[k->attr], k->better, (unsigned long long)va, k->worse,
                     (unsigned long long)vb);
        loci_set_initiator(-1);
    }
}

/* Linux exposes HMAT only for best initiators: the rest is estimated from
 * distance and says so. */
static void sources_follow_hmat_then_distance(void **state)
{
    load("xeonmax-2s");
    assert_int_equal(loci_set_initiator(0), 0);
    loci_target_info_t local = node_info(2), remote = node_info(3);
    assert_string_equal(local.source, "hmat");
    assert_int_equal(local.bandwidth_mbps, 850000);
    assert_int_equal(local.latency_ns, 140);
    assert_string_equal(remote.source, "distance");
    assert_int_equal(remote.latency_ns, 248); /* 140 x 23/13 */
    /* bandwidth capped by the interconnect: no more than remote DRAM */
    assert_int_equal(remote.bandwidth_mbps, node_info(1).bandwidth_mbps);
    const char *kind_src;
    assert_int_equal(loci_target_sources(loci_target_by_name("node:2"), NULL, NULL, NULL, &kind_src), 0);
    assert_string_equal(kind_src, "hmat"); /* hbm because of its HMAT bandwidth */
    loci_set_initiator(-1);

    load("knl-flat");
    assert_int_equal(loci_target_sources(loci_target_by_name("hbm0"), NULL, NULL, NULL, &kind_src), 0);
    assert_string_equal(kind_src, "hwloc"); /* subtype MCDRAM */

    /* a CPU-less node has no view of its own */
    assert_int_equal(loci_set_initiator(1), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "no CPUs"));
}

static void near_devices(void **state)
{
    char buf[128];
    load("nic-socket1");
    assert_int_equal(loci_target_near_devices(loci_target_by_name("node:1"), "nic", buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "nic0"));
    assert_int_equal(loci_target_near_devices(loci_target_by_name("node:0"), "nic", buf, sizeof buf), 0);
    /* the BMC's VGA controller beside the NIC (ASPEED, only a DRM card) is no GPU */
    if (loci_target_near_devices(loci_target_by_name("node:1"), "gpu", buf, sizeof buf) != 0)
        fail_msg("GPUs near node 1: %s (the BMC's VGA controller is none)", buf);

    load("grace-hopper");
    assert_int_equal(loci_target_near_devices(loci_target_by_name("gpu0"), "gpu", buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "cuda0"));
    loci_target_info_t gpu = node_info(1);
    assert_true(gpu.flags & LOCI_TARGET_GPU_ACCESSIBLE);
    assert_int_equal(loci_target_near_devices(loci_target_by_name("gpu0"), "disk", buf, sizeof buf),
                     LOCI_EINVAL);

    load("xeonmax-2s");
    assert_int_equal(loci_target_cpus(loci_target_by_name("hbm1"), buf, sizeof buf), 0);
    assert_string_equal(buf, "8-15");
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
        cmocka_unit_test(kinds_and_names),
        cmocka_unit_test(orderings_per_initiator),
        cmocka_unit_test(sources_follow_hmat_then_distance),
        cmocka_unit_test(near_devices),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
