/*
 * Arrays that grow by doubling: the one way loci makes room for one more
 * element in a table it appends to (registered variables, checkpoint lists,
 * config entries, address tables, a move's extents...). Header-only so that
 * the front ends, which reach libloci through its exported API only, can use
 * it too.
 */
#ifndef LOCI_UTIL_GROW_H
#define LOCI_UTIL_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Room for element n of the array v of *cap elements of elem_size bytes:
 * v itself while n < *cap, else v reallocated to twice *cap (`first` the
 * first time) with *cap updated. NULL when out of memory: v and *cap are
 * then as they were, and v is still the caller's to use or free. */
static inline void *grow_for_one(void *v, size_t n, size_t *cap, size_t elem_size, size_t first)
{
    if (n < *cap)
        return v;
    size_t want = *cap ? 2 * *cap : first;
    if (want < *cap || want > SIZE_MAX / elem_size)
        return NULL;
    void *grown = realloc(v, want * elem_size);
    if (grown)
        *cap = want;
    return grown;
}

#endif
