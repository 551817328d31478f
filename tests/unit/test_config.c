/*
 * The admin config (LOCI_CONFIG), saved measurements (LOCI_MEASURED) and a
 * bad LOCI_TOPOLOGY: good files change what discovery reports, with the right
 * source; bad ones fail loci_init with "file:line: what is wrong". A config
 * another user planted (a FIFO hung loci_init; their file placed our data)
 * is refused, as root and as nobody; root's is an administrator's, trusted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/child.h"
#include "support/planted.h"
#include "support/scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Start over with this config (NULL = none). */
static int init_with(const char *config)
{
    loci_fini();
    if (config)
        setenv("LOCI_CONFIG", config, 1);
    else
        unsetenv("LOCI_CONFIG");
    return loci_init();
}

static void expect_config_error(const char *text, const char *expected)
{
    const char *path = write_file("bad.ini", text);
    assert_int_equal(init_with(path), LOCI_ECONFIG);
    const char *msg = loci_last_error();
    if (!strstr(msg, expected))
        fail_msg("config:\n%s\nexpected message containing \"%s\", got \"%s\"", text, expected, msg);
    /* and every later call reports it too, instead of running unconfigured */
    assert_true(loci_target_count() < 0);
}

static void numa_entry_overrides_with_config_source(void **state)
{
    const char *path = write_file("good.ini", "# admin figures\n"
                                              "[target fast]\n"
                                              "numa_node = 0   # the only node here\n"
                                              "kind = hbm\n"
                                              "capacity = 1GiB\t# caps what loci places\n"
                                              "bandwidth = 50GB/s\n"
                                              "latency = 90ns\n");
    assert_int_equal(init_with(path), 0);
    const loci_target_t *t = loci_target_by_name("fast");
    assert_non_null(t);
    assert_ptr_equal(t, loci_target_by_name("node:0"));
    loci_target_info_t info;
    assert_int_equal(loci_target_info(t, &info), 0);
    assert_string_equal(info.kind, "hbm");
    assert_int_equal(info.capacity, 1ull << 30);
    assert_int_equal(info.bandwidth_mbps, 50000);
    assert_int_equal(info.latency_ns, 90);
    assert_string_equal(info.source, "config");
    const char *cap_src, *kind_src;
    assert_int_equal(loci_target_sources(t, &cap_src, NULL, NULL, &kind_src), 0);
    assert_string_equal(cap_src, "config");
    assert_string_equal(kind_src, "config");
}

static void file_tier_from_config(void **state)
{
    char text[512];
    snprintf(text, sizeof text, "[target scratch]\npath = %s\nkind = ssd\ncapacity = 2G\n", scratch_dir);
    assert_int_equal(init_with(write_file("tier.ini", text)), 0);
    const loci_target_t *t = loci_target_by_name("scratch");
    assert_non_null(t);
    loci_target_info_t info;
    assert_int_equal(loci_target_info(t, &info), 0);
    assert_string_equal(info.kind, "ssd");
    assert_int_equal(info.numa_node, -1);
    assert_int_equal(info.capacity, 2ull << 30);
    assert_true(info.flags & LOCI_TARGET_PERSISTENT);
    assert_string_equal(loci_target_path(t), scratch_dir);
    assert_non_null(loci_target_by_name("ssd0")); /* the default tier is still there */
}

static void measured_loses_to_config(void **state)
{
    const char *measured = write_file("measured.conf", "[target dram0]\nnuma_node = 0\n"
                                                       "bandwidth = 11000MB/s\nlatency = 95ns\n");
    setenv("LOCI_MEASURED", measured, 1);
    assert_int_equal(init_with(NULL), 0);
    loci_target_info_t info;
    assert_int_equal(loci_target_info(loci_target_by_name("node:0"), &info), 0);
    assert_int_equal(info.bandwidth_mbps, 11000);
    assert_string_equal(info.source, "measured");

    const char *config = write_file("cfg.ini", "[target dram0]\nnuma_node = 0\nlatency = 80ns\n");
    assert_int_equal(init_with(config), 0);
    assert_int_equal(loci_target_info(loci_target_by_name("node:0"), &info), 0);
    assert_int_equal(info.latency_ns, 80);       /* config wins */
    assert_int_equal(info.bandwidth_mbps, 11000); /* measured still fills what config left */
    const char *bw_src, *lat_src;
    loci_target_sources(loci_target_by_name("node:0"), NULL, &bw_src, &lat_src, NULL);
    assert_string_equal(bw_src, "measured");
    assert_string_equal(lat_src, "config");
    unsetenv("LOCI_MEASURED");
}

static void malformed_configs(void **state)
{
    expect_config_error("[target a]\nnuma_node = 0\nspeed = 3\n", "bad.ini:3: [target a]: unknown key 'speed'");
    expect_config_error("[target a]\nnuma_node = 0\ncapacity = 12 parsecs\n",
                        "bad.ini:3: capacity = 12 parsecs: not a unit of size: write bytes as a bare number or with B, "
                        "or one of K, KiB");
    expect_config_error("[target a]\nnuma_node = zero\n", "bad.ini:2: numa_node = zero");
    expect_config_error("[target a]\nnuma_node = 0\n\n[target a]\npath = /tmp\n",
                        "bad.ini:4: duplicate target 'a' (first defined at line 1)");
    expect_config_error("[target a]\nnuma_node = 0\nnuma_node = 0\n", "bad.ini:3: [target a]: 'numa_node' given twice");
    expect_config_error("[target a]\nnuma_node = 4096\n", "bad.ini:2: [target a]: numa_node = 4096, but this machine has NUMA nodes");
    expect_config_error("[target nosuch]\ncapacity = 1G\n", "bad.ini:1: unknown target 'nosuch'; this machine has dram0");
    expect_config_error("capacity = 1G\n", "bad.ini:1: 'capacity' outside a [target NAME] section");
    expect_config_error("[tier x]\n", "bad.ini:1: [tier x]: unknown section");
    expect_config_error("[target a]\nkind = fast\nnuma_node = 0\n", "bad.ini:2: kind = fast: unknown kind");
    expect_config_error("[target a]\nnuma_node = 0\npath = /tmp\n", "bad.ini:3: [target a]: give numa_node or path, not both");
    expect_config_error("[target a]\nnuma_node = 0\nbandwidth = quick\n", "bad.ini:3: bandwidth = quick");
    expect_config_error("[target a]\nnuma_node = 0\nlatency = 5 parsecs\n", "bad.ini:3: latency = 5 parsecs");
    expect_config_error("[target a]\nnuma_node = 0\nthis is not ini\n", "bad.ini:3: not an INI line");
    expect_config_error("[target a\n", "bad.ini:1: section header without ']'");
    expect_config_error("[checkpoint]\nkeep = 3\n", "bad.ini:2: [checkpoint]: unknown key 'keep'; expected drain");
    expect_config_error("[checkpoint]\ndrain = agg0\ndrain = agg1\n", "bad.ini:3: [checkpoint]: 'drain' given twice");
    expect_config_error("[target dram0]\ntiering_budget = 120%\n",
                        "bad.ini:2: tiering_budget = 120%: more than the whole: at most 100%; expected a share of the "
                        "target's capacity from 0% to 100%");
    expect_config_error("[target dram0]\ntiering_budget = -5%\n", "bad.ini:2: tiering_budget = -5%");
    expect_config_error("[target dram0]\ntiering_budget = lots\n", "bad.ini:2: tiering_budget = lots");
    /* strtod's forms, once taken (0x10% as 16 %, 1e1 as 10, 0x1 as node 1), refused by the one parser */
    expect_config_error("[target dram0]\ntiering_budget = 0x10%\n",
                        "bad.ini:2: tiering_budget = 0x10%: hexadecimal is not read: write the number in decimal digits; "
                        "expected a share of the target's capacity");
    expect_config_error("[target dram0]\ntiering_budget = 1e1%\n",
                        "bad.ini:2: tiering_budget = 1e1%: an exponent is not read: write every digit (1e3 as 1000)");
    expect_config_error("[target dram0]\ntiering_budget = 0 B\n", "tiering_budget = 0 B: a size of 0 bytes: write 0% for "
                                                                  "none");
    expect_config_error("[target a]\nnuma_node = 0x1\n", "bad.ini:2: numa_node = 0x1: hexadecimal is not read");
    expect_config_error("[target a]\nnuma_node = -1\n", "bad.ini:2: numa_node = -1: a sign is not read");
    expect_config_error("[target a]\nnuma_node = 0\ncapacity = -1G\n", "bad.ini:3: capacity = -1G: a sign is not read");
    expect_config_error("[target a]\nnuma_node = 0\nbandwidth = 1e3\n", "bad.ini:3: bandwidth = 1e3: an exponent is "
                                                                       "not read");
    expect_config_error("[target a]\nnuma_node = 0\nlatency = 1,5us\n", "bad.ini:3: latency = 1,5us: ',' is not read: "
                                                                       "write the digits alone, a fraction after a '.'");
    expect_config_error("[tiering]\nbudgets = 90%\n",
                        "bad.ini:2: [tiering]: unknown key 'budgets'; expected source, interval, budget, rate, sample, floor or node_budget");
    assert_int_equal(init_with("/nonexistent/loci.ini"), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "LOCI_CONFIG: /nonexistent/loci.ini does not exist"));
}

/* A mistake found once the whole section is read (a key that does not go
 * with the others, a value the machine refuses) cites the line of the key at
 * fault, not the section's header: in a long section the header is far from
 * what to change. */
static void whole_section_mistakes_cite_the_key(void **state)
{
    char text[512];
    expect_config_error("[target a]\npath = /tmp\n\n# node 0 after all\nnuma_node = 0\n",
                        "bad.ini:5: [target a]: give numa_node or path, not both");
    expect_config_error("[target a]\nnuma_node = 0\nkind = hbm\nbandwidth = 10GB/s\ninitiator = 7\n",
                        "bad.ini:5: [target a]: initiator = 7 is not a NUMA node with CPUs here");
    expect_config_error("[target x]\npath = /tmp/x\ncapacity = 1G\nkind = hbm\n",
                        "bad.ini:4: [target x]: a path tier is kind ssd or pmem, not hbm");
    expect_config_error("[target a]\nnuma_node = 0\nlatency = 90ns\ndirty_limit = 40%\n",
                        "bad.ini:4: [target a]: dirty_limit and dirty_background belong to a file tier");
    snprintf(text, sizeof text, "[target scratch]\npath = %s\ndirty_limit = 20%%\ndirty_background = 20%%\n",
             scratch_dir);
    expect_config_error(text, "bad.ini:4: [target scratch]: dirty_background = 20% must be below dirty_limit");
    expect_config_error("[target agg0]\n\nkind = store\nconf = /c\npool = p\n",
                        "bad.ini:3: [target agg0]: kind = store needs store = rados");
    expect_config_error("[target fast]\nnuma_node = 0\nkind = hbm\npool = p\n",
                        "bad.ini:4: [target fast]: store, conf, pool, user, namespace, keyring, timeout, lock_ttl and object");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /c\npool = p\npath = /tmp\n",
                        "bad.ini:6: [target agg0]: a store target has no path");
    /* what the header itself names stays cited there */
    expect_config_error("[target nosuch]\ncapacity = 1G\n", "bad.ini:1: unknown target 'nosuch'");
    expect_config_error("[target ssd0]\nkind = store\nstore = rados\nconf = /c\npool = p\n",
                        "bad.ini:1: [target ssd0]: that name is taken by another target");
}

/* Store targets (docs/STORE.md): every mistake is a config error before any
 * connection is tried. */
static void store_target_mistakes(void **state)
{
    expect_config_error("[target agg0]\nkind = store\nconf = /etc/ceph/ceph.conf\npool = p\n",
                        "bad.ini:2: [target agg0]: kind = store needs store = rados");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\npool = p\n",
                        "kind = store needs conf = /path/to/ceph.conf");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /etc/ceph/ceph.conf\n",
                        "kind = store needs pool = NAME");
    expect_config_error("[target agg0]\nkind = store\nstore = nfs\n", "bad.ini:3: store = nfs: unknown store engine");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = ceph.conf\n",
                        "bad.ini:4: conf = ceph.conf: expected the absolute path");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /c\npool = p\ntimeout = forever\n",
                        "bad.ini:6: timeout = forever: not a number: write decimal digits (as in 64 or 1.5); expected "
                        "seconds from 1 to 3600");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /c\npool = p\nlock_ttl = 0\n",
                        "lock_ttl = 0: out of range; expected seconds");
    expect_config_error("[target fast]\nnuma_node = 0\npool = p\n",
                        "[target fast]: store, conf, pool, user, namespace, keyring, timeout, lock_ttl and object belong to a store target");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /c\npool = p\nobject = 1000\n",
                        "bad.ini:6: object = 1000: not whole 4 KiB pages; expected a size of whole 4 KiB pages up to 64 MiB");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /c\npool = p\nobject = 128MiB\n",
                        "bad.ini:6: object = 128MiB: more than 64 MiB; expected a size");
    expect_config_error("[target fast]\nnuma_node = 0\nobject = 4MiB\n", "belong to a store target");
    expect_config_error("[target agg0]\nkind = store\nstore = rados\nconf = /c\npool = p\npath = /tmp\n",
                        "[target agg0]: a store target has no path");
    expect_config_error("[target ssd0]\nkind = store\nstore = rados\nconf = /c\npool = p\n",
                        "[target ssd0]: that name is taken by another target");
}

/* mode=paged's dirty limits in a [target X] section: bad ones refused with
 * what is right, good ones obeyed by memory paged on that tier (a writer
 * dirtying 4x the cache never has more dirty than the limit and the fault
 * threads' slack), and an intent's own limit wins. */
static void dirty_limits_in_target_sections(void **state)
{
    char text[512];
    const char *bad[][2] = {
        {"dirty_limit = 0%", "dirty_limit = 0%: out of range; expected a percentage of the paged cache from 1% to 100%, "
                             "e.g. 50%"},
        {"dirty_limit = 120%", "dirty_limit = 120%: more than the whole: at most 100%; expected a percentage"},
        {"dirty_background = lots", "dirty_background = lots: not a number: write decimal digits (as in 64 or 1.5); "
                                    "expected a percentage"},
        {"dirty_limit = 0x32", "dirty_limit = 0x32: hexadecimal is not read: write the number in decimal digits; "
                               "expected a percentage"},
        {"dirty_limit = 50.5%", "dirty_limit = 50.5%: not a whole percentage; expected a percentage"},
        {"dirty_limit = 20%\ndirty_background = 20%", "dirty_background = 20% must be below dirty_limit = 20%"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "[target scratch]\npath = %s\n%s\n", scratch_dir, bad[i][0]);
        expect_config_error(text, bad[i][1]);
    }
    expect_config_error("[target a]\nnuma_node = 0\ndirty_limit = 40%\n",
                        "[target a]: dirty_limit and dirty_background belong to a file tier (path =) or a store");

    snprintf(text, sizeof text, "[target scratch]\npath = %s\ndirty_limit = 25%%\ndirty_background = 5%%\n", scratch_dir);
    assert_int_equal(init_with(write_file("dirty.ini", text)), 0);
    const size_t chunk = 64 << 10, cache = 64 * chunk, size = 4 * cache;
    const char *intents[] = {"target=scratch,mode=paged!,cache=4MiB,chunk=64KiB",
                             "target=scratch,mode=paged!,cache=4MiB,chunk=64KiB,dirty_limit=10%"};
    const size_t limit[] = {16 * chunk, 6 * chunk};
    for (int i = 0; i < 2; i++) {
        loci_allocator_t *a = loci_allocator_create(intents[i]);
        assert_non_null(a);
        unsigned char *p = loci_alloc(a, size);
        assert_non_null(p);
        for (size_t off = 0; off < size; off += 512)
            p[off] = (unsigned char)(off >> 12);
        loci_cache_stats_t st;
        assert_int_equal(loci_cache_stats(p, &st), 0);
        if (st.dirty_peak > limit[i] + 4 * chunk || st.written_behind == 0)
            fail_msg("%s: dirty peak %llu KiB (limit %zu KiB), %llu written behind", intents[i],
                     (unsigned long long)st.dirty_peak >> 10, limit[i] >> 10, (unsigned long long)st.written_behind);
        loci_free(p);
        loci_allocator_destroy(a);
    }
}

/* On an injected machine a store target is listed (no cluster is asked) and
 * access=job / access=global resolve to it and nothing else. */
static void store_target_on_injected_machine(void **state)
{
    const char *path = write_file("store.ini", "[target agg0]\nkind = store\nstore = rados\n"
                                               "conf = /nonexistent/ceph.conf\npool = loci\n");
    char xml[512];
    snprintf(xml, sizeof xml, "%s/xeonmax-2s.xml", getenv("LOCI_TEST_TOPOLOGIES"));
    setenv("LOCI_TOPOLOGY", xml, 1);
    assert_int_equal(init_with(path), 0);
    const loci_target_t *t = loci_target_by_name("agg0");
    assert_non_null(t);
    loci_target_info_t info;
    assert_int_equal(loci_target_info(t, &info), 0);
    assert_string_equal(info.kind, "store");
    assert_true(info.flags & LOCI_TARGET_JOB_WIDE);
    assert_true(info.flags & LOCI_TARGET_PERSISTENT);
    assert_null(loci_target_unreachable(t));
    const char *job[] = {"access=job", "access=global", "kind=store!", "access=job,bandwidth=high"};
    for (size_t i = 0; i < sizeof job / sizeof *job; i++) {
        loci_allocator_t *a = loci_allocator_create(job[i]);
        assert_non_null(a);
        const loci_target_t *first[4];
        int n = loci_allocator_targets(a, first, 4);
        assert_int_equal(n, 1); /* node-local memory never qualifies */
        assert_ptr_equal(first[0], t);
        loci_allocator_destroy(a);
    }
    loci_allocator_t *node = loci_allocator_create("access=node");
    const loci_target_t *best;
    assert_true(loci_allocator_targets(node, &best, 1) >= 1);
    assert_ptr_not_equal(best, t); /* the node's own shareable memory, not the store */
    loci_allocator_destroy(node);
    unsetenv("LOCI_TOPOLOGY");
}

/* The names of an allocator's first `n` candidates, comma-separated. */
static const char *ranked(const char *intent, int n)
{
    static char out[256];
    const loci_target_t *t[8];
    loci_allocator_t *a = loci_allocator_create(intent);
    if (!a)
        fail_msg("%s: %s", intent, loci_last_error());
    int got = loci_allocator_targets(a, t, 8);
    out[0] = '\0';
    for (int i = 0; i < got && i < n; i++) {
        loci_target_info_t info;
        loci_target_info(t[i], &info);
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "," : "", info.name);
    }
    return out;
}

/* kind=pmem asks for persistent memory first: a persistent pmem target (a
 * DAX file system here, a device-DAX node on a live machine) ranks before
 * an NVDIMM onlined as system RAM (a NUMA node of kind pmem: volatile, and
 * nearer), whether kind=pmem is a hint or a constraint; an earlier hint may
 * say otherwise. */
static void pmem_ranks_persistent_first(void **state)
{
    char text[512], xml[512];
    snprintf(xml, sizeof xml, "%s/cxl-expander.xml", getenv("LOCI_TEST_TOPOLOGIES"));
    setenv("LOCI_TOPOLOGY", xml, 1);
    snprintf(text, sizeof text, "[target kmem0]\nnuma_node = 1\nkind = pmem\n\n[target fsdax]\npath = %s\nkind = pmem\n",
             scratch_dir);
    assert_int_equal(init_with(write_file("pmem.ini", text)), 0);
    assert_string_equal(ranked("kind=pmem", 2), "fsdax,kmem0");
    assert_string_equal(ranked("kind=pmem!", 2), "fsdax,kmem0");
    assert_string_equal(ranked("near=numa:1,kind=pmem", 1), "kmem0");
    assert_string_equal(ranked("target=kmem0", 1), "kmem0");
    unsetenv("LOCI_TOPOLOGY");
    assert_int_equal(init_with(NULL), 0);
}

static void access_job_needs_a_store(void **state)
{
    assert_int_equal(init_with(NULL), 0);
    const char *intents[] = {"access=job", "access=global", "access=global,persist"};
    for (size_t i = 0; i < sizeof intents / sizeof *intents; i++) {
        assert_null(loci_allocator_create(intents[i]));
        if (!strstr(loci_last_error(), "none is configured: add a [target agg0] section"))
            fail_msg("%s: %s", intents[i], loci_last_error());
    }
}

/* What a careless hand or a hostile file does to a config: long lines
 * (comments, paths) are read whole with the right line numbers, a UTF-8
 * byte-order mark is no part of the first section, a directory or a device
 * is refused with what LOCI_CONFIG must name, and every section a front end
 * documents parses, its documented example included. */
static void careless_and_hostile_configs(void **state)
{
    char text[2048], dir[150];
    memset(dir, 'd', 140);
    dir[140] = '\0';
    char comment[600];
    memset(comment, 'x', sizeof comment - 1);
    comment[sizeof comment - 1] = '\0';
    /* a long comment, then an error three lines on: the line number is right */
    snprintf(text, sizeof text, "# %s\n[target a]\nnuma_node = 0\nspeed = 3\n", comment);
    expect_config_error(text, "bad.ini:4: [target a]: unknown key 'speed'");
    /* a 300-character path is a path, not a bad line */
    char long_path[600];
    snprintf(long_path, sizeof long_path, "%s/%s", scratch_dir, dir);
    assert_int_equal(mkdir(long_path, 0700), 0);
    snprintf(long_path + strlen(long_path), sizeof long_path - strlen(long_path), "/%s", dir); /* names end at 255 */
    assert_int_equal(mkdir(long_path, 0700), 0);
    snprintf(text, sizeof text, "[target long]\npath = %s   # scratch space\nkind = ssd\n", long_path);
    if (init_with(write_file("long.ini", text)) != 0)
        fail_msg("a %zu-character path: %s", strlen(long_path), loci_last_error());
    assert_string_equal(loci_target_path(loci_target_by_name("long")), long_path);
    rmdir(long_path);
    *strrchr(long_path, '/') = '\0';
    rmdir(long_path);
    /* a byte-order mark before the first section */
    assert_int_equal(init_with(write_file("bom.ini", "\xEF\xBB\xBF[target fast]\nnuma_node = 0\nkind = hbm\n")), 0);
    assert_non_null(loci_target_by_name("fast"));
    /* a directory, a device */
    assert_int_equal(init_with(scratch_dir), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "is a directory"));
    assert_int_equal(init_with("/dev/zero"), LOCI_ECONFIG);
    assert_non_null(strstr(loci_last_error(), "not a regular file"));
    /* [shmem] as docs/SHMEM.md shows it, and the other hints */
    const char *path = write_file("shmem.ini", "[shmem]\n"
                                               "high_bw = kind=hbm!,fallback=default   # e.g. insist on HBM, else local DRAM\n"
                                               "low_lat = latency=low\n"
                                               "near_nic = near=nic\n");
    assert_int_equal(init_with(path), 0);
    assert_string_equal(loci_config_intent("shmem", "high_bw", NULL), "kind=hbm!,fallback=default");
    assert_string_equal(loci_config_intent("shmem", "near_nic", NULL), "near=nic");
    expect_config_error("[shmem]\nfast = bandwidth=high\n", "bad.ini:2: [shmem]: unknown key 'fast'; expected high_bw, low_lat or near_nic");
    /* a value that is no intent: loci starts, the front end asking is told which line */
    path = write_file("worse.ini", "[shmem]\nhigh_bw = bandwidth=very\n[omp]\nhigh_bw = kind=hbm, fallback=null\n");
    assert_int_equal(init_with(path), 0);
    const char *origin = "unset";
    errno = 0;
    assert_null(loci_config_intent("shmem", "high_bw", &origin));
    assert_int_equal(errno, EINVAL);
    assert_null(origin);
    assert_non_null(strstr(loci_last_error(), "worse.ini:2: [shmem] high_bw = bandwidth=very: "));
    assert_null(loci_config_intent("omp", "high_bw", NULL));
    assert_non_null(strstr(loci_last_error(), "worse.ini:4: [omp] high_bw = kind=hbm, fallback=null: give only where"));
    errno = 0;
    assert_null(loci_config_intent("omp", "low_lat", NULL));
    assert_int_equal(errno, ENOENT);
    assert_int_equal(init_with(NULL), 0);
}

/* loci_init as `victim` with LOCI_CONFIG=path: within 60 s, its message
 * (the children's first line: "OK" or the error). */
static void init_as(const char *path, int victim, char *out, size_t len)
{
    setenv("LOCI_CONFIG", path, 1);
    const char *args[] = {"init", NULL};
    child_t k = child_spawn(args, NULL, victim);
    int status = child_wait_for(&k, 60, out, len);
    if (status != 0)
        fail_msg("LOCI_CONFIG=%s as uid %d: %s: %s", path, victim, status < 0 ? "hung (killed after 60 s)" : "failed",
                 out);
}

static void expect_in(const char *out, const char *part)
{
    if (!strstr(out, part))
        fail_msg("\"%s\" lacks \"%s\"", out, part);
}

static void planted_configs(void **state)
{
    if (!planted_users_available("planted_configs"))
        skip();
    char shared[] = "/tmp/loci-test-shared-XXXXXX", path[600], out[4096];
    planted_shared_dir(shared);
    snprintf(path, sizeof path, "%s/fifo-by-nobody.ini", shared);
    assert_int_equal(plant(path, 'p', NOBODY), 0);
    init_as(path, 0, out, sizeof out);
    expect_in(out, "LOCI_CONFIG: ");
    expect_in(out, "fifo-by-nobody.ini is a FIFO, not a regular file of yours or root's: loci leaves it alone");
    snprintf(path, sizeof path, "%s/file-of-nobody.ini", shared);
    assert_int_equal(plant(path, 'f', NOBODY), 0);
    init_as(path, 0, out, sizeof out);
    expect_in(out, "file-of-nobody.ini is owned by uid 65534, not by you (uid 0) nor root: loci leaves it alone");

    snprintf(path, sizeof path, "%s/fifo-by-root.ini", shared);
    assert_int_equal(plant(path, 'p', 0), 0);
    init_as(path, NOBODY, out, sizeof out);
    expect_in(out, "fifo-by-root.ini is a FIFO, not a regular file of yours or root's");
    /* root's own config, as an administrator writes it: trusted by every user */
    assert_int_equal(chmod(scratch_dir, 0755), 0);
    init_as(write_file("admin.ini", "[target fast]\nnuma_node = 0\nkind = hbm\n"), NOBODY, out, sizeof out);
    expect_in(out, "OK");
    /* but not one anyone may write */
    const char *open_to_all = write_file("open.ini", "[target fast]\nnuma_node = 0\n");
    assert_int_equal(chmod(open_to_all, 0666), 0);
    init_as(open_to_all, 0, out, sizeof out);
    expect_in(out, "open.ini is writable by others (mode 0666)");
    assert_int_equal(chmod(scratch_dir, 0700), 0);
    assert_int_equal(remove_tree(shared), 0);
    assert_int_equal(init_with(NULL), 0);
}

static void bad_topology_file(void **state)
{
    unsetenv("LOCI_CONFIG");
    setenv("LOCI_TOPOLOGY", "/nonexistent/machine.xml", 1);
    loci_fini();
    assert_int_equal(loci_init(), LOCI_ETOPO);
    assert_non_null(strstr(loci_last_error(), "LOCI_TOPOLOGY=/nonexistent/machine.xml: cannot read it"));
    setenv("LOCI_TOPOLOGY", write_file("junk.xml", "this is no XML\n"), 1);
    loci_fini();
    assert_int_equal(loci_init(), LOCI_ETOPO);
    assert_non_null(strstr(loci_last_error(), "junk.xml"));
    unsetenv("LOCI_TOPOLOGY");
    loci_fini();
    assert_int_equal(loci_init(), 0);
}

static void unknown_target_names_the_ones_there(void **state)
{
    assert_int_equal(init_with(NULL), 0);
    assert_null(loci_target_by_name("hbm7"));
    assert_non_null(strstr(loci_last_error(), "unknown target 'hbm7'"));
    assert_non_null(strstr(loci_last_error(), "dram0"));
    assert_null(loci_target_at(-1));
    assert_null(loci_target_at(loci_target_count()));
    assert_int_equal(loci_set_initiator(4095), LOCI_EINVAL);
}

/* loci_init: "OK", or its message. */
static int child_init(char **a)
{
    int rc = loci_init();
    printf("%s\n", rc == 0 ? "OK" : loci_last_error());
    return 0;
}

static const child_role_t roles[] = {{"init", 0, child_init}, {NULL, 0, NULL}};

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numa_entry_overrides_with_config_source),
        cmocka_unit_test(file_tier_from_config),
        cmocka_unit_test(measured_loses_to_config),
        cmocka_unit_test(malformed_configs),
        cmocka_unit_test(whole_section_mistakes_cite_the_key),
        cmocka_unit_test(store_target_mistakes),
        cmocka_unit_test(dirty_limits_in_target_sections),
        cmocka_unit_test(store_target_on_injected_machine),
        cmocka_unit_test(access_job_needs_a_store),
        cmocka_unit_test(pmem_ranks_persistent_first),
        cmocka_unit_test(careless_and_hostile_configs),
        cmocka_unit_test(planted_configs),
        cmocka_unit_test(bad_topology_file),
        cmocka_unit_test(unknown_target_names_the_ones_there),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
