/*
 * A memkind program, built against Debian's memkind headers and linked
 * against its libmemkind.so.0, run under `loci run --memkind`: what loci adds
 * to memkind's own suite. Its blocks are loci's (loci_ptr_target knows
 * them: the library really is loci's); bad input memkind crashes on or
 * leaves undefined — a NULL, bogus or destroyed kind, sizes that overflow, a
 * pointer from libc given to hbw_free — gets memkind's documented error
 * codes instead; a MEMKIND_HBW_NODES that does not parse makes the
 * high-bandwidth kinds unavailable, as memkind's does; threads and fork;
 * with --autohbw, memkind's AUTO_HBW_SIZE through loci run --memkind; with
 * --tiered, the kinds' tier=auto arenas under loci run --memkind --tier auto.
 * Runs in the sanitizer builds too: it is the shim's own check there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <hbwmalloc.h>
#include <memkind.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char **self_argv;

/* loci's, looked up in the process: present only when libmemkind.so.0 is loci's. */
static const void *(*ptr_target)(const void *);

static void library_is_locis(void **state)
{
    ptr_target = (const void *(*)(const void *))dlsym(RTLD_DEFAULT, "loci_ptr_target");
    assert_non_null(ptr_target); /* else this runs on the system's memkind: loci run --memkind did not work */
    void *p = memkind_malloc(MEMKIND_DEFAULT, 100);
    assert_non_null(p);
    assert_non_null(ptr_target(p));
    assert_ptr_equal(memkind_detect_kind(p), MEMKIND_DEFAULT);
    memkind_free(NULL, p);
}

static void null_kind(void **state)
{
    errno = 0;
    assert_null(memkind_malloc(NULL, 16));
    assert_int_equal(errno, EINVAL);
    assert_null(memkind_calloc(NULL, 1, 16));
    void *p = &p;
    assert_int_equal(memkind_posix_memalign(NULL, &p, 64, 16), EINVAL);
    assert_int_equal(memkind_check_available(NULL), MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_destroy_kind(NULL), MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_get_capacity(NULL), -1);
    assert_int_equal(memkind_create_kind(MEMKIND_MEMTYPE_DEFAULT, MEMKIND_POLICY_PREFERRED_LOCAL, 0, NULL),
                     MEMKIND_ERROR_INVALID);
    memkind_free(NULL, NULL); /* memkind allows both */
    assert_null(memkind_realloc(NULL, NULL, 16)); /* no kind to allocate from */
    assert_int_equal(errno, EINVAL);
}

static void bogus_kind(void **state)
{
    static long not_a_kind[32];
    memkind_t k = (memkind_t)not_a_kind;
    assert_null(memkind_malloc(k, 16));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(memkind_check_available(k), MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_destroy_kind(k), MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_malloc_usable_size(k, NULL), 0);
}

static void destroyed_kind(void **state)
{
    memkind_t k = NULL;
    assert_int_equal(memkind_create_pmem(getenv("LOCI_STORE_DIR"), 0, &k), MEMKIND_SUCCESS);
    void *p = memkind_malloc(k, 4096);
    assert_non_null(p);
    assert_ptr_equal(memkind_detect_kind(p), k);
    assert_int_equal(memkind_destroy_kind(k), MEMKIND_SUCCESS); /* frees its blocks, as memkind's pmem kinds */
    errno = 0;
    assert_null(memkind_malloc(k, 16));
    assert_int_equal(errno, EINVAL);
    assert_int_equal(memkind_check_available(k), MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_destroy_kind(k), MEMKIND_ERROR_OPERATION_FAILED);
    memkind_free(k, p); /* refused, not a crash */
}

static void overflow(void **state)
{
    errno = 0;
    assert_null(memkind_calloc(MEMKIND_DEFAULT, SIZE_MAX, 2));
    assert_int_equal(errno, ENOMEM);
    errno = 0;
    assert_null(memkind_malloc(MEMKIND_DEFAULT, SIZE_MAX));
    assert_int_equal(errno, ENOMEM);
    void *p = NULL;
    assert_int_equal(memkind_posix_memalign(MEMKIND_DEFAULT, &p, 64, SIZE_MAX), ENOMEM);
    assert_int_equal(memkind_posix_memalign(MEMKIND_DEFAULT, &p, 3 * sizeof(void *), 64), EINVAL);
    assert_int_equal(hbw_posix_memalign_psize(&p, 64, 64, (hbw_pagesize_t)99), EINVAL);
    assert_null(memkind_malloc(MEMKIND_DEFAULT, 0)); /* memkind: size 0 gives NULL */
    assert_int_equal(memkind_posix_memalign(MEMKIND_DEFAULT, &p, 64, 0), 0);
    assert_null(p);
}

/* memkind leaves it undefined (jemalloc looks the pointer up in its own
 * arenas); loci refuses it and the block stays libc's, intact. */
static void foreign_pointer(void **state)
{
    char *p = malloc(64);
    assert_non_null(p);
    memset(p, 7, 64);
    hbw_free(p);
    memkind_free(MEMKIND_DEFAULT, p);
    assert_int_equal(memkind_malloc_usable_size(NULL, p), 0);
    assert_null(memkind_realloc(MEMKIND_DEFAULT, p, 128));
    assert_int_equal(errno, EINVAL);
    for (int i = 0; i < 64; i++)
        assert_int_equal(p[i], 7);
    free(p);
}

static void pmem_kind(void **state)
{
    memkind_t k = NULL;
    assert_int_equal(memkind_create_pmem("/nonexistent/dir", 0, &k), MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_create_pmem(getenv("LOCI_STORE_DIR"), MEMKIND_PMEM_MIN_SIZE - 1, &k),
                     MEMKIND_ERROR_INVALID);
    assert_int_equal(memkind_create_pmem("/", 0, &k), MEMKIND_ERROR_UNAVAILABLE); /* no loci file tier there */
    assert_int_equal(memkind_create_pmem(getenv("LOCI_STORE_DIR"), MEMKIND_PMEM_MIN_SIZE, &k), MEMKIND_SUCCESS);
    assert_int_equal(memkind_get_capacity(k), MEMKIND_PMEM_MIN_SIZE);
    size_t got = 0;
    void *blocks[64];
    int n = 0;
    while (n < 64 && (blocks[n] = memkind_malloc(k, 1 << 20)))
        got += 1 << 20, n++;
    assert_true(n < 64); /* the kind is full at max_size */
    assert_true(got <= MEMKIND_PMEM_MIN_SIZE && got >= MEMKIND_PMEM_MIN_SIZE / 2);
    assert_int_equal(errno, ENOMEM);
    for (int i = 0; i < n; i++)
        memkind_free(k, blocks[i]);
    assert_int_equal(memkind_destroy_kind(k), MEMKIND_SUCCESS);
}

static void error_messages(void **state)
{
    char msg[MEMKIND_ERROR_MESSAGE_SIZE];
    memkind_error_message(MEMKIND_ERROR_UNAVAILABLE, msg, sizeof msg);
    assert_string_equal(msg, "<memkind> Requested memory kind is not available");
    memkind_error_message(12345, msg, sizeof msg);
    assert_string_equal(msg, "<memkind> Undefined error number: 12345");
    memkind_error_message(MEMKIND_ERROR_INVALID, msg, 10);
    assert_string_equal(msg, "<memkind>");
    memkind_error_message(MEMKIND_ERROR_INVALID, NULL, 10); /* nowhere to write: nothing */
}

/* ctest runs this with MEMKIND_HBW_NODES=0: the page is on node 0, as named. */
static void hbw_placement(void **state)
{
    assert_int_equal(hbw_check_available(), 0);
    char *p = hbw_malloc(1 << 20);
    assert_non_null(p);
    p[0] = 1;
    int node = -1;
    void *page = p;
    assert_int_equal(move_pages(0, 1, &page, NULL, &node, 0), 0);
    assert_int_equal(node, 0);
    assert_int_equal(hbw_verify_memory_region(p, 1 << 20, HBW_TOUCH_PAGES), 0);
    assert_int_equal(hbw_verify_memory_region(NULL, 1, 0), EINVAL);
    assert_int_equal(hbw_verify_memory_region(p, 1, 1 << 7), EINVAL);
    hbw_free(p);
}

/* With MEMKIND_HBW_NODES that does not parse, memkind's high-bandwidth
 * kinds are unavailable (MEMKIND_ERROR_ENVIRON) and hbw_malloc, preferred
 * by default, gives standard memory: checked in a child with that value. */
static void bad_environment(void **state)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("MEMKIND_HBW_NODES", "not-a-node-list", 1);
        execv("/proc/self/exe", (char *[]){self_argv[0], "--bad-environment", NULL});
        _exit(98);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static int bad_environment_child(void)
{
    void *p = hbw_malloc(64);
    int ok = hbw_check_available() == ENODEV && memkind_check_available(MEMKIND_HBW) == MEMKIND_ERROR_ENVIRON &&
             memkind_malloc(MEMKIND_HBW, 64) == NULL && p && memkind_detect_kind(p) == MEMKIND_DEFAULT;
    hbw_free(p);
    return ok ? 0 : 1;
}

#define THREADS 4
#define ROUNDS 2000

static void *churn(void *arg)
{
    memkind_t kinds[] = {MEMKIND_DEFAULT, MEMKIND_REGULAR, MEMKIND_HBW_PREFERRED, MEMKIND_HIGHEST_CAPACITY};
    void *held[16] = {0};
    for (int r = 0; r < ROUNDS; r++) {
        int slot = r % 16;
        memkind_t k = kinds[(r + (int)(intptr_t)arg) % 4];
        memkind_free(NULL, held[slot]);
        held[slot] = memkind_malloc(k, (size_t)(16 << (r % 12)));
        if (!held[slot] || memkind_detect_kind(held[slot]) != k)
            return (void *)1;
        memset(held[slot], r, 16);
    }
    for (int i = 0; i < 16; i++)
        memkind_free(NULL, held[i]);
    return NULL;
}

static void threads(void **state)
{
    pthread_t t[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)i), 0);
    for (int i = 0; i < THREADS; i++) {
        void *failed;
        assert_int_equal(pthread_join(t[i], &failed), 0);
        assert_null(failed);
    }
}

/* A child of fork() allocates and frees through the kinds its parent used. */
static void forked(void **state)
{
    char *p = memkind_malloc(MEMKIND_REGULAR, 4096);
    assert_non_null(p);
    strcpy(p, "parent");
    pid_t pid = fork();
    if (pid == 0) {
        char *q = memkind_malloc(MEMKIND_REGULAR, 4096);
        int ok = q && strcmp(p, "parent") == 0 && memkind_detect_kind(q) == MEMKIND_REGULAR;
        memkind_free(NULL, q);
        memkind_free(NULL, p);
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_equal(p, "parent");
    memkind_free(NULL, p);
}

/* Run with AUTO_HBW_SIZE=1M under loci run --memkind (memkind's autohbw): a
 * malloc block of 8 MiB is loci's, in a high-bandwidth-first arena; one of
 * 100 bytes stays libc's. */
static int autohbw(void)
{
    const void *(*target)(const void *) = (const void *(*)(const void *))dlsym(RTLD_DEFAULT, "loci_ptr_target");
    char *small = malloc(100), *big = malloc(8 << 20);
    int ok = target && small && big && !target(small) && target(big);
    if (!ok)
        fprintf(stderr, "autohbw: loci %s, 100 B block %s loci's, 8 MiB block %s loci's\n", target ? "loaded" : "absent",
                target && target(small) ? "is" : "is not", target && target(big) ? "is" : "is not");
    free(small);
    free(big);
    return ok ? 0 : 1;
}

/* Run under loci run --memkind --tier auto: a block of a kind is in a
 * tier=auto arena (loci_tier_stats answers for it), and still that kind's. */
static int tiered(void)
{
    void *(*arena_of)(const void *) = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "loci_ptr_arena");
    int (*tier_stats)(const void *, void *) = (int (*)(const void *, void *))dlsym(RTLD_DEFAULT, "loci_tier_stats");
    char stats[256]; /* loci_tier_stats_t, which this memkind program does not know */
    void *p = memkind_malloc(MEMKIND_HBW_PREFERRED, 1 << 20);
    int ok = arena_of && tier_stats && p && tier_stats(arena_of(p), stats) == 0 &&
             memkind_detect_kind(p) == MEMKIND_HBW_PREFERRED;
    if (!ok)
        fprintf(stderr, "tiered: the MEMKIND_HBW_PREFERRED block %p is not in a tier=auto arena of that kind\n", p);
    memkind_free(NULL, p);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    self_argv = argv;
    if (argc > 1 && strcmp(argv[1], "--bad-environment") == 0)
        return bad_environment_child();
    if (argc > 1 && strcmp(argv[1], "--autohbw") == 0)
        return autohbw();
    if (argc > 1 && strcmp(argv[1], "--tiered") == 0)
        return tiered();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(library_is_locis), cmocka_unit_test(null_kind),      cmocka_unit_test(bogus_kind),
        cmocka_unit_test(destroyed_kind),   cmocka_unit_test(overflow),       cmocka_unit_test(foreign_pointer),
        cmocka_unit_test(pmem_kind),        cmocka_unit_test(error_messages), cmocka_unit_test(hbw_placement),
        cmocka_unit_test(bad_environment),  cmocka_unit_test(threads),        cmocka_unit_test(forked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
