/* Sizes, bandwidths and latencies as written in configs and intents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "units.h"

static void sizes(void **state)
{
    uint64_t v;
    assert_true(units_parse_size("4096", &v));
    assert_int_equal(v, 4096);
    assert_true(units_parse_size(" 64 KiB ", &v));
    assert_int_equal(v, 65536);
    assert_true(units_parse_size("64k", &v));
    assert_int_equal(v, 65536);
    assert_true(units_parse_size("64KB", &v));
    assert_int_equal(v, 64000);
    assert_true(units_parse_size("1.5G", &v));
    assert_int_equal(v, 1610612736ull);
    assert_true(units_parse_size("2TiB", &v));
    assert_int_equal(v, 2ull << 40);
    assert_false(units_parse_size("", &v));
    assert_false(units_parse_size("-1", &v));
    assert_false(units_parse_size("12 parsecs", &v));
    assert_false(units_parse_size("0x10", &v));
    assert_false(units_parse_size("inf", &v));
    assert_false(units_parse_size("99999999999T", &v)); /* overflows 64 bits */
}

static void bandwidths_and_latencies(void **state)
{
    uint64_t v;
    assert_true(units_parse_bandwidth("12000", &v));
    assert_int_equal(v, 12000);
    assert_true(units_parse_bandwidth("400 GB/s", &v));
    assert_int_equal(v, 400000);
    assert_true(units_parse_bandwidth("900MB/s", &v));
    assert_int_equal(v, 900);
    assert_false(units_parse_bandwidth("fast", &v));
    assert_true(units_parse_latency("120ns", &v));
    assert_int_equal(v, 120);
    assert_true(units_parse_latency("1.5us", &v));
    assert_int_equal(v, 1500);
    assert_true(units_parse_latency("0.2 ms", &v));
    assert_int_equal(v, 200000);
    assert_false(units_parse_latency("120 s", &v));
}

static void formatting(void **state)
{
    char buf[32];
    assert_string_equal(units_format_size(100, buf, sizeof buf), "100 B");
    assert_string_equal(units_format_size(16ull << 30, buf, sizeof buf), "16.0 GiB");
    assert_string_equal(units_format_size(512ull << 20, buf, sizeof buf), "512.0 MiB");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(bandwidths_and_latencies),
        cmocka_unit_test(formatting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
