/*
 * Persistent named regions and the NVM calls, within one process: regions
 * kept across close and reopen in both modes (the paged one a directory of
 * chunk files, never in the kernel's page cache; more in
 * test_chunk_store.c), bad names, sizes and flags, unsafe tier directories
 * and planted files, locking, the target every address of a region names
 * (and loci_free refused on it) in both layouts and modes, prefetch/flush/
 * evict on every kind of loci memory, mmap-mode allocations (own sparse
 * reserved file, MAP_SHARED, small ones pooled; a fork child's view of
 * them private, also while another thread frees), a paged region's
 * directory removed under its writer, and the statistics table.
 * Several processes: test_nvm_proc.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"
#include "support/scratch.h"
#include "provider/provider.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KB ((size_t)1 << 10)
#define MB ((size_t)1 << 20)
#define PAGED "persist,mode=paged,cache=1MiB,chunk=64KiB"

static size_t page;

static int setup(void **state)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    return loci_init();
}

static void region_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s.region", loci_target_path(loci_target_by_name("ssd0")), name);
}

static uint64_t word(size_t i, int gen) { return (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)gen; }

static void fill(uint64_t *p, size_t size, int gen)
{
    for (size_t i = 0; i < size / 8; i += 61)
        p[i] = word(i, gen);
}

static void check(const uint64_t *p, size_t size, int gen)
{
    for (size_t i = 0; i < size / 8; i += 61)
        if (p[i] != word(i, gen))
            fail_msg("word %zu: %#llx, expected %#llx", i, (unsigned long long)p[i], (unsigned long long)word(i, gen));
}

/* Pages of the file at path in the kernel's page cache. */
static size_t page_cache_pages(const char *path, size_t size)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(m != MAP_FAILED);
    unsigned char *vec = malloc(size / page);
    assert_int_equal(mincore(m, size, vec), 0);
    size_t n = 0;
    for (size_t i = 0; i < size / page; i++)
        n += vec[i] & 1;
    free(vec);
    munmap(m, size);
    close(fd);
    return n;
}

/* ------------------------------------------------------------------------------ */

static void regions_kept_across_reopen(void **state)
{
    const char *intents[] = {"persist", "kind=ssd,mode=mmap", PAGED};
    for (int k = 0; k < 3; k++) {
        const char *name = unique_name(k == 2 ? "kept-paged" : "kept");
        size_t size = 16 * MB; /* 16x the paged cache */
        uint64_t *p = loci_persist_open(name, size - 100, intents[k], LOCI_CREATE);
        if (!p)
            fail_msg("%s: %s", intents[k], loci_last_error());
        assert_int_equal(loci_persist_size(p), size); /* whole pages */
        assert_int_equal(loci_persist_size((char *)p + size - 1), size);
        fill(p, size, k);
        assert_int_equal(loci_persist_sync((char *)p + 12345), 0);
        char path[512];
        region_path(name, path, sizeof path);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        if (k < 2) { /* mmap: one file */
            assert_int_equal(st.st_mode & 07777, 0600);
            assert_int_equal(st.st_size, size);
        } else { /* paged: a directory of chunk files, O_DIRECT: the cache is the only DRAM copy */
            assert_true(S_ISDIR(st.st_mode));
            assert_int_equal(st.st_mode & 07777, 0700);
            size_t cached = 0;
            for (size_t c = 0; c < size / (64 * KB); c++) {
                char chunk[600];
                snprintf(chunk, sizeof chunk, "%s/c%016zx", path, c);
                assert_int_equal(stat(chunk, &st), 0);
                assert_int_equal(st.st_mode & 07777, 0600);
                assert_int_equal(st.st_size, 64 * KB);
                cached += page_cache_pages(chunk, 64 * KB);
            }
            print_message("  paged region: %zu of %zu pages in the page cache after sync\n", cached, size / page);
            assert_true(cached <= 16);
            loci_cache_stats_t ns;
            assert_int_equal(loci_cache_stats(p, &ns), 0);
            assert_true(ns.resident_peak <= MB);
            assert_true(ns.evictions > 0);
        }
        assert_int_equal(loci_persist_close(p), 0);
        assert_int_equal(loci_persist_size(p), 0);

        p = loci_persist_open(name, size, intents[k], 0);
        assert_non_null(p);
        check(p, size, k);
        fill(p, size / 2, k + 10); /* closed without sync: close syncs */
        assert_int_equal(loci_persist_close(p), 0);
        p = loci_persist_open(name, 0, intents[k], LOCI_READONLY); /* 0: as it is */
        assert_non_null(p);
        assert_int_equal(loci_persist_size(p), size);
        check(p, size / 2, k + 10);
        assert_int_equal(loci_persist_close(p), 0);

        errno = 0;
        assert_null(loci_persist_open(name, 2 * size, intents[k], LOCI_CREATE));
        assert_int_equal(errno, EINVAL);
        assert_non_null(strstr(loci_last_error(), "holds 16.0 MiB"));
        assert_int_equal(loci_persist_remove(name, intents[k]), 0);
        assert_null(loci_persist_open(name, size, intents[k], 0));
        assert_int_equal(errno, ENOENT);
        assert_non_null(strstr(loci_last_error(), "LOCI_CREATE"));
        assert_int_equal(loci_persist_remove(name, intents[k]), LOCI_ENOENT);
    }
}

static void bad_names_sizes_flags(void **state)
{
    const char *bad[] = {NULL, "", "a/b", "..", "../escape", "x/../../etc", ".hidden", "-dash", "a..b",
                         "sp ace", "tab\t", "uni\xc3\xa9",
                         "0123456789012345678901234567890123456789012345678901234567890123456789"
                         "0123456789012345678901234567890123456789012345678901234567890123456789"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        errno = 0;
        assert_null(loci_persist_open(bad[i], MB, NULL, LOCI_CREATE));
        assert_int_equal(errno, EINVAL);
        assert_non_null(strstr(loci_last_error(), "region name"));
        assert_int_equal(loci_persist_remove(bad[i], NULL), LOCI_EINVAL);
    }
    const char *name = unique_name("bad");
    assert_null(loci_persist_open(name, 0, NULL, LOCI_CREATE));
    assert_non_null(strstr(loci_last_error(), "size 0"));
    assert_null(loci_persist_open(name, SIZE_MAX, NULL, LOCI_CREATE));
    assert_int_equal(errno, EINVAL);
    assert_null(loci_persist_open(name, (size_t)1 << 60, NULL, LOCI_CREATE)); /* 1 EiB */
    assert_int_equal(errno, ENOSPC);
    assert_non_null(strstr(loci_last_error(), "ssd0"));
    assert_null(loci_persist_open(name, MB, NULL, LOCI_CREATE | LOCI_READONLY));
    assert_non_null(strstr(loci_last_error(), "LOCI_READONLY"));
    assert_null(loci_persist_open(name, MB, NULL, 0x40));
    assert_non_null(strstr(loci_last_error(), "unknown flags"));
    assert_null(loci_persist_open(name, MB, NULL, LOCI_READONLY)); /* nothing to read */
    assert_int_equal(errno, ENOENT);
    assert_null(loci_persist_open(name, MB, "kind=dram", LOCI_CREATE));
    assert_non_null(strstr(loci_last_error(), "file tier"));
    assert_null(loci_persist_open(name, MB, "bandwith=high", LOCI_CREATE));
    assert_int_equal(errno, EINVAL);
    char path[512];
    region_path(name, path, sizeof path);
    assert_int_equal(access(path, F_OK), -1); /* nothing left behind */
    assert_int_equal(loci_persist_sync(&page), LOCI_EINVAL);
    assert_int_equal(loci_persist_close(&page), LOCI_EINVAL);
    assert_int_equal(loci_persist_size(&page), 0);
}

/* Re-initialise with ssd0 in `dir` and try a region there. */
static void expect_refused(const char *dir, const char *what)
{
    loci_fini();
    setenv("LOCI_STORE_DIR", dir, 1);
    assert_int_equal(loci_init(), 0);
    errno = 0;
    assert_null(loci_persist_open(unique_name("refused"), MB, NULL, LOCI_CREATE));
    if (!strstr(loci_last_error(), what))
        fail_msg("%s: \"%s\" lacks \"%s\"", dir, loci_last_error(), what);
}

static void unsafe_tier_dirs_and_planted_files(void **state)
{
    char *saved = strdup(getenv("LOCI_STORE_DIR"));
    char dir[] = "/var/tmp/loci-test-nvm-XXXXXX", sub[300], link[300];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/tier", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(symlink(sub, link), 0);

    expect_refused("/nonexistent-loci/a/b", "does not exist");
    expect_refused(link, "symbolic link");
    assert_int_equal(chmod(sub, 0777), 0);
    expect_refused(sub, "writable by others");
    assert_int_equal(chmod(sub, 0700), 0);
    if (geteuid() == 0) {
        assert_int_equal(chown(sub, 12345, 12345), 0);
        expect_refused(sub, "owned by uid 12345");
        assert_int_equal(chown(sub, 0, 0), 0);
    }

    /* files planted in a good directory */
    loci_fini();
    setenv("LOCI_STORE_DIR", sub, 1);
    assert_int_equal(loci_init(), 0);
    char planted[400], other[400];
    snprintf(planted, sizeof planted, "%s/evil.region", sub);
    snprintf(other, sizeof other, "%s/other.region", sub);
    assert_int_equal(symlink("/etc/passwd", planted), 0);
    assert_null(loci_persist_open("evil", 0, NULL, LOCI_READONLY));
    assert_int_equal(errno, EPERM);
    assert_non_null(strstr(loci_last_error(), "symbolic link"));
    assert_null(loci_persist_open("evil", page, NULL, LOCI_CREATE));
    assert_int_equal(errno, EPERM);
    int fd = open(other, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)page), 0);
    close(fd);
    assert_null(loci_persist_open("other", page, NULL, 0));
    assert_non_null(strstr(loci_last_error(), "mode 644"));
    if (geteuid() == 0) {
        assert_int_equal(chmod(other, 0600), 0);
        assert_int_equal(chown(other, 12345, 12345), 0);
        assert_null(loci_persist_open("other", page, NULL, 0));
        assert_non_null(strstr(loci_last_error(), "owned by uid 12345"));
    }
    /* remove takes away what is in our directory, the link itself only */
    assert_int_equal(loci_persist_remove("evil", NULL), 0);
    assert_int_equal(access("/etc/passwd", F_OK), 0);
    assert_int_equal(loci_persist_remove("other", NULL), 0);

    loci_fini();
    setenv("LOCI_STORE_DIR", saved, 1);
    free(saved);
    assert_int_equal(loci_init(), 0);
    unlink(link);
    rmdir(sub);
    rmdir(dir);
}

static void locking(void **state)
{
    const char *name = unique_name("lock");
    char *w = loci_persist_open(name, MB, NULL, LOCI_CREATE);
    assert_non_null(w);
    errno = 0;
    assert_null(loci_persist_open(name, MB, NULL, 0));
    assert_int_equal(errno, EBUSY);
    assert_null(loci_persist_open(name, MB, NULL, LOCI_SHARED));
    assert_int_equal(errno, EBUSY);
    assert_int_equal(loci_persist_remove(name, NULL), LOCI_EBUSY);
    assert_int_equal(loci_persist_close(w), 0);

    char *a = loci_persist_open(name, MB, NULL, LOCI_SHARED), *b = loci_persist_open(name, MB, NULL, LOCI_SHARED);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    strcpy(a + 5000, "one copy");
    assert_string_equal(b + 5000, "one copy");
    char *r = loci_persist_open(name, MB, PAGED, LOCI_READONLY | LOCI_SHARED); /* paged asked, mmap given */
    assert_non_null(r);
    assert_string_equal(r + 5000, "one copy");
    loci_cache_stats_t st;
    assert_int_equal(loci_cache_stats(r, &st), LOCI_ENOENT);
    assert_null(loci_persist_open(name, MB, "persist,mode=paged!", LOCI_SHARED));
    assert_int_equal(errno, ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "mode=mmap"));
    assert_null(loci_persist_open(name, MB, NULL, 0)); /* a lone writer waits for the sharers */
    assert_int_equal(errno, EBUSY);
    assert_int_equal(loci_persist_close(r), 0);
    assert_int_equal(loci_persist_close(b), 0);
    assert_int_equal(loci_persist_close(a), 0);

    char *pr = loci_persist_open(name, MB, "persist,mode=paged!,cache=1MiB,chunk=64KiB", LOCI_READONLY);
    assert_non_null(pr); /* a private read-only cache */
    assert_string_equal(pr + 5000, "one copy");
    assert_int_equal(loci_cache_stats(pr, &st), 0);
    assert_int_equal(loci_persist_close(pr), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
}

static void range_calls(void **state)
{
    loci_allocator_t *dram = loci_allocator_create(""), *ssd = loci_allocator_create("kind=ssd!");
    char *d = loci_alloc(dram, 100000), *f = loci_alloc(ssd, 5 * MB);
    assert_non_null(d);
    assert_non_null(f);
    char *r = loci_persist_open(unique_name("range"), 2 * MB, PAGED, LOCI_CREATE);
    assert_non_null(r);
    char *ptrs[] = {d, f, r};
    for (int i = 0; i < 3; i++) {
        memset(ptrs[i] + 10, i + 1, 50000);
        assert_int_equal(loci_range_flush(ptrs[i] + 10, 50000), 0);
        assert_int_equal(loci_range_evict(ptrs[i] + 10, 50000), 0);
        assert_int_equal(loci_range_prefetch(ptrs[i], 50000), 0);
        assert_int_equal(ptrs[i][50009], i + 1);
        assert_int_equal(loci_range_flush(ptrs[i], 0), 0);
        assert_int_equal(loci_range_flush(ptrs[i] + 10, 100 * MB), LOCI_EINVAL);
        assert_non_null(strstr(loci_last_error(), "past the end"));
    }
    int local;
    assert_int_equal(loci_range_flush(&local, 4), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "neither"));
    assert_int_equal(loci_range_prefetch(NULL, 4), LOCI_EINVAL);
    loci_cache_stats_t st;
    assert_int_equal(loci_cache_stats(d, &st), LOCI_ENOENT);
    assert_int_equal(loci_cache_stats(NULL, NULL), LOCI_EINVAL);
    assert_int_equal(loci_cache_stats(NULL, &st), 0);
    assert_true(st.misses > 0);
    loci_free(d);
    loci_free(f);
    assert_int_equal(loci_persist_close(r), 0);
    assert_int_equal(loci_persist_remove(unique_name("range"), PAGED), 0);
}

/* Every address of an open region names the region's target, as any loci
 * memory does; a region is not an arena, nor a block: it is closed, never
 * freed, and its memory names nothing once closed. */
static void region_memory_names_its_target(void **state)
{
    const loci_target_t *ssd = loci_target_by_name("ssd0");
    const char *name = unique_name("named");
    struct {
        const char *intent;
        unsigned flags;
    } opens[] = {
        {PAGED, LOCI_CREATE},                                      /* chunk files, loci's cache */
        {"persist,mode=mmap", LOCI_CREATE},                        /* a flat file, mapped */
        {"persist,mode=mmap", LOCI_SHARED},                        /* the page cache's one copy */
        {"persist,mode=paged!,cache=1MiB,chunk=64KiB", 0},         /* a flat file, loci's cache */
        {"persist,mode=mmap", LOCI_READONLY},
    };
    for (int k = 0; k < 5; k++) {
        if (k == 1) /* the flat layout from here on */
            assert_int_equal(loci_persist_remove(name, PAGED), 0);
        char *r = loci_persist_open(name, 2 * MB, opens[k].intent, opens[k].flags);
        if (!r)
            fail_msg("%s: %s", opens[k].intent, loci_last_error());
        char *inside[] = {r, r + 12345, r + 2 * MB - 1};
        for (int i = 0; i < 3; i++) {
            const loci_target_t *t = loci_ptr_target(inside[i]);
            if (t != ssd)
                fail_msg("%s, byte %td: %s", opens[k].intent, inside[i] - r, t ? "another target" : loci_last_error());
        }
        errno = 0;
        assert_null(loci_ptr_arena(r + 100));
        assert_int_equal(errno, ENOENT);
        assert_int_equal(loci_usable_size(r), 0); /* not a block */
        if (!(opens[k].flags & LOCI_READONLY)) {
            r[100] = 42;
            loci_free(r); /* refused: the region stays open, its data intact */
            if (!strstr(loci_last_error(), "loci_region_close"))
                fail_msg("%s: loci_free said \"%s\"", opens[k].intent, loci_last_error());
            assert_non_null(strstr(loci_last_error(), name));
            assert_int_equal(loci_persist_size(r), 2 * MB);
            assert_int_equal(r[100], 42);
            assert_null(loci_realloc(r + 4096, 100));
            assert_non_null(strstr(loci_last_error(), "loci_region_close"));
        }
        assert_int_equal(loci_persist_close(r), 0);
        errno = 0;
        assert_null(loci_ptr_target(r + 12345)); /* closed: gone */
        assert_int_equal(errno, ENOENT);
        assert_non_null(strstr(loci_last_error(), "not memory loci allocated"));
    }
    assert_int_equal(loci_persist_remove(name, NULL), 0);
}

/* The file behind a file-tier block, and its blocks on disk. */
static void file_of(const void *p, char *path, size_t len, struct stat *st)
{
    assert_int_equal(provider_file_path(p, path, len, NULL), 0);
    assert_int_equal(stat(path, st), 0);
}

static bool mapped_shared(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[600];
    bool shared = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && (uintptr_t)p >= lo && (uintptr_t)p < hi)
            shared = perms[3] == 's';
    }
    fclose(f);
    return shared;
}

static void mmap_mode_allocations(void **state)
{
    loci_allocator_t *a = loci_allocator_create("kind=ssd!,mode=mmap");
    char *big1 = loci_alloc(a, 8 * MB), *big2 = loci_alloc(a, 8 * MB), *s1 = loci_alloc(a, 64), *s2 = loci_alloc(a, 64);
    char p1[4096], p2[4096], p3[4096], p4[4096];
    struct stat st1, st2, st3, st4;
    file_of(big1, p1, sizeof p1, &st1);
    file_of(big2, p2, sizeof p2, &st2);
    file_of(s1, p3, sizeof p3, &st3);
    file_of(s2, p4, sizeof p4, &st4);
    assert_string_not_equal(p1, p2); /* large blocks: a file each */
    assert_string_equal(p3, p4);     /* small ones: pooled in one */
    assert_int_equal(st1.st_mode & 07777, 0600);
    assert_true(st1.st_size >= (off_t)(8 * MB));
    assert_true((size_t)st1.st_blocks * 512 >= 8 * MB); /* reserved before any write */
    assert_true(mapped_shared(big1));
    memset(big1, 3, 8 * MB);
    assert_int_equal(loci_range_flush(big1, 8 * MB), 0);
    int fd = open(p1, O_RDONLY);
    char c = 0;
    assert_int_equal(pread(fd, &c, 1, 4 * MB), 1);
    close(fd);
    assert_int_equal(c, 3); /* MAP_SHARED: the file has it */
    loci_free(big1);
    assert_int_equal(access(p1, F_OK), -1);
    loci_free(big2);
    loci_free(s1);
    loci_free(s2);
}

/* In the child: it reads what its parent wrote, then writes, frees and
 * allocates as it likes; the exit status says what went wrong. */
static int child_uses_inherited(loci_allocator_t *a, uint64_t *big, uint64_t *small)
{
    for (size_t i = 0; i < 8 * MB / 8; i += 61)
        if (big[i] != word(i, 1))
            return 2;
    if (small[0] != word(0, 1) || mapped_shared(big))
        return 3;
    fill(big, 8 * MB, 2);
    small[0] = word(0, 2);
    loci_free(big); /* the extent's file is the parent's: not removed here */
    loci_free(small);
    for (int round = 0; round < 4; round++) { /* the freed extents and slab slots, handed out here again */
        uint64_t *b = loci_alloc(a, 8 * MB), *s = loci_calloc(a, 1, 64);
        if (!b || !s || s[0] != 0)
            return 4;
        fill(b, 8 * MB, 3);
        s[0] = word(0, 3);
        loci_free(b);
        loci_free(s);
    }
    return 0;
}

static void forked_child_detaches_mmap_memory(void **state)
{
    loci_allocator_t *a = loci_allocator_create("kind=ssd!,mode=mmap");
    uint64_t *big = loci_alloc(a, 8 * MB), *small = loci_alloc(a, 64);
    assert_non_null(big);
    assert_non_null(small);
    char path[4096];
    struct stat st;
    file_of(big, path, sizeof path, &st);
    fill(big, 8 * MB, 1);
    small[0] = word(0, 1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(child_uses_inherited(a, big, small));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    check(big, 8 * MB, 1); /* none of the child's stores, purges or frees reached the parent */
    assert_true(small[0] == word(0, 1));
    assert_true(mapped_shared(big));
    assert_int_equal(loci_range_flush(big, 8 * MB), 0);
    int fd = open(path, O_RDONLY); /* its file still there, with the parent's data */
    assert_true(fd >= 0);
    uint64_t w = 0;
    assert_int_equal(pread(fd, &w, 8, 61 * 8), 8);
    close(fd);
    assert_true(w == word(61, 1));
    loci_free(big);
    loci_free(small);
}

/* A thread allocating and freeing mmap-mode blocks (a file each, unlinked
 * when freed) while the main thread forks. */
typedef struct {
    loci_allocator_t *a;
    atomic_bool stop;
    atomic_uint freed;
} churn_t;

static void *churn_files(void *arg)
{
    churn_t *c = arg;
    while (!atomic_load(&c->stop)) {
        uint64_t *p = loci_alloc(c->a, 4 * MB);
        if (p) {
            p[0] = 1;
            loci_free(p);
            atomic_fetch_add(&c->freed, 1);
        }
    }
    return NULL;
}

/* 30 children forked while another thread frees blocks: each child gets a
 * private view of every block its parent had at the fork, the one being
 * freed included — before the fix, the parent's free could unlink a block's
 * file between the fork and the child's opening it by name, and 5 to 14 of
 * 30 children stopped with SIGABRT ("cannot detach file memory ... No such
 * file or directory"). */
static void forked_children_detach_while_a_thread_frees(void **state)
{
    churn_t c = {.a = loci_allocator_create("kind=ssd!,mode=mmap")};
    assert_non_null(c.a);
    uint64_t *kept = loci_alloc(c.a, 4 * MB);
    assert_non_null(kept);
    fill(kept, 4 * MB, 1);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churn_files, &c), 0);
    while (atomic_load(&c.freed) == 0)
        usleep(100);
    int stopped = 0;
    for (int i = 0; i < 30; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) { /* its view of kept is its own: it writes there and leaves its parent's alone */
            for (size_t k = 0; k < 4 * MB / 8; k += 61)
                if (kept[k] != word(k, 1))
                    _exit(2);
            fill(kept, 4 * MB, 2);
            _exit(mapped_shared(kept) ? 3 : 0);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            print_message("child %d: %s %d\n", i, WIFEXITED(status) ? "exit" : "signal",
                          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            stopped++;
        }
    }
    atomic_store(&c.stop, true);
    pthread_join(t, NULL);
    print_message("  30 forks while a thread freed %u blocks: %d children failed\n", atomic_load(&c.freed), stopped);
    assert_int_equal(stopped, 0);
    check(kept, 4 * MB, 1);
    loci_free(kept);
    loci_allocator_destroy(c.a);
}

typedef struct {
    char *p;
    size_t size;
    atomic_bool done;
} writer_t;

static void *write_all(void *arg)
{
    writer_t *w = arg;
    memset(w->p, 2, w->size);
    atomic_store(&w->done, true);
    return NULL;
}

/* A paged region (4 MiB, 2 MiB cache) whose directory is removed under its
 * writer, which then writes past its cache: the writer is let go after the
 * file tier's patience (5 s) instead of waiting at the dirty limit for
 * ever (before: still writing when killed after 30 s), and the next sync
 * fails with LOCI_EIO saying unflushed pages were lost and which file could
 * not be written; the region still closes. */
static void region_directory_removed_under_its_writer(void **state)
{
    const char *name = unique_name("gone");
    char *p = loci_region_open(name, 4 * MB, "persist,mode=paged,cache=2MiB", LOCI_REGION_CREATE);
    assert_non_null(p);
    memset(p, 1, MB);
    assert_int_equal(loci_region_sync(p), 0);
    char path[4096];
    region_path(name, path, sizeof path);
    assert_int_equal(remove_tree(path), 0);
    writer_t w = {p, 4 * MB, false};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, write_all, &w), 0);
    for (int tenths = 0; tenths < 1200 && !atomic_load(&w.done); tenths++) /* a hang fails, after 2 min */
        usleep(100 * 1000);
    if (!atomic_load(&w.done))
        fail_msg("the writer of a region whose directory was removed still waits after 120 s");
    pthread_join(t, NULL);
    assert_int_equal(loci_region_sync(p), LOCI_EIO);
    assert_non_null(strstr(loci_last_error(), "unflushed pages lost"));
    assert_non_null(strstr(loci_last_error(), path));
    loci_region_close(p); /* its chunks still dirty cannot be written either: it says so, and closes */
}

static void stats_table(void **state)
{
    loci_allocator_t *a = loci_allocator_create("kind=ssd!,mode=paged,cache=1MiB,chunk=64KiB");
    char *p = loci_alloc(a, 4 * MB);
    assert_non_null(p);
    memset(p, 1, 4 * MB);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    loci_stats_print(f);
    fclose(f);
    assert_non_null(strstr(buf, "PAGED"));
    assert_non_null(strstr(buf, "EVICTIONS"));
    assert_non_null(strstr(buf, "1.0 MiB")); /* the cache's size */
    free(buf);
    loci_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regions_kept_across_reopen),
        cmocka_unit_test(bad_names_sizes_flags),
        cmocka_unit_test(unsafe_tier_dirs_and_planted_files),
        cmocka_unit_test(locking),
        cmocka_unit_test(range_calls),
        cmocka_unit_test(region_memory_names_its_target),
        cmocka_unit_test(mmap_mode_allocations),
        cmocka_unit_test(forked_child_detaches_mmap_memory),
        cmocka_unit_test(forked_children_detach_while_a_thread_frees),
        cmocka_unit_test(region_directory_removed_under_its_writer),
        cmocka_unit_test(stats_table),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
