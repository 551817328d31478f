/*
 * The one number parser: every number loci reads from a config file, the
 * environment or a command line (sizes, bandwidths, latencies, times,
 * shares, whole numbers such as a PID or a NUMA node) goes through it.
 *
 * A number is decimal digits with at most one '.' ("12", "1.5", ".5"),
 * whitespace around it and its unit allowed. Refused, each with why: a sign,
 * hexadecimal, an exponent, a decimal comma, "inf" and "nan" (what strtod
 * would take, some of it by the locale), a unit of another kind, a value
 * beyond 64 bits or the range asked for.
 *
 * Each returns false when `text` is refused; then *why (when why is not
 * NULL) says what was wrong and what would be right, e.g. "hexadecimal is
 * not read: write the number in decimal digits" — a constant string, for
 * the caller to put after the key and value and before what it expects.
 */
#ifndef LOCI_UTIL_UNITS_H
#define LOCI_UTIL_UNITS_H

#include <stdbool.h>
#include <stdint.h>

/** Bytes: "4096", "64K", "64KiB" (1024), "64KB" (1000), "1.5G", "2 TiB". */
bool units_parse_size(const char *text, uint64_t *bytes, const char **why);
/** MB/s: "12000" (MB/s), "12 GB/s", "900MB/s", "100 GiB/s", "20 GB/s". */
bool units_parse_bandwidth(const char *text, uint64_t *mbps, const char **why);
/** ns: "120" (ns), "120ns", "1.5us", "0.2 ms". */
bool units_parse_latency(const char *text, uint64_t *ns, const char **why);
/** Milliseconds: "200ms", "1.5s", "2min"; a bare number ("30", "0.5") is
 *  seconds when bare_seconds, else refused (the unit is required). */
bool units_parse_duration(const char *text, bool bare_seconds, uint64_t *ms, const char **why);
/** A share of a whole, 0 to 1: "10%", or a bare number — a fraction
 *  ("0.1") or, when bare_percent, percent ("10"). More than 100 % is refused. */
bool units_parse_share(const char *text, bool bare_percent, double *share, const char **why);
/** A whole number from min to max, no unit: "42". */
bool units_parse_whole(const char *text, uint64_t min, uint64_t max, uint64_t *n, const char **why);

/** "16.0 GiB", "512 MiB", "4 KiB", "100 B" into buf. Returns buf. */
const char *units_format_size(uint64_t bytes, char *buf, unsigned len);

#endif
