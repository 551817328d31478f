/*
 * Living with loci's malloc interposer (libloci-tier.so: `loci run --tier
 * auto`, and memkind's AUTO_HBW_SIZE through `loci run --memkind`). It tells
 * libloci's own allocations from the program's by address, and learns where
 * libloci lies only when it places its first block: until then it would
 * place libloci's own big callocs too — from inside loci, under loci's locks,
 * which then wait on themselves. A memkind program calls loci before its
 * first big malloc, so the interposer is started first, through its own
 * interface (loci_tier.h): one block of its threshold, placed and freed.
 */
#include "memkind_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void start(void)
{
    size_t (*threshold)(void) = (size_t (*)(void))dlsym(RTLD_DEFAULT, "loci_tier_threshold");
    void *(*place)(const void *, size_t, size_t, int) =
        (void *(*)(const void *, size_t, size_t, int))dlsym(RTLD_DEFAULT, "loci_tier_alloc");
    void (*release)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "loci_tier_free");
    if (!threshold || !place || !release || threshold() == SIZE_MAX)
        return; /* not preloaded, or placing nothing */
    release(place((const void *)start, 0, threshold(), 0));
}

void interposer_start(void) { pthread_once(&once, start); }
