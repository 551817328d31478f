/*
 * What a calling context costs a big allocation under `loci run --tier
 * auto` (issue 36; docs/BENCHMARKS.md "Calling contexts"): malloc and free
 * of a block of SIZE bytes, DEPTH nested calls of the program deep (each a
 * frame the interposer's unwinder walks), through a wrapper of the
 * program's and malloc or C++'s operator new, the median of REPEATS runs of
 * COUNT pairs. The block is not touched: the figure is the bookkeeping, of
 * which the context is the part LOCI_TIER_CONTEXT changes. `hit`: every
 * pair from the same place (the thread's kept walks answer); `miss`: each
 * from one of 16 stack depths in turn, more than a thread keeps, so that
 * every pair walks the stack (bench/tiering/run-context.sh compares 1, 4
 * and 8 frames, and the C library alone).
 *
 *   bench_context_cost SIZE DEPTH COUNT REPEATS malloc|new hit|miss
 * prints: context_cost size=S depth=D via=malloc|new hit|miss ns_per_pair=N
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *bench_context_new(size_t n);     /* context_cost_new.cpp: operator new */
void bench_context_delete(void *p);

#define SPREAD 16 /* stack depths a `miss` run cycles through */

static size_t size;
static bool via_new, miss;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noinline)) static void *wrapped(size_t n)
{
    void *p = via_new ? bench_context_new(n) : malloc(n);
    __asm__ volatile("" ::"r"(p) : "memory"); /* a frame of its own, not a jump */
    return p;
}

/* One pair, `depth` frames below the caller. */
__attribute__((noinline)) static void pair(int depth)
{
    if (depth > 1) {
        pair(depth - 1);
        __asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays */
        return;
    }
    void *p = wrapped(size);
    if (!p)
        exit((fprintf(stderr, "bench_context_cost: no memory\n"), 1));
    if (via_new)
        bench_context_delete(p);
    else
        free(p);
}

static double pairs(int depth, long count)
{
    double start = now_ns();
    for (long i = 0; i < count; i++)
        pair(depth + (miss ? (int)(i % SPREAD) : 0));
    return (now_ns() - start) / (double)count;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: bench_context_cost SIZE DEPTH COUNT REPEATS malloc|new hit|miss\n");
        return 2;
    }
    size = (size_t)strtoul(argv[1], NULL, 10);
    int depth = atoi(argv[2]), repeats = atoi(argv[4]);
    long count = atol(argv[3]);
    via_new = strcmp(argv[5], "new") == 0;
    miss = strcmp(argv[6], "miss") == 0;
    if (size == 0 || depth < 1 || count < 1 || repeats < 1 || repeats > 99)
        return 2;
    double t[99];
    for (int r = 0; r < repeats; r++)
        t[r] = pairs(depth, count);
    qsort(t, (size_t)repeats, sizeof *t, by_value);
    printf("context_cost size=%zu depth=%d via=%s %s ns_per_pair=%.0f\n", size, depth, via_new ? "new" : "malloc",
           miss ? "miss" : "hit", t[repeats / 2]);
    return 0;
}
