/*
 * HeMem's hot-set GUPS as a plain malloc program, for `loci run --tier auto`
 * (tests/tier; the VM test of issue 29 runs it on tiers3): 16 arrays, each
 * from a malloc call of its own — 16 allocation sites, so 16 arenas under
 * the interposer — and updates going 90 % to a hot set of 2 arrays, which
 * switches to 2 others halfway. Nothing in it knows loci. It checks its
 * data (each update adds 1 to a word: every array's sum must equal its
 * updates) and, with `report`, prints after each phase the share of each
 * array's pages on each NUMA node (move_pages) for a test to assert on:
 *   phase 1 array 0 hot nodes 0:100.0 1:0.0 2:0.0
 * usage: gups_malloc ARRAY_MIB MILLION_UPDATES_PER_PHASE [report]
 */
#include "page_nodes.h" /* tests/vm */

#include <loci_tier.h> /* only to say how many sites the interposer saw, when it is there */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAYS 16
#define HOT 2
#define MAX_NODES 8

/* One call instruction per array: the asm keeps them apart. */
#define ALLOC(i)                                                                                                   \
    do {                                                                                                           \
        arrays[i] = malloc(bytes);                                                                                 \
        __asm__ volatile("# array " #i ::: "memory");                                                              \
    } while (0)

static uint64_t *arrays[ARRAYS];
static uint64_t updates[ARRAYS];

static uint64_t next_random(uint64_t *s) /* xorshift64* */
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static void run_phase(size_t words, uint64_t count, int first_hot, uint64_t *seed)
{
    for (uint64_t u = 0; u < count; u++) {
        uint64_t r = next_random(seed);
        int a = r % 10 < 9 ? first_hot + (int)((r >> 8) % HOT) : (int)((r >> 8) % ARRAYS);
        arrays[a][(r >> 16) % words] += 1;
        updates[a]++;
    }
}

static void report(int phase, size_t bytes, int first_hot)
{
    size_t pages = page_count(arrays[0], bytes);
    int *nodes = malloc(pages * sizeof *nodes); /* small: stays with libc */
    for (int a = 0; a < ARRAYS; a++) {
        size_t on[MAX_NODES] = {0};
        if (!nodes || page_nodes(arrays[a], bytes, nodes) != 0) {
            fprintf(stderr, "gups_malloc: move_pages failed\n");
            exit(1);
        }
        for (size_t p = 0; p < pages; p++)
            if (nodes[p] >= 0 && nodes[p] < MAX_NODES)
                on[nodes[p]]++;
        printf("phase %d array %d %s nodes", phase, a, a >= first_hot && a < first_hot + HOT ? "hot" : "cold");
        for (int n = 0; n < MAX_NODES; n++)
            if (on[n])
                printf(" %d:%.1f", n, 100.0 * (double)on[n] / (double)pages);
        printf("\n");
    }
    free(nodes);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gups_malloc ARRAY_MIB MILLION_UPDATES_PER_PHASE [report]\n");
        return 2;
    }
    size_t bytes = (size_t)strtoul(argv[1], NULL, 10) << 20, words = bytes / sizeof(uint64_t);
    uint64_t count = strtoull(argv[2], NULL, 10) * 1000000ull, seed = 88172645463325252ull;
    bool reporting = argc > 3 && strcmp(argv[3], "report") == 0;
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
    for (int a = 0; a < ARRAYS; a++) {
        if (!arrays[a] || words == 0) {
            fprintf(stderr, "gups_malloc: no memory for %zu bytes\n", bytes);
            return 1;
        }
        memset(arrays[a], 0, bytes);
    }
    for (int phase = 1; phase <= 2; phase++) {
        int first_hot = phase == 1 ? 0 : HOT;
        run_phase(words, count, first_hot, &seed);
        if (reporting)
            report(phase, bytes, first_hot);
    }
    for (int a = 0; a < ARRAYS; a++) {
        uint64_t sum = 0;
        for (size_t w = 0; w < words; w++)
            sum += arrays[a][w];
        if (sum != updates[a]) {
            fprintf(stderr, "gups_malloc: array %d sums to %llu after %llu updates: data lost\n", a,
                    (unsigned long long)sum, (unsigned long long)updates[a]);
            return 1;
        }
        free(arrays[a]);
    }
    int sites = loci_tier_sites ? loci_tier_sites(NULL, 0) : -1;
    printf("gups_malloc: ok, data intact, %d allocation sites seen by libloci-tier%s\n", sites,
           sites < 0 ? " (not loaded)" : "");
    return 0;
}
