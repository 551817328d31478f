/*
 * What both runs of bench_ckpt (main.c on this machine, store.c on the
 * store) prepare their variables and checkpoints with: pseudo-random data,
 * an empty checkpoint directory between repeats, and the end of the run
 * when loci refuses a step.
 */
#include "bench.h"
#include "loci.h"

#include <stdio.h>
#include <stdlib.h>

void check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "bench_ckpt: %s: %s\n", what, loci_last_error());
        exit(1);
    }
}

void empty_checkpoints(void)
{
    loci_ckpt_info_t info[64];
    int n = loci_ckpt_list(info, 64);
    for (int i = 0; i < n && i < 64; i++) /* this node's; one in the store only is replaced by the next drain */
        if (info[i].levels & LOCI_CKPT_LOCAL)
            check(loci_ckpt_remove(info[i].name), "remove");
    check(loci_ckpt_gc(NULL), "gc");
}

void fill(char *p, size_t len, uint64_t seed)
{
    uint64_t *w = (uint64_t *)p, x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < len / 8; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        w[i] = x;
    }
}
