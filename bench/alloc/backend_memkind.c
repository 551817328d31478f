/* memkind (Debian libmemkind0) with MEMKIND_DEFAULT. memkind_free is given
 * the kind (its cheap, documented path); loci_free, by contrast, has to find
 * the owner of the pointer itself. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "backend.h"

#include <dlfcn.h>
#include <memkind.h>
#include <stdio.h>

BENCH_DEFINE_LOOP(memkind_loop, memkind_malloc(MEMKIND_DEFAULT, size),
                  memkind_free(MEMKIND_DEFAULT, p))

static void memkind_release(void *p) { memkind_free(MEMKIND_DEFAULT, p); }

static int memkind_init(const char *arg, char *desc, size_t desclen)
{
    Dl_info info;
    void *(*volatile fn)(memkind_t, size_t) = memkind_malloc;
    const char *where = dladdr((void *)fn, &info) && info.dli_fname ? info.dli_fname : "?";
    void *p = memkind_malloc(MEMKIND_DEFAULT, 64);
    if (!p) {
        snprintf(desc, desclen, "memkind_malloc(MEMKIND_DEFAULT, 64) failed");
        return -1;
    }
    memkind_free(MEMKIND_DEFAULT, p);
    int v = memkind_get_version();
    snprintf(desc, desclen, "memkind %d.%d.%d MEMKIND_DEFAULT (%s)", v / 1000000, (v / 1000) % 1000,
             v % 1000, where);
    return 0;
}

const bench_backend_t bench_backend_memkind = {"memkind", memkind_init, memkind_loop,
                                               memkind_release, NULL};
