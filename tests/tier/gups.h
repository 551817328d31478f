/*
 * HeMem's hot-set GUPS over arrays that a program allocates its own way
 * (tests/tier, gups.c): the programs differ only in how they allocate —
 * gups_malloc one malloc call per array, gups_wrapped through a wrapper of
 * its own, gups_vectors as C++ std::vectors — so that `loci run --tier
 * auto` is tested on the allocation sites real programs have. Nothing in
 * them knows loci; whether loci is in the process is asked with dlsym.
 *
 * Updates go 90 % to a hot set of two arrays (the middle two), which
 * switches to the last two halfway. Each update adds 1 to a word: every
 * array's sum must equal its updates at the end.
 *
 *   PROG ARRAY_MIB MILLION_UPDATES_PER_PHASE [report]
 *       as fast as it can; `report`: after each phase the share of each
 *       array's pages on each NUMA node (move_pages)
 *   PROG ARRAY_MIB watch FAST_NODE INTERVAL_MS
 *       (the VM) paced updates for up to 15 intervals a phase (5 after the
 *       hot set got there); every interval the hot set's share on FAST_NODE,
 *       and each array's heat and node as loci's tiering sees them (when loci
 *       is there); fails unless ≥ 90 % of the hot set's mapped pages are
 *       there within 10 intervals of each phase's start. Intervals of work:
 *       an interval counts once the program also made 10,000 updates in it;
 *       a phase the host starved of them has no verdict (exit 77, said why)
 *
 * It ends with "PROG: ok, data intact, N allocation sites, A arrays in A
 * arenas" (exit 0), or says what failed (exit 1; 2: bad arguments).
 */
#ifndef LOCI_TESTS_TIER_GUPS_H
#define LOCI_TESTS_TIER_GUPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Allocate arrays[0..n-1] of `bytes` each, the program's way (NULL: no memory). */
typedef void gups_make_fn(uint64_t **arrays, int n, size_t bytes);
/** Free them, the program's way. */
typedef void gups_release_fn(uint64_t **arrays, int n);

/** The program: parse argv, make n arrays, run, check, release them, report. */
int gups_main(const char *name, int n, gups_make_fn *make, gups_release_fn *release, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
