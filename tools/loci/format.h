/* How the `loci` commands write figures and strings (format.c): one format
 * per figure, so `loci info`, `loci resolve` and `loci weights` print a
 * bandwidth or a latency the same way. */
#ifndef LOCI_TOOL_FORMAT_H
#define LOCI_TOOL_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** A bandwidth: "512 MB/s" below 1 GB/s, "12.3 GB/s" from there, "?" when
 *  unknown (0). Returns buf. */
const char *format_bandwidth(uint64_t mbps, char *buf, size_t len);

/** A bandwidth in GB/s whatever its size ("0.5 GB/s", "?" when unknown), for a
 *  column of one unit. Returns buf. */
const char *format_bandwidth_gbps(uint64_t mbps, char *buf, size_t len);

/** A latency: "90 ns" below 10 us, "12 us" from there, "?" when unknown (0). Returns buf. */
const char *format_latency(uint64_t ns, char *buf, size_t len);

/** Where a target's bandwidth and latency came from: "hmat", or
 *  "measured/distance" when the two differ. Returns buf. */
const char *format_sources(const char *bandwidth_src, const char *latency_src, char *buf, size_t len);

/** Write s as a JSON string literal (quoted, escaped). */
void json_string(FILE *f, const char *s);

/** Write `"key": [...]`, the items of the comma-separated list csv as JSON strings. */
void json_list(FILE *f, const char *key, const char *csv);

#endif
