/* What the kernel keeps in DRAM of a range: the truth tests about purging,
 * eviction and population assert on. */
#ifndef LOCI_TEST_RESIDENT_H
#define LOCI_TEST_RESIDENT_H

#include <stddef.h>

/** Pages of [p, p+len) (page-aligned) resident now, by mincore. */
size_t resident_pages(const void *p, size_t len);

#endif
