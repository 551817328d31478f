/*
 * Hot-set GUPS (gups.h) over 12 arrays that a plain C program allocates the
 * way many do: each by a function of its own that ends in `return
 * xmalloc(bytes)` — a tail jump, so that function leaves no frame on the
 * stack — through one wrapper of the program's, xmalloc, which checks
 * malloc's answer. Every block comes from the one malloc call in xmalloc: a
 * site of one return address made all 12 one arena (issue 36); a calling
 * context tells them apart by xmalloc's callers.
 * usage: gups_wrapped ARRAY_MIB MILLION_UPDATES_PER_PHASE [report] | ARRAY_MIB watch FAST_NODE INTERVAL_MS
 */
#include "gups.h"

#include <stdio.h>
#include <stdlib.h>

#define ARRAYS 12

__attribute__((noinline)) static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "gups_wrapped: out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* Alike, the compiler may fold them into one function: their callers still differ. */
#define MAKER(k)                                                                                                   \
    __attribute__((noinline)) static uint64_t *make_##k(size_t n) { return xmalloc(n); }
MAKER(0) MAKER(1) MAKER(2) MAKER(3) MAKER(4) MAKER(5)
MAKER(6) MAKER(7) MAKER(8) MAKER(9) MAKER(10) MAKER(11)

static void make(uint64_t **arrays, int n, size_t bytes)
{
    arrays[0] = make_0(bytes), arrays[1] = make_1(bytes), arrays[2] = make_2(bytes), arrays[3] = make_3(bytes);
    arrays[4] = make_4(bytes), arrays[5] = make_5(bytes), arrays[6] = make_6(bytes), arrays[7] = make_7(bytes);
    arrays[8] = make_8(bytes), arrays[9] = make_9(bytes), arrays[10] = make_10(bytes), arrays[11] = make_11(bytes);
}

static void release(uint64_t **arrays, int n)
{
    for (int a = 0; a < n; a++)
        free(arrays[a]);
}

int main(int argc, char **argv) { return gups_main("gups_wrapped", ARRAYS, make, release, argc, argv); }
