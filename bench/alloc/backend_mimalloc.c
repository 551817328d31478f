/* mimalloc (Debian libmimalloc2.0) through its own API, mi_malloc/mi_free. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "backend.h"

#include <dlfcn.h>
#include <mimalloc.h>
#include <stdio.h>

BENCH_DEFINE_LOOP(mimalloc_loop, mi_malloc(size), mi_free(p))

static void mimalloc_release(void *p) { mi_free(p); }

static int mimalloc_init(const char *arg, char *desc, size_t desclen)
{
    Dl_info info;
    void *(*volatile fn)(size_t) = mi_malloc;
    const char *where = dladdr((void *)fn, &info) && info.dli_fname ? info.dli_fname : "?";
    int v = mi_version();
    void *p = mi_malloc(64);
    if (!p) {
        snprintf(desc, desclen, "mi_malloc(64) failed");
        return -1;
    }
    mi_free(p);
    snprintf(desc, desclen, "mimalloc %d.%d.%d mi_malloc/mi_free (%s)", v / 100, (v / 10) % 10,
             v % 10, where);
    return 0;
}

const bench_backend_t bench_backend_mimalloc = {"mimalloc", mimalloc_init, mimalloc_loop,
                                                mimalloc_release, NULL};
