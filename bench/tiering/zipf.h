/*
 * Zipf-distributed popularity over n keys, as YCSB's workload C draws it
 * (requestdistribution=zipfian, θ = 0.99), with a popular set that can be
 * changed (zipf.c): rank r (0: the most popular) has probability
 * (r + 1)^-θ / Σ_k (k + 1)^-θ, drawn exactly by inverse CDF; which key a rank
 * is depends on a *scramble* — a bijection rank → key (a·r + b mod n, a prime
 * to n), one per phase —, so that the popular keys are spread over the key
 * space, as YCSB's scrambled zipfian does, and a new scramble makes another
 * set popular.
 */
#ifndef LOCI_BENCH_TIERING_ZIPF_H
#define LOCI_BENCH_TIERING_ZIPF_H

#include <stdint.h>

typedef struct {
    uint64_t n;
    double theta;
    double *cdf;     /* cdf[r] = P(rank <= r) */
    uint64_t a, b;   /* this scramble: key = (a·rank + b) mod n */
    uint64_t *rank;  /* rank of each key under this scramble */
} zipf_t;

/** n keys (>= 2), exponent theta (> 0). 0, or -1 out of memory. */
int zipf_init(zipf_t *z, uint64_t n, double theta);
void zipf_free(zipf_t *z);
/** Scramble number `which` (0, 1, ...): which keys are popular. */
void zipf_scramble(zipf_t *z, uint64_t which);
/** The key of a draw from uniform u in [0, 1). */
uint64_t zipf_key(const zipf_t *z, double u);
/** The probability that a draw is `key` under the current scramble. */
double zipf_p(const zipf_t *z, uint64_t key);
/** The probability of the `k` most popular keys together. */
double zipf_top(const zipf_t *z, uint64_t k);

#endif
