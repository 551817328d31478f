/* Zipf popularity with scrambles (zipf.h). */
#include "zipf.h"

#include <math.h>
#include <stdlib.h>

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int zipf_init(zipf_t *z, uint64_t n, double theta)
{
    *z = (zipf_t){.n = n, .theta = theta, .cdf = malloc(n * sizeof(double)), .rank = malloc(n * sizeof(uint64_t))};
    if (!z->cdf || !z->rank) {
        zipf_free(z);
        return -1;
    }
    double sum = 0;
    for (uint64_t r = 0; r < n; r++)
        z->cdf[r] = sum += pow((double)(r + 1), -theta);
    for (uint64_t r = 0; r < n; r++)
        z->cdf[r] /= sum;
    z->cdf[n - 1] = 1.0;
    zipf_scramble(z, 0);
    return 0;
}

void zipf_free(zipf_t *z)
{
    free(z->cdf);
    free(z->rank);
    *z = (zipf_t){0};
}

void zipf_scramble(zipf_t *z, uint64_t which)
{
    /* a: near n times a fraction that differs per scramble, made prime to n; b: an offset */
    static const double golden = 0.6180339887498949;
    double frac = fmod(golden * (double)(which + 1), 1.0);
    uint64_t a = (uint64_t)(frac * (double)z->n) % z->n;
    while (a == 0 || gcd(a, z->n) != 1)
        a = (a + 1) % z->n;
    z->a = a;
    z->b = (uint64_t)(fmod(golden * golden * (double)(which + 7), 1.0) * (double)z->n) % z->n;
    for (uint64_t r = 0; r < z->n; r++)
        z->rank[(uint64_t)(((unsigned __int128)z->a * r + z->b) % z->n)] = r;
}

uint64_t zipf_key(const zipf_t *z, double u)
{
    uint64_t lo = 0, hi = z->n - 1; /* the first rank whose cdf exceeds u */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (z->cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (uint64_t)(((unsigned __int128)z->a * lo + z->b) % z->n);
}

double zipf_p(const zipf_t *z, uint64_t key)
{
    uint64_t r = z->rank[key];
    return r ? z->cdf[r] - z->cdf[r - 1] : z->cdf[0];
}

double zipf_top(const zipf_t *z, uint64_t k)
{
    return k == 0 ? 0 : z->cdf[(k < z->n ? k : z->n) - 1];
}
