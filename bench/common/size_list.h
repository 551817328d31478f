/*
 * Block sizes as the benchmarks take and print them: "--sizes 8-2M" (powers
 * of two from 8 to 2 MiB), "8,64,4K", or a mix; "4K", "2M" in a table.
 */
#ifndef LOCI_BENCH_SIZE_LIST_H
#define LOCI_BENCH_SIZE_LIST_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One size: digits, then K, M or G (KiB, MiB, GiB; "KiB" and "KB" read the
 * same), at most 1 TiB. 0, or -1 when s is no such size. */
static inline int bench_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K') mul = 1ull << 10, end++;
    else if (*end == 'm' || *end == 'M') mul = 1ull << 20, end++;
    else if (*end == 'g' || *end == 'G') mul = 1ull << 30, end++;
    if (mul > 1 && (!strcmp(end, "iB") || !strcmp(end, "ib")))
        end += 2;
    else if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v == 0 || v > (1ull << 40) / mul)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

/* The sizes of arg into out (at most max of them): their count, or -1 with
 * why (a message starting "--sizes: ") when arg is not a list of sizes. */
static inline int bench_parse_sizes(const char *arg, size_t *out, int max, char *why, size_t whylen)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        size_t lo = 0, hi = 0;
        if (dash) {
            *dash = '\0';
            if (bench_parse_size(tok, &lo) || bench_parse_size(dash + 1, &hi) || lo > hi) {
                snprintf(why, whylen, "--sizes: bad range '%s-%s' (e.g. 8-2M)", tok, dash + 1);
                return -1;
            }
            for (size_t s = lo; s <= hi && n < max; s *= 2)
                out[n++] = s;
        } else {
            if (bench_parse_size(tok, &lo)) {
                snprintf(why, whylen, "--sizes: bad size '%s' (e.g. 64, 4K, 2M)", tok);
                return -1;
            }
            if (n < max)
                out[n++] = lo;
        }
    }
    if (n == 0) {
        snprintf(why, whylen, "--sizes: no size given");
        return -1;
    }
    return n;
}

/* The same, and when arg is no list "PROG: why" on stderr (when tell: one
 * process of a job says it) and stop(2), which ends the job. */
static inline int bench_sizes(const char *prog, const char *arg, size_t *out, int max, bool tell, void (*stop)(int code))
{
    char why[640];
    int n = bench_parse_sizes(arg, out, max, why, sizeof why);
    if (n < 0) {
        if (tell)
            fprintf(stderr, "%s: %s\n", prog, why);
        stop(2);
    }
    return n;
}

/* A size for a table: "4K", "2M", "24" (iec: "4 KiB", "2 MiB", "24 B"). Returns buf. */
static inline const char *bench_size_label(size_t v, bool iec, char *buf, size_t len)
{
    if (v >= 1u << 20 && v % (1u << 20) == 0)
        snprintf(buf, len, "%zu%s", v >> 20, iec ? " MiB" : "M");
    else if (v >= 1024 && v % 1024 == 0)
        snprintf(buf, len, "%zu%s", v >> 10, iec ? " KiB" : "K");
    else
        snprintf(buf, len, "%zu%s", v, iec ? " B" : "");
    return buf;
}

#endif
