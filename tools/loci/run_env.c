/*
 * What `loci run` hands to the program it runs: files found relative to this
 * executable's own directory (libloci-tier.so, the directory of
 * libmemkind.so.0 on loci) — beside it (a flat copy, as the VM tests make),
 * installed, or in the build tree, whichever exists first — put in front of
 * a search-path variable (LD_PRELOAD, LD_LIBRARY_PATH).
 */
#include "commands.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool tool_find_beside(const char *const *places, size_t count, char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", self, places[i]);
        if (realpath(path, out) && strlen(out) < len && access(out, R_OK) == 0)
            return true;
    }
    return false;
}

int tool_env_prepend(const char *variable, const char *value, char separator, const char *already)
{
    const char *old = getenv(variable);
    if (old && strstr(old, already))
        return 0;
    char joined[8192];
    int n = snprintf(joined, sizeof joined, "%s%s%s", value, old && *old ? (char[]){separator, '\0'} : "",
                     old ? old : "");
    if (n < 0 || (size_t)n >= sizeof joined) {
        fprintf(stderr, "loci run: %s is too long to add %s to (%zu bytes at most)\n", variable, value, sizeof joined);
        return 1;
    }
    if (setenv(variable, joined, 1) != 0) {
        fprintf(stderr, "loci run: cannot set %s: %m\n", variable);
        return 1;
    }
    return 0;
}
