/*
 * The kernel's memory tiers as a discovery source (docs/DISCOVERY.md): the
 * sysfs source pointed at a fake sysfs root in the scratch directory, over a
 * reference topology (tests/topologies), records each node's tier, the
 * tier's nodes and their source; a CPU-less node in a slower tier than its
 * DRAM is cxl when nothing more trusted gives its latency, never against
 * HMAT or measured figures. And loci_target_memory_tier() on this machine
 * says what its /sys says. A kmem-onlined node is cxl or pmem by the region
 * its dax device belongs to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/scratch.h"
#include "topo/topo_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mkdir -p */
static void make_dirs(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    mkdir(path, 0755);
}

/* A fresh fake sysfs root with memory_tierN/nodelist for each "N:list"
 * given (none: a kernel without memory tiers). */
static const char *fake_sysfs(const char *const *tiers)
{
    static char root[512];
    snprintf(root, sizeof root, "%s/sys", scratch_dir);
    remove_tree(root);
    for (int i = 0; tiers[i]; i++) {
        char dir[768], file[800];
        snprintf(dir, sizeof dir, "%s/devices/virtual/memory_tiering/memory_tier%d", root, atoi(tiers[i]));
        make_dirs(dir);
        snprintf(file, sizeof file, "%s/nodelist", dir);
        FILE *f = fopen(file, "w");
        assert_non_null(f);
        fprintf(f, "%s\n", strchr(tiers[i], ':') + 1);
        fclose(f);
    }
    return root;
}

/* Discovery as discover.c runs it on a live machine, but over the reference
 * machine `xml` and the fake sysfs `root`; HMAT figures only when `hmat`. */
static topo_t *discover(const char *xml, const char *root, bool hmat)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.xml", getenv("LOCI_TEST_TOPOLOGIES"), xml);
    topo_t *t = calloc(1, sizeof *t);
    assert_non_null(t);
    snprintf(t->origin, sizeof t->origin, "%s", xml);
    hwloc_topology_t h;
    if (topo_source_hwloc(t, path, &h) != 0)
        fail_msg("%s: %s", xml, loci_last_error());
    topo_source_sysfs(t, root);
    if (hmat)
        topo_source_hwloc_attrs(t, h);
    hwloc_topology_destroy(h);
    return t;
}

static void classify(topo_t *t)
{
    topo_estimate(t);
    topo_classify(t);
}

static void assert_tier(topo_t *t, int node, int tier, const char *nodes)
{
    const topo_node_t *n = topo_node(t, node);
    assert_non_null(n);
    assert_int_equal(n->memtier, tier);
    if (tier < 0) {
        assert_null(n->memtier_nodes);
        assert_int_equal(n->memtier_source, SRC_NONE);
        return;
    }
    char list[64];
    hwloc_bitmap_list_snprintf(list, sizeof list, n->memtier_nodes);
    assert_string_equal(list, nodes);
    assert_string_equal(topo_source_name(n->memtier_source), "os");
}

/* Each node gets the tier whose nodelist names it, with that whole list;
 * nodes the machine lacks, entries that are no tier, and a kernel without
 * tiers leave nothing. */
static void tiers_read(void **state)
{
    (void)state;
    topo_t *t = discover("xeonmax-2s", fake_sysfs((const char *[]){"4:0-1,3", "22:2,7", NULL}), true);
    assert_tier(t, 0, 4, "0-1,3");
    assert_tier(t, 1, 4, "0-1,3");
    assert_tier(t, 2, 22, "2,7");
    assert_tier(t, 3, 4, "0-1,3");
    topo_free(t);

    const char *root = fake_sysfs((const char *[]){"4:0", NULL});
    char junk[700];
    snprintf(junk, sizeof junk, "%s/devices/virtual/memory_tiering/power", root);
    assert_int_equal(mkdir(junk, 0755), 0); /* not a memory_tierN */
    t = discover("cxl-expander", root, true);
    assert_tier(t, 0, 4, "0");
    assert_tier(t, 1, -1, NULL);
    topo_free(t);

    t = discover("cxl-expander", fake_sysfs((const char *[]){NULL}), true);
    assert_tier(t, 0, -1, NULL);
    assert_tier(t, 1, -1, NULL);
    topo_free(t);
}

/* CXL expander without HMAT: only NUMA distance (20, latency 2x) says it is
 * slow; the kernel's slower tier is more trusted and decides. In DRAM's own
 * tier the tier says nothing (the kernel's default tier). */
static void slower_tier_is_cxl(void **state)
{
    (void)state;
    topo_t *t = discover("cxl-expander", fake_sysfs((const char *[]){"4:0", "22:1", NULL}), false);
    classify(t);
    const struct loci_target *cxl = topo_target_of_node(t, 1);
    assert_int_equal(cxl->kind, KIND_CXL);
    assert_string_equal(topo_source_name(cxl->kind_source), "os");
    assert_int_equal(topo_target_of_node(t, 0)->kind, KIND_DRAM);
    topo_free(t);

    t = discover("cxl-expander", fake_sysfs((const char *[]){"4:0-1", NULL}), false);
    classify(t);
    assert_int_not_equal(topo_target_of_node(t, 1)->kind_source, SRC_OS);
    topo_free(t);
}

/* More trusted latencies decide, whatever the tier: HMAT's (cxl from HMAT,
 * not os), and measured ones at DRAM's latency (dram, not cxl). HBM found
 * from HMAT bandwidth stays hbm in a slower tier. */
static void tier_never_overrides(void **state)
{
    (void)state;
    const char *const tiers[] = {"4:0", "22:1", NULL};
    topo_t *t = discover("cxl-expander", fake_sysfs(tiers), true);
    classify(t);
    assert_int_equal(topo_target_of_node(t, 1)->kind, KIND_CXL);
    assert_string_equal(topo_source_name(topo_target_of_node(t, 1)->kind_source), "hmat");
    topo_free(t);

    t = discover("cxl-expander", fake_sysfs(tiers), false);
    topo_attr_offer(&topo_target_of_node(t, 0)->latency[0], 110, SRC_MEASURED);
    topo_attr_offer(&topo_target_of_node(t, 1)->latency[0], 120, SRC_MEASURED);
    classify(t);
    assert_int_equal(topo_target_of_node(t, 1)->kind, KIND_DRAM);
    topo_free(t);

    t = discover("xeonmax-2s", fake_sysfs((const char *[]){"4:0-1", "22:2-3", NULL}), true);
    classify(t);
    assert_int_equal(topo_target_of_node(t, 2)->kind, KIND_HBM);
    assert_string_equal(topo_source_name(topo_target_of_node(t, 2)->kind_source), "hmat");
    topo_free(t);
}

/* Whether /sys/devices/virtual/memory_tiering/memory_tier<tier>/nodelist
 * names `node` (this machine). */
static bool sysfs_tier_has(int tier, int node, char *list, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "/sys/devices/virtual/memory_tiering/memory_tier%d/nodelist", tier);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fgets(list, (int)len, f) != NULL;
    fclose(f);
    list[strcspn(list, "\n")] = '\0';
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    ok = ok && hwloc_bitmap_list_sscanf(b, list) == 0 && hwloc_bitmap_isset(b, (unsigned)node);
    hwloc_bitmap_free(b);
    return ok;
}

/* The public call on this machine agrees with its sysfs (a node in no tier
 * there has none here either); a file tier, and
 * every node of a simulated topology, has none (LOCI_ENOENT). */
static void public_call(void **state)
{
    (void)state;
    use_this_machine();
    DIR *d = opendir("/sys/devices/virtual/memory_tiering");
    for (int i = 0; i < loci_target_count(); i++) {
        const loci_target_t *tg = loci_target_at(i);
        loci_target_info_t info;
        assert_int_equal(loci_target_info(tg, &info), 0);
        char nodes[256], list[256];
        const char *source = NULL;
        int tier = loci_target_memory_tier(tg, nodes, sizeof nodes, &source);
        if (info.numa_node < 0 || !d) {
            assert_int_equal(tier, LOCI_ENOENT);
            continue;
        }
        if (tier == LOCI_ENOENT) { /* then no tier lists it (a memoryless node) */
            for (struct dirent *e; (e = readdir(d));) {
                int n;
                if (sscanf(e->d_name, "memory_tier%d", &n) == 1 &&
                    sysfs_tier_has(n, info.numa_node, list, sizeof list))
                    fail_msg("%s: loci knows no tier, sysfs lists node %d in memory_tier%d", info.name,
                             info.numa_node, n);
            }
            rewinddir(d);
            continue;
        }
        assert_true(tier >= 0);
        if (!sysfs_tier_has(tier, info.numa_node, list, sizeof list))
            fail_msg("%s: loci says memory_tier%d, sysfs does not list node %d there", info.name, tier,
                     info.numa_node);
        assert_string_equal(nodes, list);
        assert_string_equal(source, "os");
        assert_int_equal(loci_target_memory_tier(tg, NULL, 0, NULL), tier);
    }
    if (d)
        closedir(d);
    assert_int_equal(loci_target_memory_tier(NULL, NULL, 0, NULL), LOCI_EINVAL);

    use_topology("cxl-expander.xml", "");
    assert_int_equal(loci_target_memory_tier(loci_target_by_name("cxl0"), NULL, 0, NULL), LOCI_ENOENT);
    assert_non_null(strstr(loci_last_error(), "simulated"));
}

/* A node onlined from a DAX device (kmem): the memory of a CXL region
 * (the dax device under the CXL root ACPI0017) is kind cxl, an NVDIMM's
 * (under the NFIT's ACPI0012) pmem, from the sysfs source alone. */
static void kmem_node_kind(const char *device_dir, const char *kind)
{
    const char *root = fake_sysfs((const char *[]){NULL});
    char cmd[3000];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && cd %s && mkdir -p devices/%s/dax0.0 bus/dax/devices bus/dax/drivers/kmem && "
             "echo 1 >devices/%s/dax0.0/target_node && "
             "ln -s ../../../bus/dax/drivers/kmem devices/%s/dax0.0/driver && "
             "ln -s ../../../devices/%s/dax0.0 bus/dax/devices/dax0.0",
             root, root, device_dir, device_dir, device_dir, device_dir);
    assert_int_equal(system(cmd), 0);
    topo_t *t = discover("cxl-expander", root, false);
    classify(t);
    assert_string_equal(topo_kind_name(topo_target_of_node(t, 1)->kind), kind);
    topo_free(t);
}

static void kmem_nodes(void **state)
{
    (void)state;
    kmem_node_kind("platform/ACPI0017:00/root0/nvdimm-bridge0/ndbus0/region0/dax0.0", "cxl");
    kmem_node_kind("platform/ACPI0012:00/ndbus0/region0/dax0.0", "pmem");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tiers_read),
        cmocka_unit_test(slower_tier_is_cxl),
        cmocka_unit_test(tier_never_overrides),
        cmocka_unit_test(public_call),
        cmocka_unit_test(kmem_nodes),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
