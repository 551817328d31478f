/*
 * Persistent regions in chunk layout (mode=paged; provider/chunked.h): the
 * directory with its meta file and sparse chunk files, data across close,
 * reopen and a process restart, copy-on-write of chunk files linked
 * elsewhere (as a checkpoint links them) and in-place writes of the others,
 * reload after a chunk file was replaced, the LOCI_READONLY and LOCI_SHARED
 * rules, removal that leaves other links alone, copy-on-write files of dead
 * processes cleaned at open, discard, bad meta files, threads writing a
 * region whose every chunk is shared, and a process killed while copying.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "provider/provider.h"
#include "loci.h"
#include "support/scratch.h"
#include "support/child.h"
#include "chunkstore/chunkstore.h"
#include "paged/paged.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KB ((size_t)1 << 10)
#define MB ((size_t)1 << 20)
#define CHUNK (64 * KB)
#define PAGED "persist,mode=paged,cache=1MiB,chunk=64KiB"

static size_t page;

static int setup(void **state)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    return loci_init();
}

static const char *store_dir(void) { return loci_target_path(loci_target_by_name("ssd0")); }

static void region_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s.region", store_dir(), name);
}

static void chunk_path(const char *name, uint64_t idx, char *buf, size_t len)
{
    char c[24];
    chunkstore_chunk_name(idx, c);
    snprintf(buf, len, "%s/%s.region/%s", store_dir(), name, c);
}

static uint64_t word(size_t i, int gen) { return (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)gen; }

/* Generation `gen` of the words of [from, to) of the region at p. */
static void fill(void *p, size_t from, size_t to, int gen)
{
    uint64_t *w = p;
    for (size_t i = from / 8; i < to / 8; i++)
        w[i] = word(i, gen);
}

/* buf holds the region's bytes [at, at+len): are they generation gen's? */
static void check_copy(const void *buf, size_t at, size_t len, int gen)
{
    const uint64_t *w = buf;
    for (size_t i = 0; i < len / 8; i++)
        if (w[i] != word(at / 8 + i, gen))
            fail_msg("word %zu: %#llx, expected %#llx (gen %d)", at / 8 + i, (unsigned long long)w[i],
                     (unsigned long long)word(at / 8 + i, gen), gen);
}

static void check(const void *p, size_t from, size_t to, int gen)
{
    check_copy((const char *)p + from, from, to - from, gen);
}

/* The whole file at path (malloc'd), its size in *len. */
static char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        fail_msg("open %s: %s", path, strerror(errno));
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    char *buf = malloc((size_t)st.st_size + 1);
    assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
    close(fd);
    *len = (size_t)st.st_size;
    return buf;
}

static struct stat stat_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        fail_msg("stat %s: %s", path, strerror(errno));
    return st;
}

/* Entries of the directory at path but "." and "..". */
static int entries(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* A scratch directory beside the regions, standing for a checkpoint's. */
static void ckpt_dir(char *buf, size_t len)
{
    snprintf(buf, len, "%s/ckpt-%ld", store_dir(), (long)getpid());
    mkdir(buf, 0700);
}

/* Link chunk idx of the region at base into dir as `as`, as a checkpoint does. */
static void link_chunk(void *base, uint64_t idx, const char *dir, const char *as)
{
    region_chunks_t rc;
    assert_int_equal(paged_chunks(base, &rc), 0);
    char c[24], to[600];
    chunkstore_chunk_name(idx, c);
    snprintf(to, sizeof to, "%s/%s", dir, as);
    if (linkat(rc.dirfd, c, AT_FDCWD, to, 0) != 0)
        fail_msg("link %s -> %s: %s", c, to, strerror(errno));
    close(rc.dirfd);
}

/* ---- children (this program again: a process restart) ------------------------ */

/* restart NAME SIZE: check generation 1, write generation 2 over the first half. */
static int child_restart(char **a)
{
    size_t size = strtoull(a[1], NULL, 10);
    uint64_t *p = loci_persist_open(a[0], 0, NULL, 0); /* no mode: the layout decides */
    if (!p || loci_persist_size(p) != size) {
        fprintf(stderr, "child: open: %s\n", loci_last_error());
        return 1;
    }
    for (size_t i = 0; i < size / 8; i++)
        if (p[i] != word(i, 1)) {
            fprintf(stderr, "child: word %zu is %#llx\n", i, (unsigned long long)p[i]);
            return 2;
        }
    fill(p, 0, size / 2, 2);
    return loci_persist_close(p) == 0 ? 0 : 3;
}

/* relink NAME SIZE DIR: a checkpoint after each generation written, until
 * killed: every chunk file linked into DIR (replacing the previous link), so
 * that the next generation copies every chunk again. Says 'S' after the first. */
static int child_relink(char **a)
{
    size_t size = strtoull(a[1], NULL, 10);
    uint64_t *p = loci_persist_open(a[0], size, PAGED, LOCI_CREATE);
    for (int gen = 1; p; gen++) {
        fill(p, 0, size, gen);
        region_chunks_t rc;
        if (paged_chunks(p, &rc) != 0)
            break;
        for (uint64_t k = 0; k < rc.nchunks; k++) {
            char c[24], tmp[700], to[700];
            chunkstore_chunk_name(k, c);
            snprintf(tmp, sizeof tmp, "%s/tmp", a[2]);
            snprintf(to, sizeof to, "%s/%s", a[2], c);
            unlink(tmp); /* left by a child killed before */
            if (linkat(rc.dirfd, c, AT_FDCWD, tmp, 0) != 0 || rename(tmp, to) != 0)
                return 3;
        }
        close(rc.dirfd);
        if (gen == 1 && write(1, "S", 1) != 1)
            return 4;
    }
    fprintf(stderr, "child: %s\n", loci_last_error());
    return 1;
}

/* ------------------------------------------------------------------------------ */

static void layout_sparse_and_kept(void **state)
{
    const char *name = unique_name("layout");
    size_t size = MB - 100; /* 16 chunks, whole pages */
    uint64_t *p = loci_persist_open(name, size, PAGED, LOCI_CREATE);
    if (!p)
        fail_msg("%s", loci_last_error());
    size = loci_persist_size(p);
    char path[600], meta[700];
    region_path(name, path, sizeof path);
    struct stat st = stat_of(path);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0700);
    snprintf(meta, sizeof meta, "%s/meta", path);
    size_t len;
    char *text = slurp(meta, &len);
    text[len] = '\0';
    assert_string_equal(text, "loci chunked region 1\nsize 1048576\nchunk 65536\n");
    free(text);
    assert_int_equal(entries(path), 1); /* nothing written: no chunk file */

    fill(p, 3 * CHUNK + 100 * 8, 3 * CHUNK + 200 * 8, 1); /* chunks 3 and 10 only */
    fill(p, 10 * CHUNK, 11 * CHUNK, 1);
    assert_int_equal(loci_persist_sync(p), 0);
    assert_int_equal(entries(path), 3);
    char c[700];
    chunk_path(name, 10, c, sizeof c);
    st = stat_of(c);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(st.st_size, CHUNK);
    chunk_path(name, 4, c, sizeof c);
    assert_int_equal(access(c, F_OK), -1);
    assert_int_equal(loci_persist_close(p), 0);

    /* reopened with another chunk size asked: the region's own is used */
    p = loci_persist_open(name, size, "persist,mode=paged,cache=4MiB,chunk=256KiB", 0);
    if (!p)
        fail_msg("%s", loci_last_error());
    region_chunks_t rc;
    assert_int_equal(paged_chunks(p, &rc), 0);
    assert_int_equal(rc.chunk, CHUNK);
    assert_int_equal(rc.nchunks, 16);
    close(rc.dirfd);
    check(p, 3 * CHUNK + 100 * 8, 3 * CHUNK + 200 * 8, 1);
    check(p, 10 * CHUNK, 11 * CHUNK, 1);
    for (size_t i = 0; i < 3 * CHUNK / 8; i++) /* never written: zeros, and still no file */
        assert_int_equal(p[i], 0);
    assert_int_equal(entries(path), 3);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
    assert_int_equal(access(path, F_OK), -1);
}

static void survives_process_restart(void **state)
{
    const char *name = unique_name("restart");
    size_t size = 4 * MB; /* 4x the cache */
    uint64_t *p = loci_persist_open(name, size, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, size, 1);
    assert_int_equal(loci_persist_close(p), 0);
    char sz[32];
    snprintf(sz, sizeof sz, "%zu", size);
    assert_int_equal(child_run((const char *[]){"restart", name, sz, NULL}), 0); /* gen 2 on the first half */
    p = loci_persist_open(name, 0, PAGED, 0);
    assert_non_null(p);
    check(p, 0, size / 2, 2);
    check(p, size / 2, size, 1);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, PAGED), 0);
}

static void copy_on_write_of_linked_chunks(void **state)
{
    const char *name = unique_name("cow");
    size_t size = 2 * MB;
    uint64_t *p = loci_persist_open(name, size, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, size, 1);
    char dir[600], saved[700], c2[700], c5[700];
    ckpt_dir(dir, sizeof dir);
    link_chunk(p, 2, dir, "saved2"); /* writes back and syncs first */
    snprintf(saved, sizeof saved, "%s/saved2", dir);
    chunk_path(name, 2, c2, sizeof c2);
    chunk_path(name, 5, c5, sizeof c5);
    size_t len;
    char *before = slurp(saved, &len);
    assert_int_equal(len, CHUNK);
    struct stat s2 = stat_of(c2), s5 = stat_of(c5);
    assert_int_equal(s2.st_nlink, 2);
    assert_int_equal(s5.st_nlink, 1);

    fill(p, 2 * CHUNK + page, 2 * CHUNK + 2 * page, 7); /* one page of the shared chunk */
    fill(p, 5 * CHUNK, 5 * CHUNK + page, 7);            /* and of one that is not */
    assert_int_equal(loci_persist_sync(p), 0);

    char *after = slurp(saved, &len); /* the checkpoint's copy: bit for bit as it was */
    assert_int_equal(len, CHUNK);
    assert_memory_equal(before, after, CHUNK);
    struct stat n2 = stat_of(c2), n5 = stat_of(c5), ns = stat_of(saved);
    assert_true(n2.st_ino != s2.st_ino); /* a new file for the region */
    assert_int_equal(ns.st_ino, s2.st_ino);
    assert_int_equal(n2.st_nlink, 1);
    assert_int_equal(ns.st_nlink, 1);
    assert_int_equal(n5.st_ino, s5.st_ino); /* not shared: written in place */
    char *region = slurp(c2, &len);
    assert_int_equal(len, CHUNK);
    assert_memory_equal(region, before, page); /* the old contents copied */
    check_copy(region + page, 2 * CHUNK + page, page, 7);
    assert_memory_equal(region + 2 * page, before + 2 * page, CHUNK - 2 * page);
    free(region);
    free(before);
    free(after);
    char rdir[600];
    region_path(name, rdir, sizeof rdir);
    assert_int_equal(entries(rdir), 1 + 32); /* meta and the chunks: no copy-on-write file left */

    /* the region after eviction and reopen: the new data */
    assert_int_equal(loci_range_evict(p, size), 0);
    check(p, 2 * CHUNK + page, 2 * CHUNK + 2 * page, 7);
    check(p, 2 * CHUNK, 2 * CHUNK + page, 1);
    assert_int_equal(loci_persist_close(p), 0);
    p = loci_persist_open(name, 0, PAGED, 0);
    check(p, 2 * CHUNK + page, 2 * CHUNK + 2 * page, 7);
    check(p, 2 * CHUNK + 2 * page, 5 * CHUNK, 1);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
    assert_int_equal(unlink(saved), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void reload_after_a_chunk_is_replaced(void **state)
{
    const char *name = unique_name("reload");
    size_t size = MB;
    uint64_t *p = loci_persist_open(name, size, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, size, 1);
    region_chunks_t rc;
    assert_int_equal(paged_chunks(p, &rc), 0);
    check(p, 0, size, 1); /* cached again */

    /* what a restore does: a new file renamed over chunk 1, another over chunk 3 */
    uint64_t *gen9 = malloc(CHUNK);
    for (size_t i = 0; i < CHUNK / 8; i++)
        gen9[i] = word(CHUNK / 8 + i, 9);
    int fd = openat(rc.dirfd, "restored", O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, gen9, CHUNK), CHUNK);
    close(fd);
    char c1[24];
    chunkstore_chunk_name(1, c1);
    assert_int_equal(renameat(rc.dirfd, "restored", rc.dirfd, c1), 0);
    free(gen9);
    char c3[24];
    chunkstore_chunk_name(3, c3);
    assert_int_equal(unlinkat(rc.dirfd, c3, 0), 0); /* a chunk of zeros in the checkpoint */
    close(rc.dirfd);

    check(p, CHUNK, 2 * CHUNK, 1); /* the cache still has the old contents */
    assert_int_equal(paged_reload(p), 0);
    check(p, 0, CHUNK, 1);
    check(p, CHUNK, 2 * CHUNK, 9);
    for (size_t i = 3 * CHUNK / 8; i < 4 * CHUNK / 8; i++)
        assert_int_equal(p[i], 0);
    check(p, 4 * CHUNK, size, 1);
    assert_int_equal(paged_reload(&page), LOCI_EINVAL);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
}

static void readonly_and_shared_rules(void **state)
{
    const char *name = unique_name("rules");
    uint64_t *w = loci_persist_open(name, MB, PAGED, LOCI_CREATE);
    assert_non_null(w);
    fill(w, 0, MB, 3);
    errno = 0;
    assert_null(loci_persist_open(name, MB, NULL, LOCI_READONLY)); /* a writer has it */
    assert_int_equal(errno, EBUSY);
    assert_int_equal(loci_persist_close(w), 0);

    /* read-only: paged whatever the mode asked (no file to map), private caches */
    const char *modes[] = {NULL, "kind=ssd,mode=mmap", PAGED};
    for (int k = 0; k < 3; k++) {
        uint64_t *r = loci_persist_open(name, 0, modes[k], LOCI_READONLY);
        if (!r)
            fail_msg("%s: %s", modes[k] ? modes[k] : "NULL", loci_last_error());
        uint64_t *r2 = loci_persist_open(name, 0, modes[k], LOCI_READONLY);
        assert_non_null(r2);
        check(r, 0, MB, 3);
        check(r2, 0, MB, 3);
        loci_cache_stats_t st;
        assert_int_equal(loci_cache_stats(r, &st), 0); /* paged */
        errno = 0;
        assert_null(loci_persist_open(name, 0, modes[k], 0));
        assert_int_equal(errno, EBUSY);
        assert_int_equal(loci_persist_close(r2), 0);
        assert_int_equal(loci_persist_close(r), 0);
    }
    /* shared: refused, saying why and what to do */
    unsigned shared[] = {LOCI_SHARED, LOCI_SHARED | LOCI_READONLY};
    for (int k = 0; k < 2; k++) {
        errno = 0;
        assert_null(loci_persist_open(name, 0, NULL, shared[k]));
        assert_int_equal(errno, ENOTSUP);
        assert_non_null(strstr(loci_last_error(), "mode=mmap"));
        assert_non_null(strstr(loci_last_error(), "private cache"));
    }
    errno = 0;
    assert_null(loci_persist_open(name, 0, "persist,access=node", 0));
    assert_int_equal(errno, ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "access=node"));
    assert_null(loci_persist_open(name, 0, "persist,pinned", 0));
    assert_non_null(strstr(loci_last_error(), "pinned"));
    /* writable without mode=paged: paged as well */
    uint64_t *again = loci_persist_open(name, MB, "persist", 0);
    assert_non_null(again);
    check(again, 0, MB, 3);
    assert_int_equal(loci_persist_close(again), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);

    /* a flat region opened with mode=paged keeps its file */
    const char *flat = unique_name("flat");
    uint64_t *f = loci_persist_open(flat, MB, "persist,mode=mmap", LOCI_CREATE);
    assert_non_null(f);
    fill(f, 0, MB, 4);
    assert_int_equal(loci_persist_close(f), 0);
    f = loci_persist_open(flat, MB, PAGED, 0);
    assert_non_null(f);
    check(f, 0, MB, 4);
    region_chunks_t rc;
    assert_int_equal(paged_chunks(f, &rc), 0);
    assert_int_equal(rc.dirfd, -1); /* no chunk files to share */
    assert_int_equal(loci_persist_close(f), 0);
    char path[600];
    region_path(flat, path, sizeof path);
    assert_true(S_ISREG(stat_of(path).st_mode));
    assert_int_equal(loci_persist_remove(flat, NULL), 0);
    assert_int_equal(paged_chunks(&page, &rc), LOCI_EINVAL);
}

static void remove_leaves_other_links(void **state)
{
    const char *name = unique_name("remove");
    uint64_t *p = loci_persist_open(name, MB, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, MB, 5);
    char dir[600], saved[700], path[600];
    ckpt_dir(dir, sizeof dir);
    link_chunk(p, 7, dir, "saved7");
    assert_int_equal(loci_persist_remove(name, NULL), LOCI_EBUSY);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
    region_path(name, path, sizeof path);
    assert_int_equal(access(path, F_OK), -1);
    snprintf(saved, sizeof saved, "%s/saved7", dir);
    size_t len;
    char *kept = slurp(saved, &len);
    assert_int_equal(len, CHUNK);
    check_copy(kept, 7 * CHUNK, CHUNK, 5);
    assert_int_equal(stat_of(saved).st_nlink, 1);
    free(kept);
    unlink(saved);
    rmdir(dir);
}

static void dead_copies_cleaned_at_open(void **state)
{
    const char *name = unique_name("leftover");
    uint64_t *p = loci_persist_open(name, MB, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, MB, 6);
    assert_int_equal(loci_persist_close(p), 0);
    pid_t dead = fork(); /* a pid nobody has any more */
    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    char path[600], gone[800], live[800], c1[24];
    region_path(name, path, sizeof path);
    chunkstore_chunk_name(1, c1);
    snprintf(gone, sizeof gone, "%s/%s.cow.%ld.%ld", path, c1, (long)dead, (long)dead);
    snprintf(live, sizeof live, "%s/%s.cow.%ld.%ld", path, c1, (long)getpid(), 1l);
    for (int i = 0; i < 2; i++) {
        int fd = open(i ? live : gone, O_WRONLY | O_CREAT | O_EXCL, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "half a copy", 11), 11);
        close(fd);
    }
    p = loci_persist_open(name, 0, NULL, LOCI_READONLY); /* a reader leaves them */
    assert_non_null(p);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(access(gone, F_OK), 0);
    p = loci_persist_open(name, 0, NULL, 0);
    assert_non_null(p);
    assert_int_equal(access(gone, F_OK), -1); /* its process is dead */
    assert_int_equal(access(live, F_OK), 0);  /* ours is alive */
    check(p, 0, MB, 6);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0); /* takes it too */
    assert_int_equal(access(path, F_OK), -1);
}

static void discard_whole_and_partial_chunks(void **state)
{
    const char *name = unique_name("discard");
    char *p = loci_persist_open(name, MB, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, MB, 8);
    char dir[600], saved[700], c3[700], c4[700];
    ckpt_dir(dir, sizeof dir);
    link_chunk(p, 4, dir, "saved4");
    snprintf(saved, sizeof saved, "%s/saved4", dir);
    chunk_path(name, 3, c3, sizeof c3);
    chunk_path(name, 4, c4, sizeof c4);
    size_t len;
    char *before = slurp(saved, &len);
    assert_int_equal(provider_paged.purge(p + 3 * CHUNK, CHUNK), 0); /* whole: the file goes */
    assert_int_equal(access(c3, F_OK), -1);
    assert_int_equal(provider_paged.purge(p + 4 * CHUNK + page, page), 0); /* part of a shared one: a copy */
    assert_int_equal(loci_persist_sync(p), 0);
    for (size_t i = 3 * CHUNK; i < 4 * CHUNK; i++)
        assert_int_equal(p[i], 0);
    for (size_t i = 4 * CHUNK + page; i < 4 * CHUNK + 2 * page; i++)
        assert_int_equal(p[i], 0);
    check(p, 4 * CHUNK, 4 * CHUNK + page, 8);
    check(p, 4 * CHUNK + 2 * page, 5 * CHUNK, 8);
    char *after = slurp(saved, &len);
    assert_memory_equal(before, after, CHUNK);
    assert_true(stat_of(c4).st_ino != stat_of(saved).st_ino);
    free(before);
    free(after);
    assert_int_equal(loci_persist_close(p), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
    unlink(saved);
    rmdir(dir);
}

static void bad_meta_files(void **state)
{
    const char *name = unique_name("meta");
    char path[600], meta[700];
    region_path(name, path, sizeof path);
    snprintf(meta, sizeof meta, "%s/meta", path);
    const char *bad[] = {NULL, "garbage\n", "loci chunked region 2\nsize 4096\nchunk 4096\n",
                         "loci chunked region 1\nsize 1000\nchunk 4096\n"};
    const char *says[] = {"no meta file", "not a loci region", "version 2", "whole pages"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(mkdir(path, 0700), 0);
        if (bad[k]) {
            FILE *f = fopen(meta, "w");
            fputs(bad[k], f);
            fclose(f);
        }
        errno = 0;
        assert_null(loci_persist_open(name, 0, NULL, 0));
        if (!strstr(loci_last_error(), says[k]))
            fail_msg("\"%s\" lacks \"%s\"", loci_last_error(), says[k]);
        assert_int_equal(loci_persist_remove(name, NULL), 0); /* a broken region can be removed */
    }
    /* a size other than the region's */
    uint64_t *p = loci_persist_open(name, MB, PAGED, LOCI_CREATE);
    assert_non_null(p);
    assert_int_equal(loci_persist_close(p), 0);
    errno = 0;
    assert_null(loci_persist_open(name, 2 * MB, NULL, 0));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(loci_last_error(), "holds 1.0 MiB"));
    /* others may not get in */
    assert_int_equal(chmod(path, 0755), 0);
    assert_null(loci_persist_open(name, 0, NULL, 0));
    assert_non_null(strstr(loci_last_error(), "0700"));
    assert_int_equal(chmod(path, 0700), 0);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
    /* a tier with too little space for a new region */
    errno = 0;
    assert_null(loci_persist_open(name, (size_t)1 << 50, PAGED, LOCI_CREATE));
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(access(path, F_OK), -1);
}

typedef struct {
    uint64_t *p;
    size_t from, to;
} part_t;

static void *writer(void *arg)
{
    part_t *w = arg;
    for (int gen = 20; gen < 23; gen++)
        fill(w->p, w->from, w->to, gen);
    return NULL;
}

static void threads_over_shared_chunks(void **state)
{
    const char *name = unique_name("threads");
    size_t size = 4 * MB; /* 4x the cache: evictions copy chunk files from the fault threads */
    uint64_t *p = loci_persist_open(name, size, PAGED, LOCI_CREATE);
    assert_non_null(p);
    fill(p, 0, size, 10);
    char dir[600];
    ckpt_dir(dir, sizeof dir);
    for (uint64_t k = 0; k < size / CHUNK; k++) {
        char as[32];
        snprintf(as, sizeof as, "s%llu", (unsigned long long)k);
        link_chunk(p, k, dir, as);
    }
    pthread_t t[4];
    part_t parts[4];
    for (int i = 0; i < 4; i++) {
        parts[i] = (part_t){p, i * size / 4, (i + 1) * size / 4};
        assert_int_equal(pthread_create(&t[i], NULL, writer, &parts[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(loci_persist_close(p), 0);
    p = loci_persist_open(name, 0, PAGED, 0);
    check(p, 0, size, 22);
    assert_int_equal(loci_persist_close(p), 0);
    for (uint64_t k = 0; k < size / CHUNK; k++) { /* every saved chunk as it was */
        char as[700];
        snprintf(as, sizeof as, "%s/s%llu", dir, (unsigned long long)k);
        size_t len;
        char *c = slurp(as, &len);
        assert_int_equal(len, CHUNK);
        check_copy(c, k * CHUNK, CHUNK, 10);
        free(c);
        unlink(as);
    }
    rmdir(dir);
    assert_int_equal(loci_persist_remove(name, NULL), 0);
}

/* Generation of word i of a region filled by fill(), 0 for garbage. */
static uint64_t gen_of(uint64_t w, size_t i)
{
    uint64_t g = w - word(i, 0);
    return g >= 1 && g < 1000000 ? g : 0;
}

/* Copy-on-write files in the region directory at path. */
static int cow_files(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".cow.") != NULL;
    closedir(d);
    return n;
}

static void copy_on_write_killed(void **state)
{
    const char *name = unique_name("killed");
    size_t size = 4 * MB; /* 4x the cache: copies from evictions and flushes */
    char dir[600], sz[32], path[600];
    ckpt_dir(dir, sizeof dir);
    snprintf(sz, sizeof sz, "%zu", size);
    region_path(name, path, sizeof path);
    for (int round = 0; round < 4; round++) {
        child_t kid = child_spawn((const char *[]){"relink", name, sz, dir, NULL}, NULL, -1);
        char c = 0;
        if (read(kid.out, &c, 1) != 1 || c != 'S')
            fail_msg("the child did not start (status %d)", child_reap(&kid));
        usleep(10000 + 40000 * (useconds_t)round); /* in the middle of copies */
        kill(kid.pid, SIGKILL);
        assert_int_equal(child_reap(&kid), 128 + SIGKILL);

        int left = cow_files(path);
        uint64_t *p = loci_persist_open(name, size, PAGED, 0);
        if (!p)
            fail_msg("%s", loci_last_error());
        assert_int_equal(cow_files(path), 0); /* the dead child's copies are gone */
        uint64_t newest = 0;
        for (size_t i = 0; i < size / 8; i++) { /* each word a generation written, never garbage */
            uint64_t g = gen_of(p[i], i);
            if (!g)
                fail_msg("round %d: word %zu is garbage: %#llx", round, i, (unsigned long long)p[i]);
            newest = g > newest ? g : newest;
        }
        for (uint64_t k = 0; k < size / CHUNK; k++) { /* each checkpointed chunk one whole generation */
            char as[700], cn[24];
            chunkstore_chunk_name(k, cn);
            snprintf(as, sizeof as, "%s/%s", dir, cn);
            size_t len;
            char *saved = slurp(as, &len);
            assert_int_equal(len, CHUNK);
            uint64_t g = gen_of(((uint64_t *)saved)[0], k * CHUNK / 8);
            assert_true(g >= 1 && g <= newest);
            check_copy(saved, k * CHUNK, CHUNK, (int)g);
            free(saved);
        }
        print_message("  round %d: killed at generation %llu with %d copies half made; removed at open, "
                      "checkpoint whole\n", round, (unsigned long long)newest, left);
        assert_int_equal(loci_persist_close(p), 0);
    }
    assert_int_equal(loci_persist_remove(name, NULL), 0);
    for (uint64_t k = 0; k < size / CHUNK; k++) {
        char as[700], cn[24];
        chunkstore_chunk_name(k, cn);
        snprintf(as, sizeof as, "%s/%s", dir, cn);
        unlink(as);
    }
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    unlink(tmp);
    assert_int_equal(rmdir(dir), 0);
}

int main(int argc, char **argv)
{
    static const child_role_t roles[] = {{"restart", 2, child_restart}, {"relink", 3, child_relink}, {NULL, 0, NULL}};
    int status;
    if (child_dispatch(argc, argv, roles, &status))
        return status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_sparse_and_kept),
        cmocka_unit_test(survives_process_restart),
        cmocka_unit_test(copy_on_write_of_linked_chunks),
        cmocka_unit_test(reload_after_a_chunk_is_replaced),
        cmocka_unit_test(readonly_and_shared_rules),
        cmocka_unit_test(remove_leaves_other_links),
        cmocka_unit_test(dead_copies_cleaned_at_open),
        cmocka_unit_test(discard_whole_and_partial_chunks),
        cmocka_unit_test(bad_meta_files),
        cmocka_unit_test(threads_over_shared_chunks),
        cmocka_unit_test(copy_on_write_killed),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
