/*
 * Address ranges to values: which extent, region or arena an address is in.
 * A sorted array and binary search; the caller holds its own lock around
 * every call (the tables are small and change only when whole extents or
 * regions come and go, never on an allocation's fast path; the pool's page
 * map answers for blocks).
 */
#ifndef LOCI_UTIL_ADDR_TABLE_H
#define LOCI_UTIL_ADDR_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t base;
    size_t size;
    void *value; /* the caller's, never NULL */
} addr_entry_t;

typedef struct {
    addr_entry_t *v; /* by base; v[0..n) are the entries, for walks */
    size_t n, cap;
} addr_table_t;

#define ADDR_TABLE_INIT {NULL, 0, 0}

/** Add [base, base + size) -> value. False when out of memory (the table
 *  is as it was). Ranges must not overlap. */
bool addr_table_add(addr_table_t *t, uintptr_t base, size_t size, void *value);

/** The value whose range holds addr, or NULL. */
void *addr_table_find(const addr_table_t *t, uintptr_t addr);

/** Take out the entry starting at base: its value, or NULL when there is
 *  none. The array is given back when the last entry goes. */
void *addr_table_remove(addr_table_t *t, uintptr_t base);

/** The entry starting at `from` starts at `to` now (its range was mremapped
 *  there). False when there is none. Never allocates. */
bool addr_table_rekey(addr_table_t *t, uintptr_t from, uintptr_t to);

/** Forget every entry and give the array back (the values are the caller's). */
void addr_table_clear(addr_table_t *t);

#endif
