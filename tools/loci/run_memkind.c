/*
 * `loci run --memkind -- cmd`: a program built for memkind runs on loci's
 * libmemkind.so.0 (shim/memkind, docs/MEMKIND.md), unchanged: its directory
 * goes first in LD_LIBRARY_PATH, so the dynamic loader takes it for the
 * program's libmemkind.so.0 (it lives in a directory of its own so that
 * nothing else ever gets it instead of the system's). With AUTO_HBW_SIZE set,
 * as memkind's autohbw wants it, the program's malloc blocks of at least that
 * size go to high-bandwidth memory: loci's malloc interposer of --tier auto
 * (run_tier.c) with intent kind=hbm and that threshold — one arena per
 * allocation site, on HBM first, which tiering may later move down when it
 * is cold (docs/MEMKIND.md).
 */
#include "commands.h"
#include "units.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBRARY "libmemkind.so.0"
#define MIN_THRESHOLD 4096 /* the interposer's: loci places memory by page */

/* Where the directory is, relative to this executable's: beside it (a flat
 * copy, as the VM tests make), installed, in the build tree. */
static const char *const library_places[] = {"memkind/" LIBRARY, LOCI_MEMKIND_FROM_INSTALLED_BIN "/" LIBRARY,
                                             LOCI_MEMKIND_FROM_BUILD_TREE "/" LIBRARY};

/* autohbw's AUTO_HBW_SIZE ("X[K|M|G][:Y[K|M|G]]") as the interposer's threshold: X, at least a
 * page, read by the one number parser; the upper bound Y has no counterpart and is said to be
 * ignored. false: X is not a size (said). */
static bool autohbw_threshold(const char *size, char *out, size_t len)
{
    char lower[32];
    uint64_t x;
    const char *why;
    size_t n = strcspn(size, ":");
    bool fits = n < sizeof lower;
    if (fits)
        snprintf(lower, sizeof lower, "%.*s", (int)n, size);
    if (!fits || !units_parse_size(lower, &x, &why)) {
        fprintf(stderr, "loci run: AUTO_HBW_SIZE=%s: %s; expected memkind's autohbw form X[K|M|G][:Y], e.g. 1M "
                        "(blocks of at least X go to high-bandwidth memory)\n", size, fits ? why : "too long");
        return false;
    }
    if (x < MIN_THRESHOLD)
        fprintf(stderr, "loci run: AUTO_HBW_SIZE=%s: blocks of at least 4 KiB go to high-bandwidth memory (loci "
                        "places memory by page)\n", size);
    if (size[n] == ':')
        fprintf(stderr, "loci run: AUTO_HBW_SIZE=%s: the upper bound is ignored: every block of at least the "
                        "lower one goes to high-bandwidth memory\n", size);
    snprintf(out, len, "%llu", (unsigned long long)(x < MIN_THRESHOLD ? MIN_THRESHOLD : x));
    return true;
}

int run_memkind_prepare(char **command, bool tiering, bool verbose)
{
    char library[PATH_MAX];
    if (!tool_find_beside(library_places, sizeof library_places / sizeof *library_places, library, sizeof library)) {
        fprintf(stderr, "loci run: --memkind needs loci's %s, and it is neither beside this loci command nor where "
                        "it is installed or built (build or install loci's shim/memkind)\n", LIBRARY);
        return 1;
    }
    *strrchr(library, '/') = '\0'; /* its directory */
    if (tool_env_prepend("LD_LIBRARY_PATH", library, ':', library) != 0)
        return 1;
    if (verbose)
        fprintf(stderr, "loci run: memkind's libmemkind.so.0 is loci's, from %s\n", library);
    const char *autohbw = getenv("AUTO_HBW_SIZE");
    if (!autohbw || tiering) /* --tier auto given: its own threshold and intent decide */
        return 0;
    char threshold[32];
    if (!autohbw_threshold(autohbw, threshold, sizeof threshold))
        return 2;
    return run_tier_prepare("kind=hbm", threshold, command, verbose);
}
