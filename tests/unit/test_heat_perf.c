/* The perf access source's parts that need no PMU (src/heat/perf.c): which
 * event it chooses from a PMU tree and why it refuses one (fake sysfs trees
 * in the scratch directory: none, a core PMU without PEBS, Arm SPE,
 * perf_event_paranoid 3, Intel, hybrid Intel, AMD IBS), and how a ring
 * buffer's samples become heat — a record that wraps around the end, the
 * same page twice, addresses outside every range, a forked child's sample,
 * lost samples. This host
 * has no CPU PMU: the events themselves only real hardware can run
 * (docs/TIERING.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "heat/heat_internal.h"
#include "support/scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char devices[512], paranoid[512];

static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", devices, rel);
    for (char *slash = strchr(path + strlen(devices) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0700);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A fresh, empty PMU tree and perf_event_paranoid `level`. */
static void tree(int level)
{
    snprintf(devices, sizeof devices, "%s/devices", scratch_dir);
    remove_tree(devices);
    assert_int_equal(mkdir(devices, 0700), 0);
    snprintf(paranoid, sizeof paranoid, "%s/perf_event_paranoid", scratch_dir);
    FILE *f = fopen(paranoid, "w");
    fprintf(f, "%d\n", level);
    fclose(f);
}

static void intel_pmu(const char *pmu, const char *type)
{
    char rel[128];
    snprintf(rel, sizeof rel, "%s/type", pmu);
    put(rel, type);
    snprintf(rel, sizeof rel, "%s/events/mem-loads", pmu);
    put(rel, "event=0xcd,umask=0x1,ldlat=3\n");
    snprintf(rel, sizeof rel, "%s/format/event", pmu);
    put(rel, "config:0-7\n");
    snprintf(rel, sizeof rel, "%s/format/umask", pmu);
    put(rel, "config:8-15\n");
    snprintf(rel, sizeof rel, "%s/format/ldlat", pmu);
    put(rel, "config1:0-15\n");
}

static int refused(bool privileged, const char *expect)
{
    heat_perf_choice_t c;
    char why[512] = "";
    int rc = heat__perf_choose(devices, paranoid, privileged, &c, why, sizeof why);
    if (expect && !strstr(why, expect))
        fail_msg("expected \"%s\" in \"%s\"", expect, why);
    return rc;
}

static void refusals_say_why(void **state)
{
    tree(2);
    put("software/type", "1\n");
    assert_int_equal(refused(false, "no CPU PMU: "), LOCI_ENOTSUP);
    put("cpu/type", "4\n");
    put("cpu/events/cycles", "event=0x3c\n");
    assert_int_equal(refused(false, "has no mem-loads event"), LOCI_ENOTSUP);
    tree(2);
    put("arm_spe_0/type", "9\n");
    assert_int_equal(refused(false, "Arm SPE (arm_spe_0)"), LOCI_ENOTSUP);
    tree(3);
    intel_pmu("cpu", "4\n");
    assert_int_equal(refused(false, "perf_event_paranoid is 3: "), LOCI_EPERM);
    assert_int_equal(refused(true, NULL), 0); /* CAP_PERFMON */
}

static void intel_event_from_sysfs(void **state)
{
    tree(2);
    intel_pmu("cpu", "4\n");
    heat_perf_choice_t c;
    char why[256];
    assert_int_equal(heat__perf_choose(devices, paranoid, false, &c, why, sizeof why), 0);
    assert_int_equal(c.nevents, 1);
    const struct perf_event_attr *a = &c.events[0].attr;
    assert_int_equal(a->type, 4);
    assert_int_equal(a->config, 0x1cd);
    assert_int_equal(a->config1, 3);
    assert_int_equal(a->precise_ip, 2);
    assert_true(a->exclude_kernel && a->inherit);
    assert_int_equal(a->sample_type, PERF_SAMPLE_TID | PERF_SAMPLE_ADDR);
    assert_non_null(strstr(c.what, "Intel PEBS mem-loads (cpu)"));

    tree(2); /* a hybrid CPU: both core types */
    intel_pmu("cpu_core", "8\n");
    intel_pmu("cpu_atom", "10\n");
    assert_int_equal(heat__perf_choose(devices, paranoid, false, &c, why, sizeof why), 0);
    assert_int_equal(c.nevents, 2);
    assert_int_equal(c.events[0].attr.type, 8);
    assert_int_equal(c.events[1].attr.type, 10);

    tree(2);
    put("ibs_op/type", "11\n");
    assert_int_equal(heat__perf_choose(devices, paranoid, false, &c, why, sizeof why), 0);
    assert_int_equal(c.nevents, 1);
    assert_int_equal(c.events[0].attr.type, 11);
    assert_true(c.events[0].attr.sample_period > 0 && c.events[0].attr.sample_period % 16 == 0);
}

/* Append a sample record (TID | ADDR) at *head of ring (size bytes), wrapping. */
static void put_record(uint8_t *ring, size_t size, uint64_t *head, uint32_t type, uint64_t a, uint64_t b)
{
    struct {
        struct perf_event_header hdr;
        uint64_t x, y;
    } rec = {{type, 0, sizeof rec}, a, b};
    for (size_t i = 0; i < sizeof rec; i++)
        ring[(*head + i) & (size - 1)] = ((uint8_t *)&rec)[i];
    *head += sizeof rec;
}

static void samples_become_heat(void **state)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    heat_t *h;
    assert_int_equal(heat__open_unstarted(&heat_perf_ops, NULL, &h), 0);
    uintptr_t a = (uintptr_t)64 << 30, b = a + ((uintptr_t)1 << 30); /* (never touched: any aligned address) */
    assert_int_equal(heat_watch(h, (void *)a, 2 * HEAT_GRANULE, 1), 0);
    assert_int_equal(heat_watch(h, (void *)b, HEAT_GRANULE, 2), 0);
    enum { SIZE = 4096 };
    uint8_t ring[SIZE];
    uint64_t tail = SIZE - 40, head = tail, lost = 0; /* the second record wraps around the end */
    uint64_t pid_tid = (uint64_t)getpid();
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid, a + 10);               /* a, granule 0, page 0 */
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid, a + 100);              /* the same page again */
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid, a + 5 * page);         /* page 5 */
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid, a + HEAT_GRANULE + 1); /* granule 1 */
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid, b - page);             /* between the ranges */
    put_record(ring, SIZE, &head, PERF_RECORD_LOST, 7, 12);
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid, 0x1000);               /* nowhere */
    put_record(ring, SIZE, &head, PERF_RECORD_SAMPLE, pid_tid + 1, b);                /* a forked child's */
    pthread_mutex_lock(&h->lock);
    heat__perf_records(h, ring, SIZE, tail, head, &lost);
    pthread_mutex_unlock(&h->lock);
    assert_int_equal(lost, 12);
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    assert_int_equal(n, 3);
    uint64_t pages = HEAT_GRANULE / page;
    assert_int_equal(v[0].base, a);
    assert_int_equal(v[0].observations, pages);
    assert_true(v[0].heat == 2.0 / (double)pages);
    assert_int_equal(v[1].base, a + HEAT_GRANULE);
    assert_true(v[1].heat == 1.0 / (double)pages);
    assert_int_equal(v[2].tag, 2);
    assert_true(v[2].heat == 0 && v[2].observations == pages);
    free(v);
    assert_int_equal(heat_collect(h, &v, &n), 0); /* a new interval: nothing sampled in it */
    assert_true(v[0].heat == 0);
    free(v);
    heat_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals_say_why),
        cmocka_unit_test(intel_event_from_sysfs),
        cmocka_unit_test(samples_become_heat),
    };
    return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
