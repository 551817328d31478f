/* Moving memory by copy and remap (src/os/move_copy.c) on this machine:
 * same addresses and bytes, only resident pages copied, the policy set, and
 * no store lost nor stale value read while threads write and read during
 * the moves; LOCI_ARENA_MOVE chooses the path. One NUMA node is enough: the
 * copy path runs whatever the destination. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "provider/provider.h"
#include "os/uffd.h"
#include "os/vm.h"
#include "support/resident.h"

#include <numaif.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MB ((size_t)1 << 20)

static struct loci_target node0;

static place_t bind0(void)
{
    place_t p = {.policy = PLACE_BIND, .target = &node0};
    place_add_node(&p, 0);
    return p;
}

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

/* The copy path needs a userfaultfd that write-protects: skip (saying why) without one. */
static int setup(void **state)
{
    memset(&node0, 0, sizeof node0);
    strcpy(node0.name, "dram0");
    int fd = uffd_open_wp();
    if (fd < 0) {
        fprintf(stderr, "test_move_copy: skipped: no write-protecting userfaultfd here (%s); "
                        "run as root or with vm.unprivileged_userfaultfd=1\n", strerror(errno));
        exit(77);
    }
    close(fd);
    return 0;
}

static char *fresh(size_t size)
{
    place_t local = {.policy = PLACE_LOCAL};
    char *p = provider_numa.alloc(&local, size, page_size());
    assert_non_null(p);
    return p;
}

static void copy_keeps_addresses_bytes_and_holes(void **state)
{
    setenv("LOCI_ARENA_MOVE", "copy", 1);
    size_t size = 4 * MB, page = page_size(), n = size / page;
    char *p = fresh(size);
    for (size_t i = 0; i < n; i += 2) /* odd pages never touched */
        memset(p + i * page, (int)(i * 7 + 1), page);
    place_t to = bind0();
    assert_int_equal(provider_numa.move->move(p, size, &to), 0);
    int mode = -1;
    unsigned long mask[VM_MASK_LONGS] = {0};
    assert_int_equal(get_mempolicy(&mode, mask, PLACE_MAX_NODES + 1, p, MPOL_F_ADDR), 0);
    assert_int_equal(mode, MPOL_BIND); /* later faults follow the destination */
    for (size_t i = 0; i < n; i++) {
        unsigned char want = i % 2 ? 0 : (unsigned char)(i * 7 + 1);
        if ((unsigned char)p[i * page] != want || (unsigned char)p[i * page + page - 1] != want)
            fail_msg("page %zu reads %d, not %d", i, p[i * page], want);
    }
    provider_numa.free(p, size);
    unsetenv("LOCI_ARENA_MOVE");
}

/* Only pages holding data are copied: an untouched huge-page-sized half stays unfaulted. */
static void copy_leaves_holes_unfaulted(void **state)
{
    setenv("LOCI_ARENA_MOVE", "copy", 1);
    size_t half = 2 * MB;
    place_t local = {.policy = PLACE_LOCAL};
    char *p = provider_numa.alloc(&local, 2 * half, half);
    assert_non_null(p);
    memset(p, 5, half);
    place_t to = bind0();
    assert_int_equal(provider_numa.move->move(p, 2 * half, &to), 0);
    assert_int_equal(resident_pages(p, half), half / page_size());
    assert_int_equal(resident_pages(p + half, half), 0);
    assert_int_equal(p[half - 1], 5);
    provider_numa.free(p, 2 * half);
    unsetenv("LOCI_ARENA_MOVE");
}

/* One word per page: the writer checks that each still holds what it stored
 * last (a store lost to the copy would not), then stores the next value; the
 * reader checks that no word goes back (a read of the old copy after a newer
 * value would). */
enum { THREAD_PAGES = 1024 };
typedef struct {
    _Atomic uint64_t *word[THREAD_PAGES];
    atomic_int stop;
    long rounds, lost, regressions;
} shared_t;

static void *writer(void *arg)
{
    shared_t *s = arg;
    uint64_t v = 0;
    while (!atomic_load(&s->stop)) {
        for (int i = 0; i < THREAD_PAGES; i++) {
            if (atomic_load_explicit(s->word[i], memory_order_relaxed) != v)
                s->lost++;
            atomic_store_explicit(s->word[i], v + 1, memory_order_relaxed);
        }
        v++;
        s->rounds++;
    }
    return NULL;
}

static void *reader(void *arg)
{
    shared_t *s = arg;
    static uint64_t seen[THREAD_PAGES];
    while (!atomic_load(&s->stop))
        for (int i = 0; i < THREAD_PAGES; i++) {
            uint64_t v = atomic_load_explicit(s->word[i], memory_order_relaxed);
            s->regressions += v < seen[i];
            seen[i] = v;
        }
    return NULL;
}

static void copy_under_writers_and_readers(void **state)
{
    setenv("LOCI_ARENA_MOVE", "copy", 1);
    size_t page = page_size(), size = THREAD_PAGES * page;
    char *p = fresh(size);
    static shared_t s;
    for (int i = 0; i < THREAD_PAGES; i++) {
        memset(p + i * page, (int)(i & 0xff), page); /* the rest of the page: a pattern that must survive */
        s.word[i] = (_Atomic uint64_t *)(p + i * page);
        atomic_store(s.word[i], 0);
    }
    pthread_t w, r;
    assert_int_equal(pthread_create(&w, NULL, writer, &s), 0);
    assert_int_equal(pthread_create(&r, NULL, reader, &s), 0);
    place_t to = bind0();
    int moves = 12;
    for (int k = 0; k < moves; k++) {
        usleep(2000);
        assert_int_equal(provider_numa.move->move(p, size, &to), 0);
    }
    atomic_store(&s.stop, 1);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    assert_int_equal(s.lost, 0);
    assert_int_equal(s.regressions, 0);
    assert_true(s.rounds > 0);
    for (int i = 0; i < THREAD_PAGES; i++)
        for (size_t b = sizeof(uint64_t); b < page; b += 97)
            if ((unsigned char)p[i * page + b] != (unsigned char)(i & 0xff))
                fail_msg("page %d byte %zu changed", i, b);
    print_message("%ld writer rounds across %d moves, no store lost, no stale read\n", s.rounds, moves);
    provider_numa.free(p, size);
    unsetenv("LOCI_ARENA_MOVE");
}

static void path_is_chosen_by_environment(void **state)
{
    char *p = fresh(MB);
    memset(p, 1, MB);
    place_t to = bind0();
    setenv("LOCI_ARENA_MOVE", "migrate", 1);
    assert_int_equal(vm_move_copy(p, MB, &to), 1); /* not this path: the caller migrates */
    assert_int_equal(provider_numa.move->move(p, MB, &to), 0);
    setenv("LOCI_ARENA_MOVE", "sideways", 1);
    assert_int_equal(provider_numa.move->move(p, MB, &to), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "LOCI_ARENA_MOVE=sideways"));
    assert_non_null(strstr(loci_last_error(), "auto, copy or migrate"));
    setenv("LOCI_ARENA_MOVE", "copy", 1);
    to.pinned = true; /* pinned memory migrates in place: copy cannot, and says so */
    assert_int_equal(vm_move_copy(p, MB, &to), LOCI_ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "pinned"));
    unsetenv("LOCI_ARENA_MOVE");
    assert_int_equal(vm_move_copy(p, MB, &to), 1); /* auto: pinned memory goes the mbind way */
    to.pinned = false;
    assert_int_equal(vm_move_copy(p, MB, &to), 0);
    assert_int_equal(p[MB - 1], 1);
    provider_numa.free(p, MB);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_keeps_addresses_bytes_and_holes),
        cmocka_unit_test(copy_leaves_holes_unfaulted),
        cmocka_unit_test(copy_under_writers_and_readers),
        cmocka_unit_test(path_is_chosen_by_environment),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
