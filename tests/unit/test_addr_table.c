/* The address table every extent, region and shared-arena lookup uses (src/util/addr_table.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "addr_table.h"

static int a, b, c;

/* Any address inside a range leads to its value; the gaps and the end of a range to none. */
static void finds_the_range_holding_an_address(void **state)
{
    (void)state;
    addr_table_t t = ADDR_TABLE_INIT;
    assert_null(addr_table_find(&t, 0x1000)); /* empty */
    /* added out of order */
    assert_true(addr_table_add(&t, 0x5000, 0x1000, &b));
    assert_true(addr_table_add(&t, 0x1000, 0x2000, &a));
    assert_true(addr_table_add(&t, 0x9000, 0x100, &c));
    assert_ptr_equal(addr_table_find(&t, 0x1000), &a);
    assert_ptr_equal(addr_table_find(&t, 0x2fff), &a);
    assert_null(addr_table_find(&t, 0x3000));
    assert_null(addr_table_find(&t, 0xfff));
    assert_ptr_equal(addr_table_find(&t, 0x5800), &b);
    assert_ptr_equal(addr_table_find(&t, 0x90ff), &c);
    assert_null(addr_table_find(&t, 0x9100));
    assert_null(addr_table_find(&t, UINTPTR_MAX));
    /* walks see them by address */
    assert_int_equal(t.n, 3);
    assert_ptr_equal(t.v[0].value, &a);
    assert_ptr_equal(t.v[2].value, &c);
    addr_table_clear(&t);
    assert_int_equal(t.n, 0);
    assert_null(addr_table_find(&t, 0x1000));
}

/* Removing takes out exactly the range starting there; the last one gives the array back. */
static void removes_by_base(void **state)
{
    (void)state;
    addr_table_t t = ADDR_TABLE_INIT;
    assert_true(addr_table_add(&t, 0x1000, 0x1000, &a));
    assert_true(addr_table_add(&t, 0x2000, 0x1000, &b));
    assert_null(addr_table_remove(&t, 0x1800)); /* inside, not a start */
    assert_ptr_equal(addr_table_remove(&t, 0x1000), &a);
    assert_null(addr_table_find(&t, 0x1000));
    assert_ptr_equal(addr_table_find(&t, 0x2000), &b);
    assert_null(addr_table_remove(&t, 0x1000)); /* gone already */
    assert_ptr_equal(addr_table_remove(&t, 0x2000), &b);
    assert_int_equal(t.n, 0);
    assert_null(t.v);
}

/* A range mremapped elsewhere is found at its new place only, and sorts there. */
static void rekeys_a_moved_range(void **state)
{
    (void)state;
    addr_table_t t = ADDR_TABLE_INIT;
    assert_true(addr_table_add(&t, 0x1000, 0x1000, &a));
    assert_true(addr_table_add(&t, 0x4000, 0x1000, &b));
    assert_true(addr_table_rekey(&t, 0x1000, 0x8000));
    assert_false(addr_table_rekey(&t, 0x1000, 0x9000));
    assert_null(addr_table_find(&t, 0x1000));
    assert_ptr_equal(addr_table_find(&t, 0x8fff), &a);
    assert_ptr_equal(t.v[0].value, &b);
    assert_ptr_equal(t.v[1].value, &a);
    addr_table_clear(&t);
}

/* Many ranges: every one is found at its first and last byte (the binary search's edges). */
static void many_ranges(void **state)
{
    (void)state;
    enum { N = 1000 };
    static int values[N];
    addr_table_t t = ADDR_TABLE_INIT;
    for (int i = N - 1; i >= 0; i -= 2) /* odd ones first, then even: inserts in the middle */
        assert_true(addr_table_add(&t, 0x10000 + (uintptr_t)i * 0x100, 0x80, &values[i]));
    for (int i = N - 2; i >= 0; i -= 2)
        assert_true(addr_table_add(&t, 0x10000 + (uintptr_t)i * 0x100, 0x80, &values[i]));
    for (int i = 0; i < N; i++) {
        uintptr_t base = 0x10000 + (uintptr_t)i * 0x100;
        assert_ptr_equal(addr_table_find(&t, base), &values[i]);
        assert_ptr_equal(addr_table_find(&t, base + 0x7f), &values[i]);
        assert_null(addr_table_find(&t, base + 0x80));
    }
    addr_table_clear(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_the_range_holding_an_address),
        cmocka_unit_test(removes_by_base),
        cmocka_unit_test(rekeys_a_moved_range),
        cmocka_unit_test(many_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
