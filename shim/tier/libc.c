/*
 * The allocator underneath: the definitions after ours in the lookup order
 * (dlsym RTLD_NEXT) — libc's, or those of an allocator preloaded after
 * libloci-tier.so. dlsym may allocate itself before any of them is known
 * (glibc's dlerror state, callocs in the loader): those few blocks come
 * from a static buffer, with their size in a header, and are never given
 * back; free, realloc and malloc_usable_size recognise them by address.
 */
#include "tier.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    void *(*memalign)(size_t, size_t);
    size_t (*usable)(void *);
} next_t;

static next_t next;
static atomic_int state; /* NOT_YET, LOOKING (one thread is), RESOLVED */
enum { NOT_YET, LOOKING, RESOLVED };
/* This thread is inside dlsym, looking them up: allocations go to the buffer. */
static __thread bool resolving __attribute__((tls_model("initial-exec")));

#define BOOT_BYTES (64 * 1024)
#define BOOT_HEADER 16 /* the block's size, keeping malloc's 16-byte alignment */
static alignas(16) unsigned char boot[BOOT_BYTES];
static atomic_size_t boot_used;

static bool from_boot(const void *p)
{
    return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + BOOT_BYTES;
}

static size_t boot_size(const void *p) { return *(const size_t *)((const unsigned char *)p - BOOT_HEADER); }

static void *boot_alloc(size_t size)
{
    size_t need = (size + BOOT_HEADER + 15) & ~(size_t)15;
    if (size > BOOT_BYTES)
        return errno = ENOMEM, NULL;
    size_t at = atomic_fetch_add(&boot_used, need);
    if (at + need > BOOT_BYTES)
        return errno = ENOMEM, NULL;
    *(size_t *)(boot + at) = size;
    return boot + at + BOOT_HEADER; /* static storage: already zero */
}

/* One thread looks them up; another arriving meanwhile waits for it (the
 * constructor does it before main, so normally nobody waits). */
void libc_resolve(void)
{
    int expected = NOT_YET;
    if (resolving || atomic_load_explicit(&state, memory_order_acquire) == RESOLVED)
        return;
    if (!atomic_compare_exchange_strong(&state, &expected, LOOKING)) {
        while (atomic_load_explicit(&state, memory_order_acquire) != RESOLVED)
            sched_yield();
        return;
    }
    resolving = true;
    next_t n = {
        .malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc"),
        .calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc"),
        .realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc"),
        .free = (void (*)(void *))dlsym(RTLD_NEXT, "free"),
        .memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign"),
        .usable = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size"),
    };
    resolving = false;
    if (!n.malloc || !n.calloc || !n.realloc || !n.free || !n.memalign || !n.usable) {
        static const char msg[] = "loci-tier: error: no malloc after libloci-tier.so in the lookup order "
                                  "(is libc missing?)\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    next = n;
    atomic_store_explicit(&state, RESOLVED, memory_order_release);
}

/* Resolved, or inside dlsym (then the buffer serves). */
static bool ready(void)
{
    if (atomic_load_explicit(&state, memory_order_acquire) == RESOLVED)
        return true;
    libc_resolve();
    return atomic_load_explicit(&state, memory_order_acquire) == RESOLVED;
}

void *libc_malloc(size_t size) { return ready() ? next.malloc(size) : boot_alloc(size); }

void *libc_calloc(size_t n, size_t size)
{
    if (ready())
        return next.calloc(n, size);
    size_t bytes;
    return __builtin_mul_overflow(n, size, &bytes) ? (errno = ENOMEM, NULL) : boot_alloc(bytes);
}

void *libc_memalign(size_t alignment, size_t size)
{
    if (ready())
        return next.memalign(alignment, size);
    return alignment <= 16 ? boot_alloc(size) : (errno = ENOMEM, NULL); /* dlsym asks for no more */
}

void libc_free(void *p)
{
    if (p && !from_boot(p) && ready())
        next.free(p);
}

void *libc_realloc(void *p, size_t size)
{
    if (!from_boot(p))
        return ready() ? next.realloc(p, size) : boot_alloc(size); /* p is NULL before then */
    void *q = libc_malloc(size);
    if (q)
        memcpy(q, p, boot_size(p) < size ? boot_size(p) : size);
    return q;
}

size_t libc_usable_size(void *p)
{
    if (!p)
        return 0;
    return from_boot(p) ? boot_size(p) : ready() ? next.usable(p) : 0;
}
