/* Operation sequences of the SharP §6.1 workload (see workload.h). */
#include "workload.h"
#include "random.h"

#include <string.h>

/* Uniform integer in [0, bound) (Lemire's multiply-shift; bias < 2^-32 here). */
static uint32_t below(uint64_t *state, uint32_t bound)
{
    return (uint32_t)(((bench_splitmix64(state) >> 32) * (uint64_t)bound) >> 32);
}

size_t bench_workload_generate(int32_t *ops, size_t n, uint64_t seed, size_t size, int thread)
{
    uint64_t state = seed ^ (0x51ed27a1d5b8e3c5ull * (uint64_t)size) ^
                     (0x2545f4914f6cdd1dull * (uint64_t)(thread + 1));
    bench_splitmix64(&state);
    size_t nlive = 0;
    for (size_t i = 0; i < n; i++) {
        int is_alloc = below(&state, 100) < BENCH_ALLOC_PERCENT;
        if (is_alloc || nlive == 0) {
            ops[i] = BENCH_OP_ALLOC;
            nlive++;
        } else {
            ops[i] = (int32_t)below(&state, (uint32_t)nlive);
            nlive--;
        }
    }
    return nlive;
}

const char *bench_touch_name(bench_touch_t t)
{
    switch (t) {
    case BENCH_TOUCH_NONE: return "none";
    case BENCH_TOUCH_FIRST: return "first";
    case BENCH_TOUCH_PAGES: return "pages";
    }
    return "?";
}

int bench_touch_parse(const char *s, bench_touch_t *out)
{
    if (!strcmp(s, "none")) *out = BENCH_TOUCH_NONE;
    else if (!strcmp(s, "first")) *out = BENCH_TOUCH_FIRST;
    else if (!strcmp(s, "pages")) *out = BENCH_TOUCH_PAGES;
    else return -1;
    return 0;
}
