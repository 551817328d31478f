/*
 * An OpenMP program under `loci run --tier auto` with libloci-omp.so preloaded
 * by the user (tests/tier): omp_alloc's default allocator (omp_null_allocator,
 * omp_default_mem_alloc) gives big blocks arenas of this program's allocation
 * sites, as malloc does; small blocks, and memory spaces named explicitly,
 * are placed as without tiering.
 */
#include <loci.h>
#include <loci_tier.h>

#include "check.h"

#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB ((size_t)1 << 20)

int main(void)
{
    CHECK(loci_tier_sites && loci_tier_threshold() == 64 * 1024, "libloci-tier.so is not loaded");
    char *a = omp_alloc(1 * MiB, omp_null_allocator);
    char *b = omp_alloc(1 * MiB, omp_default_mem_alloc);
    char *small = omp_alloc(1000, omp_null_allocator);
    char *named = omp_alloc(1 * MiB, omp_large_cap_mem_alloc);
    CHECK(a && b && small && named, "allocations");
    memset(a, 1, 1 * MiB), memset(b, 2, 1 * MiB), memset(named, 3, 1 * MiB);
    CHECK(loci_ptr_arena(a) && loci_ptr_arena(b) && loci_ptr_arena(a) != loci_ptr_arena(b),
          "two omp_alloc sites of the default allocator: two arenas");
    CHECK(!loci_ptr_arena(small) && loci_ptr_target(small), "a small block: the shim's default placement");
    CHECK(!loci_ptr_arena(named) && loci_ptr_target(named), "omp_large_cap_mem_alloc keeps its meaning");

    /* the site is this program's call of omp_alloc, not the shim's */
    loci_tier_site_t s = site_of(loci_ptr_arena(a));
    Dl_info site, program;
    CHECK(dladdr(s.caller, &site) && dladdr((void *)main, &program) && site.dli_fbase == program.dli_fbase,
          "the site %p is in %s, not in this program", s.caller, site.dli_fname ? site.dli_fname : "?");
    CHECK(s.allocations == 1 && s.bytes_live >= 1 * MiB, "site counters");

    a = omp_realloc(a, 3 * MiB, omp_null_allocator, omp_null_allocator);
    CHECK(a && loci_ptr_arena(a) && a[0] == 1 && a[MiB - 1] == 1, "omp_realloc keeps the data, in an arena");
    char *z = omp_calloc(256, 4096, omp_null_allocator);
    CHECK(z && loci_ptr_arena(z) && z[0] == 0 && z[MiB - 1] == 0, "omp_calloc: zeroed, in an arena");

    int failed = 0;
#pragma omp parallel num_threads(4) reduction(+ : failed)
    for (int r = 0; r < 50; r++) {
        char *p = omp_alloc(256 * 1024, omp_null_allocator);
        int id = omp_get_thread_num();
        memset(p, id, 256 * 1024);
        failed += !loci_ptr_arena(p) || p[255 * 1024] != id;
        omp_free(p, omp_null_allocator);
    }
    CHECK(failed == 0, "%d blocks in the parallel region were not in an arena or lost their data", failed);

    omp_free(a, omp_null_allocator), omp_free(b, omp_default_mem_alloc), omp_free(small, omp_null_allocator);
    omp_free(named, omp_large_cap_mem_alloc), omp_free(z, omp_null_allocator);
    s = site_of(s.arena);
    CHECK(s.bytes_live == 0 && s.frees == 1, "site a after omp_realloc moved its block: %llu bytes live",
          (unsigned long long)s.bytes_live);
    printf("tier_omp: ok\n");
    return 0;
}
