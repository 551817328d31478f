/* Address ranges to values: a sorted array (see addr_table.h). */
#include "addr_table.h"
#include "grow.h"

#include <stdlib.h>
#include <string.h>

/* Index of the first entry with base > addr. */
static size_t upper(const addr_table_t *t, uintptr_t addr)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the entry starting at base, or t->n. */
static size_t at(const addr_table_t *t, uintptr_t base)
{
    size_t i = upper(t, base);
    return i > 0 && t->v[i - 1].base == base ? i - 1 : t->n;
}

static void put(addr_table_t *t, addr_entry_t e) /* room for it */
{
    size_t i = upper(t, e.base);
    memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof *t->v);
    t->v[i] = e;
    t->n++;
}

static addr_entry_t take(addr_table_t *t, size_t i)
{
    addr_entry_t e = t->v[i];
    memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof *t->v);
    t->n--;
    return e;
}

bool addr_table_add(addr_table_t *t, uintptr_t base, size_t size, void *value)
{
    addr_entry_t *v = grow_for_one(t->v, t->n, &t->cap, sizeof *v, 16);
    if (!v)
        return false;
    t->v = v;
    put(t, (addr_entry_t){base, size, value});
    return true;
}

void *addr_table_find(const addr_table_t *t, uintptr_t addr)
{
    size_t i = upper(t, addr);
    return i > 0 && addr - t->v[i - 1].base < t->v[i - 1].size ? t->v[i - 1].value : NULL;
}

void *addr_table_remove(addr_table_t *t, uintptr_t base)
{
    size_t i = at(t, base);
    void *value = i < t->n ? take(t, i).value : NULL;
    if (t->n == 0)
        addr_table_clear(t);
    return value;
}

bool addr_table_rekey(addr_table_t *t, uintptr_t from, uintptr_t to)
{
    size_t i = at(t, from);
    if (i == t->n)
        return false;
    addr_entry_t e = take(t, i); /* out and back in where `to` sorts: the slot it left is the room */
    e.base = to;
    put(t, e);
    return true;
}

void addr_table_clear(addr_table_t *t)
{
    free(t->v);
    *t = (addr_table_t)ADDR_TABLE_INIT;
}
