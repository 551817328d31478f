/*
 * Checkpoint and restart within one process (loci.h "checkpoint"): DRAM
 * variables of every kind saved, changed and restored bit for bit;
 * incremental saves that write nothing for unchanged data; regions in chunk
 * layout linked, not copied, and left intact by later writes (COW); copies
 * instead of links across file systems; GC that deletes exactly the chunks
 * no manifest refers to; and bad input: names, ranges, sizes, unknown and
 * corrupt checkpoints, each refused before anything is overwritten.
 * Several processes (restart, kill -9, full disk): test_ckpt_proc.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ckpt_testlib.h"
#include "support/scratch.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define PAGED "persist,mode=paged,cache=1MiB,chunk=64KiB"

static int setup(void **state) { return loci_init(); }

#define OK(call)                                                                                         \
    do {                                                                                                 \
        int rc_ = (call);                                                                                \
        if (rc_ != 0)                                                                                    \
            fail_msg("%s: %s: %s", #call, loci_strerror(rc_), loci_last_error());                         \
    } while (0)

/* call fails with code and a message containing each of the strings. */
static void refused(int rc, int code, const char *const *words)
{
    if (rc != code)
        fail_msg("returned %d (%s), expected %d; message: %s", rc, loci_strerror(rc), code, loci_last_error());
    for (; *words; words++)
        if (!strstr(loci_last_error(), *words))
            fail_msg("message lacks \"%s\": %s", *words, loci_last_error());
}
#define REFUSED(call, code, ...) refused((call), (code), (const char *const[]){__VA_ARGS__, NULL})

static loci_ckpt_stats_t last(void)
{
    loci_ckpt_stats_t st;
    OK(loci_ckpt_last_save(&st));
    return st;
}

static void unregister_all(const char *const *names)
{
    for (; *names; names++)
        OK(loci_ckpt_unregister(*names));
}

/* Pool id of chunk i of variable `var` in checkpoint `ckpt`. */
static uint64_t chunk_id(const char *ckpt, ckpt_kind_t kind, const char *var, uint64_t i)
{
    int dir = open(ckpt_dir(), O_RDONLY | O_DIRECTORY);
    ckpt_manifest_t m;
    assert_int_equal(ckpt_manifest_read(dir, ckpt, &m), 0);
    close(dir);
    const ckpt_var_t *v = ckpt_manifest_find(&m, kind, var);
    assert_non_null(v);
    assert_true(i < v->nchunks);
    uint64_t id = v->chunks[i].id;
    ckpt_manifest_free(&m);
    return id;
}

static void pool_path(uint64_t id, char *buf, size_t len) { snprintf(buf, len, "%s/chunks/%016llx", ckpt_dir(), (unsigned long long)id); }

/* ------------------------------------------------------------------------ */

static char static_var[3 * MB + 123];

static void bad_names_and_ranges(void **state)
{
    static char a[4096];
    REFUSED(loci_ckpt_register("v", NULL, 10), LOCI_EINVAL, "\"v\"", "NULL");
    REFUSED(loci_ckpt_register("v", a, 0), LOCI_EINVAL, "\"v\"", "length 0");
    const char *bad[] = {"", "../etc", "a/b", ".hidden", "-x", "a..b", "sp ace", NULL};
    for (int i = 0; bad[i]; i++) {
        REFUSED(loci_ckpt_register(bad[i], a, 8), LOCI_EINVAL, "checkpoint variable name");
        REFUSED(loci_ckpt_save(bad[i]), LOCI_EINVAL, "checkpoint name");
        REFUSED(loci_ckpt_restore(bad[i]), LOCI_EINVAL, "checkpoint name");
        REFUSED(loci_ckpt_remove(bad[i]), LOCI_EINVAL, "checkpoint name");
        REFUSED(loci_ckpt_verify(bad[i]), LOCI_EINVAL, "checkpoint name");
    }
    char longname[200];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    REFUSED(loci_ckpt_register(longname, a, 8), LOCI_EINVAL, "characters");
    REFUSED(loci_ckpt_save(NULL), LOCI_EINVAL, "NULL");

    OK(loci_ckpt_register("first", a, 1000));
    REFUSED(loci_ckpt_register("second", a + 999, 10), LOCI_EINVAL, "\"second\"", "\"first\"", "overlaps");
    REFUSED(loci_ckpt_register("second", a + 500, 10), LOCI_EINVAL, "\"second\"", "\"first\"");
    OK(loci_ckpt_register("second", a + 1000, 10)); /* adjacent is fine */
    REFUSED(loci_ckpt_register("first", a + 2000, 10), LOCI_EEXIST, "\"first\"", "registered already");
    REFUSED(loci_ckpt_unregister("third"), LOCI_ENOENT, "\"third\"");
    unregister_all((const char *[]){"first", "second", NULL});
    REFUSED(loci_ckpt_save("nothing"), LOCI_ENOENT, "nothing to save");
    REFUSED(loci_ckpt_restore("nothing"), LOCI_ENOENT, "nothing to restore");
}

/* Memory the CPU cannot read is refused when registered (PROT_NONE, not
 * mapped at all), a save that meets a registered page made unreadable since
 * fails with the variable's name instead of crashing, and a restore into
 * read-only memory is refused before anything is written. */
static void unreadable_memory_refused(void **state)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *none = mmap(NULL, 3 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(none != MAP_FAILED);
    REFUSED(loci_ckpt_register("guard", none, pg), LOCI_ENOTSUP, "\"guard\"", "cannot read");
    assert_int_equal(munmap(none + pg, pg), 0); /* a hole in the middle */
    assert_int_equal(mprotect(none, pg, PROT_READ | PROT_WRITE), 0);
    REFUSED(loci_ckpt_register("holey", none, 3 * pg), LOCI_ENOTSUP, "\"holey\"", "cannot read");

    char *later = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(later != MAP_FAILED);
    memset(later, 7, 2 * pg);
    OK(loci_ckpt_register("later", later, 2 * pg));
    assert_int_equal(mprotect(later + pg, pg, PROT_NONE), 0);
    REFUSED(loci_ckpt_save("unreadable"), LOCI_ENOTSUP, "\"later\"", "cannot read");
    assert_int_equal(mprotect(later + pg, pg, PROT_READ), 0);
    OK(loci_ckpt_save("unreadable"));
    REFUSED(loci_ckpt_restore("unreadable"), LOCI_ENOTSUP, "\"later\"", "not all writable", "nothing restored");
    assert_int_equal(later[0], 7);
    OK(loci_ckpt_unregister("later"));
    OK(loci_ckpt_remove("unreadable"));
    munmap(later, 2 * pg);
    munmap(none, 3 * pg);
}

/* LOCI_CKPT_DIR below a symbolic link planted in a parent (where links are
 * not protected) would send the checkpoints elsewhere: refused, as is a
 * parent anyone can write to; by its real path the directory is fine. */
static void ckpt_dir_parents_checked(void **state)
{
    char base[] = "/tmp/loci-test-ckptdir-XXXXXX", path[200];
    assert_non_null(mkdtemp(base));
    char *saved = getenv("LOCI_CKPT_DIR") ? strdup(getenv("LOCI_CKPT_DIR")) : NULL;
    static char value[1024];
    OK(loci_ckpt_register("tiny", value, sizeof value));
    snprintf(path, sizeof path, "%s/real", base);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/link", base);
    assert_int_equal(symlink("real", path), 0);
    snprintf(path, sizeof path, "%s/link/ckpt", base);
    setenv("LOCI_CKPT_DIR", path, 1);
    REFUSED(loci_ckpt_save("redirected"), LOCI_EPERM, "symbolic link", "link");
    snprintf(path, sizeof path, "%s/real/ckpt", base);
    assert_int_equal(access(path, F_OK), -1); /* nothing made through the link */
    snprintf(path, sizeof path, "%s/open", base);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(chmod(path, 0777), 0);
    snprintf(path, sizeof path, "%s/open/ckpt", base);
    setenv("LOCI_CKPT_DIR", path, 1);
    REFUSED(loci_ckpt_save("open"), LOCI_EPERM, "writable by others");
    snprintf(path, sizeof path, "%s/real/ckpt", base);
    setenv("LOCI_CKPT_DIR", path, 1);
    OK(loci_ckpt_save("real"));
    OK(loci_ckpt_unregister("tiny"));
    if (saved)
        setenv("LOCI_CKPT_DIR", saved, 1);
    else
        unsetenv("LOCI_CKPT_DIR");
    free(saved);
    remove_tree(base);
}

static void dram_save_change_restore(void **state)
{
    size_t heap_size = 2 * MB + 8, dram_size = MB, ssd_size = 2 * MB;
    char *heap = malloc(heap_size);
    loci_allocator_t *dram = loci_allocator_create("kind=dram");
    loci_allocator_t *ssd = loci_allocator_create("kind=ssd!,mode=paged,cache=1MiB,chunk=64KiB");
    assert_non_null(dram);
    assert_non_null(ssd);
    char *d = loci_alloc(dram, dram_size), *s = loci_alloc(ssd, ssd_size);
    assert_non_null(heap);
    assert_non_null(d);
    assert_non_null(s);
    OK(loci_ckpt_register("static", static_var, sizeof static_var));
    OK(loci_ckpt_register("heap", heap, heap_size));
    OK(loci_ckpt_register("dram", d, dram_size));
    OK(loci_ckpt_register("ssd", s, ssd_size));
    for (uint64_t gen = 1; gen <= 2; gen++) {
        fill(static_var, sizeof static_var, gen);
        fill(heap, heap_size, gen);
        fill(d, dram_size, gen);
        fill(s, ssd_size, gen);
        OK(loci_ckpt_save(gen == 1 ? "dram-1" : "dram-2"));
    }
    loci_ckpt_stats_t st = last();
    assert_int_equal(st.vars, 4);
    assert_int_equal(st.bytes, sizeof static_var + heap_size + dram_size + ssd_size);
    fill(static_var, sizeof static_var, 3);
    memset(heap, 0, heap_size);
    fill(s, ssd_size, 3);
    for (int round = 0; round < 2; round++) {
        uint64_t gen = round == 0 ? 1 : 2;
        OK(loci_ckpt_restore(gen == 1 ? "dram-1" : "dram-2"));
        assert_int_equal(gen_of(static_var, sizeof static_var - 123), gen);
        assert_int_equal(gen_of(heap, heap_size), gen);
        assert_int_equal(gen_of(d, dram_size), gen);
        assert_int_equal(gen_of(s, ssd_size), gen);
    }
    /* the tail past the last whole word, too */
    static char want[3 * MB + 123];
    fill(want, sizeof want, 2);
    assert_memory_equal(static_var, want, sizeof want);
    OK(loci_ckpt_verify("dram-1"));
    unregister_all((const char *[]){"static", "heap", "dram", "ssd", NULL});
    free(heap);
    loci_free(d);
    loci_free(s);
    loci_allocator_destroy(dram);
    loci_allocator_destroy(ssd);
}

static void incremental_saves_write_only_changes(void **state)
{
    size_t size = 8 * MB;
    char *v = malloc(size), *z = calloc(1, 4 * MB);
    assert_non_null(v);
    assert_non_null(z);
    fill(v, size, 11);
    OK(loci_ckpt_register("inc", v, size));
    OK(loci_ckpt_register("zeros", z, 4 * MB));
    OK(loci_ckpt_save("inc-1"));
    loci_ckpt_stats_t st = last();
    assert_int_equal(st.chunks_written, 8);
    assert_int_equal(st.chunks_zero, 4);
    assert_true(st.bytes_written >= size && st.bytes_written < size + 4096); /* data + manifest */

    OK(loci_ckpt_save("inc-2")); /* nothing changed */
    st = last();
    print_message("  unchanged: %llu chunks written, %llu shared, %llu bytes written (the manifest)\n",
                  (unsigned long long)st.chunks_written, (unsigned long long)st.chunks_shared,
                  (unsigned long long)st.bytes_written);
    assert_int_equal(st.chunks_written, 0);
    assert_int_equal(st.chunks_shared, 8);
    assert_true(st.bytes_written < 4096);

    v[5 * MB + 17] ^= 1; /* one chunk changed */
    z[3 * MB] = 1;       /* a zero chunk no more */
    OK(loci_ckpt_save("inc-3"));
    st = last();
    assert_int_equal(st.chunks_written, 2);
    assert_int_equal(st.chunks_shared, 7);
    assert_int_equal(st.chunks_zero, 3);
    assert_int_equal(chunk_id("inc-3", CKPT_MEMORY, "inc", 4), chunk_id("inc-1", CKPT_MEMORY, "inc", 4));
    assert_true(chunk_id("inc-3", CKPT_MEMORY, "inc", 5) != chunk_id("inc-1", CKPT_MEMORY, "inc", 5));

    OK(loci_ckpt_restore("inc-1"));
    assert_int_equal(gen_of(v, size), 11);
    assert_int_equal(z[3 * MB], 0);
    unregister_all((const char *[]){"inc", "zeros", NULL});
    free(v);
    free(z);
}

static void sizes_unknown_and_missing_refused(void **state)
{
    char *x = malloc(2 * MB), *y = malloc(MB);
    fill(x, MB, 21);
    OK(loci_ckpt_register("x", x, MB));
    OK(loci_ckpt_save("sizes"));
    fill(x, 2 * MB, 22);
    OK(loci_ckpt_unregister("x"));
    OK(loci_ckpt_register("x", x, 2 * MB));
    REFUSED(loci_ckpt_restore("sizes"), LOCI_EINVAL, "variable \"x\"", "2097152 bytes here", "1048576",
            "nothing restored");
    assert_int_equal(gen_of(x, 2 * MB), 22);
    REFUSED(loci_ckpt_restore("no-such-ckpt"), LOCI_ENOENT, "no checkpoint \"no-such-ckpt\"");
    OK(loci_ckpt_unregister("x"));
    OK(loci_ckpt_register("x", x, MB));
    fill(y, MB, 23);
    OK(loci_ckpt_register("y", y, MB));
    REFUSED(loci_ckpt_restore("sizes"), LOCI_ENOENT, "has no variable \"y\"");
    assert_int_equal(gen_of(x, MB), 22);
    OK(loci_ckpt_unregister("y"));
    OK(loci_ckpt_restore("sizes"));
    assert_int_equal(gen_of(x, MB), 21);
    REFUSED(loci_ckpt_remove("no-such-ckpt"), LOCI_ENOENT, "no-such-ckpt");
    REFUSED(loci_ckpt_verify("no-such-ckpt"), LOCI_ENOENT, "no-such-ckpt");
    unregister_all((const char *[]){"x", NULL});
    free(x);
    free(y);
}

static void corrupt_checkpoints_refused(void **state)
{
    char *a = malloc(2 * MB), *b = malloc(2 * MB);
    fill(a, 2 * MB, 31);
    fill(b, 2 * MB, 31);
    OK(loci_ckpt_register("a", a, 2 * MB));
    OK(loci_ckpt_register("b", b, 2 * MB));
    OK(loci_ckpt_save("corrupt"));
    fill(a, 2 * MB, 32);
    fill(b, 2 * MB, 32);

    char path[4300];
    pool_path(chunk_id("corrupt", CKPT_MEMORY, "b", 1), path, sizeof path);
    assert_int_equal(flip_byte(path, 12345), 0);
    REFUSED(loci_ckpt_restore("corrupt"), LOCI_EIO, "variable \"b\", chunk 1", "fails its checksum");
    assert_int_equal(gen_of(a, 2 * MB), 32); /* nothing overwritten, not even a */
    assert_int_equal(gen_of(b, 2 * MB), 32);
    REFUSED(loci_ckpt_verify("corrupt"), LOCI_EIO, "variable \"b\", chunk 1", "1 of 4 chunks");
    assert_int_equal(flip_byte(path, 12345), 0);
    OK(loci_ckpt_verify("corrupt"));

    snprintf(path, sizeof path, "%s/corrupt.manifest", ckpt_dir());
    assert_int_equal(flip_byte(path, 40), 0);
    REFUSED(loci_ckpt_restore("corrupt"), LOCI_EIO, "\"corrupt\"", "manifest fails its checksum");
    REFUSED(loci_ckpt_verify("corrupt"), LOCI_EIO, "manifest fails its checksum");
    assert_int_equal(gen_of(a, 2 * MB), 32);
    REFUSED(loci_ckpt_gc(NULL), LOCI_EIO, "nothing collected"); /* cannot tell its chunks: deletes none */
    assert_int_equal(flip_byte(path, 40), 0);
    OK(loci_ckpt_restore("corrupt"));
    assert_int_equal(gen_of(a, 2 * MB), 31);
    assert_int_equal(gen_of(b, 2 * MB), 31);
    unregister_all((const char *[]){"a", "b", NULL});
    free(a);
    free(b);
}

static void gc_reclaims_exactly_the_unreferenced(void **state)
{
    char *v = malloc(6 * MB);
    fill(v, 6 * MB, 40);
    OK(loci_ckpt_register("gcvar", v, 6 * MB));
    for (uint64_t gen = 41; gen <= 44; gen++) {
        fill(v, 3 * MB, gen); /* half changes, half stays: shared chunks */
        char name[32];
        snprintf(name, sizeof name, "gc-%llu", (unsigned long long)gen);
        OK(loci_ckpt_save(name));
    }
    OK(loci_ckpt_remove("gc-41"));
    OK(loci_ckpt_remove("gc-43"));
    REFUSED(loci_ckpt_remove("gc-43"), LOCI_ENOENT, "gc-43");
    char stray[4300];
    snprintf(stray, sizeof stray, "%s/.tmp-gone.99999", ckpt_dir());
    close(open(stray, O_CREAT | O_WRONLY, 0600));
    snprintf(stray, sizeof stray, "%s/chunks/0123456789abcdef", ckpt_dir());
    close(open(stray, O_CREAT | O_WRONLY, 0600));

    size_t temps, files = pool_files(&temps);
    long refs = referenced_chunks();
    print_message("  before gc: %zu pool files, %ld referenced, %zu temporary\n", files, refs, temps);
    assert_true(refs > 0 && (size_t)refs < files);
    assert_true(temps >= 1);
    loci_ckpt_gc_t g;
    OK(loci_ckpt_gc(&g));
    assert_int_equal(g.chunks_kept, refs);
    assert_int_equal(g.chunks_removed, files - (size_t)refs);
    assert_int_equal(g.temps_removed, temps);
    assert_int_equal(pool_files(&temps), refs);
    assert_int_equal(temps, 0);
    OK(loci_ckpt_gc(&g)); /* nothing more */
    assert_int_equal(g.chunks_removed, 0);

    OK(loci_ckpt_restore("gc-42"));
    assert_int_equal(gen_of(v, 3 * MB), 42);
    OK(loci_ckpt_verify("gc-44"));
    loci_ckpt_info_t info[64];
    int n = loci_ckpt_list(info, 64);
    assert_true(n > 0 && n <= 64);
    bool seen42 = false, seen41 = false;
    for (int i = 0; i < n; i++) {
        seen42 |= strcmp(info[i].name, "gc-42") == 0;
        seen41 |= strcmp(info[i].name, "gc-41") == 0;
        if (i > 0)
            assert_true(info[i].seq > info[i - 1].seq);
    }
    assert_true(seen42 && !seen41);
    unregister_all((const char *[]){"gcvar", NULL});
    free(v);
}

/* A region in chunk layout: linked, never copied; later writes leave the
 * checkpoint's files alone. */
static void regions_linked_and_copy_on_write(void **state)
{
    size_t size = 4 * MB, chunk = 64 * KB, n = size / chunk;
    char *r = loci_persist_open("ckpt-region", size, PAGED, LOCI_CREATE);
    if (!r)
        fail_msg("open: %s", loci_last_error());
    char *flat = loci_persist_open("ckpt-flat", MB, "persist,mode=mmap", LOCI_CREATE);
    assert_non_null(flat);
    fill(r, size, 51);
    fill(flat, MB, 51);
    OK(loci_ckpt_save("reg-1"));
    loci_ckpt_stats_t st = last();
    print_message("  first save: %llu linked, %llu written, %llu bytes written\n",
                  (unsigned long long)st.chunks_linked, (unsigned long long)st.chunks_written,
                  (unsigned long long)st.bytes_written);
    assert_int_equal(st.chunks_linked, n);
    assert_int_equal(st.bytes_linked, size);
    assert_int_equal(st.chunks_written, 1); /* the flat region's one chunk */

    OK(loci_ckpt_save("reg-2"));
    st = last();
    assert_int_equal(st.chunks_linked, 0);
    assert_int_equal(st.chunks_shared, n + 1);
    assert_int_equal(st.bytes_hashed, MB); /* only the flat region was read */

    loci_cache_stats_t before, after; /* write-behind may take the chunk before the save does */
    OK(loci_cache_stats(r, &before));
    fill_in(r, 10 * chunk, 11 * chunk, 52); /* one chunk */
    OK(loci_ckpt_save("reg-3"));
    OK(loci_cache_stats(r, &after));
    assert_int_equal(after.bytes_written - before.bytes_written, chunk); /* written back once per save, not twice */
    st = last();
    assert_int_equal(st.chunks_linked, 1);
    assert_int_equal(st.chunks_shared, n);
    assert_int_equal(st.chunks_written, 0);

    /* a restore changes the region's files behind its cache: the next save
     * must record them, not take the previous checkpoint's list as it is */
    OK(loci_ckpt_restore("reg-1"));
    OK(loci_ckpt_save("reg-4"));
    fill(r, size, 55);
    OK(loci_persist_sync(r));
    OK(loci_ckpt_restore("reg-4"));
    assert_int_equal(gen_of(r, size), 51);

    fill(r, size, 53); /* every chunk now copied by the region, the checkpoints' files stay */
    fill(flat, MB, 53);
    OK(loci_persist_sync(r));
    OK(loci_ckpt_verify("reg-1"));
    OK(loci_ckpt_verify("reg-3"));
    OK(loci_ckpt_restore("reg-1"));
    assert_int_equal(gen_of(r, size), 51);
    assert_int_equal(gen_of(flat, MB), 51);
    fill(r, size, 54); /* written after a restore: the restored files are the checkpoint's, copied on write */
    OK(loci_persist_sync(r));
    OK(loci_ckpt_verify("reg-1"));
    OK(loci_ckpt_restore("reg-3"));
    assert_int_equal(gen_in(r, 0, 10 * chunk), 51);
    assert_int_equal(gen_in(r, 10 * chunk, 11 * chunk), 52);
    assert_int_equal(gen_in(r, 11 * chunk, size), 51);

    /* the region as a later process sees it: from its files */
    OK(loci_persist_close(r));
    OK(loci_ckpt_restore("reg-1")); /* the flat region only, now */
    r = loci_persist_open("ckpt-region", 0, PAGED, 0);
    assert_non_null(r);
    assert_int_equal(gen_in(r, 10 * chunk, 11 * chunk), 52);
    OK(loci_persist_close(r));
    OK(loci_persist_close(flat));
    OK(loci_persist_remove("ckpt-region", PAGED));
    OK(loci_persist_remove("ckpt-flat", NULL));
}

/* Chunks a region never wrote have no file: saved as zero, and a restore
 * removes the files written since. */
static void region_zero_chunks(void **state)
{
    size_t size = MB, chunk = 64 * KB;
    char *r = loci_persist_open("ckpt-sparse", size, PAGED, LOCI_CREATE);
    assert_non_null(r);
    fill(r, size / 2, 81);
    OK(loci_ckpt_save("sparse"));
    loci_ckpt_stats_t st = last();
    assert_int_equal(st.chunks_zero, size / chunk / 2);
    assert_int_equal(st.chunks_linked, size / chunk / 2);
    fill(r, size, 82);
    OK(loci_persist_sync(r));
    char path[4200];
    snprintf(path, sizeof path, "%s/ckpt-sparse.region/c%016llx", loci_target_path(loci_target_by_name("ssd0")),
             (unsigned long long)(size / chunk - 1));
    assert_int_equal(access(path, F_OK), 0);
    OK(loci_ckpt_restore("sparse"));
    assert_int_equal(gen_in(r, 0, size / 2), 81);
    for (size_t i = size / 2; i < size; i++)
        if (r[i] != 0)
            fail_msg("byte %zu of a zero chunk is %d after the restore", i, r[i]);
    assert_int_equal(access(path, F_OK), -1); /* the zero chunk's file is gone again */
    OK(loci_persist_close(r));
    OK(loci_persist_remove("ckpt-sparse", PAGED));
}

/* LOCI_CKPT_DIR on another file system: chunk files are copied, and an
 * unchanged one is recognised by its checksum instead of its inode. */
static char xfs_dir[] = "/dev/shm/loci-ckpt-test-XXXXXX";

/* Whatever happened in the test: the environment back, the directory gone. */
static int xfs_teardown(void **state)
{
    unsetenv("LOCI_CKPT_DIR");
    return xfs_dir[sizeof xfs_dir - 2] != 'X' ? remove_tree(xfs_dir) : 0;
}

static void other_file_system_copies(void **state)
{
    struct stat a, b;
    if (!mkdtemp(xfs_dir) || stat(xfs_dir, &a) != 0 || stat(loci_target_path(loci_target_by_name("ssd0")), &b) != 0 ||
        a.st_dev == b.st_dev) {
        print_message("  skipped: no /dev/shm on a file system other than ssd0's directory\n");
        skip();
    }
    setenv("LOCI_CKPT_DIR", xfs_dir, 1);
    size_t size = MB, chunk = 64 * KB;
    char *r = loci_persist_open("ckpt-xfs", size, PAGED, LOCI_CREATE);
    assert_non_null(r);
    fill(r, size, 61);
    OK(loci_ckpt_save("xfs-1"));
    loci_ckpt_stats_t st = last();
    assert_int_equal(st.chunks_linked, 0);
    assert_int_equal(st.chunks_written, size / chunk);
    OK(loci_ckpt_save("xfs-2"));
    st = last();
    assert_int_equal(st.chunks_written, 0);
    assert_int_equal(st.chunks_shared, size / chunk);
    fill(r, size, 62);
    OK(loci_ckpt_restore("xfs-1"));
    assert_int_equal(gen_of(r, size), 61);
    OK(loci_persist_close(r));
    OK(loci_persist_remove("ckpt-xfs", PAGED));
    OK(loci_ckpt_remove("xfs-1"));
    OK(loci_ckpt_remove("xfs-2"));
    loci_ckpt_gc_t g;
    OK(loci_ckpt_gc(&g));
    assert_int_equal(g.chunks_kept, 0);
    assert_int_equal(g.chunks_removed, size / chunk); /* xfs-2 shared all of xfs-1's */
}

/* Registering from one thread while another saves: neither fails. */
static void *churn(void *arg)
{
    static char spare[64][128];
    for (int i = 0; i < 2000 && !atomic_load((atomic_bool *)arg); i++) {
        char name[32];
        snprintf(name, sizeof name, "spare-%d", i % 64);
        if (loci_ckpt_register(name, spare[i % 64], sizeof spare[0]) != 0 || loci_ckpt_unregister(name) != 0)
            return (void *)1;
    }
    return NULL;
}

static void register_while_saving(void **state)
{
    char *v = malloc(2 * MB);
    fill(v, 2 * MB, 71);
    OK(loci_ckpt_register("steady", v, 2 * MB));
    atomic_bool stop = false;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churn, &stop), 0);
    for (int i = 0; i < 5; i++)
        OK(loci_ckpt_save("threads"));
    atomic_store(&stop, true);
    void *ret;
    pthread_join(t, &ret);
    assert_null(ret);
    unregister_all((const char *[]){"steady", NULL});
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_names_and_ranges),
        cmocka_unit_test(unreadable_memory_refused),
        cmocka_unit_test(ckpt_dir_parents_checked),
        cmocka_unit_test(dram_save_change_restore),
        cmocka_unit_test(incremental_saves_write_only_changes),
        cmocka_unit_test(sizes_unknown_and_missing_refused),
        cmocka_unit_test(corrupt_checkpoints_refused),
        cmocka_unit_test(gc_reclaims_exactly_the_unreferenced),
        cmocka_unit_test(regions_linked_and_copy_on_write),
        cmocka_unit_test(region_zero_chunks),
        cmocka_unit_test_teardown(other_file_system_copies, xfs_teardown),
        cmocka_unit_test(register_while_saving),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
