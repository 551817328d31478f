/* The intent parser (src/intent/parse.c) against DESIGN.md §3. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "intent/intent.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse `text`, which must succeed, into a static intent. */
static const intent_t *ok(const char *text)
{
    static intent_t in;
    int rc = intent_parse(text, &in);
    if (rc != LOCI_OK)
        fail_msg("intent_parse(\"%s\") = %d: %s", text, rc, loci_last_error());
    return &in;
}

/* Parse `text`, which must fail with exactly the message `message`. */
static void err(const char *text, const char *message)
{
    intent_t in;
    memset(&in, 0x5a, sizeof in);
    int rc = intent_parse(text, &in);
    if (rc != LOCI_EINVAL)
        fail_msg("intent_parse(\"%s\") = %d, expected LOCI_EINVAL", text, rc);
    assert_string_equal(loci_last_error(), message);
    /* a failed parse leaves no half-parsed terms behind */
    assert_int_equal(in.nterms, 0);
    assert_string_equal(in.canonical, "");
}

/* Parse `text`, which must fail with a message containing `part`. */
static void err_has(const char *text, const char *part)
{
    intent_t in;
    assert_int_equal(intent_parse(text, &in), LOCI_EINVAL);
    if (!strstr(loci_last_error(), part))
        fail_msg("intent \"%s\": message \"%s\" lacks \"%s\"", text, loci_last_error(), part);
}

static void assert_canonical(const char *text, const char *canonical)
{
    assert_string_equal(ok(text)->canonical, canonical);
}

/* --- empty intents ------------------------------------------------------- */

static void test_null_and_empty(void **state)
{
    (void)state;
    const char *empties[] = {NULL, "", " ", " \t\n\r\v\f "};
    for (size_t i = 0; i < sizeof empties / sizeof *empties; i++) {
        intent_t in;
        memset(&in, 0x5a, sizeof in);
        assert_int_equal(intent_parse(empties[i], &in), LOCI_OK);
        assert_int_equal(in.nterms, 0);
        assert_string_equal(in.canonical, "");
        assert_null(intent_find(&in, TERM_BANDWIDTH));
    }
    assert_int_equal(intent_parse("bandwidth=high", NULL), LOCI_EINVAL);
    assert_true(strlen(loci_last_error()) > 0);
    assert_null(intent_find(NULL, TERM_KIND));
}

/* --- every key and value ------------------------------------------------- */

static void test_rank_keys(void **state)
{
    (void)state;
    const intent_t *in = ok("bandwidth=high,latency=low,capacity=large");
    assert_int_equal(in->nterms, 3);
    assert_int_equal(in->terms[0].key, TERM_BANDWIDTH);
    assert_int_equal(in->terms[1].key, TERM_LATENCY);
    assert_int_equal(in->terms[2].key, TERM_CAPACITY);
    for (int i = 0; i < 3; i++) {
        assert_false(in->terms[i].constraint);
        assert_int_equal(in->terms[i].position, i + 1);
        assert_int_equal(in->terms[i].index, -1);
    }
    assert_string_equal(in->canonical, "bandwidth=high,latency=low,capacity=large");
}

static void test_near(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int near, index;
        const char *canonical;
    } cases[] = {
        {"near=pe", NEAR_PE, -1, "near=pe"},
        {"near=nic", NEAR_NIC, -1, "near=nic"},
        {"near=nic:0", NEAR_NIC, 0, "near=nic:0"},
        {"near=nic:12", NEAR_NIC, 12, "near=nic:12"},
        {"near=gpu", NEAR_GPU, -1, "near=gpu"},
        {"near=gpu:3", NEAR_GPU, 3, "near=gpu:3"},
        {"near=numa:0", NEAR_NUMA, 0, "near=numa:0"},
        {"near=numa:007", NEAR_NUMA, 7, "near=numa:7"},
        {"near=numa:2147483647", NEAR_NUMA, 2147483647, "near=numa:2147483647"},
        {"NEAR = NUMA : 1", NEAR_NUMA, 1, "near=numa:1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const intent_t *in = ok(cases[i].text);
        assert_int_equal(in->nterms, 1);
        assert_int_equal(in->terms[0].key, TERM_NEAR);
        assert_int_equal(in->terms[0].v.near_kind, cases[i].near);
        assert_int_equal(in->terms[0].index, cases[i].index);
        assert_string_equal(in->canonical, cases[i].canonical);
    }
}

static void test_use(void **state)
{
    (void)state;
    const intent_t *in = ok("use=cpu");
    assert_int_equal(in->terms[0].key, TERM_USE);
    assert_int_equal(in->terms[0].v.use_gpu, 0);
    assert_int_equal(in->terms[0].index, -1);
    in = ok("use=gpu");
    assert_int_equal(in->terms[0].v.use_gpu, 1);
    assert_int_equal(in->terms[0].index, -1);
    in = ok("use=gpu:2");
    assert_int_equal(in->terms[0].v.use_gpu, 1);
    assert_int_equal(in->terms[0].index, 2);
    assert_string_equal(in->canonical, "use=gpu:2");
    in = ok("use = CPU+GPU");
    assert_int_equal(in->terms[0].v.use_gpu, 2); /* managed memory */
    assert_int_equal(in->terms[0].index, -1);
    assert_string_equal(in->canonical, "use=cpu+gpu");
    in = ok("use=gpu+cpu:1");
    assert_int_equal(in->terms[0].v.use_gpu, 2);
    assert_int_equal(in->terms[0].index, 1);
    assert_string_equal(in->canonical, "use=cpu+gpu:1");
}

static void test_access(void **state)
{
    (void)state;
    const char *names[] = {"process", "node", "job", "global"};
    const int values[] = {ACCESS_PROCESS, ACCESS_NODE, ACCESS_JOB, ACCESS_GLOBAL};
    for (int i = 0; i < 4; i++) {
        char text[64], bang[80];
        snprintf(text, sizeof text, "access=%s", names[i]);
        const intent_t *in = ok(text);
        assert_int_equal(in->terms[0].key, TERM_ACCESS);
        assert_int_equal(in->terms[0].v.access, values[i]);
        assert_false(in->terms[0].constraint);
        assert_string_equal(in->canonical, text);
        /* access keeps its '!': access=node! is a constraint */
        snprintf(bang, sizeof bang, "%s!", text);
        in = ok(bang);
        assert_true(in->terms[0].constraint);
        assert_string_equal(in->canonical, bang);
    }
}

static void test_persist_and_pinned(void **state)
{
    (void)state;
    const intent_t *in = ok("persist");
    assert_int_equal(in->terms[0].key, TERM_PERSIST);
    assert_false(in->terms[0].constraint);
    assert_string_equal(in->canonical, "persist");
    in = ok("persist!");
    assert_true(in->terms[0].constraint);
    assert_string_equal(in->canonical, "persist!");
    in = ok("pinned");
    assert_int_equal(in->terms[0].key, TERM_PINNED);
    assert_string_equal(in->canonical, "pinned");
}

static void test_kind(void **state)
{
    (void)state;
    const char *names[] = {"dram", "hbm", "cxl", "pmem", "ssd", "gpu", "gpu-host", "store"};
    const int kinds[] = {KIND_DRAM, KIND_HBM, KIND_CXL,      KIND_PMEM,
                         KIND_SSD,  KIND_GPU, KIND_GPU_HOST, KIND_STORE};
    for (int i = 0; i < KIND_COUNT; i++) {
        char text[64];
        snprintf(text, sizeof text, "kind=%s!", names[i]);
        const intent_t *in = ok(text);
        assert_int_equal(in->terms[0].key, TERM_KIND);
        assert_int_equal(in->terms[0].v.kind, kinds[i]);
        assert_true(in->terms[0].constraint);
        assert_string_equal(in->canonical, text);
    }
    assert_canonical("Kind = GPU - Host", "kind=gpu-host");
}

static void test_target(void **state)
{
    (void)state;
    const intent_t *in = ok("target=HBM1!");
    assert_int_equal(in->terms[0].key, TERM_TARGET);
    assert_string_equal(in->terms[0].name, "hbm1");
    assert_true(in->terms[0].constraint);
    assert_string_equal(in->canonical, "target=hbm1!");
    assert_string_equal(ok("target=node:3")->terms[0].name, "node:3");
    assert_string_equal(ok("target=my_tier-2")->terms[0].name, "my_tier-2");
    /* 31 characters is the longest name */
    in = ok("target=abcdefghijabcdefghijabcdefghij1");
    assert_string_equal(in->terms[0].name, "abcdefghijabcdefghijabcdefghij1");
}

static void test_fallback(void **state)
{
    (void)state;
    const char *names[] = {"next", "default", "null", "abort"};
    const int values[] = {FALLBACK_NEXT, FALLBACK_DEFAULT, FALLBACK_NULL, FALLBACK_ABORT};
    for (int i = 0; i < 4; i++) {
        char text[64];
        snprintf(text, sizeof text, "fallback=%s", names[i]);
        const intent_t *in = ok(text);
        assert_int_equal(in->terms[0].key, TERM_FALLBACK);
        assert_int_equal(in->terms[0].v.fallback, values[i]);
        assert_string_equal(in->canonical, text);
    }
}

static void test_partition(void **state)
{
    (void)state;
    const char *names[] = {"interleave", "blocked", "nearest", "interleaved"};
    const int values[] = {PARTITION_INTERLEAVE, PARTITION_BLOCKED, PARTITION_NEAREST,
                          PARTITION_INTERLEAVE};
    const char *canonical[] = {"partition=interleave", "partition=blocked", "partition=nearest",
                               "partition=interleave"};
    for (int i = 0; i < 4; i++) {
        char text[64];
        snprintf(text, sizeof text, "partition=%s", names[i]);
        const intent_t *in = ok(text);
        assert_int_equal(in->terms[0].key, TERM_PARTITION);
        assert_int_equal(in->terms[0].v.partition, values[i]);
        assert_string_equal(in->canonical, canonical[i]);
    }
}

static void test_mode(void **state)
{
    (void)state;
    const intent_t *in = ok("mode=mmap");
    assert_int_equal(in->terms[0].key, TERM_MODE);
    assert_int_equal(in->terms[0].v.mode, MODE_MMAP);
    in = ok("mode=paged");
    assert_int_equal(in->terms[0].v.mode, MODE_PAGED);
    assert_string_equal(in->canonical, "mode=paged");
}

/* tier=auto: a trait (its '!' dropped), one value, misspellings named */
static void test_tier(void **state)
{
    (void)state;
    const intent_t *in = ok("bandwidth=high, Tier = AUTO !");
    assert_int_equal(in->terms[1].key, TERM_TIER);
    assert_int_equal(in->terms[1].v.tier, TIER_AUTO);
    assert_false(in->terms[1].constraint);
    assert_string_equal(in->canonical, "bandwidth=high,tier=auto");
    err("tier=atuo", "intent \"tier=atuo\": unknown value 'atuo' in 'tier=atuo' at 1 (did you mean 'auto'?)");
    err("kind=cxl,tier=fixed",
        "intent \"kind=cxl,tier=fixed\": unknown value 'fixed' in 'tier=fixed' at 2 (expected tier=auto)");
    err("tier", "intent \"tier\": missing value in 'tier' at 1 (expected tier=auto)");
}

static void test_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        intent_key_t key;
        uint64_t size;
        const char *canonical;
    } cases[] = {
        {"align=1", TERM_ALIGN, 1, "align=1"},
        {"align=64", TERM_ALIGN, 64, "align=64"},
        {"align=4k", TERM_ALIGN, 4096, "align=4096"},
        {"align=2MiB", TERM_ALIGN, 2097152, "align=2097152"},
        {"align=1G", TERM_ALIGN, 1073741824, "align=1073741824"},
        {"align=0.5k", TERM_ALIGN, 512, "align=512"},
        {"align=9223372036854775808", TERM_ALIGN, 9223372036854775808ull,
         "align=9223372036854775808"},
        {"cache=1", TERM_CACHE, 1, "cache=1"},
        {"cache=1.5G", TERM_CACHE, 1610612736, "cache=1610612736"},
        {"cache=1GB", TERM_CACHE, 1000000000, "cache=1000000000"},
        {"cache=2 TiB", TERM_CACHE, 2199023255552ull, "cache=2199023255552"},
        {"cache=100b", TERM_CACHE, 100, "cache=100"},
        {"cache=18446744073709551615", TERM_CACHE, 18446744073709551615ull,
         "cache=18446744073709551615"},
        {"cache=16777215.5T", TERM_CACHE, 18446743523953737728ull, "cache=18446743523953737728"},
        {"chunk=4096", TERM_CHUNK, 4096, "chunk=4096"},
        {"chunk=64KiB", TERM_CHUNK, 65536, "chunk=65536"},
        {"chunk=12k", TERM_CHUNK, 12288, "chunk=12288"},
        {"chunk=1m", TERM_CHUNK, 1048576, "chunk=1048576"},
        {"object=4MiB", TERM_OBJECT, 4194304, "object=4194304"},
        {"object=256k", TERM_OBJECT, 262144, "object=262144"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const intent_t *in = ok(cases[i].text);
        assert_int_equal(in->nterms, 1);
        assert_int_equal(in->terms[0].key, cases[i].key);
        assert_true(in->terms[0].size == cases[i].size);
        assert_string_equal(in->canonical, cases[i].canonical);
    }
}

/* --- hints, constraints, traits ------------------------------------------ */

static void test_hints_and_constraints(void **state)
{
    (void)state;
    const intent_t *in = ok("bandwidth=high!,latency=low,near=nic!,persist,kind=cxl!");
    assert_int_equal(in->nterms, 5);
    assert_true(in->terms[0].constraint);
    assert_false(in->terms[1].constraint);
    assert_true(in->terms[2].constraint);
    assert_false(in->terms[3].constraint);
    assert_true(in->terms[4].constraint);
    assert_string_equal(in->canonical, "bandwidth=high!,latency=low,near=nic!,persist,kind=cxl!");
}

static void test_traits_ignore_bang(void **state)
{
    (void)state;
    /* Traits rank nothing: their '!' means the same as none, so it is dropped. */
    const intent_t *in = ok("fallback=null!,align=64!,partition=blocked!,pinned!,"
                            "cache=1G!,chunk=64K!");
    assert_int_equal(in->nterms, 6);
    for (int i = 0; i < in->nterms; i++)
        assert_false(in->terms[i].constraint);
    assert_string_equal(in->canonical, "fallback=null,align=64,partition=blocked,pinned,"
                                       "cache=1073741824,chunk=65536");
    /* mode= is a requirement: its '!' (no other mode will do) is kept */
    in = ok("mode=paged!");
    assert_true(in->terms[0].constraint);
    assert_string_equal(in->canonical, "mode=paged!");
}

static void test_whitespace_and_case(void **state)
{
    (void)state;
    assert_canonical(" Bandwidth = HIGH ! , align=2MiB", "bandwidth=high!,align=2097152");
    assert_canonical("\tband width\n=hi gh", "bandwidth=high");
    assert_canonical("PERSIST\t!", "persist!");
    assert_canonical("  near = NIC : 1 , use=GPU", "near=nic:1,use=gpu");
}

static void test_canonical_equal(void **state)
{
    (void)state;
    const char *same[][2] = {
        {" Bandwidth = HIGH ! , align=2MiB", "bandwidth=high!,align=2097152"},
        {"align=2m", "ALIGN = 2097152"},
        {"align=2MiB", "align=2048KiB"},
        {"partition=interleaved", "partition=INTERLEAVE"},
        {"pinned!", "pinned"},
        {"chunk=1M!", "chunk=1048576"},
        {"near=numa:01", "near=numa:1"},
        {"target=HBM0", "target=hbm0"},
        {"cache=1.5G", "cache=1536M"},
        {"kind=hbm!,bandwidth=high", "KIND=hbm !, bandwidth = high"},
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        intent_t a, b;
        assert_int_equal(intent_parse(same[i][0], &a), LOCI_OK);
        assert_int_equal(intent_parse(same[i][1], &b), LOCI_OK);
        assert_string_equal(a.canonical, b.canonical);
    }
    /* Order and '!' matter for rankable terms. */
    intent_t a, b;
    assert_int_equal(intent_parse("bandwidth=high,latency=low", &a), LOCI_OK);
    assert_int_equal(intent_parse("latency=low,bandwidth=high", &b), LOCI_OK);
    assert_string_not_equal(a.canonical, b.canonical);
    assert_int_equal(intent_parse("bandwidth=high!", &b), LOCI_OK);
    assert_string_not_equal(ok("bandwidth=high")->canonical, b.canonical);
}

static void test_canonical_reparses(void **state)
{
    (void)state;
    const char *texts[] = {
        "bandwidth=high!,latency=low,capacity=large,near=numa:3!,use=gpu:1,access=job!,persist,"
        "kind=gpu-host,target=node:2,fallback=abort,align=0.5k,partition=interleaved,pinned,"
        "mode=paged,cache=1.25GiB,chunk=256KiB",
        " near = gpu , use = cpu ! , access = global ",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        intent_t a, b;
        assert_int_equal(intent_parse(texts[i], &a), LOCI_OK);
        assert_int_equal(intent_parse(a.canonical, &b), LOCI_OK);
        assert_string_equal(a.canonical, b.canonical);
        assert_int_equal(a.nterms, b.nterms);
        assert_memory_equal(a.terms, b.terms, sizeof a.terms[0] * (size_t)a.nterms);
    }
}

static void test_all_keys_once(void **state)
{
    (void)state;
    const intent_t *in = ok("bandwidth=high,latency=low,capacity=large,near=pe,use=cpu,"
                            "access=node,persist,kind=pmem,target=pmem0,fallback=next,align=8,"
                            "partition=nearest,pinned,mode=mmap,cache=1M,chunk=4K,object=4M,dirty_limit=40%,"
                            "dirty_background=5,tier=auto");
    assert_int_equal(in->nterms, TERM_KEY_COUNT);
    for (int k = 0; k < TERM_KEY_COUNT; k++) {
        const intent_term_t *t = intent_find(in, (intent_key_t)k);
        assert_non_null(t);
        assert_int_equal(t->key, k);
        assert_int_equal(t->position, k + 1);
    }
}

static void test_find(void **state)
{
    (void)state;
    const intent_t *in = ok("kind=hbm!,align=4096");
    const intent_term_t *t = intent_find(in, TERM_ALIGN);
    assert_non_null(t);
    assert_true(t->size == 4096);
    assert_int_equal(t->position, 2);
    assert_ptr_equal(intent_find(in, TERM_KIND), &in->terms[0]);
    assert_null(intent_find(in, TERM_NEAR));
}

/* --- errors -------------------------------------------------------------- */

#define ALL_KEYS                                                                                   \
    "bandwidth, latency, capacity, near, use, access, persist, kind, target, fallback, align, "    \
    "partition, pinned, mode, cache, chunk, object, dirty_limit, dirty_background, tier"

static void test_error_unknown_key(void **state)
{
    (void)state;
    err("bandwith=high",
        "intent \"bandwith=high\": unknown key 'bandwith' at 1 (did you mean 'bandwidth'?)");
    err("kind=hbm, latncy=low",
        "intent \"kind=hbm, latncy=low\": unknown key 'latncy' at 2 (did you mean 'latency'?)");
    err("persist,pinnde",
        "intent \"persist,pinnde\": unknown key 'pinnde' at 2 (did you mean 'pinned'?)");
    err("Aling=64", "intent \"Aling=64\": unknown key 'aling' at 1 (did you mean 'align'?)");
    err("speed=fast", "intent \"speed=fast\": unknown key 'speed' at 1 (keys: " ALL_KEYS ")");
    err("x", "intent \"x\": unknown key 'x' at 1 (keys: " ALL_KEYS ")");
    /* a bare value names its key */
    err("hbm!", "intent \"hbm!\": unknown key 'hbm' at 1 (did you mean 'kind=hbm!'?)");
    err("interleaved", "intent \"interleaved\": unknown key 'interleaved' at 1 (did you mean "
                       "'partition=interleave'?)");
    err("gpu", "intent \"gpu\": unknown key 'gpu' at 1 "
               "(did you mean one of 'near=gpu', 'use=gpu', 'kind=gpu'?)");
}

static void test_error_unknown_value(void **state)
{
    (void)state;
    err("bandwidth=hihg", "intent \"bandwidth=hihg\": unknown value 'hihg' in 'bandwidth=hihg' at "
                          "1 (did you mean 'high'?)");
    err("bandwidth=low", "intent \"bandwidth=low\": unknown value 'low' in 'bandwidth=low' at 1 "
                         "(expected bandwidth=high)");
    err("latency=high", "intent \"latency=high\": unknown value 'high' in 'latency=high' at 1 "
                        "(expected latency=low)");
    err("capacity=big", "intent \"capacity=big\": unknown value 'big' in 'capacity=big' at 1 "
                        "(expected capacity=large)");
    err("kind=hdm",
        "intent \"kind=hdm\": unknown value 'hdm' in 'kind=hdm' at 1 (did you mean 'hbm'?)");
    err("kind=gpu_host",
        "intent \"kind=gpu_host\": unknown value 'gpu_host' in 'kind=gpu_host' at 1 "
        "(did you mean 'gpu-host'?)");
    err("kind=flash", "intent \"kind=flash\": unknown value 'flash' in 'kind=flash' at 1 "
                      "(expected kind=dram|hbm|cxl|pmem|ssd|gpu|gpu-host|store)");
    err("kind=hbm0", "intent \"kind=hbm0\": unknown value 'hbm0' in 'kind=hbm0' at 1 "
                     "(did you mean 'target=hbm0'?)");
    err("near=socket", "intent \"near=socket\": unknown value 'socket' in 'near=socket' at 1 "
                       "(expected near=pe|nic[:N]|gpu[:N]|numa:N)");
    err("near=nuam:1", "intent \"near=nuam:1\": unknown value 'nuam:1' in 'near=nuam:1' at 1 "
                       "(did you mean 'numa'?)");
    err("use=gpy",
        "intent \"use=gpy\": unknown value 'gpy' in 'use=gpy' at 1 (did you mean 'gpu'?)");
    err("access=world", "intent \"access=world\": unknown value 'world' in 'access=world' at 1 "
                        "(expected access=process|node|job|global)");
    err("fallback=nul", "intent \"fallback=nul\": unknown value 'nul' in 'fallback=nul' at 1 "
                        "(did you mean 'null'?)");
    err("partition=cyclic",
        "intent \"partition=cyclic\": unknown value 'cyclic' in 'partition=cyclic' at 1 "
        "(expected partition=interleave|blocked|nearest)");
    err("mode=paged2", "intent \"mode=paged2\": unknown value 'paged2' in 'mode=paged2' at 1 "
                       "(did you mean 'paged'?)");
}

static void test_error_numbers(void **state)
{
    (void)state;
    err("near=nic:x", "intent \"near=nic:x\": bad number 'x' in 'near=nic:x' at 1 (near=nic:N with "
                      "N = 0, 1, 2, ...)");
    err("near=gpu:", "intent \"near=gpu:\": bad number '' in 'near=gpu:' at 1 "
                     "(near=gpu:N with N = 0, 1, 2, ...)");
    err("use=gpu:-1", "intent \"use=gpu:-1\": bad number '-1' in 'use=gpu:-1' at 1 "
                      "(use=gpu:N with N = 0, 1, 2, ...)");
    err_has("near=numa:2147483648", "bad number '2147483648' in 'near=numa:2147483648' at 1");
    err_has("near=numa:1:2", "bad number '1:2'");
    err("near=numa", "intent \"near=numa\": missing number in 'near=numa' at 1 "
                     "(near=numa:N with N = 0, 1, 2, ...)");
    err("near=pe:0", "intent \"near=pe:0\": unexpected number in 'near=pe:0' at 1 "
                     "(near=pe takes no number; expected near=pe|nic[:N]|gpu[:N]|numa:N)");
    err("use=cpu:1", "intent \"use=cpu:1\": unexpected number in 'use=cpu:1' at 1 "
                     "(use=cpu takes no number; expected use=cpu|gpu[:N]|cpu+gpu[:N])");
}

static void test_error_sizes(void **state)
{
    (void)state;
    err("align=3", "intent \"align=3\": alignment 3 in 'align=3' at 1 is not a power of two "
                   "(align=N, a power of two in bytes, e.g. 64, 4KiB, 2MiB)");
    err_has("align=0", "alignment 0 in 'align=0' at 1 is not a power of two");
    err_has("align=1.5k", "alignment 1536 in 'align=1.5k' at 1 is not a power of two");
    err("align=abc", "intent \"align=abc\": bad size 'abc' in 'align=abc' at 1 "
                     "(align=N, a power of two in bytes, e.g. 64, 4KiB, 2MiB)");
    err_has("align=64x", "bad size '64x' in 'align=64x' at 1");
    err_has("align=-64", "bad size '-64'");
    err_has("align=0x40", "bad size '0x40'");
    err_has("align=1e3", "bad size '1e3'");
    err_has("align=1.", "bad size '1.'");
    err_has("align=.5k", "bad size '.5k'");
    err_has("cache=1GB/s", "bad size '1gb/s'");
    err_has("cache=inf", "bad size 'inf'");
    err("chunk=1000", "intent \"chunk=1000\": chunk size 1000 in 'chunk=1000' at 1 is not a "
                      "multiple of 4096 (chunk=SIZE, a multiple of 4096 bytes, e.g. 64KiB, 2MiB)");
    err_has("chunk=1MB", "chunk size 1000000 in 'chunk=1mb' at 1 is not a multiple of 4096");
    err_has("chunk=0", "chunk size 0");
    err_has("object=4MB", "object size 4000000 in 'object=4mb' at 1 is not a multiple of 4096 (object=SIZE, the "
                          "store's objects, a multiple of the chunk");
    err_has("object=0", "object size 0");
    err("cache=0", "intent \"cache=0\": cache size 0 in 'cache=0' at 1 "
                   "(cache=SIZE, more than 0 bytes, e.g. 256MiB, 4GiB)");
}

/* The dirty limits of a paged cache: 1% to 100%, said so when not. */
static void test_error_percentages(void **state)
{
    (void)state;
    const intent_t *in = ok("mode=paged,dirty_limit=60%,dirty_background=15");
    assert_int_equal(intent_find(in, TERM_DIRTY_LIMIT)->size, 60);
    assert_int_equal(intent_find(in, TERM_DIRTY_BACKGROUND)->size, 15);
    assert_string_equal(in->canonical, "mode=paged,dirty_limit=60%,dirty_background=15%");
    err("dirty_limit=0%", "intent \"dirty_limit=0%\": dirty_limit=0% in 'dirty_limit=0%' at 1 is 0%: nothing "
                          "could ever be dirty (dirty_limit=PCT, 1% to 100% of the paged cache, e.g. 50%)");
    err_has("dirty_limit=101%", "dirty_limit=101% in 'dirty_limit=101%' at 1 is over 100% of the cache");
    err_has("dirty_background=250", "is over 100% of the cache");
    err_has("dirty_limit=50%%", "bad percentage '50%%'");
    err_has("dirty_limit=half", "bad percentage 'half'");
    err_has("dirty_limit=-5%", "bad percentage '-5%'");
}

static void test_error_size_overflow(void **state)
{
    (void)state;
    err("cache=18446744073709551616",
        "intent \"cache=18446744073709551616\": size '18446744073709551616' in "
        "'cache=18446744073709551616' at 1 does not fit in 64 bits "
        "(cache=SIZE, more than 0 bytes, e.g. 256MiB, 4GiB)");
    err_has("cache=16777216T",
            "size '16777216t' in 'cache=16777216t' at 1 does not fit in 64 bits");
    err_has("cache=16777215.99999999999999T", "does not fit in 64 bits");
    err_has("align=99999999999999999999999999999999", "does not fit in 64 bits");
    err_has("chunk=20000000000000000kib", "does not fit in 64 bits");
}

static void test_error_values(void **state)
{
    (void)state;
    err("bandwidth",
        "intent \"bandwidth\": missing value in 'bandwidth' at 1 (expected bandwidth=high)");
    err("kind=", "intent \"kind=\": missing value in 'kind=' at 1 "
                 "(expected kind=dram|hbm|cxl|pmem|ssd|gpu|gpu-host|store)");
    err("target", "intent \"target\": missing value in 'target' at 1 (expected target=NAME, "
                  "1 to 31 letters, digits, '-', ':' or '_', e.g. hbm0, node:3)");
    err_has("align!", "missing value in 'align!' at 1 (expected align=N");
    err("persist=yes", "intent \"persist=yes\": unexpected value in 'persist=yes' at 1 "
                       "(persist takes no value: persist or persist!)");
    err_has("pinned=", "unexpected value in 'pinned=' at 1 (pinned takes no value");
    err("target=hbm.0",
        "intent \"target=hbm.0\": bad target name 'hbm.0' in 'target=hbm.0' at 1 "
        "(target=NAME, 1 to 31 letters, digits, '-', ':' or '_', e.g. hbm0, node:3)");
    err_has("target=abcdefghijabcdefghijabcdefghij12", "bad target name");
    err_has("target=a=b", "bad target name 'a=b'");
    err("=high", "intent \"=high\": missing key in '=high' at 1 (keys: " ALL_KEYS ")");
}

static void test_error_structure(void **state)
{
    (void)state;
    err(",", "intent \",\": empty term at 1 (a ',' too many?)");
    err("bandwidth=high,,latency=low",
        "intent \"bandwidth=high,,latency=low\": empty term at 2 (a ',' too many?)");
    err("bandwidth=high,", "intent \"bandwidth=high,\": empty term at 2 (a ',' too many?)");
    err(" , bandwidth=high", "intent \" , bandwidth=high\": empty term at 1 (a ',' too many?)");
    err("kind=hbm!,bandwidth=high,kind=cxl",
        "intent \"kind=hbm!,bandwidth=high,kind=cxl\": key 'kind' given twice, in 'kind=cxl' at 3 "
        "(first at 1; give each key once)");
    err_has("persist,persist!", "key 'persist' given twice, in 'persist!' at 2 (first at 1;");
    err("bandwidth!=high", "intent \"bandwidth!=high\": misplaced '!' in 'bandwidth!=high' at 1 "
                           "(one '!' ends a constraint: 'bandwidth=high!')");
    err_has("persist!!",
            "misplaced '!' in 'persist!!' at 1 (one '!' ends a constraint: 'persist!')");
    err_has("!", "missing key in '!' at 1");
    /* control characters are shown as '?' and whitespace as ' ' in the quoted intent */
    err("\x01kind\t=hbm", "intent \"?kind =hbm\": unknown key '?kind' at 1 (did you mean 'kind'?)");
}

static void test_limits(void **state)
{
    (void)state;
    char text[2 * INTENT_MAX_TEXT];

    /* INTENT_MAX_TEXT - 1 characters, whitespace included, is the longest intent. */
    memset(text, ' ', sizeof text);
    memcpy(text, "bandwidth=high", 14);
    text[INTENT_MAX_TEXT - 1] = '\0';
    assert_string_equal(ok(text)->canonical, "bandwidth=high");
    text[INTENT_MAX_TEXT - 1] = ' ';
    text[INTENT_MAX_TEXT] = '\0';
    err_has(text, "\": too long (more than 511 characters)");
    err_has(text, "intent \"bandwidth=high   ");
    /* not NUL-terminated within the limit: never read past INTENT_MAX_TEXT bytes
     * (ASan builds catch a read past the buffer) */
    char *raw = malloc(INTENT_MAX_TEXT);
    assert_non_null(raw);
    memset(raw, 'x', INTENT_MAX_TEXT);
    err_has(raw, "too long");
    free(raw);

    /* INTENT_MAX_TERMS terms pass the count (then fail on a repeated key). */
    size_t n = 0;
    for (int i = 0; i < INTENT_MAX_TERMS; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%spinned", i ? "," : "");
    err_has(text, "key 'pinned' given twice, in 'pinned' at 2");
    snprintf(text + n, sizeof text - n, ",pinned");
    err_has(text, "\": too many terms (33; at most 32)");
    /* commas alone count too */
    memset(text, ',', 40);
    text[40] = '\0';
    err_has(text, "too many terms (41; at most 32)");
}

static void test_later_term_position(void **state)
{
    (void)state;
    err_has("bandwidth=high,latency=low,capacity=large,near=pe,use=cpu,persist,pinned,kind=foo",
            "unknown value 'foo' in 'kind=foo' at 8 (");
}

/* --- threads: messages are per thread, nothing shared is written ---------- */

static void *parse_in_thread(void *arg)
{
    const char *text = arg;
    for (int i = 0; i < 2000; i++) {
        intent_t in;
        if (intent_parse(text, &in) != LOCI_EINVAL || !strstr(loci_last_error(), text))
            return (void *)1;
        if (intent_parse("kind=hbm!,align=2MiB", &in) != LOCI_OK ||
            strcmp(in.canonical, "kind=hbm!,align=2097152") != 0)
            return (void *)1;
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    const char *texts[] = {"bandwith=high", "kind=hdm", "align=3", "near=nic:x"};
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, parse_in_thread, (void *)texts[i]), 0);
    for (int i = 0; i < 4; i++) {
        void *rv;
        assert_int_equal(pthread_join(th[i], &rv), 0);
        assert_null(rv);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_and_empty),
        cmocka_unit_test(test_rank_keys),
        cmocka_unit_test(test_near),
        cmocka_unit_test(test_use),
        cmocka_unit_test(test_access),
        cmocka_unit_test(test_persist_and_pinned),
        cmocka_unit_test(test_kind),
        cmocka_unit_test(test_target),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_partition),
        cmocka_unit_test(test_mode),
        cmocka_unit_test(test_tier),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_hints_and_constraints),
        cmocka_unit_test(test_traits_ignore_bang),
        cmocka_unit_test(test_whitespace_and_case),
        cmocka_unit_test(test_canonical_equal),
        cmocka_unit_test(test_canonical_reparses),
        cmocka_unit_test(test_all_keys_once),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_error_unknown_key),
        cmocka_unit_test(test_error_unknown_value),
        cmocka_unit_test(test_error_numbers),
        cmocka_unit_test(test_error_sizes),
        cmocka_unit_test(test_error_percentages),
        cmocka_unit_test(test_error_size_overflow),
        cmocka_unit_test(test_error_values),
        cmocka_unit_test(test_error_structure),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_later_term_position),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
