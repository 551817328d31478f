/*
 * MPI_Alloc_mem / MPI_Free_mem. A call whose info or environment asks for
 * placement gets loci memory from the allocator object of its intent
 * (loci caches them: a repeated intent costs a hash lookup, not SharP's
 * ~7 us re-resolution); one whose intent asks for tier=auto, which an
 * allocator refuses (its blocks share pages, and tiering moves whole
 * arenas), gets an arena of its own, so each buffer is tiered by its own
 * heat; any other call goes to the MPI library as it is.
 * MPI_Free_mem destroys a block's own auto arena, sends loci's other live
 * blocks to loci_free (loci knows them: no list to walk, unlike SharP), the
 * MPI library's recorded ones to PMPI_Free_mem, and refuses anything else.
 * Errors are raised on MPI_COMM_WORLD, as both MPIs do for these calls.
 */
#include "shim.h"

#include <errno.h>
#include <loci.h>
#include <stdio.h>

static const char alloc_fn[] = "MPI_Alloc_mem", free_fn[] = "MPI_Free_mem";

/* The MPI library's own memory, remembered so that MPI_Free_mem can tell it apart. */
static int mpi_alloc(MPI_Aint size, MPI_Info info, void *baseptr)
{
    int rc = PMPI_Alloc_mem(size, info, baseptr);
    if (rc != MPI_SUCCESS || shim_track_add(*(void **)baseptr, SHIM_MPI_BLOCK))
        return rc;
    PMPI_Free_mem(*(void **)baseptr);
    shim_say(alloc_fn, "out of memory recording the block");
    return shim_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
}

/* A block alone in a tier=auto arena of its own, recorded so that
 * MPI_Free_mem destroys the arena with it. NULL with *is_auto false when
 * the intent makes no auto arena (the arena made for a look is destroyed);
 * NULL with *is_auto true when the arena could not hold the block.
 * site: the program's call of MPI_Alloc_mem, so that tiering profiles tell
 * its buffers apart; its size class, log2 of the size. */
static void *alone_in_auto_arena(const char *intent, size_t align, size_t size, const void *site, bool *is_auto)
{
    unsigned size_class = size ? 63u - (unsigned)__builtin_clzll((unsigned long long)size) : 0;
    loci_arena_t *ar = loci_arena_create_site(intent, 0, site, size_class);
    loci_tier_stats_t st;
    *is_auto = ar && loci_tier_stats(ar, &st) == 0;
    void *p = !*is_auto ? NULL : align ? loci_arena_aligned_alloc(ar, align, size) : loci_arena_alloc(ar, size);
    if (p && shim_track_add(p, SHIM_AUTO_ARENA))
        return p;
    if (p) {
        shim_say(alloc_fn, "out of memory recording the block");
        errno = ENOMEM;
    }
    loci_arena_destroy(ar);
    return NULL;
}

int shim_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr, const void *site)
{
    shim_check_abi();
    shim_request_t req;
    int rc = shim_request(alloc_fn, info, true, &req);
    if (rc != MPI_SUCCESS)
        return shim_raise(MPI_COMM_WORLD, rc);
    if (!req.intent && !req.align)
        return mpi_alloc(size, info, baseptr);
    if (size < 0) {
        shim_say(alloc_fn, "negative size %lld", (long long)size);
        return shim_raise(MPI_COMM_WORLD, MPI_ERR_ARG);
    }
    const char *intent = req.intent ? req.intent : ""; /* only an alignment asked: local DRAM */
    loci_allocator_t *a = loci_allocator_create(intent);
    void *p;
    if (a)
        p = req.align ? loci_aligned_alloc(a, req.align, (size_t)size) : loci_alloc(a, (size_t)size);
    else {
        /* refused: tier=auto (an arena of its own), or a bad intent, whose reason is the allocator's */
        int refused = errno;
        char why[1024];
        snprintf(why, sizeof why, "%s", loci_last_error());
        bool is_auto = false;
        p = refused == EINVAL ? alone_in_auto_arena(intent, req.align, (size_t)size, site, &is_auto) : NULL;
        if (!is_auto) {
            shim_say(alloc_fn, "%s=\"%s\": %s", req.from, req.given, why);
            return shim_raise(MPI_COMM_WORLD, refused == ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_INFO_VALUE);
        }
    }
    if (!p) {
        shim_say(alloc_fn, "%lld bytes by intent \"%s\": %s", (long long)size, intent, loci_last_error());
        return shim_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int shim_free_mem(void *base)
{
    shim_check_abi();
    if (!base)
        return PMPI_Free_mem(base); /* whatever the MPI does with NULL */
    shim_owner_t owner = shim_track_take(base);
    if (owner == SHIM_AUTO_ARENA) {
        loci_arena_destroy(loci_ptr_arena(base));
        return MPI_SUCCESS;
    }
    if (owner == SHIM_MPI_BLOCK)
        return PMPI_Free_mem(base);
    if (loci_usable_size(base)) { /* a live loci block (its start: interior pointers give 0) */
        loci_free(base);
        return MPI_SUCCESS;
    }
    shim_say(free_fn, "%p is not a live block from MPI_Alloc_mem (freed already, or memory from another "
                      "allocator): nothing freed", base);
    return shim_raise(MPI_COMM_WORLD, MPI_ERR_ARG);
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    return shim_alloc_mem(size, info, baseptr, __builtin_extract_return_addr(__builtin_return_address(0)));
}

int MPI_Free_mem(void *base) { return shim_free_mem(base); }
