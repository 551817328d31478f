/* Parsing and printing of numbers with units: the one number parser. */
#include "units.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

struct unit {
    const char *suffix;
    double factor; /* of the kind's base unit */
};

/* One kind of number: the units it may carry, and what to say when the
 * text after the number is none of them. */
struct kind {
    const struct unit *units;
    size_t nunits;
    const char *unknown_unit;
};

typedef struct {
    uint64_t whole; /* the digits before '.', exactly */
    double fraction;
    bool overflow, point;
} number_t;

static const char TOO_LARGE[] = "too large: beyond what 64 bits hold";

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static bool refuse(const char **why, const char *reason)
{
    if (why)
        *why = reason;
    return false;
}

/* The decimal number at *p ("12", "1.5", ".5"), read by hand: strtod would
 * follow the locale's decimal point and take hex, "inf", exponents and
 * signs. NULL, or why it is not one. */
static const char *read_number(const char **p, number_t *n)
{
    const char *s = *p;
    if (*s == '-' || *s == '+')
        return "a sign is not read: write the number's digits alone (no number here is negative)";
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return "hexadecimal is not read: write the number in decimal digits";
    *n = (number_t){0};
    bool digits = false;
    for (; is_digit(*s); s++, digits = true) {
        unsigned d = (unsigned)(*s - '0');
        if (n->whole > (UINT64_MAX - d) / 10)
            n->overflow = true;
        else
            n->whole = n->whole * 10 + d;
    }
    if (*s == '.') {
        n->point = true;
        double scale = 1;
        for (s++; is_digit(*s); s++, digits = true)
            n->fraction += (*s - '0') * (scale /= 10);
    }
    if (!digits)
        return "not a number: write decimal digits (as in 64 or 1.5)";
    if (*s == ',' && is_digit(s[1]))
        return "',' is not read: write the digits alone, a fraction after a '.' (1.5, 1000)";
    if ((*s == 'e' || *s == 'E') && (is_digit(s[1]) || s[1] == '-' || s[1] == '+'))
        return "an exponent is not read: write every digit (1e3 as 1000)";
    *p = s;
    return NULL;
}

/* "  1.5 GiB ": the number, and the factor of its unit among k's. NULL, or why not. */
static const char *number_and_unit(const char *text, const struct kind *k, number_t *n, double *factor)
{
    const char *s = text;
    while (is_space(*s))
        s++;
    if (!*s)
        return "no number given";
    const char *bad = read_number(&s, n);
    if (bad)
        return bad;
    while (is_space(*s))
        s++;
    size_t len = strlen(s);
    while (len > 0 && is_space(s[len - 1]))
        len--;
    for (size_t i = 0; i < k->nunits; i++)
        if (strlen(k->units[i].suffix) == len && strncasecmp(s, k->units[i].suffix, len) == 0) {
            *factor = k->units[i].factor;
            return NULL;
        }
    return k->unknown_unit;
}

/* n in the unit of `factor` as a count of the base unit, rounded; exact for
 * a whole factor (bytes of "18446744073709551615" are those bytes). */
static const char *scale(const number_t *n, double factor, uint64_t *out)
{
    if (n->overflow)
        return TOO_LARGE;
    if (factor >= 1 && factor < 18446744073709551616.0 && factor == (double)(uint64_t)factor) {
        uint64_t f = (uint64_t)factor;
        if (n->whole > UINT64_MAX / f)
            return TOO_LARGE;
        uint64_t v = n->whole * f, part = (uint64_t)(n->fraction * factor + 0.5); /* <= f */
        if (part > UINT64_MAX - v)
            return TOO_LARGE;
        *out = v + part;
        return NULL;
    }
    double v = ((double)n->whole + n->fraction) * factor + 0.5;
    if (v >= 18446744073709551616.0) /* 2^64 */
        return TOO_LARGE;
    *out = (uint64_t)v;
    return NULL;
}

static bool parse_scaled(const char *text, const struct kind *k, uint64_t *out, const char **why)
{
    number_t n;
    double factor;
    const char *bad = number_and_unit(text, k, &n, &factor);
    if (!bad)
        bad = scale(&n, factor, out);
    return bad ? refuse(why, bad) : true;
}

#define KI 1024.0
#define COUNT(a) (sizeof(a) / sizeof *(a))

bool units_parse_size(const char *text, uint64_t *bytes, const char **why)
{
    static const struct unit units[] = {
        {"", 1},           {"b", 1},
        {"k", KI},         {"kib", KI},         {"kb", 1e3},
        {"m", KI * KI},    {"mib", KI * KI},    {"mb", 1e6},
        {"g", KI * KI * KI}, {"gib", KI * KI * KI}, {"gb", 1e9},
        {"t", KI * KI * KI * KI}, {"tib", KI * KI * KI * KI}, {"tb", 1e12},
    };
    static const struct kind size = {units, COUNT(units),
                                     "not a unit of size: write bytes as a bare number or with B, or one of K, KiB, "
                                     "KB, M, MiB, MB, G, GiB, GB, T, TiB, TB (K and KiB are 1024, KB 1000)"};
    return parse_scaled(text, &size, bytes, why);
}

bool units_parse_bandwidth(const char *text, uint64_t *mbps, const char **why)
{
    static const struct unit units[] = {
        {"", 1},           {"mb/s", 1},
        {"gb/s", 1e3},     {"tb/s", 1e6},
        {"mib/s", KI * KI / 1e6}, {"gib/s", KI * KI * KI / 1e6},
    };
    static const struct kind bandwidth = {units, COUNT(units),
                                          "not a unit of bandwidth: write MB/s as a bare number, or with one of "
                                          "MB/s, GB/s, TB/s, MiB/s, GiB/s"};
    return parse_scaled(text, &bandwidth, mbps, why);
}

bool units_parse_latency(const char *text, uint64_t *ns, const char **why)
{
    static const struct unit units[] = {
        {"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6},
    };
    static const struct kind latency = {units, COUNT(units),
                                        "not a unit of latency: write ns as a bare number, or with one of ns, us, ms"};
    return parse_scaled(text, &latency, ns, why);
}

bool units_parse_duration(const char *text, bool bare_seconds, uint64_t *ms, const char **why)
{
    static const struct unit units[] = {
        {"ms", 1}, {"s", 1e3}, {"min", 60e3}, {"", 1e3},
    };
    static const struct kind with_bare = {units, COUNT(units),
                                          "not a unit of time: write seconds as a bare number, or with one of ms, "
                                          "s, min"},
                             unit_needed = {units, COUNT(units) - 1,
                                            "a time needs its unit: write one of ms, s, min after the number (as "
                                            "in 200ms or 1.5s)"};
    return parse_scaled(text, bare_seconds ? &with_bare : &unit_needed, ms, why);
}

bool units_parse_share(const char *text, bool bare_percent, double *share, const char **why)
{
    static const struct unit fraction[] = {{"%", 0.01}, {"", 1}}, percent[] = {{"%", 0.01}, {"", 0.01}};
    static const struct kind as_fraction = {fraction, COUNT(fraction),
                                            "not a share: write a percentage (10%) or a fraction (0.1)"},
                             as_percent = {percent, COUNT(percent), "not a share: write a percentage (10% or 10)"};
    number_t n;
    double factor;
    const char *bad = number_and_unit(text, bare_percent ? &as_percent : &as_fraction, &n, &factor);
    if (bad)
        return refuse(why, bad);
    double v = ((double)n.whole + n.fraction) * factor;
    if (n.overflow || v > 1 + 1e-12)
        return refuse(why, "more than the whole: at most 100%");
    *share = v > 1 ? 1 : v;
    return true;
}

bool units_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *n, const char **why)
{
    static const struct unit none[] = {{"", 1}};
    static const struct kind whole = {none, COUNT(none), "something after the number: write its digits alone"};
    number_t num;
    double factor;
    const char *bad = number_and_unit(text, &whole, &num, &factor);
    if (bad)
        return refuse(why, bad);
    if (num.point)
        return refuse(why, "not a whole number: write digits alone, without a '.'");
    if (num.overflow || num.whole > max)
        return refuse(why, "too large: more than the most allowed");
    if (num.whole < min)
        return refuse(why, "too small: less than the least allowed");
    *n = num.whole;
    return true;
}

const char *units_format_size(uint64_t bytes, char *buf, unsigned len)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int i = 0;
    while (v >= 1024.0 && i < 5) {
        v /= 1024.0;
        i++;
    }
    if (i == 0)
        snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.1f %s", v, names[i]);
    return buf;
}
