/*
 * `loci run --memkind -- cmd`: a program built for memkind runs on loci's
 * libmemkind.so.0 (shim/memkind, docs/MEMKIND.md), unchanged: its directory
 * goes first in LD_LIBRARY_PATH, so the dynamic loader takes it for the
 * program's libmemkind.so.0 (it lives in a directory of its own so that
 * nothing else ever gets it instead of the system's). With AUTO_HBW_SIZE set,
 * as memkind's autohbw wants it, libautohbw.so from that directory is
 * preloaded too: the program's big malloc blocks go to high-bandwidth memory.
 */
#include "commands.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define LIBRARY "libmemkind.so.0"
#define AUTOHBW "libautohbw.so"

/* Where the directory is, relative to this executable's: beside it (a flat
 * copy, as the VM tests make), installed, in the build tree. */
static const char *const library_places[] = {"memkind/" LIBRARY, LOCI_MEMKIND_FROM_INSTALLED_BIN "/" LIBRARY,
                                             LOCI_MEMKIND_FROM_BUILD_TREE "/" LIBRARY};

int run_memkind_prepare(bool verbose)
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
    const char *autohbw = getenv("AUTO_HBW_SIZE");
    char preload[PATH_MAX + sizeof AUTOHBW + 1];
    if (autohbw) {
        snprintf(preload, sizeof preload, "%s/%s", library, AUTOHBW);
        if (tool_env_prepend("LD_PRELOAD", preload, ' ', AUTOHBW) != 0)
            return 1;
    }
    if (verbose)
        fprintf(stderr, "loci run: memkind's libmemkind.so.0 is loci's, from %s%s%s%s\n", library,
                autohbw ? "; AUTO_HBW_SIZE=" : "", autohbw ? autohbw : "", autohbw ? ": autohbw preloaded" : "");
    return 0;
}
