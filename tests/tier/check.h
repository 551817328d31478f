/* What the programs of tests/tier share: a check that says what failed and
 * exits 1, and the interposer's record of a site, found by its arena. */
#ifndef LOCI_TESTS_TIER_CHECK_H
#define LOCI_TESTS_TIER_CHECK_H

#include <loci_tier.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
            exit(1);                                                                                               \
        }                                                                                                          \
    } while (0)

/** The site whose arena is ar (failing the check when there is none). */
static inline loci_tier_site_t site_of(loci_arena_t *ar)
{
    static loci_tier_site_t sites[LOCI_TIER_MAX_SITES + 1];
    int n = loci_tier_sites(sites, LOCI_TIER_MAX_SITES + 1);
    for (int i = 0; i < n; i++)
        if (sites[i].arena == ar)
            return sites[i];
    CHECK(0, "no site has arena %p (%d sites)", (void *)ar, n);
    return sites[0];
}

#endif
