/*
 * Hot-set GUPS (gups.h) over 16 arrays, each from a malloc call of its own:
 * 16 allocation sites, so 16 arenas under `loci run --tier auto` (the VM
 * test of issue 29 runs it on tiers3).
 * usage: gups_malloc ARRAY_MIB MILLION_UPDATES_PER_PHASE [report]
 */
#include "gups.h"

#include <stdlib.h>

/* One call instruction per array: the asm keeps them apart. */
#define ALLOC(i)                                                                                                   \
    do {                                                                                                           \
        arrays[i] = malloc(bytes);                                                                                 \
        __asm__ volatile("# array " #i ::: "memory");                                                              \
    } while (0)

static void make(uint64_t **arrays, int n, size_t bytes)
{
    ALLOC(0);
    ALLOC(1);
    ALLOC(2);
    ALLOC(3);
    ALLOC(4);
    ALLOC(5);
    ALLOC(6);
    ALLOC(7);
    ALLOC(8);
    ALLOC(9);
    ALLOC(10);
    ALLOC(11);
    ALLOC(12);
    ALLOC(13);
    ALLOC(14);
    ALLOC(15);
}

static void release(uint64_t **arrays, int n)
{
    for (int a = 0; a < n; a++)
        free(arrays[a]);
}

int main(int argc, char **argv) { return gups_main("gups_malloc", 16, make, release, argc, argv); }
