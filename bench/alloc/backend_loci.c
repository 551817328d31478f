/* loci: one allocator created once per process from the worker's intent
 * (ARG of --worker loci:ARG; "" = the calling thread's local DRAM). */
#include "backend.h"

#include <loci.h>
#include <stdio.h>
#include <string.h>

/* The allocator API is referenced weakly, so bench_alloc still links (and the
 * build still passes) against a libloci whose allocator layer is not there:
 * the loci rows then read UNAVAIL with the reason, and the competitors run.
 * This needs the shared libloci (as bench/CMakeLists.txt links it): weak
 * references pull no member out of a static archive. */
#pragma weak loci_allocator_create
#pragma weak loci_allocator_destroy
#pragma weak loci_allocator_targets
#pragma weak loci_allocator_intent
#pragma weak loci_alloc
#pragma weak loci_free
#pragma weak loci_usable_size

static loci_allocator_t *g_alloc;

BENCH_DEFINE_LOOP(loci_loop, loci_alloc(g_alloc, size), loci_free(p))

static void loci_release(void *p) { loci_free(p); }

static int loci_backend_init(const char *arg, char *desc, size_t desclen)
{
    const char *absent = !loci_allocator_create ? "loci_allocator_create"
                         : !loci_allocator_destroy ? "loci_allocator_destroy"
                         : !loci_alloc ? "loci_alloc"
                         : !loci_free ? "loci_free"
                         : !loci_usable_size ? "loci_usable_size"
                         : !loci_allocator_targets ? "loci_allocator_targets"
                         : !loci_allocator_intent ? "loci_allocator_intent" : NULL;
    if (absent) {
        snprintf(desc, desclen, "this libloci has no %s (allocator layer not built in)", absent);
        return -1;
    }
    int rc = loci_init();
    if (rc != 0) {
        snprintf(desc, desclen, "loci_init: %s: %s", loci_strerror(rc), loci_last_error());
        return -1;
    }
    g_alloc = loci_allocator_create(arg);
    if (!g_alloc) {
        snprintf(desc, desclen, "loci_allocator_create(\"%s\"): %s", arg, loci_last_error());
        return -1;
    }
    void *p = loci_alloc(g_alloc, 64);
    if (!p || loci_usable_size(p) < 64) {
        snprintf(desc, desclen, "loci_alloc(64) with intent \"%s\" failed: %s", arg,
                 loci_last_error());
        return -1;
    }
    loci_free(p);

    const loci_target_t *t[8];
    int nt = loci_allocator_targets(g_alloc, t, 8);
    char names[200] = "";
    size_t off = 0;
    for (int i = 0; i < nt && i < 8 && off < sizeof names; i++) {
        loci_target_info_t info;
        if (loci_target_info(t[i], &info) == 0)
            off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", i ? "," : "",
                                    info.name);
    }
    const char *norm = loci_allocator_intent(g_alloc);
    snprintf(desc, desclen, "loci %d.%d.%d intent \"%s\" (normalised \"%s\") -> %s",
             LOCI_VERSION_MAJOR, LOCI_VERSION_MINOR, LOCI_VERSION_PATCH, arg, norm ? norm : "?",
             names[0] ? names : "?");
    return 0;
}

static void loci_backend_fini(void)
{
    loci_allocator_destroy(g_alloc);
    g_alloc = NULL;
    loci_fini();
}

const bench_backend_t bench_backend_loci = {"loci", loci_backend_init, loci_loop, loci_release,
                                            loci_backend_fini};
