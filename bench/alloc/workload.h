/*
 * The SharP §6.1 allocation workload, shared by the driver and every worker.
 *
 * A workload is a pre-generated sequence of operations for one (size, thread):
 * 70 % allocations, 30 % frees of a uniformly random live object. The sequence
 * depends only on (seed, size, thread index, ops), never on the allocator, so
 * every allocator replays exactly the same operations.
 */
#ifndef BENCH_ALLOC_WORKLOAD_H
#define BENCH_ALLOC_WORKLOAD_H

#include "timing.h" /* bench/common: bench_now_ns, in the timed loop below */

#include <stddef.h>
#include <stdint.h>

/* One operation: BENCH_OP_ALLOC, or k >= 0 = free the k-th live object
 * (live[k] is freed, then the last live object moves into slot k). */
#define BENCH_OP_ALLOC (-1)

/* Percentage of operations that are allocations (SharP §6.1). */
#define BENCH_ALLOC_PERCENT 70

/* What is written into each allocated block (inside the timed region). */
typedef enum {
    BENCH_TOUCH_NONE = 0,  /* nothing */
    BENCH_TOUCH_FIRST = 1, /* one byte at the start of the block (default) */
    BENCH_TOUCH_PAGES = 2, /* one byte in every 4 KiB page of the block */
} bench_touch_t;

/* Fill ops[0..n-1] for (seed, size, thread). Returns the number of objects
 * still live at the end (what is freed outside the timed region). A free drawn
 * while nothing is live becomes an allocation. */
size_t bench_workload_generate(int32_t *ops, size_t n, uint64_t seed, size_t size, int thread);

const char *bench_touch_name(bench_touch_t t);
int bench_touch_parse(const char *s, bench_touch_t *out);

/*
 * The timed loop, instantiated once per allocator with direct calls (no
 * function pointer per operation): BENCH_DEFINE_LOOP(name, ALLOC_EXPR, FREE_STMT)
 * where ALLOC_EXPR uses `size` and FREE_STMT uses `p`.
 * Returns elapsed ns, or 0 and *failed_at = op index if an allocation failed.
 */
#define BENCH_DEFINE_LOOP(name, ALLOC_EXPR, FREE_STMT)                                        \
    static uint64_t name(const int32_t *ops, size_t n, size_t size, bench_touch_t touch,      \
                         void **live, size_t *nlive_out, size_t *failed_at)                   \
    {                                                                                         \
        size_t nlive = 0;                                                                     \
        uint64_t t0 = clock_mono_ns();                                                         \
        for (size_t i = 0; i < n; i++) {                                                      \
            int32_t op = ops[i];                                                              \
            if (op == BENCH_OP_ALLOC) {                                                       \
                void *p = (ALLOC_EXPR);                                                       \
                if (__builtin_expect(p == NULL, 0)) {                                         \
                    *failed_at = i;                                                           \
                    *nlive_out = nlive;                                                       \
                    return 0;                                                                 \
                }                                                                             \
                if (touch == BENCH_TOUCH_FIRST) {                                             \
                    *(volatile unsigned char *)p = (unsigned char)i;                          \
                } else if (touch == BENCH_TOUCH_PAGES) {                                      \
                    for (size_t off = 0; off < size; off += 4096)                             \
                        ((volatile unsigned char *)p)[off] = (unsigned char)i;                \
                }                                                                             \
                live[nlive++] = p;                                                            \
            } else {                                                                          \
                void *p = live[op];                                                           \
                live[op] = live[--nlive];                                                     \
                FREE_STMT;                                                                    \
            }                                                                                 \
        }                                                                                     \
        uint64_t t1 = clock_mono_ns();                                                         \
        *nlive_out = nlive;                                                                   \
        return t1 - t0 ? t1 - t0 : 1;                                                         \
    }

#endif
