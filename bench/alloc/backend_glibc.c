/* glibc malloc/free (the process's malloc in the bench_alloc worker). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "backend.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

BENCH_DEFINE_LOOP(glibc_loop, malloc(size), free(p))

static void glibc_release(void *p) { free(p); }

static int glibc_init(const char *arg, char *desc, size_t desclen)
{
    Dl_info info;
    void *(*volatile fn)(size_t) = malloc;
    const char *where = dladdr((void *)fn, &info) && info.dli_fname ? info.dli_fname : "?";
#ifdef BENCH_SANITIZED
    /* A sanitizer build replaces malloc: run anyway (smoke test), say so. */
    if (!strstr(where, "libc.so")) {
        snprintf(desc, desclen, "SANITIZER BUILD: malloc is %s, not glibc's", where);
        return 0;
    }
#endif
    if (!strstr(where, "libc.so")) {
        snprintf(desc, desclen, "malloc resolves to %s, not glibc", where);
        return -1;
    }
    snprintf(desc, desclen, "glibc %s malloc (%s)", gnu_get_libc_version(), where);
    return 0;
}

const bench_backend_t bench_backend_glibc = {"glibc", glibc_init, glibc_loop, glibc_release, NULL};
