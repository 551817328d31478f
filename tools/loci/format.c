/* The formats of the `loci` commands' figures (bandwidth, latency and
 * where they came from) and of their JSON strings and lists. */
#include "format.h"

#include <inttypes.h>
#include <string.h>

/* v in its small unit, or in thousands of it (the big unit, `decimals`
 * after the point) from `big_from` up; "?" when unknown (0). */
static const char *format_figure(uint64_t v, uint64_t big_from, int decimals, const char *small, const char *big,
                                 char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "?");
    else if (v >= big_from)
        snprintf(buf, len, "%.*f %s", decimals, v / 1000.0, big);
    else
        snprintf(buf, len, "%" PRIu64 " %s", v, small);
    return buf;
}

const char *format_bandwidth(uint64_t mbps, char *buf, size_t len)
{
    return format_figure(mbps, 1000, 1, "MB/s", "GB/s", buf, len);
}

const char *format_bandwidth_gbps(uint64_t mbps, char *buf, size_t len)
{
    return format_figure(mbps, 1, 1, "MB/s", "GB/s", buf, len);
}

const char *format_latency(uint64_t ns, char *buf, size_t len)
{
    return format_figure(ns, 10000, 0, "ns", "us", buf, len);
}

const char *format_sources(const char *bandwidth_src, const char *latency_src, char *buf, size_t len)
{
    if (strcmp(bandwidth_src, latency_src) == 0)
        snprintf(buf, len, "%s", bandwidth_src);
    else
        snprintf(buf, len, "%s/%s", bandwidth_src, latency_src);
    return buf;
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void json_list(FILE *f, const char *key, const char *csv)
{
    fprintf(f, "\"%s\": [", key);
    char copy[256];
    snprintf(copy, sizeof copy, "%s", csv);
    int k = 0;
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        fputs(k++ ? ", " : "", f);
        json_string(f, tok);
    }
    fputc(']', f);
}
