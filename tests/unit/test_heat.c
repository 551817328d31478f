/* Access measurement (src/heat) on this machine: with each source that works
 * here, a range a thread writes in a loop reads hotter than one nobody
 * touches within a few intervals, the data stays intact at the same
 * addresses, and nothing of the source is left after heat_close; ranges
 * unwatched while the sampler has pages unmapped, kernel-made accesses,
 * fork, bad input. Sources this machine lacks are skipped, saying why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "heat/heat.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "support/threads.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MB ((size_t)1 << 20)
#define RANGE (8 * MB) /* four granules */
#define INTERVAL_MS 50

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static void *nothing(void *arg) { return arg; }

/* size bytes of a fresh memory file, mapped shared, every page written with
 * its index and `seed` (resident: the sampler samples resident pages). */
static uint64_t *shared_range(size_t size, uint64_t seed)
{
    int fd = shared_map_memfd("test_heat");
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    uint64_t *p = shared_map_file(fd, size, true);
    close(fd);
    assert_true(p != MAP_FAILED);
    for (size_t i = 0; i < size / page_size(); i++)
        p[i * page_size() / 8] = seed + i;
    return p;
}

static void check_pattern(const uint64_t *p, size_t size, uint64_t seed)
{
    for (size_t i = 0; i < size / page_size(); i++)
        assert_int_equal(p[i * page_size() / 8], seed + i);
}

/* Open source s alone, or skip the test saying why this machine lacks it.
 * Tests that count what one pass touched make rounds end only at
 * heat_collect: interval LONG. */
#define LONG 60000
static heat_t *open_or_skip(heat_source_t s, double share, unsigned interval_ms)
{
    heat_config_t cfg = {.interval_ms = interval_ms, .sample_share = share, .only = s};
    heat_t *h = NULL;
    if (heat_open(&cfg, &h) != 0) {
        fprintf(stderr, "test_heat: %s source skipped: %s\n", heat_source_name(s), loci_last_error());
        skip();
    }
    assert_int_equal(heat_source(h), s);
    return h;
}

/* Heat and observations summed over the granules tagged `tag`. */
typedef struct {
    double heat;
    uint64_t obs;
    int granules;
} tagged_t;

static tagged_t of_tag(const heat_sample_t *v, size_t n, uint64_t tag)
{
    tagged_t t = {0};
    for (size_t i = 0; i < n; i++)
        if (v[i].tag == tag) {
            t.heat += v[i].heat;
            t.obs += v[i].observations;
            t.granules++;
        }
    if (t.granules)
        t.heat /= t.granules;
    return t;
}

typedef struct {
    uint64_t *p;
    size_t size;
    atomic_bool stop;
    atomic_ulong passes;
} writer_t;

/* Writes every page of its range, over and over, with the pass number. */
static void *write_loop(void *arg)
{
    writer_t *w = arg;
    size_t words = page_size() / 8;
    for (uint64_t pass = 1; !atomic_load(&w->stop); pass++) {
        for (size_t i = 0; i < w->size / page_size(); i++)
            w->p[i * words + 1] = pass;
        atomic_store(&w->passes, pass);
    }
    return NULL;
}

/* A hot range (written in a loop) and a cold one (untouched): the hot one
 * reads hotter within a few intervals; both keep their data and addresses. */
static void hot_above_cold(heat_source_t s)
{
    int threads_before = count_threads();
    heat_t *h = open_or_skip(s, 0.05, INTERVAL_MS);
    uint64_t *hot = shared_range(RANGE, 1000), *cold = shared_range(RANGE, 2000);
    assert_int_equal(heat_watch(h, hot, RANGE, 1), 0);
    assert_int_equal(heat_watch(h, cold, RANGE, 2), 0);
    writer_t w = {.p = hot, .size = RANGE};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_loop, &w), 0);
    tagged_t th = {0}, tc = {0};
    bool ranked = false;
    for (int i = 0; i < 40 && !ranked; i++) { /* a few intervals (DAMON needs its aggregations) */
        sleep_ms(INTERVAL_MS);
        heat_sample_t *v;
        size_t n;
        assert_int_equal(heat_collect(h, &v, &n), 0);
        assert_int_equal(n, 2 * RANGE / HEAT_GRANULE);
        for (size_t k = 0; k < n; k++) {
            assert_true(v[k].heat >= 0 && v[k].heat <= 1);
            assert_true(v[k].size == HEAT_GRANULE);
        }
        th = of_tag(v, n, 1);
        tc = of_tag(v, n, 2);
        free(v);
        ranked = th.obs > 0 && tc.obs > 0 && th.heat > 0.5 && th.heat > tc.heat + 0.4;
        fprintf(stderr, "test_heat: %s, collect %d: hot %.2f (%llu obs), cold %.2f (%llu obs)\n",
                heat_source_name(s), i, th.heat, (unsigned long long)th.obs, tc.heat, (unsigned long long)tc.obs);
    }
    atomic_store(&w.stop, true);
    pthread_join(t, NULL);
    assert_true(ranked);
    fprintf(stderr, "test_heat: %s: %.3f s of CPU for the source\n", heat_source_name(s), heat_cpu_seconds(h));
    heat_close(h);
    assert_int_equal(threads_now_or(threads_before), threads_before);
    /* Intact, where they were: the cold range as written, the hot one with its last pass everywhere. */
    check_pattern(cold, RANGE, 2000);
    check_pattern(hot, RANGE, 1000);
    for (size_t i = 0; i < RANGE / page_size(); i++)
        assert_int_equal(hot[i * page_size() / 8 + 1], atomic_load(&w.passes));
    vm_unmap(hot, RANGE);
    vm_unmap(cold, RANGE);
}

static void faults_hot_above_cold(void **state) { hot_above_cold(HEAT_SOURCE_FAULTS); }
static void damon_hot_above_cold(void **state) { hot_above_cold(HEAT_SOURCE_DAMON); }

/* One of two ranges unwatched while a thread writes it: the other is still
 * measured, the unwatched one no longer reported, its data intact. */
static void unwatch_keeps_the_others(heat_source_t s)
{
    heat_t *h = open_or_skip(s, 0.25, INTERVAL_MS);
    uint64_t *a = shared_range(RANGE, 10), *b = shared_range(RANGE, 20);
    assert_int_equal(heat_watch(h, a, RANGE, 1), 0);
    assert_int_equal(heat_watch(h, b, RANGE, 2), 0);
    writer_t w = {.p = a, .size = RANGE};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_loop, &w), 0);
    sleep_ms(2 * INTERVAL_MS);
    heat_unwatch(h, a, RANGE);
    sleep_ms(2 * INTERVAL_MS);
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    assert_int_equal(n, RANGE / HEAT_GRANULE);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i].tag, 2);
    free(v);
    atomic_store(&w.stop, true);
    pthread_join(t, NULL);
    heat_close(h);
    check_pattern(a, RANGE, 10);
    check_pattern(b, RANGE, 20);
    vm_unmap(a, RANGE);
    vm_unmap(b, RANGE);
}

static void faults_unwatch_keeps_the_others(void **state) { unwatch_keeps_the_others(HEAT_SOURCE_FAULTS); }
static void damon_unwatch_keeps_the_others(void **state) { unwatch_keeps_the_others(HEAT_SOURCE_DAMON); }

/* Pages whose PTE is present in this process (/proc/self/pagemap bit 63). */
static size_t mapped_pages(const void *p, size_t size)
{
    int fd = open("/proc/self/pagemap", O_RDONLY);
    assert_true(fd >= 0);
    size_t n = size / page_size(), mapped = 0;
    uint64_t *e = malloc(n * sizeof *e);
    assert_int_equal(pread(fd, e, n * sizeof *e, (off_t)((uintptr_t)p / page_size() * 8)), (ssize_t)(n * sizeof *e));
    for (size_t i = 0; i < n; i++)
        mapped += (e[i] >> 63) & 1;
    free(e);
    close(fd);
    return mapped;
}

/* Unwatched while the sampler holds pages unmapped (a reader running): every
 * page is mapped again at once (so an mbind move would find them all), the
 * data is intact, the reader never waits on a fault nobody serves. */
static void faults_unwatch_mid_interval(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, INTERVAL_MS);
    uint64_t *p = shared_range(RANGE, 7);
    writer_t w = {.p = p, .size = RANGE};
    pthread_t t;
    assert_int_equal(heat_watch(h, p, RANGE, 9), 0);
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0); /* a round starts with the range in it */
    free(v);
    assert_true(mapped_pages(p, RANGE) < RANGE / page_size()); /* half of them sampled: unmapped */
    assert_int_equal(pthread_create(&t, NULL, write_loop, &w), 0);
    sleep_ms(INTERVAL_MS / 3);
    heat_unwatch(h, p, RANGE);
    assert_int_equal(mapped_pages(p, RANGE), RANGE / page_size());
    sleep_ms(INTERVAL_MS);
    atomic_store(&w.stop, true);
    pthread_join(t, NULL);
    check_pattern(p, RANGE, 7);
    assert_int_equal(heat_collect(h, &v, &n), 0);
    assert_int_equal(n, 0);
    heat_close(h);
    vm_unmap(p, RANGE);
}

/* A page the kernel writes for the process (read(2) from a pipe into it)
 * counts as touched: the descriptor handles kernel-made faults too. */
static void faults_sees_kernel_accesses(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 1.0, LONG);
    uint64_t *p = shared_range(RANGE, 0);
    assert_int_equal(heat_watch(h, p, RANGE, 5), 0);
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0); /* every page sampled from here */
    free(v);
    int pipe_fds[2];
    assert_int_equal(pipe(pipe_fds), 0);
    for (size_t i = 0; i < RANGE / page_size(); i++) {
        uint64_t word = 42 + i;
        assert_int_equal(write(pipe_fds[1], &word, sizeof word), sizeof word);
        assert_int_equal(read(pipe_fds[0], p + i * page_size() / 8, sizeof word), sizeof word);
    }
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    assert_int_equal(heat_collect(h, &v, &n), 0);
    tagged_t t = of_tag(v, n, 5);
    free(v);
    assert_true(t.obs > 0);
    assert_true(t.heat > 0.99);
    heat_close(h);
    check_pattern(p, RANGE, 42);
    vm_unmap(p, RANGE);
}

/* fork() with pages unmapped by the sampler: the child reads all its data
 * (its mapping is not registered), may not use the parent's measurement
 * (told so), closes its copy; the parent's sampler goes on. */
static void faults_fork_child(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, LONG);
    uint64_t *p = shared_range(RANGE, 300);
    assert_int_equal(heat_watch(h, p, RANGE, 3), 0);
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    free(v);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        for (size_t i = 0; i < RANGE / page_size(); i++)
            if (p[i * page_size() / 8] != 300 + i)
                _exit(2);
        if (heat_collect(h, &v, &n) != LOCI_EINVAL || !strstr(loci_last_error(), "belongs to process"))
            _exit(3);
        if (heat_watch(h, p, RANGE, 4) != LOCI_EINVAL)
            _exit(4);
        heat_close(h);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    for (size_t i = 0; i < RANGE / page_size(); i++) /* touch all: the parent's sampler still serves */
        p[i * page_size() / 8 + 1] = 1;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    tagged_t t = of_tag(v, n, 3);
    free(v);
    assert_true(t.obs > 0 && t.heat > 0.9);
    heat_close(h);
    check_pattern(p, RANGE, 300);
    vm_unmap(p, RANGE);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What a sampled page costs (docs/TIERING.md quotes these lines): the
 * sampler's CPU to unmap it, the toucher's wall time for its fault, the
 * sampler's CPU to serve it. Every page of 64 MiB sampled, then touched once. */
static void faults_cost_per_sample(void **state)
{
    const size_t size = 64 * MB, pages = size / page_size();
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 1.0, LONG);
    uint64_t *p = shared_range(size, 0);
    assert_int_equal(heat_watch(h, p, size, 1), 0);
    heat_sample_t *v;
    size_t n;
    double cpu0 = heat_cpu_seconds(h);
    assert_int_equal(heat_collect(h, &v, &n), 0); /* the round that unmaps every page */
    free(v);
    double cpu1 = heat_cpu_seconds(h), t0 = now_s();
    for (size_t i = 0; i < pages; i++)
        p[i * page_size() / 8 + 1] = i; /* each a fault */
    double faulted = now_s() - t0;
    sleep_ms(5); /* the sampler counts what it served */
    double cpu2 = heat_cpu_seconds(h);
    t0 = now_s();
    for (size_t i = 0; i < pages; i++)
        p[i * page_size() / 8 + 1] = i + 1; /* mapped: no fault */
    double plain = now_s() - t0;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    tagged_t t = of_tag(v, n, 1);
    free(v);
    assert_true(t.heat > 0.99);
    double fault_us = (faulted - plain) / (double)pages * 1e6;
    fprintf(stderr, "test_heat: faults cost: %zu pages; unmapping %.2f us of sampler CPU per page (mincore "
                    "included); a touched sampled page %.2f us for the toucher, %.2f us of sampler CPU\n",
            pages, (cpu1 - cpu0) / (double)pages * 1e6, fault_us, (cpu2 - cpu1) / (double)pages * 1e6);
    heat_close(h);
    vm_unmap(p, size);
}

/* Closed while the sampler runs rounds every millisecond, ranges watched:
 * nothing of the measurement is used after it is gone. */
static void faults_close_while_sampling(void **state)
{
    uint64_t *a = shared_range(RANGE, 1), *b = shared_range(RANGE, 2);
    for (int i = 0; i < 50; i++) {
        heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, 1);
        assert_int_equal(heat_watch(h, a, RANGE, 1), 0);
        assert_int_equal(heat_watch(h, b, RANGE, 2), 0);
        sleep_ms(i % 4);
        a[(size_t)i * page_size() / 8 + 1] = 1; /* a fault now and then */
        heat_close(h);
    }
    check_pattern(a, RANGE, 1);
    check_pattern(b, RANGE, 2);
    vm_unmap(a, RANGE);
    vm_unmap(b, RANGE);
}

/* Private memory (its sampled pages would lose their data) and bad ranges
 * are refused, saying what is wrong. */
static void faults_refuses_bad_ranges(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.1, INTERVAL_MS);
    void *anon = vm_map_aligned(RANGE, page_size(), -1, 0);
    assert_true(anon != MAP_FAILED);
    assert_int_equal(heat_watch(h, anon, RANGE, 1), LOCI_ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "shared memory only"));
    uint64_t *p = shared_range(RANGE, 0);
    assert_int_equal(heat_watch(h, (char *)p + 100, MB, 1), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "page-aligned"));
    assert_int_equal(heat_watch(h, p, 0, 1), LOCI_EINVAL);
    assert_int_equal(heat_watch(h, p, RANGE, 1), 0);
    assert_int_equal(heat_watch(h, (char *)p + MB, MB, 2), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "overlaps"));
    heat_unwatch(h, p, MB); /* not as watched: ignored */
    heat_close(h);           /* unwatches the rest */
    vm_unmap(p, RANGE);
    vm_unmap(anon, RANGE);
}

static void bad_config_is_refused(void **state)
{
    heat_t *h = NULL;
    heat_config_t cfg = {.interval_ms = 70000};
    assert_int_equal(heat_open(&cfg, &h), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "1 to 60000 ms"));
    cfg = (heat_config_t){.sample_share = 1.5};
    assert_int_equal(heat_open(&cfg, &h), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "(0, 1]"));
    assert_null(h);
    heat_source_t s;
    assert_int_equal(heat_source_parse("damon", &s), 0);
    assert_int_equal(s, HEAT_SOURCE_DAMON);
    assert_int_equal(heat_source_parse("AUTO", &s), 0);
    assert_int_equal(s, HEAT_SOURCE_NONE);
    assert_int_equal(heat_source_parse("pebs", &s), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "auto, perf, damon or faults"));
}

/* Probing says which source would be used and leaves no thread behind. */
static void probe_leaves_nothing(void **state)
{
    /* a sanitizer's runtime starts a thread of its own with the program's first:
     * made here, so that the count compares heat's threads only */
    pthread_t first;
    assert_int_equal(pthread_create(&first, NULL, nothing, NULL), 0);
    pthread_join(first, NULL);
    int before = count_threads();
    char why[1024];
    heat_source_t s = heat_probe(NULL, why, sizeof why);
    fprintf(stderr, "test_heat: heat_probe: %s (skipped: %s)\n", heat_source_name(s), why[0] ? why : "none");
    assert_int_equal(threads_now_or(before), before);
    heat_t *h = NULL;
    if (s == HEAT_SOURCE_NONE) {
        assert_int_equal(heat_open(NULL, &h), LOCI_ENOTSUP);
        return;
    }
    assert_int_equal(heat_open(NULL, &h), 0);
    assert_int_equal(heat_source(h), s);
    assert_string_equal(heat_skipped(h), why);
    heat_close(h);
    assert_int_equal(threads_now_or(before), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_config_is_refused),
        cmocka_unit_test(probe_leaves_nothing),
        cmocka_unit_test(faults_hot_above_cold),
        cmocka_unit_test(damon_hot_above_cold),
        cmocka_unit_test(faults_unwatch_keeps_the_others),
        cmocka_unit_test(damon_unwatch_keeps_the_others),
        cmocka_unit_test(faults_unwatch_mid_interval),
        cmocka_unit_test(faults_sees_kernel_accesses),
        cmocka_unit_test(faults_fork_child),
        cmocka_unit_test(faults_refuses_bad_ranges),
        cmocka_unit_test(faults_cost_per_sample),
        cmocka_unit_test(faults_close_while_sampling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
