/*
 * The paged provider (mode=paged) on this machine: zero-filled memory that
 * survives eviction, random writes over a region 16x its cache through many
 * evict/refault cycles with DRAM held within the budget, two threads faulting
 * the same chunks, write-back of dirty pages only (and of whole chunks when
 * asked), purge, prefetch, system calls on paged memory, bad cache sizes,
 * which provider an intent gets, write-behind under the dirty limits with a
 * store that goes away (within its patience: nothing lost; past it: the
 * writer let go, the losses reported, nothing acknowledged lost), and both ways pages are installed: moved
 * (UFFDIO_MOVE, Linux 6.8) where the kernel can, copied otherwise (the
 * suite runs again with LOCI_UFFD_MOVE=0: unit.test_paged_copy); and the
 * whole suite once more over shared memory filled in place (LOCI_UFFD_SHM=1:
 * unit.test_paged_shared).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "alloc/allocator.h"
#include "os/shared_map.h"
#include "paged/paged_internal.h"
#include "provider/provider.h"
#include "support/child.h"
#include "support/resident.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KB ((size_t)1 << 10)
#define MB ((size_t)1 << 20)

static char tier_dir[] = "/var/tmp/loci-test-paged-XXXXXX";
static struct loci_target tier;
static size_t page;

static int setup(void **state)
{
    if (!mkdtemp(tier_dir))
        return -1;
    memset(&tier, 0, sizeof tier);
    strcpy(tier.name, "ssdT");
    tier.numa_node = -1;
    tier.path = tier_dir;
    page = (size_t)sysconf(_SC_PAGESIZE);
    return 0;
}

static int teardown(void **state) { return rmdir(tier_dir); }

static place_t paged_place(size_t cache, size_t chunk)
{
    place_t p;
    memset(&p, 0, sizeof p);
    p.target = &tier;
    p.file_mode = FILE_PAGED_ONLY;
    p.cache = cache;
    p.chunk = chunk;
    return p;
}

static loci_cache_stats_t stats_of(const void *p)
{
    loci_cache_stats_t st;
    assert_int_equal(paged_stats(p, &st), 0);
    return st;
}

/* DRAM this process holds as anonymous and shared memory (a paged region
 * may be either), from /proc/self/smaps_rollup (bytes): proportional sizes,
 * so that a shared page mapped twice (at the region and at its alias) counts
 * once, as it is. */
static size_t rss_memory(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    size_t kb, sum = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Pss_Anon: %zu kB", &kb) == 1 || sscanf(line, "Pss_Shmem: %zu kB", &kb) == 1)
            sum += kb;
    if (f)
        fclose(f);
    return sum * KB;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    return x ^ (x >> 33);
}

/* ---------------------------------------------------------------------------- */

static void zero_filled_and_kept_across_eviction(void **state)
{
    place_t pl = paged_place(8 * 64 * KB, 64 * KB);
    size_t size = 4 * MB;
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    for (size_t i = 0; i < size; i += 1000)
        assert_int_equal(p[i], 0);
    strcpy((char *)p + 3 * MB + 5, "kept on the store");
    /* The scan above started readaheads; the ones still queued or waiting for
     * a slot must not bring chunks back once evict has returned. */
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    assert_int_equal(resident_pages(p, size), 0);
    assert_string_equal((char *)p + 3 * MB + 5, "kept on the store");
    loci_cache_stats_t st = stats_of(p);
    assert_int_equal(st.bytes_written, page); /* one dirty page */
    assert_int_equal(st.pages_dirtied, 1);
    assert_true(st.evictions >= 1);
    assert_int_equal(provider_paged.free(p, size), 0);
    assert_int_equal(paged_stats(p, &st), LOCI_ENOENT);
}

/* Random page-sized writes over 16x the cache, checked against a shadow copy
 * through many evict/refault cycles; the region never holds more DRAM than the
 * cache, the process not more than the cache and its bounce buffers. */
static void random_writes_16x_cache(void **state)
{
    size_t cache = 2 * MB, chunk = 64 * KB, size = 16 * cache, npages = size / page;
    place_t pl = paged_place(cache, chunk);
    uint64_t *shadow = calloc(npages, sizeof *shadow);
    size_t before = rss_memory();
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    uint64_t rng = 42;
    size_t max_resident = 0;
    for (int round = 0; round < 6; round++) {
        for (int k = 0; k < 3000; k++) {
            rng = mix(rng + 0x9E3779B97F4A7C15ull);
            size_t pg = rng % npages;
            shadow[pg] = rng | 1;
            memcpy(p + pg * page + (rng >> 40) % (page - 8) / 8 * 8, &shadow[pg], 8);
            *(uint64_t *)(p + pg * page) = shadow[pg]; /* first word: the latest value */
        }
        size_t r = resident_pages(p, size);
        max_resident = r > max_resident ? r : max_resident;
        for (size_t pg = round % 7; pg < npages; pg += 7) /* read back a sample, faulting it in */
            assert_true(*(uint64_t *)(p + pg * page) == shadow[pg]);
    }
    for (size_t pg = 0; pg < npages; pg++)
        if (*(uint64_t *)(p + pg * page) != shadow[pg])
            fail_msg("page %zu: %#llx, expected %#llx", pg, (unsigned long long)*(uint64_t *)(p + pg * page),
                     (unsigned long long)shadow[pg]);
    loci_cache_stats_t st = stats_of(p);
    assert_true(st.evictions > 1000);
    assert_true(st.resident_peak <= cache);
    assert_true(max_resident * page <= cache);
    size_t held = rss_memory() - before;
    print_message("  16x cache: %llu faults, %llu evictions, %.1f MiB read, %.1f MiB written, DRAM +%.1f MiB\n",
                  (unsigned long long)st.faults, (unsigned long long)st.evictions, st.bytes_read / (double)MB,
                  st.bytes_written / (double)MB, held / (double)MB);
#ifndef __SANITIZE_THREAD__ /* TSan's shadow of the region counts as anonymous memory */
    assert_true(held <= cache + 8 * chunk + 2 * MB); /* cache + bounce buffers + slack */
#endif
    assert_int_equal(provider_paged.free(p, size), 0);
    free(shadow);
}

typedef struct {
    unsigned char *p;
    size_t size;
    int me;
    int rounds;
} worker_t;

/* Each thread owns the pages p % 2 == me of the same chunks. */
static void *worker(void *arg)
{
    worker_t *w = arg;
    for (int r = 1; r <= w->rounds; r++) {
        for (size_t off = (size_t)w->me * page; off < w->size; off += 2 * page)
            *(uint64_t *)(w->p + off) = (uint64_t)r << 32 | off;
        for (size_t off = (size_t)w->me * page; off < w->size; off += 2 * page)
            if (*(uint64_t *)(w->p + off) != ((uint64_t)r << 32 | off))
                return (void *)1;
    }
    return NULL;
}

static void two_threads_same_chunks(void **state)
{
    size_t cache = 8 * 64 * KB, size = 4 * cache;
    place_t pl = paged_place(cache, 64 * KB);
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    worker_t w[2] = {{p, size, 0, 8}, {p, size, 1, 8}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, &w[i]), 0);
    for (int i = 0; i < 2; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        assert_null(bad);
    }
    for (size_t off = 0; off < size; off += page)
        assert_true(*(uint64_t *)(p + off) == ((uint64_t)8 << 32 | off));
    loci_cache_stats_t st = stats_of(p);
    assert_true(st.evictions > 0);
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* Only dirty pages are written, adjacent ones in one run; a sequential
 * writer dirties the rest of its chunk at once (a fault per page saved); with
 * whole_chunks every dirty chunk is written whole (NVMalloc without its
 * write optimisation). */
static void write_back_dirty_pages_only(void **state)
{
    size_t chunk = 256 * KB, size = 8 * chunk, npages = chunk / page;
    place_t pl = paged_place(8 * chunk, chunk);
    pl.dirty_background = 40; /* 3 chunks: no write-behind before the flushes, which count each write */
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    for (size_t off = 0; off < 2 * chunk; off += 4 * page) /* isolated pages */
        p[off + 7] = 1;
    size_t isolated = 2 * chunk / (4 * page);
    assert_int_equal(stats_of(p).pages_dirtied, isolated);
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    loci_cache_stats_t st = stats_of(p);
    assert_int_equal(st.bytes_written, isolated * page);
    assert_int_equal(st.writebacks, isolated);
    assert_int_equal(provider_paged.file->flush(p, size), 0); /* clean now: nothing more */
    assert_int_equal(stats_of(p).bytes_written, isolated * page);
    p[7] = 3; /* written again after the flush: dirty again */
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    assert_int_equal(stats_of(p).bytes_written, (isolated + 1) * page);
    assert_int_equal(p[7], 3);

    memset(p + 5 * chunk, 2, 10 * page); /* sequential: from its third page on, the whole rest */
    assert_int_equal(stats_of(p).pages_dirtied, isolated + 1 + npages);
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    st = stats_of(p);
    assert_int_equal(st.bytes_written, (isolated + 1 + npages) * page);
    assert_int_equal(st.writebacks, isolated + 2);
    assert_int_equal(p[5 * chunk + 10 * page - 1], 2);
    assert_int_equal(provider_paged.free(p, size), 0);

    bool was = paged_whole_chunks(true);
    place_t other = paged_place(16 * chunk, chunk); /* a new cache picks the setting up */
    p = provider_paged.alloc(&other, size, page);
    assert_non_null(p);
    p[0] = 1;
    p[3 * chunk + 5] = 1;
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    st = stats_of(p);
    assert_int_equal(st.bytes_written, 2 * chunk);
    assert_int_equal(provider_paged.free(p, size), 0);
    paged_whole_chunks(was);
}

static void purge_and_prefetch(void **state)
{
    size_t chunk = 64 * KB, size = 32 * chunk;
    place_t pl = paged_place(16 * chunk, chunk);
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    memset(p, 7, size);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    /* a whole chunk and a part of another */
    assert_int_equal(provider_paged.purge(p + chunk, chunk + 2 * page), 0);
    assert_int_equal(p[chunk - 1], 7);
    for (size_t i = chunk; i < 2 * chunk + 2 * page; i += 512)
        assert_int_equal(p[i], 0);
    assert_int_equal(p[2 * chunk + 2 * page], 7);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    loci_cache_stats_t st = stats_of(p);
    assert_int_equal(provider_paged.file->prefetch(p + 8 * chunk, 4 * chunk), 0);
    assert_int_equal(resident_pages(p + 8 * chunk, 4 * chunk), 4 * chunk / page);
    loci_cache_stats_t st2 = stats_of(p);
    assert_int_equal(st2.prefetched - st.prefetched, 4);
    assert_int_equal(p[8 * chunk + 3], 7); /* no fault: already there */
    assert_int_equal(stats_of(p).faults, st2.faults);
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* The kernel faults on paged memory on the process's behalf too. */
static void system_calls_on_paged_memory(void **state)
{
    place_t pl = paged_place(8 * 64 * KB, 64 * KB);
    char *p = provider_paged.alloc(&pl, MB, page);
    assert_non_null(p);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    strcpy(p + 100, "through a pipe");
    assert_int_equal(provider_paged.file->evict(p, MB), 0);
    assert_int_equal(write(fds[1], p + 100, 15), 15); /* the kernel reads a missing page */
    assert_int_equal(read(fds[0], p + 600 * KB, 15), 15); /* and writes one */
    assert_string_equal(p + 600 * KB, "through a pipe");
    assert_int_equal(provider_paged.file->evict(p, MB), 0);
    assert_string_equal(p + 600 * KB, "through a pipe"); /* that write was seen as dirty */
    close(fds[0]);
    close(fds[1]);
    assert_int_equal(provider_paged.free(p, MB), 0);
}

static void bad_cache_sizes(void **state)
{
    place_t pl = paged_place(4 * 64 * KB, 64 * KB);
    errno = 0;
    assert_null(provider_paged.alloc(&pl, MB, page));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "at least 8"));
    pl = paged_place(64 * MB, 128 * MB);
    assert_null(provider_paged.alloc(&pl, MB, page));
    assert_non_null(strstr(loci_last_error(), "chunk="));
    pl = paged_place(64 * MB, 256 * KB);
    pl.shared = true;
    assert_null(provider_paged.alloc(&pl, MB, page));
    assert_non_null(strstr(loci_last_error(), "private"));
}

/* mode=paged in an intent picks the paged provider; where paging cannot
 * serve the intent (shareable memory) mmap does, unless mode=paged! */
static void provider_chosen_by_intent(void **state)
{
    struct {
        const char *intent;
        const provider_ops_t *ops;
    } cases[] = {
        {"kind=ssd!,mode=paged,cache=1MiB,chunk=64KiB", &provider_paged},
        {"kind=ssd!", &provider_file},
        {"kind=ssd!,mode=mmap", &provider_file},
        {"kind=ssd!,mode=paged,access=node", &provider_file},
        {"kind=ssd!,mode=paged!,access=node,fallback=null", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        loci_allocator_t *a = loci_allocator_create(cases[i].intent);
        assert_non_null(a);
        void *q = loci_alloc(a, 3 * MB);
        if (!cases[i].ops) {
            assert_null(q);
            assert_non_null(strstr(loci_last_error(), "mode=mmap"));
            continue;
        }
        if (!q)
            fail_msg("%s: %s", cases[i].intent, loci_last_error());
        if (pool_heap_ops(pool_heap_of(q)) != cases[i].ops)
            fail_msg("%s: provider %s", cases[i].intent, pool_heap_ops(pool_heap_of(q))->name);
        memset(q, 1, 3 * MB);
        assert_int_equal(loci_range_flush(q, 3 * MB), 0);
        loci_free(q);
    }
    /* small blocks share pooled extents, paged as well */
    loci_allocator_t *a = loci_allocator_create(cases[0].intent);
    char *s1 = loci_alloc(a, 100), *s2 = loci_alloc(a, 100);
    assert_ptr_equal(pool_heap_of(s1), pool_heap_of(s2));
    strcpy(s1, "small");
    assert_int_equal(loci_range_evict(s1, 100), 0);
    assert_string_equal(s1, "small");
    loci_cache_stats_t st;
    assert_int_equal(loci_cache_stats(s1, &st), 0);
    assert_int_equal(st.cache_bytes, MB);
    loci_free(s1);
    loci_free(s2);
}

/* ---- a store that is full ---------------------------------------------- */

/* The region's own store, its write-backs refused while `store_full`. */
static const chunkstore_ops_t *real_ops;
static chunkstore_ops_t full_ops;
static atomic_bool store_full;

static int write_unless_full(chunkstore_t *s, uint64_t off, const void *buf, size_t len)
{
    if (atomic_load(&store_full))
        return loci__fail(LOCI_ENOSPC, "test store: no space left");
    return real_ops->write(s, off, buf, len);
}

static int saved_stderr = -1;
static char log_path[] = "/tmp/loci-test-paged-log-XXXXXX";

static void hung(int sig)
{
    static const char msg[] = "writing paged memory over a failing store did not complete in 60 s\n";
    (void)sig;
    (void)!write(saved_stderr, msg, sizeof msg - 1);
    unlink(log_path); /* what it logged while stuck */
    _exit(1);
}

/* Lines of `path` containing `what`. */
static int count_lines(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

/* stderr into a fresh log file (log_path) until log_end, a hang failing
 * the test after 60 s instead of stalling the suite. */
static int log_start(void)
{
    strcpy(log_path, "/tmp/loci-test-paged-log-XXXXXX");
    int fd = mkstemp(log_path);
    saved_stderr = dup(2);
    assert_true(fd >= 0);
    fflush(stderr);
    dup2(fd, 2);
    signal(SIGALRM, hung);
    alarm(60);
    return fd;
}

static void log_end(int fd)
{
    alarm(0);
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    close(fd);
}

/* A region 4x its cache whose store fills up: every write still completes,
 * the failure comes back from flush, the log says so a few times (not once
 * per retry), and once space is back nothing that reached the store before
 * is lost: each chunk holds its new contents or, dropped when no DRAM was
 * left for it, the ones flushed before. */
static void full_store_neither_hangs_nor_floods(void **state)
{
    size_t chunk = 64 * KB, nchunks = 32, size = nchunks * chunk;
    place_t pl = paged_place(8 * chunk, chunk);
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    /* the failing store goes in before the first fault: no thread reads the table yet */
    paged_region_t *r = paged_region_get((uintptr_t)p);
    assert_non_null(r);
    real_ops = r->store->ops;
    full_ops = *real_ops;
    full_ops.write = write_unless_full;
    r->store->ops = &full_ops;
    paged_region_put(r);
    for (size_t k = 0; k < nchunks; k++)
        memset(p + k * chunk, (int)k, chunk);
    assert_int_equal(provider_paged.file->flush(p, size), 0);

    int log_fd = log_start();
    atomic_store(&store_full, true);
    for (size_t k = 0; k < nchunks; k++)
        memset(p + k * chunk, (int)(100 + k), chunk);
    int full_rc = provider_paged.file->flush(p, size);
    log_end(log_fd);
    int lines = count_lines(log_path, "mode=paged");
    unlink(log_path);

    assert_int_equal(full_rc, LOCI_ENOSPC);
    assert_non_null(strstr(loci_last_error(), "no space left"));
    if (lines < 1 || lines > 16)
        fail_msg("%d log lines about the failing store (want a few, at least one)", lines);

    atomic_store(&store_full, false);
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    size_t kept = 0;
    for (size_t k = 0; k < nchunks; k++) {
        unsigned char v = p[k * chunk];
        if (v != k && v != 100 + k)
            fail_msg("chunk %zu reads %u: neither its new (%zu) nor its flushed (%zu) contents", k, v, 100 + k, k);
        kept += v == 100 + k;
    }
    assert_true(kept >= 7); /* the cache's slots stayed full of what could not be written */
    /* full_ops stay installed (they write through now): swapping the table
     * back would race with the read-ahead thread reading it */
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* The kernel moves pages (Linux 6.8 and later) unless LOCI_UFFD_MOVE=0 says copy. */
static bool moves_expected(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    const char *env = getenv("LOCI_UFFD_MOVE");
    return uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
           (major > 6 || (major == 6 && minor >= 8)) && !(env && strcmp(env, "0") == 0);
}

/* An environment switch: 0 or 1 as set, else -1. */
static int env_switch(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") == 0 ? 0 : v && strcmp(v, "1") == 0 ? 1 : -1;
}

/* The kernel maps shared memory write-protected with UFFDIO_CONTINUE (Linux
 * 6.4 and later) unless LOCI_UFFD_SHM=0 says anonymous memory only. */
static bool shares_expected(void)
{
    struct utsname u;
    int major = 0, minor = 0;
    return uname(&u) == 0 && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
           (major > 6 || (major == 6 && minor >= 4)) && env_switch("LOCI_UFFD_SHM") != 0;
}

/* Which memory backs a region: shared memory filled in place where asked
 * (LOCI_UFFD_SHM=1) or where the system gives shared memory huge pages that
 * whole chunks fill, else anonymous memory. In shared memory a page the
 * application dropped (MADV_DONTNEED) keeps its data and stays dirty: the
 * eviction writes it, and it reads back from the store. */
static void backing_chosen_and_pages_kept(void **state)
{
    size_t chunk = 64 * KB, size = 32 * chunk;
    place_t pl = paged_place(8 * chunk, chunk);
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    assert_int_equal(paged_uffd_shares(), shares_expected());
    paged_region_t *r = paged_region_get((uintptr_t)p);
    bool shared = r->alias != NULL;
    paged_region_put(r);
    size_t huge = shared_map_huge_size();
    bool expected = paged_uffd_shares() && (env_switch("LOCI_UFFD_SHM") == 1 ||
                                            (env_switch("LOCI_UFFD_SHM") != 0 && huge && chunk % huge == 0));
    print_message("  %s memory (shared memory in huge pages of %zu KiB: %s)\n", shared ? "shared" : "anonymous",
                  huge / KB, huge ? "yes" : "no, the system keeps it in base pages");
    assert_int_equal(shared, expected);
    memset(p + 3 * chunk, 0x5a, 2 * page);
    if (shared) { /* the application drops its mapping of the pages: the memory file keeps them */
        assert_int_equal(madvise(p + 3 * chunk, 2 * page, MADV_DONTNEED), 0);
        assert_int_equal(p[3 * chunk + page + 7], 0x5a);
    }
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    assert_int_equal(resident_pages(p, size), 0);
    assert_int_equal(stats_of(p).bytes_written, 2 * page);
    for (size_t i = 0; i < 2 * page; i++)
        if (p[3 * chunk + i] != 0x5a)
            fail_msg("byte %zu: %#x after eviction", i, p[3 * chunk + i]);
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* A sequential writer over 4x the cache: its chunks are installed dirty (moved
 * where the kernel can, else copied unprotected), written back whole, and
 * read back intact after eviction; the probe found what the kernel has. */
static void sequential_writer_round_trip(void **state)
{
    size_t chunk = 64 * KB, cache = 8 * chunk, size = 4 * cache;
    place_t pl = paged_place(cache, chunk);
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    assert_int_equal(paged_uffd_moves(), moves_expected());
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        *(uint64_t *)(p + i) = mix(i);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    loci_cache_stats_t st = stats_of(p);
    /* Every page once, none lost; the write-behind may rarely take a chunk the writer has just
     * entered (seen with copies, LOCI_UFFD_MOVE=0): its pages then go twice, never more. */
    if (st.bytes_written < size || st.bytes_written > size + chunk)
        fail_msg("%llu bytes written back for %zu written (at most one chunk twice)",
                 (unsigned long long)st.bytes_written, size);
    assert_true(st.pages_dirtied >= size / page && st.pages_dirtied <= (size + chunk) / page);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        if (*(uint64_t *)(p + i) != mix(i))
            fail_msg("offset %zu: %#llx after eviction, written %#llx", i, (unsigned long long)*(uint64_t *)(p + i),
                     (unsigned long long)mix(i));
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* A sequential writer entering fresh chunks with a cache large enough for
 * batches (64 chunks: background 6, batches of 4): it faults about once per
 * batch, not once per chunk, every page is written back once, and all reads
 * back intact. */
static void sequential_writer_faults_per_batch(void **state)
{
    size_t chunk = 64 * KB, cache = 64 * chunk, size = 4 * cache, nchunks = size / chunk;
    place_t pl = paged_place(cache, chunk);
    unsigned char *p = provider_paged.alloc(&pl, size, page);
    assert_non_null(p);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        *(uint64_t *)(p + i) = mix(i) ^ 3;
    loci_cache_stats_t st = stats_of(p);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    loci_cache_stats_t after = stats_of(p);
    print_message("  %zu chunks written: %llu missing faults, %llu bytes written back\n", nchunks,
                  (unsigned long long)st.faults, (unsigned long long)after.bytes_written);
    if (st.faults > nchunks / 2)
        fail_msg("%llu missing faults for %zu fresh chunks written in order (want a batch per fault)",
                 (unsigned long long)st.faults, nchunks);
    if (after.bytes_written < size || after.bytes_written > size + 2 * chunk)
        fail_msg("%llu bytes written back for %zu written", (unsigned long long)after.bytes_written, size);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        if (*(uint64_t *)(p + i) != (mix(i) ^ 3))
            fail_msg("offset %zu: %#llx after eviction", i, (unsigned long long)*(uint64_t *)(p + i));
    /* Read back (batches read ahead): nothing of it is dirty, nothing written again. */
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    loci_cache_stats_t reread = stats_of(p);
    if (reread.bytes_written != after.bytes_written || reread.pages_dirtied != after.pages_dirtied)
        fail_msg("reading it back dirtied %llu pages and wrote %llu bytes",
                 (unsigned long long)(reread.pages_dirtied - after.pages_dirtied),
                 (unsigned long long)(reread.bytes_written - after.bytes_written));
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* uffd_move hands pages over without a copy: the bytes at the destination,
 * the source left unmapped; a page already at the destination is kept. */
static void uffd_move_hands_pages_over(void **state)
{
    uffd_caps_t caps;
    int fd = uffd_open(true, &caps);
    bool can_move = caps.move;
    assert_true(fd >= 0);
    assert_int_equal(can_move, moves_expected());
    if (!can_move) {
        close(fd);
        print_message("  no UFFDIO_MOVE here (kernel < 6.8 or LOCI_UFFD_MOVE=0): the copy path is tested instead\n");
        return;
    }
    size_t len = 4 * page;
    unsigned char *dst = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *src = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(dst != MAP_FAILED && src != MAP_FAILED);
    assert_int_equal(uffd_register(fd, dst, len, false), 0);
    memset(src + 3 * page, 9, page);
    assert_int_equal(uffd_copy(fd, dst + page, src + 3 * page, page, false), 0);
    for (size_t k = 0; k < 3; k++)
        memset(src + k * page, (int)(1 + k), page);
    assert_int_equal(uffd_move(fd, dst, src, 3 * page), 3 * page);
    assert_int_equal(dst[0], 1);
    assert_int_equal(dst[page], 9); /* was there: kept */
    assert_int_equal(dst[2 * page + 100], 3);
    assert_int_equal(resident_pages(src, page), 0); /* moved away, not copied */
    assert_int_equal(resident_pages(src + page, page), 1); /* its destination was taken: it stays */
    munmap(dst, len);
    munmap(src, len);
    close(fd);
}

/* ---- write-behind: limits, throttling, a store that goes away ---------- */

/* A slow store (each write takes `store_delay_us`) that can also be away:
 * then each write fails with LOCI_EIO after the delay, as a timed-out
 * cluster call does. Installed over a region's own store, as above. */
static const chunkstore_ops_t *slow_real;
static chunkstore_ops_t slow_ops;
static atomic_uint store_delay_us;
static atomic_bool store_away;
static atomic_uint writes_while_away;

static int slow_write(chunkstore_t *s, uint64_t off, const void *buf, size_t len)
{
    usleep(atomic_load(&store_delay_us));
    if (atomic_load(&store_away)) {
        atomic_fetch_add(&writes_while_away, 1);
        return loci__fail(LOCI_EIO, "test store: cluster unreachable (timed out)");
    }
    return slow_real->write(s, off, buf, len);
}

/* 4x the cache of 16 chunks of 64 KiB, dirty limit 50 %, over a store
 * whose writes take `delay_us` and that is waited for `patience_s` when
 * its writes fail. */
static unsigned char *slow_region(unsigned background, unsigned delay_us, unsigned patience_s, size_t *size)
{
    place_t pl = paged_place(16 * 64 * KB, 64 * KB);
    pl.dirty_limit = 50;
    pl.dirty_background = background;
    atomic_store(&store_delay_us, delay_us);
    *size = 4 * pl.cache;
    unsigned char *p = provider_paged.alloc(&pl, *size, page);
    assert_non_null(p);
    paged_region_t *r = paged_region_get((uintptr_t)p);
    assert_non_null(r);
    slow_real = r->store->ops;
    slow_ops = *slow_real;
    slow_ops.write = slow_write;
    r->store->ops = &slow_ops;
    r->store->patience_s = patience_s;
    paged_region_put(r);
    return p;
}

/* A streaming writer over 4x the cache with a slow store: every byte reaches
 * the store through the write-behind (none from an eviction the writer
 * waits for), the dirty share never passes the limit (and the slack of the
 * fault threads), the writer was throttled there, and the data is intact.
 * The store takes 30 ms a chunk (2 MiB/s): any writer outruns it, even one
 * under TSan on a loaded host (at 3 ms, one did not, and was never throttled). */
static void write_behind_streams_under_the_limit(void **state)
{
    size_t chunk = 64 * KB, cache = 16 * chunk, size;
    unsigned char *p = slow_region(10, 30000, CHUNKSTORE_FILE_PATIENCE_S, &size);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        *(uint64_t *)(p + i) = mix(i);
    loci_cache_stats_t st = stats_of(p);
    print_message("  4x cache, 30 ms per store write: %.1f MiB written behind of %.1f MiB, dirty peak %.0f KiB, "
                  "%llu throttled\n", st.written_behind / (double)MB, st.bytes_written / (double)MB,
                  st.dirty_peak / (double)KB, (unsigned long long)st.throttled);
    assert_true(st.bytes_written >= size - cache);
    assert_int_equal(st.written_behind, st.bytes_written);
    assert_true(st.dirty_peak <= (cache / 2) + 4 * chunk);
    assert_true(st.throttled > 0);
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    st = stats_of(p);
    assert_int_equal(st.dirty_bytes, 0);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        if (*(uint64_t *)(p + i) != mix(i))
            fail_msg("offset %zu: %#llx, written %#llx", i, (unsigned long long)*(uint64_t *)(p + i),
                     (unsigned long long)mix(i));
    atomic_store(&store_delay_us, 0);
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* Dirty limits the paged provider refuses, each with what would be right. */
static void dirty_limits_checked(void **state)
{
    place_t pl = paged_place(8 * 64 * KB, 64 * KB);
    pl.dirty_limit = 30;
    pl.dirty_background = 30;
    assert_null(provider_paged.alloc(&pl, MB, page));
    assert_non_null(strstr(loci_last_error(), "dirty_background=30% must be below dirty_limit=30%"));
    pl.dirty_limit = 101;
    pl.dirty_background = 0;
    assert_null(provider_paged.alloc(&pl, MB, page));
    assert_non_null(strstr(loci_last_error(), "each must be 1% to 100% of the cache"));
    pl.dirty_limit = 4; /* a background threshold not given stays below it */
    unsigned char *p = provider_paged.alloc(&pl, MB, page);
    assert_non_null(p);
    p[0] = 1;
    assert_int_equal(provider_paged.free(p, MB), 0);
}

typedef struct {
    unsigned char *p;
    size_t size;
    atomic_bool done;
} stream_t;

static void *stream_writer(void *arg)
{
    stream_t *w = arg;
    for (size_t i = 0; i < w->size; i += sizeof(uint64_t))
        *(uint64_t *)(w->p + i) = mix(i) ^ 7;
    atomic_store(&w->done, true);
    return NULL;
}

/* The store goes away under a streaming writer, within its patience (a
 * minute here, however loaded the machine): the writer waits at the dirty
 * limit (it neither fails nor loses anything), a flush returns LOCI_EIO in
 * bounded time, the log says so once; when the store is back the writer
 * goes on and every byte arrives. */
static void store_away_keeps_data_dirty(void **state)
{
    size_t chunk = 64 * KB, cache = 16 * chunk, size;
    unsigned char *p = slow_region(20, 2000, 60, &size);
    atomic_store(&store_away, true);
    atomic_store(&writes_while_away, 0);

    int log_fd = log_start();
    stream_t w = {p, size, false};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, stream_writer, &w), 0);
    while (stats_of(p).throttled == 0 || atomic_load(&writes_while_away) < 3)
        usleep(1000);
    usleep(200 * 1000);
    bool blocked = !atomic_load(&w.done);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int away_rc = provider_paged.file->flush(p, size);
    clock_gettime(CLOCK_MONOTONIC, &b);
    char away_msg[512];
    snprintf(away_msg, sizeof away_msg, "%s", loci_last_error());
    loci_cache_stats_t st = stats_of(p);
    atomic_store(&store_away, false);
    pthread_join(t, NULL);
    log_end(log_fd);
    int failed = count_lines(log_path, "a write-back failed"), back = count_lines(log_path, "takes writes again");
    unlink(log_path);

    double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    print_message("  store away: flush -> %d in %.2f s, %u failed writes, dirty %.0f KiB of a %.0f KiB cache\n",
                  away_rc, secs, atomic_load(&writes_while_away), st.dirty_bytes / (double)KB, cache / (double)KB);
    assert_true(blocked); /* it waited at the limit instead of failing */
    assert_int_equal(away_rc, LOCI_EIO);
    assert_non_null(strstr(away_msg, "cluster unreachable"));
    assert_true(secs < 10);
    assert_true(st.dirty_bytes <= cache / 2 + 4 * chunk);
    assert_int_equal(failed, 1);
    assert_int_equal(back, 1);
    assert_true(atomic_load(&w.done));
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        if (*(uint64_t *)(p + i) != (mix(i) ^ 7))
            fail_msg("offset %zu lost while the store was away", i);
    atomic_store(&store_delay_us, 0);
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* The store stays away past its patience (1 s here) under a streaming
 * writer over 4x the cache: the writer is let go instead of waiting at the
 * dirty limit for ever (it did before), the log says so, the next flush
 * returns LOCI_EIO saying pages were lost; when the store is back a flush
 * returns 0, and every word reads as flushed before the store went away
 * (acknowledged: never lost) or as written since — the chunks dropped
 * while it was away read as flushed. */
static void store_away_past_its_patience(void **state)
{
    size_t size;
    unsigned char *p = slow_region(20, 0, 1, &size);
    for (size_t i = 0; i < size; i += sizeof(uint64_t))
        *(uint64_t *)(p + i) = mix(i);
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    atomic_store(&store_away, true);

    int log_fd = log_start(); /* a writer held for ever fails the test after 60 s */
    stream_t w = {p, size, false};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, stream_writer, &w), 0);
    pthread_join(t, NULL);
    int away_rc = provider_paged.file->flush(p, size);
    char away_msg[512];
    snprintf(away_msg, sizeof away_msg, "%s", loci_last_error());
    log_end(log_fd);
    int gave_up = count_lines(log_path, "has taken no write for 1 s: writers no longer wait for it");
    unlink(log_path);
    atomic_store(&store_away, false);

    assert_int_equal(away_rc, LOCI_EIO);
    assert_non_null(strstr(away_msg, "unflushed pages lost"));
    assert_non_null(strstr(away_msg, "cluster unreachable"));
    assert_int_equal(gave_up, 1);
    assert_int_equal(provider_paged.file->flush(p, size), 0);
    assert_int_equal(provider_paged.file->evict(p, size), 0);
    size_t flushed = 0, since = 0;
    for (size_t i = 0; i < size; i += sizeof(uint64_t)) {
        uint64_t v = *(uint64_t *)(p + i);
        if (v != mix(i) && v != (mix(i) ^ 7))
            fail_msg("offset %zu: %#llx, neither flushed nor written since", i, (unsigned long long)v);
        flushed += v == mix(i);
        since += v == (mix(i) ^ 7);
    }
    print_message("  store away past its patience: %zu words as flushed before (dropped), %zu as written since\n",
                  flushed, since);
    assert_true(flushed > 0 && since > 0);
    assert_int_equal(provider_paged.free(p, size), 0);
}

/* A process killed while its write-behind runs loses nothing it flushed:
 * every page of its region reads as flushed or as written after. */
static void killed_mid_write_behind(void **state)
{
    if (child_threads_unsupported_after_fork("killed_mid_write_behind"))
        skip();
    size_t chunk = 64 * KB, cache = 16 * chunk, size = 8 * cache;
    place_t pl = paged_place(cache, chunk);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        size_t sz = size;
        unsigned char *p = provider_paged.file->open(&pl, "wb-killed", &sz, LOCI_CREATE);
        if (!p)
            _exit(2);
        for (size_t i = 0; i < size; i += page)
            memset(p + i, 1, page);
        if (provider_paged.file->flush(p, size) != 0)
            _exit(3);
        (void)!write(ready[1], "f", 1);
        for (int round = 2;; round = round == 2 ? 3 : 2) /* until killed */
            for (size_t i = 0; i < size; i += page)
                memset(p + i, round, page);
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    usleep(300 * 1000); /* rounds of write-behind under way */
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    close(ready[0]);
    size_t sz = 0;
    unsigned char *p = provider_paged.file->open(&pl, "wb-killed", &sz, 0);
    assert_non_null(p);
    assert_int_equal(sz, size);
    size_t newer = 0;
    for (size_t i = 0; i < size; i += page) {
        for (size_t k = 0; k < page; k += 512)
            if (p[i + k] < 1 || p[i + k] > 3)
                fail_msg("page %zu byte %zu reads %u: neither flushed (1) nor written since (2, 3)", i / page, k,
                         p[i + k]);
        newer += p[i] != 1;
    }
    print_message("  killed mid write-behind: %zu of %zu pages newer than the flush, none lost\n", newer, size / page);
    assert_int_equal(provider_paged.free(p, size), 0);
    assert_int_equal(provider_paged.file->remove(&pl, "wb-killed"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_filled_and_kept_across_eviction),
        cmocka_unit_test(random_writes_16x_cache),
        cmocka_unit_test(two_threads_same_chunks),
        cmocka_unit_test(write_back_dirty_pages_only),
        cmocka_unit_test(purge_and_prefetch),
        cmocka_unit_test(system_calls_on_paged_memory),
        cmocka_unit_test(bad_cache_sizes),
        cmocka_unit_test(provider_chosen_by_intent),
        cmocka_unit_test(full_store_neither_hangs_nor_floods),
        cmocka_unit_test(sequential_writer_round_trip),
        cmocka_unit_test(sequential_writer_faults_per_batch),
        cmocka_unit_test(uffd_move_hands_pages_over),
        cmocka_unit_test(backing_chosen_and_pages_kept),
        cmocka_unit_test(write_behind_streams_under_the_limit),
        cmocka_unit_test(dirty_limits_checked),
        cmocka_unit_test(store_away_keeps_data_dirty),
        cmocka_unit_test(store_away_past_its_patience),
        cmocka_unit_test(killed_mid_write_behind),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
