/* Parsing and printing of sizes, bandwidths and latencies. */
#include "units.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
    const char *suffix;
    double factor;
};

/* A decimal number ("12", "1.5", ".5") read by hand: strtod would follow the
 * locale's decimal point and accept hex, "inf" and signs. */
static bool read_decimal(const char **p, double *num)
{
    const char *s = *p;
    double v = 0, scale_digit = 1;
    bool digits = false;
    for (; isdigit((unsigned char)*s); s++, digits = true)
        v = v * 10 + (*s - '0');
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, digits = true)
            v += (*s - '0') * (scale_digit /= 10);
    if (!digits)
        return false;
    *num = v;
    *p = s;
    return true;
}

/* Split "  1.5 GiB " into a non-negative number and its unit text. */
static bool split_number(const char *text, double *num, char *unit, size_t unitlen)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!read_decimal(&text, num))
        return false;
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n > 0 && isspace((unsigned char)text[n - 1]))
        n--;
    if (n >= unitlen)
        return false;
    memcpy(unit, text, n);
    unit[n] = '\0';
    return true;
}

static bool scale(const char *text, const struct unit *units, size_t nunits, uint64_t *out)
{
    double num;
    char unit[16];
    if (!split_number(text, &num, unit, sizeof unit))
        return false;
    for (size_t i = 0; i < nunits; i++) {
        if (strcasecmp(unit, units[i].suffix) != 0)
            continue;
        double v = num * units[i].factor + 0.5;
        if (v >= 18446744073709551616.0) /* 2^64: does not fit */
            return false;
        *out = (uint64_t)v;
        return true;
    }
    return false;
}

#define KI 1024.0
bool units_parse_size(const char *text, uint64_t *bytes)
{
    static const struct unit units[] = {
        {"", 1},           {"b", 1},
        {"k", KI},         {"kib", KI},         {"kb", 1e3},
        {"m", KI * KI},    {"mib", KI * KI},    {"mb", 1e6},
        {"g", KI * KI * KI}, {"gib", KI * KI * KI}, {"gb", 1e9},
        {"t", KI * KI * KI * KI}, {"tib", KI * KI * KI * KI}, {"tb", 1e12},
    };
    return scale(text, units, sizeof units / sizeof *units, bytes);
}

bool units_parse_bandwidth(const char *text, uint64_t *mbps)
{
    static const struct unit units[] = {
        {"", 1},           {"mb/s", 1},
        {"gb/s", 1e3},     {"tb/s", 1e6},
        {"mib/s", KI * KI / 1e6}, {"gib/s", KI * KI * KI / 1e6},
    };
    return scale(text, units, sizeof units / sizeof *units, mbps);
}

bool units_parse_latency(const char *text, uint64_t *ns)
{
    static const struct unit units[] = {
        {"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6},
    };
    return scale(text, units, sizeof units / sizeof *units, ns);
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
