/*
 * libloci-mpi: MPI_Alloc_mem, MPI_Free_mem and the allocating window calls,
 * placed by intent through the PMPI interface (docs/MPI.md). This header is
 * what crosses its files. The library is built once per MPI (Open MPI,
 * MPICH): their ABIs differ, the source does not.
 */
#ifndef LOCI_MPI_SHIM_H
#define LOCI_MPI_SHIM_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#define SHIM_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* --- what a call asks for (intent.c) ------------------------------------- */

/** The loci placement one call asks for, from its info keys or the
 *  environment. intent NULL with align 0: nothing asked, MPI serves the call. */
typedef struct {
    const char *intent;               /* loci intent text, or NULL */
    const char *from;                 /* where it came from: "info key loci_intent"... */
    const char *given;                /* the value as given there */
    size_t align;                     /* mpi_minimum_memory_alignment, 0 = none */
    char value[MPI_MAX_INFO_VAL + 1]; /* storage for an info value */
} shim_request_t;

/** Fill *req from info (MPI_INFO_NULL is fine) and LOCI_MPI_INTENT; with
 *  want_alignment, also mpi_minimum_memory_alignment (MPI_Alloc_mem: windows
 *  leave that key to the MPI library, whatever its value).
 *  MPI_SUCCESS, or MPI_ERR_INFO_VALUE with the reason printed on stderr
 *  (not raised: the caller decides on which handle). */
int shim_request(const char *fn, MPI_Info info, bool want_alignment, shim_request_t *req);

/* --- live MPI_Alloc_mem blocks loci's allocators do not own (track.c) --- */

/** Who owns a tracked block. */
typedef enum {
    SHIM_UNTRACKED,   /* none recorded: a loci allocator's block, or no live block */
    SHIM_MPI_BLOCK,   /* the MPI library's: PMPI_Free_mem */
    SHIM_AUTO_ARENA,  /* alone in a tier=auto arena made for it: destroy the arena */
} shim_owner_t;

/** Remember that p is owner's. false when out of memory. */
bool shim_track_add(void *p, shim_owner_t owner);

/** Forget p and say whose it was (SHIM_UNTRACKED: not recorded). */
shim_owner_t shim_track_take(void *p);

/* --- errors (errors.c) ---------------------------------------------------- */

/** Print "loci-mpi: fn: message" on stderr. */
void shim_say(const char *fn, const char *fmt, ...) SHIM_PRINTF(2, 3);

/** Raise errclass through comm's error handler (when MPI is running) and
 *  return it: what MPI's own functions do with their errors. */
int shim_raise(MPI_Comm comm, int errclass);

/** MPI error class for a loci error code (LOCI_E*). */
int shim_class_of(int loci_code);

/** Stop with a message when the program runs another MPI than this library
 *  was built for (called once, from every entry point). */
void shim_check_abi(void);

/* --- the operations, shared by the C and Fortran entry points ------------ */

/** site: the program's call (a return address), which tiering profiles
 *  name a tier=auto block's arena by. */
int shim_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr, const void *site);
int shim_free_mem(void *base);
/** Which allocating window call: flags of shim_win_allocate. */
enum {
    SHIM_WIN_SHARED = 1, /* MPI_Win_allocate_shared */
    SHIM_WIN_LARGE = 2,  /* MPI 4's _c variant: displacement unit as an MPI_Aint */
};
int shim_win_allocate(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win,
                      unsigned call);

#endif
