/*
 * One "node" of the multi-node store tests: what a program on a compute node
 * does with the job's aggregate store, one action per run, so that the
 * scripts beside it can run it in different network namespaces (client
 * hosts) and assert what another node sees. Prints one line; exits 0 when
 * the action did what was asked, 1 when it did not (with loci's message),
 * 2 on bad usage.
 *
 *   store_node write NAME SIZE SEED       create/open NAME writable, fill it from SEED, sync;
 *                                         its memory must name the job's store (loci_ptr_target)
 *   store_node patch NAME SIZE SEED N     write N random bytes (derived from SEED), sync
 *   store_node verify NAME SIZE SEED      open READONLY, compare every byte with the pattern
 *   store_node hold NAME MODE SECONDS     open (rw|ro), print "held", sleep, close
 *   store_node open NAME MODE             open (rw|ro) and close; prints the loci code
 *   store_node remove NAME
 *   store_node resolve INTENT             the first target the intent resolves to
 *   store_node alloc SIZE SEED            loci_alloc on access=job, fill, read back, free
 *   store_node timed-write NAME SIZE      write+sync on a region; prints code and seconds
 *   store_node late-write NAME SIZE DELAY open writable, print "open", sleep DELAY s, then
 *                                         write+sync; prints code and seconds of the write
 *   store_node paused-write NAME SIZE     open writable, write its first quarter, print
 *                                         "quarter", wait for a line on stdin, then write all
 *                                         of it+sync; prints code and seconds of the rest
 *   store_node ckpt-save NAME SIZE SEED CKPT [wait] [nodram]
 *                                         open NAME writable (NAME "-": no region; SEED "-": as
 *                                         it is, else filled from SEED; "-N": as it is, the DRAM
 *                                         variable from N), register DRAM variable
 *                                         "dram" (1 MiB from SEED, or 0; nodram: none),
 *                                         loci_ckpt_save(CKPT); prints its counters; wait: then
 *                                         loci_ckpt_wait(CKPT) (exit 4 when only the drain failed)
 *   store_node ckpt-loop NAME SIZE CKPT FROM [pause]
 *                                         open NAME writable, register "dram"; for seed FROM,
 *                                         FROM+1, ...: fill both (seed in their first 8 bytes),
 *                                         save CKPT, print "saved SEED", wait for its drain,
 *                                         print "drained SEED" — until killed. pause: stop
 *                                         (SIGSTOP) once the first save returned, before it is
 *                                         reported: a kill then lands where a save is durable
 *                                         but unreported
 *   store_node ckpt-check NAME SIZE CKPT
 *                                         open NAME writable (waiting out a dead writer's lock),
 *                                         register "dram", restore CKPT; both must be the
 *                                         pattern of the seed they start with: print "restored SEED"
 *   store_node ckpt-restore NAME SIZE CKPT SEED [nodram]
 *                                         open NAME writable, register "dram" (zeroed; nodram:
 *                                         none), loci_ckpt_restore(CKPT), both compared with
 *                                         SEED's pattern
 */
#include <loci.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The intent of every opening: access=job, with the terms of STORE_NODE_TERMS after it when set
 * (e.g. object=256KiB). */
static const char *intent(void)
{
    static char text[256];
    const char *terms = getenv("STORE_NODE_TERMS");
    snprintf(text, sizeof text, "access=job%s%s", terms && *terms ? "," : "", terms ? terms : "");
    return text;
}

static uint8_t pattern(uint64_t seed, uint64_t i)
{
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (uint8_t)(x >> 32);
}

static int fail(const char *what)
{
    printf("FAIL %s: %s\n", what, loci_last_error());
    return 1;
}

static size_t size_arg(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'K')
        v <<= 10;
    else if (*end == 'M')
        v <<= 20;
    return (size_t)v;
}

static int do_write(const char *name, size_t size, uint64_t seed)
{
    uint8_t *p = loci_persist_open(name, size, intent(), LOCI_CREATE);
    if (!p)
        return fail("open");
    const loci_target_t *t = loci_ptr_target(p + size - 1); /* a region's memory names its store */
    loci_target_info_t info;
    bool named = t && loci_target_info(t, &info) == 0;
    if (!named || !(info.flags & LOCI_TARGET_JOB_WIDE)) {
        printf("FAIL loci_ptr_target on region \"%s\": %s, not the job's store\n", name,
               named ? info.name : loci_last_error());
        loci_persist_close(p); /* its writer's lock goes with it */
        return 1;
    }
    for (size_t i = 0; i < size; i++)
        p[i] = pattern(seed, i);
    if (loci_persist_sync(p) != 0)
        return fail("sync");
    if (loci_persist_close(p) != 0)
        return fail("close");
    printf("wrote %zu bytes on %s\n", size, info.name);
    return 0;
}

/* N bytes at positions from SEED, each set to the pattern of SEED+1. */
static int do_patch(const char *name, size_t size, uint64_t seed, long n)
{
    uint8_t *p = loci_persist_open(name, size, intent(), 0);
    if (!p)
        return fail("open");
    for (long k = 0; k < n; k++) {
        uint64_t i = (pattern(seed, (uint64_t)k) * 65537ull + (uint64_t)k * 2654435761ull) % size;
        p[i] = pattern(seed + 1, i);
    }
    if (loci_persist_sync(p) != 0)
        return fail("sync");
    loci_persist_close(p);
    printf("patched %ld bytes\n", n);
    return 0;
}

static int do_verify(const char *name, size_t size, uint64_t seed)
{
    const uint8_t *p = loci_persist_open(name, size, intent(), LOCI_READONLY);
    if (!p)
        return fail("open");
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < size; i++)
        if (p[i] != pattern(seed, i) && bad++ == 0)
            first = i;
    loci_persist_close((void *)p);
    if (bad) {
        printf("FAIL %zu of %zu bytes differ, first at %zu\n", bad, size, first);
        return 1;
    }
    printf("verified %zu bytes\n", size);
    return 0;
}

static unsigned mode_flags(const char *mode) { return strcmp(mode, "ro") == 0 ? LOCI_READONLY : 0; }

static int do_hold(const char *name, const char *mode, int seconds)
{
    void *p = loci_persist_open(name, 0, intent(), mode_flags(mode));
    if (!p)
        return fail("open");
    printf("held\n");
    fflush(stdout);
    sleep((unsigned)seconds);
    loci_persist_close(p);
    return 0;
}

static int do_open(const char *name, const char *mode)
{
    void *p = loci_persist_open(name, 0, intent(), mode_flags(mode));
    int e = errno;
    if (p)
        loci_persist_close(p);
    printf("%s %s\n", p ? "opened" : "refused", p ? "" : loci_last_error());
    return p ? 0 : (e == EBUSY ? 3 : 1);
}

static int do_alloc(size_t size, uint64_t seed)
{
    char with_cache[300];
    snprintf(with_cache, sizeof with_cache, "%s,cache=4MiB", intent());
    loci_allocator_t *a = loci_allocator_create(with_cache);
    if (!a)
        return fail("allocator");
    uint8_t *p = loci_alloc(a, size);
    if (!p)
        return fail("alloc");
    const loci_target_t *t = loci_ptr_target(p);
    loci_target_info_t info;
    loci_target_info(t, &info);
    for (size_t i = 0; i < size; i++)
        p[i] = pattern(seed, i);
    loci_range_evict(p, size); /* everything through the store and back */
    for (size_t i = 0; i < size; i++)
        if (p[i] != pattern(seed, i)) {
            printf("FAIL byte %zu differs after the round trip through %s\n", i, info.name);
            return 1;
        }
    loci_free(p);
    loci_allocator_destroy(a);
    printf("alloc on %s ok\n", info.name);
    return 0;
}

/* The LOCI_E* code loci's errno stands for. */
static int loci_errno_code(int e)
{
    return e == EIO ? LOCI_EIO : e == ENOSPC ? LOCI_ENOSPC : e == ENOENT ? LOCI_ENOENT : e == EBUSY ? LOCI_EBUSY
                                                                                               : LOCI_EINVAL;
}

static double seconds_since(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* delay < 0: time everything from loci's init on; else open, wait, then
 * time the write. `paused`: the wait is for a line on stdin, with the
 * first quarter written before it (dirty in the cache, being written
 * behind). */
static int do_timed_write(const char *name, size_t size, int delay, bool paused)
{
    struct timespec a;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint8_t *p = loci_persist_open(name, size, intent(), LOCI_CREATE);
    int rc = p ? 0 : loci_errno_code(errno);
    if (delay >= 0) {
        if (!p)
            return fail("open");
        if (paused)
            memset(p, 0x5a, size / 4);
        printf("%s\n", paused ? "quarter" : "open");
        fflush(stdout);
        char line[16];
        if (paused && !fgets(line, sizeof line, stdin))
            return fail("waiting for a line on stdin");
        if (!paused)
            sleep((unsigned)delay);
        clock_gettime(CLOCK_MONOTONIC, &a);
    }
    char why[1024] = "";
    if (p) {
        memset(p, 0x5a, size);
        rc = loci_persist_sync(p);
        snprintf(why, sizeof why, "%s", rc ? loci_last_error() : ""); /* the sync's: closing may fail too */
        loci_persist_close(p);
    } else
        snprintf(why, sizeof why, "%s", loci_last_error());
    printf("code %d (%s) after %.1f s: %s\n", rc, rc ? loci_strerror(rc) : "ok", seconds_since(&a), why);
    return rc == 0 ? 0 : 1;
}

#define DRAM_BYTES ((size_t)1 << 20)

/* p[0..size) against the pattern of seed: 0, or 1 with a message. */
static int compare(const char *what, const uint8_t *p, size_t size, uint64_t seed)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < size; i++)
        if (p[i] != pattern(seed, i) && bad++ == 0)
            first = i;
    if (bad)
        printf("FAIL %s: %zu of %zu bytes differ, first at %zu\n", what, bad, size, first);
    return bad ? 1 : 0;
}

/* How loci_ckpt_list describes checkpoint ckpt: its levels and drained bytes. */
static void print_listed(const char *ckpt)
{
    loci_ckpt_info_t v[64];
    int n = loci_ckpt_list(v, 64);
    for (int i = 0; i < n && i < 64; i++)
        if (strcmp(v[i].name, ckpt) == 0)
            printf("listed %s: levels %u, %llu of %llu chunk bytes in the store\n", ckpt, v[i].levels,
                   (unsigned long long)v[i].drained_bytes, (unsigned long long)v[i].store_bytes);
}

static int do_ckpt_save(const char *name, size_t size, const char *seed_arg, const char *ckpt, bool wait,
                        bool with_dram)
{
    bool fill = seed_arg[0] != '-', fill_dram = fill || seed_arg[1]; /* "-N": the region as it is, DRAM from N */
    uint64_t seed = fill_dram ? strtoull(seed_arg + !fill, NULL, 0) : 0;
    uint8_t *p = NULL;
    static uint8_t dram[DRAM_BYTES];
    if (strcmp(name, "-") == 0)
        size = 0;
    else if (!(p = loci_persist_open(name, size, intent(), LOCI_CREATE)))
        return fail("open");
    for (size_t i = 0; fill && i < size; i++)
        p[i] = pattern(seed, i);
    for (size_t i = 0; fill_dram && i < DRAM_BYTES; i++)
        dram[i] = pattern(seed, i);
    loci_ckpt_stats_t st;
    if (with_dram && loci_ckpt_register("dram", dram, DRAM_BYTES) != 0)
        return fail("register");
    if (loci_ckpt_save(ckpt) != 0 || loci_ckpt_last_save(&st) != 0)
        return fail("save");
    printf("saved %s: chunks %llu written %llu linked %llu shared %llu zero %llu, bytes written %llu hashed %llu\n",
           ckpt, (unsigned long long)st.chunks, (unsigned long long)st.chunks_written,
           (unsigned long long)st.chunks_linked, (unsigned long long)st.chunks_shared,
           (unsigned long long)st.chunks_zero, (unsigned long long)st.bytes_written,
           (unsigned long long)st.bytes_hashed);
    int rc = 0;
    if (wait && loci_ckpt_wait(ckpt) != 0) {
        printf("drain of %s failed: %s\n", ckpt, loci_last_error());
        rc = 4;
    } else if (wait) {
        printf("drained %s\n", ckpt);
        print_listed(ckpt);
    }
    if (p)
        loci_persist_close(p);
    return rc;
}

static int do_ckpt_restore(const char *name, size_t size, const char *ckpt, uint64_t seed, bool with_dram)
{
    uint8_t *p = loci_persist_open(name, size, intent(), 0);
    static uint8_t dram[DRAM_BYTES];
    if (!p)
        return fail("open");
    if (with_dram && loci_ckpt_register("dram", dram, DRAM_BYTES) != 0)
        return fail("register");
    if (loci_ckpt_restore(ckpt) != 0) {
        int rc = fail("restore");
        loci_persist_close(p); /* its lock released now, not after lock_ttl */
        return rc;
    }
    int rc = compare("region", p, size, seed) | (with_dram ? compare("dram", dram, DRAM_BYTES, seed) : 0);
    if (loci_persist_sync(p) != 0)
        return fail("sync");
    loci_persist_close(p);
    if (rc == 0)
        printf("restored %s: %zu bytes of region %s and %zu of dram as saved\n", ckpt, size, name,
               with_dram ? DRAM_BYTES : 0);
    return rc;
}

/* p[0..size): seed in the first 8 bytes, then its pattern. */
static void fill_seeded(uint8_t *p, size_t size, uint64_t seed)
{
    memcpy(p, &seed, sizeof seed);
    for (size_t i = sizeof seed; i < size; i++)
        p[i] = pattern(seed, i);
}

static int do_ckpt_loop(const char *name, size_t size, const char *ckpt, uint64_t from, bool pause)
{
    static uint8_t dram[DRAM_BYTES];
    uint8_t *p = loci_persist_open(name, size, intent(), LOCI_CREATE);
    if (!p)
        return fail("open");
    if (loci_ckpt_register("dram", dram, DRAM_BYTES) != 0)
        return fail("register");
    for (uint64_t seed = from;; seed++) {
        fill_seeded(p, size, seed);
        fill_seeded(dram, DRAM_BYTES, seed);
        if (loci_ckpt_save(ckpt) != 0)
            return fail("save");
        if (pause && seed == from)
            raise(SIGSTOP);
        printf("saved %llu\n", (unsigned long long)seed);
        fflush(stdout);
        if (loci_ckpt_wait(ckpt) != 0)
            return fail("drain");
        printf("drained %llu\n", (unsigned long long)seed);
        fflush(stdout);
    }
}

static int do_ckpt_check(const char *name, size_t size, const char *ckpt)
{
    static uint8_t dram[DRAM_BYTES];
    uint8_t *p = NULL;
    for (int tries = 0; !p && tries < 40; tries++) /* a killed writer's lock expires after lock_ttl */
        if (!(p = loci_persist_open(name, size, intent(), 0)) && errno == EBUSY)
            usleep(250000);
    if (!p)
        return fail("open");
    if (loci_ckpt_register("dram", dram, DRAM_BYTES) != 0)
        return fail("register");
    if (loci_ckpt_restore(ckpt) != 0)
        return fail("restore");
    uint64_t seed;
    memcpy(&seed, dram, sizeof seed);
    uint8_t *want = malloc(size > DRAM_BYTES ? size : DRAM_BYTES);
    fill_seeded(want, size, seed);
    int rc = memcmp(p, want, size) != 0;
    fill_seeded(want, DRAM_BYTES, seed);
    rc |= memcmp(dram, want, DRAM_BYTES) != 0;
    free(want);
    loci_persist_close(p);
    printf("%s %llu\n", rc ? "FAIL: region or dram is not the pattern of seed" : "restored",
           (unsigned long long)seed);
    return rc;
}

/* Whether argv[from..] holds `word`. */
static bool has_word(int argc, char **argv, int from, const char *word)
{
    for (int i = from; i < argc; i++)
        if (strcmp(argv[i], word) == 0)
            return true;
    return false;
}

/* Whether argv[from..] holds only `a` and `b`, each at most once. */
static bool has_only_words(int argc, char **argv, int from, const char *a, const char *b)
{
    int seen_a = 0, seen_b = 0;
    for (int i = from; i < argc; i++) {
        if (strcmp(argv[i], a) == 0)
            seen_a++;
        else if (strcmp(argv[i], b) == 0)
            seen_b++;
        else
            return false;
    }
    return seen_a <= 1 && seen_b <= 1;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "write") == 0 && argc == 5)
        return do_write(argv[2], size_arg(argv[3]), strtoull(argv[4], NULL, 0));
    if (strcmp(cmd, "patch") == 0 && argc == 6)
        return do_patch(argv[2], size_arg(argv[3]), strtoull(argv[4], NULL, 0), atol(argv[5]));
    if (strcmp(cmd, "verify") == 0 && argc == 5)
        return do_verify(argv[2], size_arg(argv[3]), strtoull(argv[4], NULL, 0));
    if (strcmp(cmd, "hold") == 0 && argc == 5)
        return do_hold(argv[2], argv[3], atoi(argv[4]));
    if (strcmp(cmd, "open") == 0 && argc == 4)
        return do_open(argv[2], argv[3]);
    if (strcmp(cmd, "remove") == 0 && argc == 3)
        return loci_persist_remove(argv[2], intent()) == 0 ? (printf("removed\n"), 0) : fail("remove");
    if (strcmp(cmd, "resolve") == 0 && argc == 3) {
        loci_allocator_t *a = loci_allocator_create(argv[2]);
        const loci_target_t *t[1];
        loci_target_info_t info;
        if (!a || loci_allocator_targets(a, t, 1) < 1 || loci_target_info(t[0], &info) != 0)
            return fail("resolve");
        printf("%s\n", info.name);
        return 0;
    }
    if (strcmp(cmd, "alloc") == 0 && argc == 4)
        return do_alloc(size_arg(argv[2]), strtoull(argv[3], NULL, 0));
    if (strcmp(cmd, "timed-write") == 0 && argc == 4)
        return do_timed_write(argv[2], size_arg(argv[3]), -1, false);
    if (strcmp(cmd, "late-write") == 0 && argc == 5)
        return do_timed_write(argv[2], size_arg(argv[3]), atoi(argv[4]), false);
    if (strcmp(cmd, "paused-write") == 0 && argc == 4)
        return do_timed_write(argv[2], size_arg(argv[3]), 0, true);
    if (strcmp(cmd, "ckpt-save") == 0 && argc >= 6 && has_only_words(argc, argv, 6, "wait", "nodram"))
        return do_ckpt_save(argv[2], size_arg(argv[3]), argv[4], argv[5], has_word(argc, argv, 6, "wait"),
                            !has_word(argc, argv, 6, "nodram"));
    if (strcmp(cmd, "ckpt-loop") == 0 && (argc == 6 || (argc == 7 && strcmp(argv[6], "pause") == 0)))
        return do_ckpt_loop(argv[2], size_arg(argv[3]), argv[4], strtoull(argv[5], NULL, 0), argc == 7);
    if (strcmp(cmd, "ckpt-check") == 0 && argc == 5)
        return do_ckpt_check(argv[2], size_arg(argv[3]), argv[4]);
    if (strcmp(cmd, "ckpt-restore") == 0 && (argc == 6 || (argc == 7 && strcmp(argv[6], "nodram") == 0)))
        return do_ckpt_restore(argv[2], size_arg(argv[3]), argv[4], strtoull(argv[5], NULL, 0), argc == 6);
    fprintf(stderr, "usage: see the header of tests/store/store_node.c\n");
    return 2;
}
