/* Access measurement (src/heat) on this machine: with each source that works
 * here, a range a thread writes in a loop reads hotter than one nobody
 * touches within a few intervals, the data stays intact at the same
 * addresses, and nothing of the source is left after heat_close; a program
 * that updates flat out ranked by how often it touches its ranges (the
 * window adapting); ranges unwatched while the sampler has pages unmapped,
 * kernel-made accesses, fork, a source stopped mid-run (the dirty source
 * under a seccomp filter), bad input; the dirty source as an ordinary user
 * (nobody), where it is the source tier=auto gets. Sources this machine
 * lacks are skipped, saying why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h" /* src/util */
#include "heat/heat.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "support/child.h"
#include "support/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

/* The same in private anonymous memory (what the sources that need no shared
 * memory watch in tier=auto arenas). */
static uint64_t *private_range(size_t size, uint64_t seed)
{
    uint64_t *p = vm_map_aligned(size, page_size(), -1, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, size, MADV_NOHUGEPAGE); /* (heat_needs_base_pages: as tiering maps them) */
    for (size_t i = 0; i < size / page_size(); i++)
        p[i * page_size() / 8] = seed + i;
    return p;
}

/* A range of the memory h's source watches in tier=auto arenas. */
static uint64_t *range_for(const heat_t *h, size_t size, uint64_t seed)
{
    return heat_needs_shared_memory(h) ? shared_range(size, seed) : private_range(size, seed);
}

static void check_pattern(const uint64_t *p, size_t size, uint64_t seed)
{
    for (size_t i = 0; i < size / page_size(); i++)
        assert_int_equal(p[i * page_size() / 8], seed + i);
}

/* Open source s alone, or skip the test saying why this machine lacks it.
 * window_ms 0: adaptive. Tests that count what one pass touched make windows
 * span the interval, so that each opens at one heat_collect and closes at
 * the next: interval and window LONG. */
#define LONG 60000
static heat_t *open_or_skip(heat_source_t s, double share, unsigned interval_ms, unsigned window_ms)
{
    heat_config_t cfg = {.interval_ms = interval_ms, .sample_share = share, .only = s, .window_ms = window_ms};
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
    heat_t *h = open_or_skip(s, 0.05, INTERVAL_MS, 0);
    uint64_t *hot = range_for(h, RANGE, 1000), *cold = range_for(h, RANGE, 2000);
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
static void dirty_hot_above_cold(void **state) { hot_above_cold(HEAT_SOURCE_DIRTY); }

#define FLAT_RANGES 8
#define FLAT_RANGE (2 * MB) /* a granule each */

typedef struct {
    uint64_t *r[FLAT_RANGES];
    atomic_bool stop;
    atomic_ullong updates;
} flat_t;

/* GUPS flat out, never sleeping: 90 % of the updates to ranges 0 and 1, 10 %
 * spread over all of them, at random words. */
static void *update_flat_out(void *arg)
{
    flat_t *f = arg;
    uint64_t x = 88172645463325252ull, words = FLAT_RANGE / 8, n = 0;
    while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
        for (int k = 0; k < 4096; k++, n++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int r = x % 10 < 9 ? (int)((x >> 8) & 1) : (int)((x >> 8) % FLAT_RANGES);
            f->r[r][(x >> 16) % words]++;
        }
    }
    atomic_store(&f->updates, n);
    return NULL;
}

/* A program updating flat out touches every page of its cold ranges too,
 * some hundred times a second here: within one window of a tenth of the
 * interval each cold page is likely touched, and "whether" no longer tells
 * hot from cold. The source must tell how often: the two hot ranges read
 * above every cold one by 0.3 (what the policy's hysteresis needs) within
 * 100 intervals, the window shortening as it must. */
static void flat_out_ranks(heat_source_t s)
{
    heat_t *h = open_or_skip(s, 0.02, INTERVAL_MS, 0);
    flat_t f = {0};
    for (int i = 0; i < FLAT_RANGES; i++) {
        f.r[i] = range_for(h, FLAT_RANGE, (uint64_t)i << 32);
        assert_int_equal(heat_watch(h, f.r[i], FLAT_RANGE, (uint64_t)i), 0);
    }
    uint64_t window0 = heat_window_us(h);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, update_flat_out, &f), 0);
    double hot = 0, cold = 0;
    int i = 0;
    for (bool ranked = false; i < 100 && !ranked; i++) {
        sleep_ms(INTERVAL_MS);
        heat_sample_t *v;
        size_t n;
        assert_int_equal(heat_collect(h, &v, &n), 0);
        hot = 1, cold = 0;
        bool seen = n == FLAT_RANGES;
        for (size_t k = 0; k < n; k++) {
            seen &= v[k].observations > 0;
            if (v[k].tag < 2)
                hot = v[k].heat < hot ? v[k].heat : hot;
            else
                cold = v[k].heat > cold ? v[k].heat : cold;
        }
        free(v);
        ranked = seen && hot > cold + 0.3;
    }
    atomic_store(&f.stop, true);
    pthread_join(t, NULL);
    fprintf(stderr, "test_heat: %s, flat out: %.0f updates/s; after %d intervals the hot ranges read %.2f and "
                    "above, the cold ones %.2f and under; window %.1f ms (first %.1f ms)\n",
            heat_source_name(s), (double)atomic_load(&f.updates) / (i * INTERVAL_MS / 1e3), i, hot, cold,
            (double)heat_window_us(h) / 1e3, (double)window0 / 1e3);
    assert_true(hot > cold + 0.3);
    heat_close(h);
    for (int k = 0; k < FLAT_RANGES; k++)
        vm_unmap(f.r[k], FLAT_RANGE);
}

static void faults_flat_out_ranks(void **state) { flat_out_ranks(HEAT_SOURCE_FAULTS); }
static void damon_flat_out_ranks(void **state) { flat_out_ranks(HEAT_SOURCE_DAMON); }
static void dirty_flat_out_ranks(void **state) { flat_out_ranks(HEAT_SOURCE_DIRTY); }

/* One of two ranges unwatched while a thread writes it: the other is still
 * measured, the unwatched one no longer reported, its data intact. */
static void unwatch_keeps_the_others(heat_source_t s)
{
    heat_t *h = open_or_skip(s, 0.25, INTERVAL_MS, 0);
    uint64_t *a = range_for(h, RANGE, 10), *b = range_for(h, RANGE, 20);
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
static void dirty_unwatch_keeps_the_others(void **state) { unwatch_keeps_the_others(HEAT_SOURCE_DIRTY); }

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
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, INTERVAL_MS, INTERVAL_MS);
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

/* Sampled pages nobody touches are mapped back when their window closes: at
 * no moment is more than one window's sample (a tenth here) unmapped, however
 * many windows have passed. Left unmapped, they added up window after window
 * (after 20, 1 - 0.9^20 = 88 % of the pages) until a program reading its cold
 * memory through paid a fault per page. */
static void faults_maps_back_untouched_samples(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.1, INTERVAL_MS, INTERVAL_MS / 2);
    uint64_t *p = shared_range(RANGE, 5);
    assert_int_equal(heat_watch(h, p, RANGE, 1), 0);
    size_t pages = RANGE / page_size(), most = 0;
    uint64_t observed = 0;
    for (int i = 0; i < 20; i++) {
        sleep_ms(INTERVAL_MS - 5); /* (a window open now, or just closed) */
        size_t unmapped = pages - mapped_pages(p, RANGE);
        most = unmapped > most ? unmapped : most;
        heat_sample_t *v;
        size_t n;
        assert_int_equal(heat_collect(h, &v, &n), 0);
        observed += of_tag(v, n, 1).obs;
        free(v);
    }
    fprintf(stderr, "test_heat: faults: %llu pages observed in 20 intervals, at most %zu of %zu unmapped at once\n",
            (unsigned long long)observed, most, pages);
    assert_true(observed >= pages / 2); /* windows came (10 % of the pages each), five at least */
    assert_true(most * 100 <= pages * 12); /* one window's sample, rounded up per granule */
    check_pattern(p, RANGE, 5);
    heat_close(h);
    vm_unmap(p, RANGE);
}

/* Milliseconds until the sampler unmaps a page of [p, +size) (it samples
 * there), or 0 if it did not within 40 intervals. */
static unsigned ms_until_sampled(const void *p, size_t size)
{
    for (unsigned ms = INTERVAL_MS / 5; ms <= 40 * INTERVAL_MS; ms += INTERVAL_MS / 5) {
        sleep_ms(INTERVAL_MS / 5);
        if (mapped_pages(p, size) < size / page_size())
            return ms;
    }
    return 0;
}

/* A part of a watched range held still for a move (heat_hold, by someone who
 * does not know the measurement) has every page mapped at once, and none
 * sampled until released: mbind moves only mapped pages, and one the sampler
 * unmapped during a move stayed on the old node. The rest of the range is
 * sampled on. */
static void faults_hold_keeps_pages_mapped(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, INTERVAL_MS, INTERVAL_MS);
    uint64_t *p = shared_range(RANGE, 6);
    assert_int_equal(heat_watch(h, p, RANGE, 1), 0);
    char *held = (char *)p + RANGE / 4, *rest = (char *)p + 3 * RANGE / 4;
    size_t half = RANGE / 2, quarter = RANGE / 4, pages = half / page_size();
    assert_true(ms_until_sampled(held, half) > 0); /* a window sampled half of them */
    assert_int_equal(heat_hold(held, half), 0);
    assert_int_equal(mapped_pages(held, half), pages);
    size_t rest_sampled = 0;
    for (int i = 0; i < 8; i++) { /* windows open and close meanwhile */
        sleep_ms(INTERVAL_MS / 2);
        assert_int_equal(mapped_pages(held, half), pages);
        rest_sampled += mapped_pages(rest, quarter) < quarter / page_size();
    }
    assert_true(rest_sampled > 0);
    heat_release(held, half);
    unsigned ms = ms_until_sampled(held, half);
    fprintf(stderr, "test_heat: faults: held range sampled again %u ms after its release\n", ms);
    assert_true(ms > 0);
    check_pattern(p, RANGE, 6);
    heat_close(h);
    vm_unmap(p, RANGE);
}

/* A page the kernel writes for the process (read(2) from a pipe into it)
 * counts as touched: the descriptor handles kernel-made faults too. */
static void faults_sees_kernel_accesses(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 1.0, LONG, LONG);
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

/* After a collect of h, which watches p (RANGE bytes, word i of page i
 * 300 + i), fork(): the child finds all its data (and writes every page when
 * `writes`), may not use the parent's measurement (told so) and closes its
 * copy. */
static void fork_a_child(heat_t *h, uint64_t *p, bool writes)
{
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    free(v);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        for (size_t i = 0; i < RANGE / page_size(); i++) {
            if (p[i * page_size() / 8] != 300 + i)
                _exit(2);
            if (writes)
                p[i * page_size() / 8 + 1] = i;
        }
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
}

/* fork() with pages unmapped by the sampler: the child reads all its data
 * (its mapping is not registered), may not use the parent's measurement
 * (told so), closes its copy; the parent's sampler goes on. */
static void faults_fork_child(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, LONG, LONG);
    uint64_t *p = shared_range(RANGE, 300);
    assert_int_equal(heat_watch(h, p, RANGE, 3), 0);
    fork_a_child(h, p, false);
    heat_sample_t *v;
    size_t n;
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

/* What a sampled page costs (docs/TIERING.md quotes these lines): the
 * sampler's CPU to unmap it, the toucher's wall time for its fault, the
 * sampler's CPU to serve it. Every page of 64 MiB sampled, then touched once. */
static void faults_cost_per_sample(void **state)
{
    const size_t size = 64 * MB, pages = size / page_size();
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 1.0, LONG, LONG);
    uint64_t *p = shared_range(size, 0);
    assert_int_equal(heat_watch(h, p, size, 1), 0);
    heat_sample_t *v;
    size_t n;
    double cpu0 = heat_cpu_seconds(h);
    assert_int_equal(heat_collect(h, &v, &n), 0); /* the round that unmaps every page */
    free(v);
    double cpu1 = heat_cpu_seconds(h), t0 = clock_mono_s();
    for (size_t i = 0; i < pages; i++)
        p[i * page_size() / 8 + 1] = i; /* each a fault */
    double faulted = clock_mono_s() - t0;
    sleep_ms(5); /* the sampler counts what it served */
    double cpu2 = heat_cpu_seconds(h);
    t0 = clock_mono_s();
    for (size_t i = 0; i < pages; i++)
        p[i * page_size() / 8 + 1] = i + 1; /* mapped: no fault */
    double plain = clock_mono_s() - t0;
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
        heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.5, 1, 0);
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
    heat_t *h = open_or_skip(HEAT_SOURCE_FAULTS, 0.1, INTERVAL_MS, 0);
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

/* One window over the range (window = interval = LONG: it opens at one
 * heat_collect and closes at the next) around `touch`: the range's heat and
 * observations. */
static tagged_t one_window(heat_t *h, uint64_t *p, size_t size, void (*touch)(uint64_t *, size_t))
{
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_watch(h, p, size, 7), 0);
    assert_int_equal(heat_collect(h, &v, &n), 0); /* the window opens with the range in it */
    free(v);
    touch(p, size);
    assert_int_equal(heat_collect(h, &v, &n), 0);
    tagged_t t = of_tag(v, n, 7);
    free(v);
    return t;
}

/* Each page written by the kernel for the process: read(2) from a pipe. */
static void read_into_each_page(uint64_t *p, size_t size)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    for (size_t i = 0; i < size / page_size(); i++) {
        uint64_t word = 42 + i;
        assert_int_equal(write(fds[1], &word, sizeof word), sizeof word);
        assert_int_equal(read(fds[0], p + i * page_size() / 8, sizeof word), sizeof word); /* never EFAULT */
    }
    close(fds[0]);
    close(fds[1]);
}

/* A write the kernel makes for the process into a protected page (read(2)
 * into it) is resolved in the kernel — the descriptor handles user-mode
 * faults only, but an asynchronous write-protect fault goes to no handler —
 * and counts as written. */
static void dirty_sees_kernel_writes(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_DIRTY, 1.0, LONG, LONG);
    uint64_t *p = private_range(RANGE, 0);
    tagged_t t = one_window(h, p, RANGE, read_into_each_page);
    fprintf(stderr, "test_heat: dirty (%s): read(2) into every page: heat %.2f of %llu observations\n", heat_how(h),
            t.heat, (unsigned long long)t.obs);
    assert_int_equal(t.obs, RANGE / page_size());
    assert_true(t.heat > 0.99);
    heat_close(h);
    check_pattern(p, RANGE, 42);
    vm_unmap(p, RANGE);
}

static void read_each_page(uint64_t *p, size_t size)
{
    volatile uint64_t sum = 0;
    for (size_t i = 0; i < size / page_size(); i++)
        sum += p[i * page_size() / 8];
    (void)sum;
}

/* What the dirty source cannot see: a range the program only reads reads
 * cold (docs/TIERING.md says so). */
static void dirty_misses_reads(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_DIRTY, 1.0, LONG, LONG);
    uint64_t *p = private_range(RANGE, 5);
    tagged_t t = one_window(h, p, RANGE, read_each_page);
    assert_int_equal(t.obs, RANGE / page_size());
    assert_true(t.heat == 0);
    heat_close(h);
    check_pattern(p, RANGE, 5);
    vm_unmap(p, RANGE);
}

/* fork() in a window (pages write-protected): the child reads and writes
 * all of its copy (the protection is not its own), may not use the parent's
 * measurement, closes its copy; the parent's window goes on and counts only
 * the parent's writes. */
static void dirty_fork_child(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_DIRTY, 0, LONG, LONG);
    uint64_t *p = private_range(RANGE, 300);
    assert_int_equal(heat_watch(h, p, RANGE, 3), 0);
    fork_a_child(h, p, true);
    heat_sample_t *v;
    size_t n;
    assert_int_equal(heat_collect(h, &v, &n), 0);
    tagged_t t = of_tag(v, n, 3);
    free(v);
    assert_true(t.obs > 0 && t.heat == 0); /* the child's writes were its own pages' */
    tagged_t w = one_window(h, private_range(RANGE, 1), RANGE, read_into_each_page);
    assert_true(w.heat > 0.99); /* the parent's source goes on */
    heat_close(h);
    check_pattern(p, RANGE, 300);
    vm_unmap(p, RANGE);
}

static void write_each_page(uint64_t *p, size_t size)
{
    for (size_t i = 0; i < size / page_size(); i++)
        p[i * page_size() / 8 + 1] = i;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the dirty source costs (docs/TIERING.md quotes these lines), in CPU
 * time of the thread that pays, over 64 MiB: per page sampled, opening and
 * closing its window (protection set, read back, lifted: the collector's)
 * and, written in it, its fault (the writer's); and a window of the default
 * sample (2 % of each granule, one run). */
static void dirty_cost_per_page(void **state)
{
    const size_t size = 64 * MB, pages = size / page_size();
    double cost[2][3]; /* [all pages, default sample][open, close, fault per page written] */
    const double shares[2] = {1.0, 0};
    const char *how = "";
    for (int k = 0; k < 2; k++) {
        heat_t *h = open_or_skip(HEAT_SOURCE_DIRTY, shares[k], LONG, LONG);
        how = heat_how(h);
        uint64_t *p = private_range(size, 0);
        assert_int_equal(heat_watch(h, p, size, 1), 0);
        heat_sample_t *v;
        size_t n;
        double t0 = thread_cpu_s();
        assert_int_equal(heat_collect(h, &v, &n), 0); /* the window opens: its sample protected */
        cost[k][0] = thread_cpu_s() - t0;
        free(v);
        t0 = thread_cpu_s();
        write_each_page(p, size); /* a write fault each sampled page */
        double faulted = thread_cpu_s() - t0;
        t0 = thread_cpu_s();
        write_each_page(p, size); /* no fault */
        cost[k][2] = faulted - (thread_cpu_s() - t0);
        t0 = thread_cpu_s();
        assert_int_equal(heat_collect(h, &v, &n), 0); /* closes it (read back, lifted), the next opens */
        cost[k][1] = thread_cpu_s() - t0 - cost[k][0];
        tagged_t t = of_tag(v, n, 1);
        free(v);
        assert_true(t.obs > 0 && t.heat > 0.99);
        heat_close(h);
        vm_unmap(p, size);
    }
    fprintf(stderr, "test_heat: dirty cost (%s), %zu pages: every page sampled: opening a window %.3f us of CPU a "
                    "page, closing it %.3f us (the collector's), a page written in it %.3f us (the writer's); the "
                    "default sample: a window %.3f ms of the collector's CPU\n", how, pages,
            cost[0][0] / (double)pages * 1e6, cost[0][1] / (double)pages * 1e6, cost[0][2] / (double)pages * 1e6,
            (cost[1][0] + cost[1][1]) * 1e3);
}

/* The dirty source alone, as the process is: ranks, sees the kernel's
 * writes; tier=auto gets a source (auto picks one). 0 or a failed step. */
static int role_ordinary(char **args)
{
    (void)args;
    char why[1024];
    heat_source_t s = heat_probe(NULL, why, sizeof why);
    fprintf(stderr, "test_heat: as uid %u, heat_probe: %s (skipped: %s)\n", (unsigned)geteuid(),
            heat_source_name(s), why[0] ? why : "none");
    CHECK(s != HEAT_SOURCE_NONE, "no source works for uid %u: %s", (unsigned)geteuid(), why);
    heat_config_t cfg = {.interval_ms = LONG, .window_ms = LONG, .only = HEAT_SOURCE_DIRTY};
    heat_t *h;
    CHECK(heat_open(&cfg, &h) == 0, "the dirty source");
    uint64_t *hot = private_range(RANGE, 1), *cold = private_range(RANGE, 2);
    CHECK(heat_watch(h, hot, RANGE, 1) == 0 && heat_watch(h, cold, RANGE, 2) == 0, "watch");
    heat_sample_t *v;
    size_t n;
    CHECK(heat_collect(h, &v, &n) == 0, "collect");
    free(v);
    read_into_each_page(hot, RANGE / 2);
    write_each_page(hot + RANGE / 16, RANGE / 2);
    CHECK(heat_collect(h, &v, &n) == 0, "collect");
    tagged_t th = of_tag(v, n, 1), tc = of_tag(v, n, 2);
    free(v);
    fprintf(stderr, "test_heat: as uid %u, dirty (%s): written %.2f, untouched %.2f\n", (unsigned)geteuid(),
            heat_how(h), th.heat, tc.heat);
    CHECK(th.obs > 0 && tc.obs > 0 && th.heat > 0.99 && tc.heat == 0, "written %.2f, untouched %.2f", th.heat,
          tc.heat);
    heat_close(h);
    return 0;
}

/* tier=auto for an ordinary user on a default node: as nobody (needs root
 * to become it; as another user, as that user). */
static void dirty_for_an_ordinary_user(void **state)
{
    if (geteuid() != 0) {
        assert_int_equal(role_ordinary(NULL), 0);
        return;
    }
    child_t k = child_spawn((const char *[]){"ordinary", NULL}, NULL, 65534);
    int st = child_reap(&k);
    if (st == 98)
        fail_msg("the unprivileged child could not run /proc/self/exe (permissions of its directories?)");
    assert_int_equal(st, 0);
}

/* Let this process (every thread) call no ioctl, pread64 or write from now
 * on: EPERM, as a sandboxing library's seccomp filter would. */
static bool forbid_ioctl_pread_write(void)
{
#if defined(__x86_64__)
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pread64, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0;
#else
    return false;
#endif
}

/* The dirty source stops mid-run: a seccomp filter forbids what it reads and
 * writes the kernel with. heat_collect says LOCI_EIO and why, the data is
 * intact and writable, heat_close returns. Exit status: the failed step. */
static int role_stops(char **args)
{
    (void)args;
    alarm(30);
    heat_config_t cfg = {.interval_ms = INTERVAL_MS, .only = HEAT_SOURCE_DIRTY};
    heat_t *h;
    if (heat_open(&cfg, &h) != 0)
        return 77;
    uint64_t *p = private_range(RANGE, 9);
    heat_sample_t *v;
    size_t n;
    if (heat_watch(h, p, RANGE, 1) != 0 || heat_collect(h, &v, &n) != 0)
        return 2;
    free(v);
    if (!forbid_ioctl_pread_write())
        return 77;
    int rc = 0;
    for (int i = 0; i < 100 && rc == 0; i++) {
        sleep_ms(INTERVAL_MS);
        write_each_page(p, RANGE); /* (writes into protected pages: resolved by the kernel, filter or not) */
        rc = heat_collect(h, &v, &n);
        if (rc == 0)
            free(v);
    }
    if (rc != LOCI_EIO)
        return 3;
    if (!strstr(loci_last_error(), "dirty source stopped"))
        return 4;
    for (size_t i = 0; i < RANGE / page_size(); i++)
        if (p[i * page_size() / 8] != 9 + i || p[i * page_size() / 8 + 1] != i)
            return 5;
    heat_close(h);
    return 0;
}

static void dirty_stops_mid_run(void **state)
{
    int st = child_run((const char *[]){"stops", NULL});
    if (st == 77) {
        print_message("  skipped: the dirty source does not work here, or no seccomp filter can be set "
                      "(x86-64 only)\n");
        skip();
    }
    if (st != 0)
        fail_msg("the child failed at step %d (3: no LOCI_EIO within 5 s, 4: the message does not say the dirty "
                 "source stopped, 5: data changed, %d: killed by signal %d)", st, 128 + SIGALRM, st - 128);
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
    assert_non_null(strstr(loci_last_error(), "auto, perf, damon, faults or dirty"));
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

static const child_role_t roles[] = {
    {"ordinary", 0, role_ordinary},
    {"stops", 0, role_stops},
    {NULL, 0, NULL},
};

/* A limit on the window (the node's, tiering's ledger): the window in force is the limit where
 * the adaptation wants longer, never under the source's shortest, and the adaptation's own wish
 * is still told; no limit, its own again. */
static void a_limited_window(void **state)
{
    heat_t *h = open_or_skip(HEAT_SOURCE_DIRTY, 0.1, 1000, 0);
    uint64_t own = heat_window_us(h); /* a tenth of the interval to start with */
    assert_int_equal(own, 100000);
    heat_limit_window(h, 40000);
    assert_int_equal(heat_window_us(h), 40000);
    assert_int_equal(heat_wanted_window_us(h), own);
    heat_limit_window(h, 500000); /* longer than it wants: its own */
    assert_int_equal(heat_window_us(h), own);
    heat_limit_window(h, 1); /* under the source's shortest: that */
    assert_true(heat_window_us(h) > 1 && heat_window_us(h) < own);
    heat_limit_window(h, 0);
    assert_int_equal(heat_window_us(h), own);
    heat_close(h);
}

int main(int argc, char **argv)
{
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_config_is_refused),
        cmocka_unit_test(probe_leaves_nothing),
        cmocka_unit_test(faults_hot_above_cold),
        cmocka_unit_test(damon_hot_above_cold),
        cmocka_unit_test(dirty_hot_above_cold),
        cmocka_unit_test(faults_flat_out_ranks),
        cmocka_unit_test(damon_flat_out_ranks),
        cmocka_unit_test(dirty_flat_out_ranks),
        cmocka_unit_test(faults_unwatch_keeps_the_others),
        cmocka_unit_test(damon_unwatch_keeps_the_others),
        cmocka_unit_test(dirty_unwatch_keeps_the_others),
        cmocka_unit_test(faults_unwatch_mid_interval),
        cmocka_unit_test(faults_maps_back_untouched_samples),
        cmocka_unit_test(faults_hold_keeps_pages_mapped),
        cmocka_unit_test(faults_sees_kernel_accesses),
        cmocka_unit_test(faults_fork_child),
        cmocka_unit_test(faults_refuses_bad_ranges),
        cmocka_unit_test(faults_cost_per_sample),
        cmocka_unit_test(faults_close_while_sampling),
        cmocka_unit_test(dirty_sees_kernel_writes),
        cmocka_unit_test(dirty_misses_reads),
        cmocka_unit_test(dirty_fork_child),
        cmocka_unit_test(dirty_cost_per_page),
        cmocka_unit_test(dirty_for_an_ordinary_user),
        cmocka_unit_test(dirty_stops_mid_run),
        cmocka_unit_test(a_limited_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
