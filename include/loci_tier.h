/*
 * loci for unmodified programs: libloci-tier.so, the malloc interposer that
 * `loci run --tier auto -- ./app` preloads. Manual: docs/TIERING.md,
 * section "Unmodified programs".
 *
 * Every heap allocation of at least the threshold (LOCI_TIER_THRESHOLD,
 * default 64 KiB) goes to an arena of its own allocation site — its
 * calling context and its size class (the power of two at or below the
 * size) — made on first use with the intent LOCI_TIER_INTENT plus
 * LOCI_TIER_TERM, so loci's tiering places each site's data by measured
 * heat. The calling context is up to LOCI_TIER_CONTEXT (default 4) frames
 * of the program's own code, innermost first, found past the frames of the
 * allocators and language runtimes (libc, libstdc++'s operator new, the
 * OpenMP runtimes, CPython and what is installed in its lib/python
 * directories, NumPy among them): return addresses, or for a Python
 * program the Python code's files and lines (docs/TIERING.md, "What a site
 * is"). Smaller blocks, and every block while loci cannot start, stay with
 * the allocator underneath (libc's, or whichever comes after
 * libloci-tier.so in the lookup order).
 *
 * The functions below are what the library exports beside the malloc
 * family: the OpenMP front end (libloci-omp.so) finds them with dlsym when
 * LOCI_TIER=auto, and tools read the per-site counters with them. Declared
 * weak, so a program may test for them: `if (loci_tier_sites) ...`.
 * Every function is thread-safe.
 */
#ifndef LOCI_TIER_H
#define LOCI_TIER_H

#include <loci.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The intent term each site's arena gets after LOCI_TIER_INTENT's terms. */
#define LOCI_TIER_TERM "tier=auto"

/** Sites beyond this many share one arena, the overflow site. */
#define LOCI_TIER_MAX_SITES 1024

/** The most frames a calling context holds (LOCI_TIER_CONTEXT: 1 to this). */
#define LOCI_TIER_CONTEXT_MAX 8

/** One allocation site: where its blocks come from and what it holds now.
 *  Sites with one caller and size class differ in their outer frames:
 *  loci_tier_site_name(arena) names them all. */
typedef struct {
    const void *caller;    /**< the innermost native frame of its calling context: a return address in the
                                program's code past the allocators' (for a context of Python frames, the return
                                address of the malloc-family call); NULL: the overflow site */
    unsigned size_class;   /**< its blocks are in [2^size_class, 2^(size_class+1)) bytes when made */
    loci_arena_t *arena;   /**< NULL while being made, or when it could not be (its blocks went to libc) */
    uint64_t bytes_live;   /**< usable bytes of its live blocks */
    uint64_t allocations;  /**< blocks made in its arena so far */
    uint64_t frees;        /**< blocks of its arena freed so far */
} loci_tier_site_t;

/** Fill out[0..max-1] with the sites seen so far (in no particular order)
 *  and return how many there are (possibly more than max). */
__attribute__((weak)) int loci_tier_sites(loci_tier_site_t *out, int max);

/** The size from which allocations go to per-site arenas; SIZE_MAX while
 *  the interposer is off (LOCI_TIER=off, or loci could not start). */
__attribute__((weak)) size_t loci_tier_threshold(void);

/** A block of `size` bytes aligned to `alignment` (a power of two; 0 or 1:
 *  malloc's) in the arena of its site, zeroed when `zero` — what malloc
 *  does for a big block, for front ends that know their caller better than
 *  the return address of a malloc call (the OpenMP front end passes its
 *  omp_alloc caller's): the calling context starts at `caller`'s frame of
 *  this thread's stack (`caller` alone when it is not on it). NULL when
 *  size is under the threshold or the site's arena cannot take it:
 *  allocate elsewhere. */
__attribute__((weak)) void *loci_tier_alloc(const void *caller, size_t alignment, size_t size, int zero);

/** Free a block from loci_tier_alloc (or any block the interposer made),
 *  keeping its site's counters. NULL is fine. */
__attribute__((weak)) void loci_tier_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
