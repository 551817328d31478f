/*
 * loci_place_range, the call the MPI front end binds windows with, on
 * memory loci did not map: the kernel's policy on the range afterwards
 * (this machine's nodes; the pages themselves are checked in the VM,
 * vm_mpi_place.c), bad input, intents it cannot serve, the fallbacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loci.h"

#include <errno.h>
#include <numaif.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page;

/* The kernel's policy at p: MPOL_* mode and the first node of its mask. */
static int policy_at(void *p, int *node)
{
    int mode = -1;
    unsigned long mask[16] = {0};
    assert_int_equal(get_mempolicy(&mode, mask, 16 * 8 * sizeof(unsigned long), p, MPOL_F_ADDR), 0);
    *node = mask[0] ? __builtin_ctzl(mask[0]) : -1;
    return mode;
}

static int best_node(const char *intent)
{
    const loci_target_t *t[1];
    loci_target_info_t ti;
    assert_true(loci_allocator_targets(loci_allocator_create(intent), t, 1) >= 1);
    assert_int_equal(loci_target_info(t[0], &ti), 0);
    return ti.numa_node;
}

static void *map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

/* A constraint binds the whole pages the range touches; pages already there stay usable. */
static void binds_rounded_out(void **state)
{
    (void)state;
    char *p = map(4 * page);
    memset(p, 7, 4 * page);
    assert_int_equal(loci_place_range(p + page + 100, page, "near=pe!"), 0);
    int node, expect = best_node("near=pe!");
    assert_int_equal(policy_at(p + page, &node), MPOL_BIND);
    assert_int_equal(node, expect);
    assert_int_equal(policy_at(p + 2 * page, &node), MPOL_BIND); /* the range's last byte is on page 2 */
    assert_int_equal(policy_at(p, &node), MPOL_DEFAULT);
    assert_int_equal(policy_at(p + 3 * page, &node), MPOL_DEFAULT);
    assert_int_equal(p[page + 5], 7);
    munmap(p, 4 * page);
}

/* A hint prefers (MPOL_PREFERRED or PREFERRED_MANY, whichever the kernel has). */
static void hint_prefers(void **state)
{
    (void)state;
    char *p = map(page);
    assert_int_equal(loci_place_range(p, page, "near=pe"), 0);
    int node, mode = policy_at(p, &node);
    assert_true(mode == MPOL_PREFERRED || mode == 5 /* MPOL_PREFERRED_MANY */);
    assert_int_equal(node, best_node("near=pe"));
    munmap(p, page);
}

/* Shared memory carries the policy with it: a second mapping of it sees it. */
static void shared_memory_keeps_it(void **state)
{
    (void)state;
    char *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(loci_place_range(p, page, "near=pe!"), 0);
    int node;
    assert_int_equal(policy_at(p, &node), MPOL_BIND);
    munmap(p, page);
}

static void bad_input(void **state)
{
    (void)state;
    char *p = map(page);
    assert_int_equal(loci_place_range(NULL, page, "near=pe"), LOCI_EINVAL);
    assert_int_equal(loci_place_range(p, page, "bandwith=high"), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "bandwith"));
    assert_int_equal(loci_place_range(p, page, "target=nosuch!"), LOCI_ENOENT);
    assert_int_equal(loci_place_range(p, page, "persist"), LOCI_ENOTSUP);
    assert_non_null(strstr(loci_last_error(), "NUMA"));
    munmap(p, page);
    assert_int_equal(loci_place_range(p, page, "near=pe"), LOCI_EINVAL); /* unmapped now */
}

/* An empty range (an MPI window's empty part: NULL in MPICH, anything in
 * Open MPI) is nothing to place, whatever the address and the intent. */
static void empty_range_is_nothing(void **state)
{
    (void)state;
    char *p = map(page);
    assert_int_equal(loci_place_range(NULL, 0, "near=pe!"), 0);
    assert_int_equal(loci_place_range(p, 0, "near=pe!"), 0);
    assert_int_equal(loci_place_range(p + page, 0, "near=pe!"), 0); /* one past the end */
    assert_int_equal(loci_place_range((void *)16, 0, ""), 0);       /* never mapped */
    assert_int_equal(loci_place_range(NULL, 0, "persist"), 0);      /* no NUMA target needed either */
    int node;
    assert_int_equal(policy_at(p, &node), MPOL_DEFAULT); /* the memory around it is untouched */
    munmap(p, page);
}

/* More than the node has: fallback=null says no room; the default finds none either
 * on a one-node machine but leaves the memory as it was. */
static void no_room(void **state)
{
    (void)state;
    char *p = map(page);
    assert_int_equal(loci_place_range(p, (size_t)1 << 50, "near=pe!,fallback=null"), LOCI_ENOMEM);
    assert_non_null(strstr(loci_last_error(), "no room"));
    int node;
    assert_int_equal(policy_at(p, &node), MPOL_DEFAULT);
    munmap(p, page);
}

/* Four times the memory of the machine's largest NUMA node (sysfs), at least 64 GiB. */
static size_t beyond_every_node(void)
{
    size_t most = 0;
    for (int n = 0; n < 1024; n++) {
        char path[96], line[256];
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", n);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Node %*d MemTotal: %llu kB", &kb) == 1 && kb * 1024 > most)
                most = (size_t)kb * 1024;
        fclose(f);
    }
    size_t len = 4 * most > ((size_t)64 << 30) ? 4 * most : (size_t)64 << 30;
    return (len + ((size_t)1 << 30) - 1) & ~(((size_t)1 << 30) - 1);
}

/* A range larger than every node (reserved, not backed: an MPI window a
 * program touches only in part): a hint still prefers its best target, a
 * constraint with the default fallback refuses to bind more than the node has.
 * (Not 16 TiB: sanitizers' shadow layouts leave less address space.) */
static void larger_than_any_node(void **state)
{
    (void)state;
    size_t len = beyond_every_node();
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        fail_msg("cannot reserve %zu GiB of address space (vm.overcommit_memory=2?): %s", len >> 30, strerror(errno));
    assert_int_equal(loci_place_range(p, len, "near=pe"), 0);
    int node, mode = policy_at(p + len - 1, &node);
    assert_true(mode == MPOL_PREFERRED || mode == 5 /* MPOL_PREFERRED_MANY */);
    assert_int_equal(node, best_node("near=pe"));
    p[0] = p[len - 1] = 1; /* usable as ever */
    munmap(p, len);
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(p != MAP_FAILED);
    assert_int_equal(loci_place_range(p, len, "near=pe!"), LOCI_ENOMEM);
    assert_non_null(strstr(loci_last_error(), "no room"));
    assert_int_equal(policy_at(p, &node), MPOL_DEFAULT);
    munmap(p, len);
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binds_rounded_out), cmocka_unit_test(hint_prefers),
        cmocka_unit_test(shared_memory_keeps_it), cmocka_unit_test(bad_input), cmocka_unit_test(empty_range_is_nothing),
        cmocka_unit_test(no_room), cmocka_unit_test(larger_than_any_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
