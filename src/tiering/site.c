/*
 * Where an auto arena was made, in words that stay the same from one run
 * of the program to the next (profiles, `loci tier`): the module holding
 * the call — its path, the executable's being /proc/self/exe's target —
 * and the call's offset in it (addresses differ from run to run: ASLR),
 * with the size class and the ordinal among the live auto arenas of the
 * same site (a loop making 16 arenas at one line is 16 sites).
 */
#include "tiering/tiering.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The executable's path: its link map names it "" (glibc), and argv[0]
 * (what dladdr gives) may be relative to a directory long left. */
char *tiering_executable_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

void tiering_site_of(const void *caller, unsigned size_class, tiering_site_t *out)
{
    *out = (tiering_site_t){.size_class = size_class};
    Dl_info info;
    struct link_map *map = NULL;
    if (!caller || !dladdr1(caller, &info, (void **)&map, RTLD_DL_LINKMAP) || !info.dli_fbase)
        return; /* unknown (JIT code, no module): not profiled */
    out->module = map && map->l_name[0] == '\0' ? tiering_executable_path() : strdup(info.dli_fname);
    out->offset = (uint64_t)((uintptr_t)caller - (uintptr_t)info.dli_fbase);
    if (out->module && (strchr(out->module, '\n') || out->module[0] != '/')) {
        free(out->module); /* a path a line-based profile cannot hold, or not absolute: not stable */
        out->module = NULL;
    }
}

bool tiering_site_equal(const tiering_site_t *a, const tiering_site_t *b)
{
    return a->module && b->module && a->offset == b->offset && a->size_class == b->size_class &&
           a->ordinal == b->ordinal && strcmp(a->module, b->module) == 0;
}

void tiering_site_free(tiering_site_t *s)
{
    free(s->module);
    s->module = NULL;
}
