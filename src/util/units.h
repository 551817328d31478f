/* Numbers with units, as written in config files and intents. */
#ifndef LOCI_UTIL_UNITS_H
#define LOCI_UTIL_UNITS_H

#include <stdbool.h>
#include <stdint.h>

/* Each returns false when `text` is not a number with an accepted unit, or
 * overflows 64 bits. Whitespace around number and unit is allowed. */

/** Bytes: "4096", "64K", "64KiB" (1024), "64KB" (1000), "1.5G", "2 TiB". */
bool units_parse_size(const char *text, uint64_t *bytes);
/** MB/s: "12000" (MB/s), "12 GB/s", "900MB/s", "100 GiB/s", "20 GB/s". */
bool units_parse_bandwidth(const char *text, uint64_t *mbps);
/** ns: "120" (ns), "120ns", "1.5us", "0.2 ms". */
bool units_parse_latency(const char *text, uint64_t *ns);

/** "16.0 GiB", "512 MiB", "4 KiB", "100 B" into buf. Returns buf. */
const char *units_format_size(uint64_t bytes, char *buf, unsigned len);

#endif
