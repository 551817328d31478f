/* partition=interleave: weights from bandwidths, the kernel's weights, and the policy an
 * interleaved block gets on this kernel. Page shares per node are checked in the VM
 * (tests/vm/vm_interleave.c), where there are several nodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "os/vm.h"
#include "alloc/allocator.h"

#include <numaif.h>
#include <string.h>
#include <unistd.h>

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

static void weights_of(const uint64_t *bw, int n, const unsigned *want)
{
    unsigned w[8];
    assert_int_equal(interleave_weights(bw, n, w), 0);
    for (int i = 0; i < n; i++)
        if (w[i] != want[i])
            fail_msg("bandwidth %d: weight %u, expected %u", i, w[i], want[i]);
}

static void weights_from_bandwidths(void **state)
{
    /* the VM's tiers3 (HMAT, MB/s): DRAM 20, HBM 80, CXL 10 GB/s */
    weights_of((uint64_t[]){20480, 81920, 10240}, 3, (unsigned[]){2, 8, 1});
    weights_of((uint64_t[]){5000, 5000}, 2, (unsigned[]){1, 1});
    weights_of((uint64_t[]){30000, 20000}, 2, (unsigned[]){3, 2});
    /* beyond the kernel's 1..255: the widest ratio it can express */
    weights_of((uint64_t[]){100, 1000000}, 2, (unsigned[]){1, 255});
}

/* Uneven figures: the shares stay within 1 % of the bandwidths' shares. */
static void weights_close_to_shares(void **state)
{
    const uint64_t bw[] = {250000, 119000, 850000, 119000, 31000};
    const int n = 5;
    unsigned w[5];
    assert_int_equal(interleave_weights(bw, n, w), 0);
    double sw = 0, sb = 0;
    for (int i = 0; i < n; i++) {
        sw += w[i];
        sb += (double)bw[i];
    }
    for (int i = 0; i < n; i++) {
        double got = w[i] / sw, want = bw[i] / sb;
        assert_true(w[i] >= 1 && w[i] <= 255);
        if (got < want * 0.99 || got > want * 1.01)
            fail_msg("node %d: share %.4f for a bandwidth share of %.4f (weight %u)", i, got, want, w[i]);
    }
}

static void unknown_bandwidth_is_even(void **state)
{
    unsigned w[3] = {7, 7, 7};
    assert_int_equal(interleave_weights((uint64_t[]){20000, 0, 10000}, 3, w), LOCI_ENOTSUP);
    assert_true(w[0] == 1 && w[1] == 1 && w[2] == 1);
}

/* The kernel's weight of node 0: there exactly when the kernel has weighted interleave. */
static void kernel_weight(void **state)
{
    assert_int_equal(loci_init(), 0);
    unsigned w = 0;
    int rc = vm_interleave_weight(0, &w);
    if (access("/sys/kernel/mm/mempolicy/weighted_interleave/node0", R_OK) == 0) {
        assert_int_equal(rc, 0);
        assert_true(w >= 1 && w <= VM_MAX_WEIGHT);
        assert_true(vm_has_weighted_interleave());
    } else {
        assert_int_equal(rc, LOCI_ENOTSUP);
        assert_non_null(strstr(loci_last_error(), "Linux 6.9"));
    }
    assert_int_equal(vm_set_interleave_weight(0, 0), LOCI_EINVAL);
    assert_non_null(strstr(loci_last_error(), "outside 1..255"));
    assert_int_equal(vm_set_interleave_weight(0, 256), LOCI_EINVAL);
    loci_fini();
}

/* An interleaved block gets MPOL_WEIGHTED_INTERLEAVE where the kernel has it, else
 * MPOL_INTERLEAVE: the weighted policy is probed, not assumed. */
static void interleaved_block_policy(void **state)
{
    assert_int_equal(loci_init(), 0);
    loci_allocator_t *a = loci_allocator_create("partition=interleave");
    assert_non_null(a);
    const size_t size = 8 << 20;
    char *p = loci_alloc(a, size);
    assert_non_null(p);
    memset(p, 1, size);
    int mode = -1;
    unsigned long mask[16] = {0};
    assert_int_equal(get_mempolicy(&mode, mask, 1024, p + size / 2, MPOL_F_ADDR), 0);
    assert_int_equal(mode, vm_has_weighted_interleave() ? MPOL_WEIGHTED_INTERLEAVE : MPOL_INTERLEAVE);
    assert_true(mask[0] & 1);
    loci_free(p);
    loci_fini();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weights_from_bandwidths),
        cmocka_unit_test(weights_close_to_shares),
        cmocka_unit_test(unknown_bandwidth_is_even),
        cmocka_unit_test(kernel_weight),
        cmocka_unit_test(interleaved_block_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
