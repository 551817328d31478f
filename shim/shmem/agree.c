/*
 * Collective calls check that every PE made the same call before anything
 * collective happens in the OpenSHMEM library: a PE whose intent is refused
 * must not leave the others waiting inside shmem_align, and PEs that pass
 * different sizes or ids would get blocks that are not symmetric. Each PE
 * gathers every PE's vote (shmem_fcollect64) and decides the same way.
 */
#include "shim.h"

#include <ctype.h>
#include <shmem.h>
#include <stdint.h>
#include <string.h>

enum { VOTE_LONGS = sizeof(shim_vote_t) / sizeof(long) };

/* Scratch from the symmetric heap: the collective's pSync, this PE's vote,
 * everybody's, and `seen`, this PE's own copy of them, read after the closing
 * barrier. Allocated by the first call, which every PE makes at the same point
 * (one collective allocation: no PE can fail it alone). */
static long *psync, *vote_out, *votes, *seen;

static int setup(const char *fn)
{
    size_t npes = (size_t)shmem_n_pes();
    size_t bytes = sizeof(long) * (SHMEM_COLLECT_SYNC_SIZE + VOTE_LONGS * (1 + 2 * npes));
    long *mem = shmem_malloc(bytes);
    if (!mem) {
        shim_fail(fn, "shmem_malloc of %zu bytes for the PEs' agreement failed: the symmetric heap is full "
                      "(Open MPI: raise SMA_SYMMETRIC_SIZE)", bytes);
        return -1;
    }
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        mem[i] = SHMEM_SYNC_VALUE;
    vote_out = mem + SHMEM_COLLECT_SYNC_SIZE;
    votes = vote_out + VOTE_LONGS;
    seen = votes + VOTE_LONGS * npes;
    psync = mem;
    shmem_barrier_all(); /* every pSync ready before anyone collects into it */
    return 0;
}

long shim_intent_hash(const char *intent)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *s = (const unsigned char *)intent; s && *s; s++)
        if (!isspace(*s))
            h = (h ^ (uint64_t)tolower(*s)) * 0x100000001b3ull;
    return (long)(h >> 1);
}

int shim_agree(const char *fn, const shim_vote_t *mine)
{
    if (!psync && setup(fn) != 0)
        return -1; /* every PE fails alike: the heap is the same size everywhere */
    const long *v = (const long *)mine;
    for (int i = 0; i < VOTE_LONGS; i++)
        vote_out[i] = v[i];
    int npes = shmem_n_pes(), me = shmem_my_pe();
    shmem_fcollect64(votes, vote_out, VOTE_LONGS, 0, 0, npes, psync);
    /* copied before the barrier: after it, a PE that has decided may already be
     * collecting the next call's votes into this PE's `votes` */
    memcpy(seen, votes, sizeof(long) * VOTE_LONGS * (size_t)npes);
    shmem_barrier_all(); /* and nobody still uses pSync when the next call starts */
    if (!mine->ok)
        return -1;
    for (int pe = 0; pe < npes; pe++) {
        const shim_vote_t *o = (const shim_vote_t *)(seen + VOTE_LONGS * pe);
        if (pe == me)
            continue;
        if (!o->ok)
            shim_fail(fn, "PE %d refused this call (its message says why): nothing done on any PE", pe);
        else if (o->id != mine->id)
            shim_fail(fn, "PE %d passed partition id %ld, this PE %ld: every PE must make the same collective "
                          "calls in the same order", pe, o->id, mine->id);
        else if (o->size != mine->size)
            shim_fail(fn, "PE %d asked for %ld bytes, this PE for %ld: a partition has the same size on every PE",
                      pe, o->size, mine->size);
        else if (o->hash != mine->hash)
            shim_fail(fn, "PE %d passed another intent than this PE: a partition has one intent on every PE "
                          "(nothing created)", pe);
        else
            continue;
        return -1;
    }
    return 0;
}
