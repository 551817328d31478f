/*
 * What the interposer is told and what it knows about the process: the
 * environment (LOCI_TIER, LOCI_TIER_THRESHOLD, LOCI_TIER_INTENT,
 * LOCI_TIER_CONTEXT, read by the constructor, before main), whether loci
 * has started, and which calls it must leave alone — those made while this
 * thread is inside loci, and those from libloci's own code (its background
 * threads allocate too): placing them would re-enter loci from within, and
 * loci's bookkeeping is not the program's data.
 */
#include "tier.h"
#include "units.h" /* src/util */

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_THRESHOLD (64 * 1024)
/* loci places and moves memory by page: a smaller block would share its
 * pages with the site's other blocks anyway, and a page per malloc is waste. */
#define MIN_THRESHOLD 4096

#define DEFAULT_CONTEXT 4 /* frames: past a wrapper or two of the program's own, SICM's 3 and the call */

static _Atomic size_t threshold = SIZE_MAX;
static int context_depth = DEFAULT_CONTEXT;
static char intent[512] = LOCI_TIER_TERM;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static bool started;
static _Atomic uintptr_t loci_lo, loci_hi; /* libloci's mapped code and data, [lo, hi) */

static __thread unsigned inside __attribute__((tls_model("initial-exec")));

void tier_enter(void) { inside++; }
void tier_leave(void) { inside--; }
bool tier_inside(void) { return inside != 0; }

void tier_give_up(void) { atomic_store(&threshold, SIZE_MAX); }

size_t tier_threshold(void) { return atomic_load_explicit(&threshold, memory_order_relaxed); }
const char *tier_intent(void) { return intent; }
int tier_context_depth(void) { return context_depth; }

bool tier_may_place(const void *caller)
{
    uintptr_t at = (uintptr_t)caller;
    return !inside && (at < atomic_load_explicit(&loci_lo, memory_order_relaxed) ||
                       at >= atomic_load_explicit(&loci_hi, memory_order_relaxed));
}

/* The object that holds `base`, with the extent of its loaded segments. */
static int find_extent(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const void *base = data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (start < lo)
            lo = start;
        if (start + ph->p_memsz > hi)
            hi = start + ph->p_memsz;
    }
    if ((uintptr_t)base < lo || (uintptr_t)base >= hi)
        return 0;
    loci_lo = lo;
    loci_hi = hi;
    return 1;
}

static void start(void)
{
    tier_enter();
    if (loci_init() != 0) {
        tier_log(LOCI_LOG_ERROR, "loci cannot start: %s; every allocation stays with libc", loci_last_error());
        tier_give_up();
    } else {
        started = true;
        tier_log(LOCI_LOG_INFO, "blocks of %zu bytes and more: one arena per allocation site (calling context of "
                 "%d frames, size class), intent \"%s\" (libloci's own allocations, at %#lx-%#lx, excepted)",
                 tier_threshold(), context_depth, intent, (unsigned long)loci_lo, (unsigned long)loci_hi);
    }
    tier_leave();
}

bool tier_started(void)
{
    pthread_once(&start_once, start);
    return started;
}

/* LOCI_TIER_THRESHOLD: bytes with an optional unit ("64K", "1M"). */
static size_t read_threshold(void)
{
    const char *text = getenv("LOCI_TIER_THRESHOLD");
    uint64_t bytes;
    const char *why;
    if (!text || !*text)
        return DEFAULT_THRESHOLD;
    if (!units_parse_size(text, &bytes, &why) || (bytes < MIN_THRESHOLD && (why = "less than a page")) ||
        (bytes > SIZE_MAX / 2 && (why = "more than this process can address"))) {
        tier_log(LOCI_LOG_WARN, "LOCI_TIER_THRESHOLD=%s: %s; expected a size of at least 4 KiB (a page: loci "
                 "places memory by page), e.g. 64K or 1M; using 64 KiB", text, why);
        return DEFAULT_THRESHOLD;
    }
    return (size_t)bytes;
}

/* LOCI_TIER_CONTEXT: frames of the program's own code in a calling context. */
static int read_context_depth(void)
{
    const char *text = getenv("LOCI_TIER_CONTEXT");
    uint64_t n;
    const char *why;
    if (!text || !*text)
        return DEFAULT_CONTEXT;
    if (!units_parse_whole(text, 1, LOCI_TIER_CONTEXT_MAX, &n, &why)) {
        tier_log(LOCI_LOG_WARN, "LOCI_TIER_CONTEXT=%s: %s; expected a number of frames from 1 (the allocation's "
                 "caller alone) to %d; using %d", text, why, LOCI_TIER_CONTEXT_MAX, DEFAULT_CONTEXT);
        return DEFAULT_CONTEXT;
    }
    return (int)n;
}

/* Before main: the process is single-threaded, nothing is placed yet.
 * libloci (a dependency) is loaded: where it lies is known before its first
 * allocation, which may come before the program's first big block (a
 * front end calling loci) and must not be placed from inside loci. */
__attribute__((constructor)) static void read_environment(void)
{
    libc_resolve();
    dl_iterate_phdr(find_extent, (void *)(uintptr_t)loci_init);
    const char *mode = getenv("LOCI_TIER");
    if (mode && *mode && strcmp(mode, "auto") != 0) {
        if (strcmp(mode, "off") != 0)
            tier_log(LOCI_LOG_WARN, "LOCI_TIER=%s: expected auto (place big blocks by allocation site) or off; "
                     "off: every allocation stays with libc", mode);
        return;
    }
    const char *terms = getenv("LOCI_TIER_INTENT");
    if (terms && *terms) {
        int n = snprintf(intent, sizeof intent, "%s,%s", terms, LOCI_TIER_TERM);
        if (n < 0 || (size_t)n >= sizeof intent) {
            tier_log(LOCI_LOG_ERROR, "LOCI_TIER_INTENT is longer than an intent may be here (%zu bytes); every "
                     "allocation stays with libc", sizeof intent - sizeof LOCI_TIER_TERM - 1);
            return;
        }
    }
    context_depth = read_context_depth();
    atomic_store(&threshold, read_threshold());
}
