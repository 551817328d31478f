/*
 * Open MPI's shmemx_malloc_with_hint placed by its hints through
 * libloci-shmem — linked, or (the same source, not linked with it) with
 * LD_PRELOAD: each memory hint's block carries the binding of its intent
 * (high bandwidth, low latency, near the NIC, and two at once), hint 0 and
 * usage-only hints leave the heap's memory as it is; every block is
 * symmetric, takes remote puts, and goes back with shmem_free without its
 * binding; shmem_realloc of a placed block keeps it placed.
 */
#include "check.h"

#include <shmemx.h>
#include <stdint.h>
#include <string.h>

enum { SIZE = (1 << 20) + 100 }; /* not whole pages: the block gets pages of its own anyway */

static int me, npes;
static long exchange;

static void hinted(long hint, const char *intent)
{
    char *p = shmemx_malloc_with_hint(SIZE, hint);
    CHECK(p, "shmemx_malloc_with_hint(%d, %#lx) failed", SIZE, hint);
    exchange = (long)(intptr_t)p;
    shmem_barrier_all();
    long theirs = shmem_long_g(&exchange, (me + 1) % npes);
    CHECK(theirs == exchange, "hint %#lx: %p here, %#lx on PE %d", hint, (void *)p, theirs, (me + 1) % npes);
    char what[96];
    snprintf(what, sizeof what, "hint %#lx (%s)", hint, intent ? intent : "none");
    int node = intent ? intent_node(intent) : -1;
    check_policy(what, p, node);
    check_policy(what, p + SIZE - 1, node);
    if (intent) /* the binding covers whole pages of the block's own */
        CHECK((uintptr_t)p % 4096 == 0, "%s: block at %p does not start a page", what, (void *)p);
    shmem_barrier_all();
    shmem_putmem(p + SIZE - 8, "abcdefg", 8, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(!memcmp(p + SIZE - 8, "abcdefg", 8), "%s: the put did not arrive", what);
    if (!intent) {
        shmem_free(p);
        return;
    }
    /* shmem_realloc of a placed block: a new block placed alike, the contents kept */
    char *q = shmem_realloc(p, 2 * SIZE);
    CHECK(q && !memcmp(q + SIZE - 8, "abcdefg", 8), "%s: shmem_realloc lost the contents", what);
    check_policy(what, q + 2 * SIZE - 1, node);
    CHECK(shmem_realloc(q, 0) == NULL, "%s: shmem_realloc(0) returned a block", what);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    hinted(SHMEM_HINT_HIGH_BW_MEM, "bandwidth=high");
    hinted(SHMEM_HINT_LOW_LAT_MEM, "latency=low");
    hinted(SHMEM_HINT_NEAR_NIC_MEM, "near=nic");
    hinted(SHMEM_HINT_HIGH_BW_MEM | SHMEM_HINT_NEAR_NIC_MEM, "bandwidth=high,near=nic");
    hinted(SHMEM_HINT_NONE, NULL);
    hinted(SHMEM_HINT_ATOMICS | SHMEM_HINT_PSYNC, NULL);
    if (me == 0)
        printf("test_hint: passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
