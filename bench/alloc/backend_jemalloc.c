/* jemalloc (Debian libjemalloc2): linked into its own worker, it is the
 * process's malloc; the loop calls malloc/free, which the init checks resolve
 * to libjemalloc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "backend.h"

#include <dlfcn.h>
#include <jemalloc/jemalloc.h>
#include <stdio.h>
#include <string.h>

BENCH_DEFINE_LOOP(jemalloc_loop, malloc(size), free(p))

static void jemalloc_release(void *p) { free(p); }

static int jemalloc_init(const char *arg, char *desc, size_t desclen)
{
    Dl_info info;
    void *(*volatile fn)(size_t) = malloc;
    const char *where = dladdr((void *)fn, &info) && info.dli_fname ? info.dli_fname : "?";
    const char *version = NULL;
    size_t len = sizeof version;
    if (mallctl("version", &version, &len, NULL, 0) != 0 || !version) {
        snprintf(desc, desclen, "mallctl(\"version\") failed: jemalloc not active");
        return -1;
    }
    if (!strstr(where, "jemalloc")) {
        snprintf(desc, desclen, "malloc resolves to %s, not jemalloc", where);
        return -1;
    }
    snprintf(desc, desclen, "jemalloc %s malloc (%s)", version, where);
    return 0;
}

const bench_backend_t bench_backend_jemalloc = {"jemalloc", jemalloc_init, jemalloc_loop,
                                                jemalloc_release, NULL};
