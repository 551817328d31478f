/*
 * omp_atk_pinned: every block of a pinned allocator owns its pages (alloc.c
 * rounds it to pages), and exactly those pages are locked while it lives, so
 * VmLck grows by the block rounded to pages and shrinks again at omp_free.
 * RLIMIT_MEMLOCK is honoured per block over every page the shim locked — by
 * the shim itself, since the kernel does not apply it to a process with
 * CAP_IPC_LOCK (root) — and a refusal goes to the allocator's fallback.
 */
#include "shim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static _Atomic(size_t) locked; /* bytes the shim holds locked */

int shim_pin(void *p, size_t len, char *why, size_t why_len)
{
    struct rlimit lim;
    size_t now = atomic_fetch_add_explicit(&locked, len, memory_order_relaxed);
    if (getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
        (now + len < now || now + len > lim.rlim_cur)) {
        atomic_fetch_sub_explicit(&locked, len, memory_order_relaxed);
        snprintf(why, why_len,
                 "pinned: %zu more bytes locked would pass RLIMIT_MEMLOCK (%llu bytes, %zu locked already); "
                 "raise it (ulimit -l) or drop the pinned trait",
                 len, (unsigned long long)lim.rlim_cur, now);
        errno = ENOMEM;
        return -1;
    }
    if (mlock(p, len) != 0) {
        int e = errno;
        atomic_fetch_sub_explicit(&locked, len, memory_order_relaxed);
        snprintf(why, why_len, "pinned: mlock of %zu bytes failed: %s", len, strerror(e));
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void shim_unpin(void *p, size_t len)
{
    munlock(p, len);
    atomic_fetch_sub_explicit(&locked, len, memory_order_relaxed);
}
