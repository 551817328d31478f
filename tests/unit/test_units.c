/*
 * The one number parser (src/util/units.c): sizes, bandwidths, latencies,
 * times, shares and whole numbers as written in configs, the environment,
 * intents and command lines; and what it says of each text it refuses —
 * what was wrong, and what would be right.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "units.h"

#include <limits.h>
#include <string.h>

/* ok is false and why names both halves: what was wrong, what to write. */
static void expect_why(bool ok, const char *const *whyp, const char *text, const char *wrong, const char *right)
{
    const char *why = *whyp; /* read after the call: arguments are evaluated in no set order */
    if (ok)
        fail_msg("\"%s\" was taken", text);
    if (!why || !strstr(why, wrong) || !strstr(why, right))
        fail_msg("\"%s\": why \"%s\" lacks \"%s\" or \"%s\"", text, why ? why : "(null)", wrong, right);
}

static void sizes(void **state)
{
    uint64_t v;
    assert_true(units_parse_size("4096", &v, NULL));
    assert_int_equal(v, 4096);
    assert_true(units_parse_size(" 64 KiB ", &v, NULL));
    assert_int_equal(v, 65536);
    assert_true(units_parse_size("64k", &v, NULL));
    assert_int_equal(v, 65536);
    assert_true(units_parse_size("64KB", &v, NULL));
    assert_int_equal(v, 64000);
    assert_true(units_parse_size("1.5G", &v, NULL));
    assert_int_equal(v, 1610612736ull);
    assert_true(units_parse_size(".5K", &v, NULL));
    assert_int_equal(v, 512);
    assert_true(units_parse_size("2TiB", &v, NULL));
    assert_int_equal(v, 2ull << 40);
    assert_true(units_parse_size("18446744073709551615", &v, NULL)); /* exact: no double rounding */
    assert_true(v == UINT64_MAX);
    assert_true(units_parse_size("9007199254740993", &v, NULL)); /* 2^53 + 1 */
    assert_true(v == 9007199254740993ull);
    assert_false(units_parse_size("99999999999T", &v, NULL)); /* overflows 64 bits */
    assert_false(units_parse_size("18446744073709551616", &v, NULL));
}

static void refusals_say_what_was_wrong_and_what_is_right(void **state)
{
    uint64_t v;
    const char *why = NULL;
    expect_why(units_parse_size("0x10", &v, &why), &why, "0x10", "hexadecimal", "decimal digits");
    expect_why(units_parse_size("-1", &v, &why), &why, "-1", "sign", "digits alone");
    expect_why(units_parse_size("+1", &v, &why), &why, "+1", "sign", "digits alone");
    expect_why(units_parse_size("1e3", &v, &why), &why, "1e3", "exponent", "1000");
    expect_why(units_parse_size("1,5G", &v, &why), &why, "1,5G", "','", "after a '.'");
    expect_why(units_parse_size("inf", &v, &why), &why, "inf", "not a number", "decimal digits");
    expect_why(units_parse_size("nan", &v, &why), &why, "nan", "not a number", "decimal digits");
    expect_why(units_parse_size("", &v, &why), &why, "", "no number", "");
    expect_why(units_parse_size("   ", &v, &why), &why, "   ", "no number", "");
    expect_why(units_parse_size("12 parsecs", &v, &why), &why, "12 parsecs", "not a unit of size", "KiB");
    expect_why(units_parse_size("12 GB/s", &v, &why), &why, "12 GB/s", "not a unit of size", "GiB");
    expect_why(units_parse_size("99999999999T", &v, &why), &why, "99999999999T", "too large", "64 bits");
    expect_why(units_parse_bandwidth("fast", &v, &why), &why, "fast", "not a number", "digits");
    expect_why(units_parse_bandwidth("12 GB", &v, &why), &why, "12 GB", "not a unit of bandwidth", "GB/s");
    expect_why(units_parse_latency("120 s", &v, &why), &why, "120 s", "not a unit of latency", "us");
}

static void bandwidths_and_latencies(void **state)
{
    uint64_t v;
    assert_true(units_parse_bandwidth("12000", &v, NULL));
    assert_int_equal(v, 12000);
    assert_true(units_parse_bandwidth("400 GB/s", &v, NULL));
    assert_int_equal(v, 400000);
    assert_true(units_parse_bandwidth("900MB/s", &v, NULL));
    assert_int_equal(v, 900);
    assert_true(units_parse_bandwidth("1 GiB/s", &v, NULL));
    assert_int_equal(v, 1074);
    assert_true(units_parse_latency("120ns", &v, NULL));
    assert_int_equal(v, 120);
    assert_true(units_parse_latency("1.5us", &v, NULL));
    assert_int_equal(v, 1500);
    assert_true(units_parse_latency("0.2 ms", &v, NULL));
    assert_int_equal(v, 200000);
}

static void durations(void **state)
{
    uint64_t ms;
    const char *why = NULL;
    assert_true(units_parse_duration("200ms", false, &ms, NULL));
    assert_int_equal(ms, 200);
    assert_true(units_parse_duration("1.5s", false, &ms, NULL));
    assert_int_equal(ms, 1500);
    assert_true(units_parse_duration("2min", true, &ms, NULL));
    assert_int_equal(ms, 120000);
    assert_true(units_parse_duration("0.5", true, &ms, NULL)); /* bare: seconds */
    assert_int_equal(ms, 500);
    expect_why(units_parse_duration("200", false, &ms, &why), &why, "200", "needs its unit", "200ms");
    expect_why(units_parse_duration("2h", true, &ms, &why), &why, "2h", "not a unit of time", "min");
    expect_why(units_parse_duration("-1s", true, &ms, &why), &why, "-1s", "sign", "digits");
}

static void shares(void **state)
{
    double s;
    const char *why = NULL;
    assert_true(units_parse_share("10%", false, &s, NULL));
    assert_true(s > 0.0999 && s < 0.1001);
    assert_true(units_parse_share("0.25", false, &s, NULL)); /* a fraction */
    assert_true(s > 0.2499 && s < 0.2501);
    assert_true(units_parse_share("50", true, &s, NULL)); /* percent */
    assert_true(s > 0.4999 && s < 0.5001);
    assert_true(units_parse_share("100 %", false, &s, NULL));
    assert_true(s == 1.0);
    assert_true(units_parse_share("0%", false, &s, NULL));
    assert_true(s == 0.0);
    /* strtod took "0x10%" as 16 % */
    expect_why(units_parse_share("0x10%", false, &s, &why), &why, "0x10%", "hexadecimal", "decimal digits");
    expect_why(units_parse_share("-5%", false, &s, &why), &why, "-5%", "sign", "digits");
    expect_why(units_parse_share("1e1%", false, &s, &why), &why, "1e1%", "exponent", "every digit");
    expect_why(units_parse_share("101%", false, &s, &why), &why, "101%", "more than the whole", "100%");
    expect_why(units_parse_share("2", false, &s, &why), &why, "2", "more than the whole", "100%");
    expect_why(units_parse_share("10 pct", false, &s, &why), &why, "10 pct", "not a share", "10%");
}

static void whole_numbers(void **state)
{
    uint64_t n;
    const char *why = NULL;
    assert_true(units_parse_whole("42", 1, INT_MAX, &n, NULL));
    assert_int_equal(n, 42);
    assert_true(units_parse_whole(" 2147483647 ", 1, INT_MAX, &n, NULL));
    assert_int_equal(n, INT_MAX);
    assert_true(units_parse_whole("010", 0, 100, &n, NULL)); /* decimal, not octal */
    assert_int_equal(n, 10);
    /* a pid_t: 2^32 + 1 was taken as process 1, 2^31 as process -2^31 */
    expect_why(units_parse_whole("4294967297", 1, INT_MAX, &n, &why), &why, "4294967297", "too large", "most");
    expect_why(units_parse_whole("2147483648", 1, INT_MAX, &n, &why), &why, "2147483648", "too large", "most");
    expect_why(units_parse_whole("99999999999999999999999", 1, INT_MAX, &n, &why), &why, "99999999999999999999999",
               "too large", "most");
    expect_why(units_parse_whole("0", 1, INT_MAX, &n, &why), &why, "0", "too small", "least");
    expect_why(units_parse_whole("1.5", 0, 9, &n, &why), &why, "1.5", "not a whole number", "without a '.'");
    expect_why(units_parse_whole("12abc", 0, 99, &n, &why), &why, "12abc", "after the number", "digits alone");
    expect_why(units_parse_whole("0x1", 0, 99, &n, &why), &why, "0x1", "hexadecimal", "decimal digits");
    expect_why(units_parse_whole("-1", 0, 99, &n, &why), &why, "-1", "sign", "digits alone");
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
        cmocka_unit_test(refusals_say_what_was_wrong_and_what_is_right),
        cmocka_unit_test(bandwidths_and_latencies),
        cmocka_unit_test(durations),
        cmocka_unit_test(shares),
        cmocka_unit_test(whole_numbers),
        cmocka_unit_test(formatting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
