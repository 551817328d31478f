/*
 * What crosses files in libloci-umf.so, loci as a UMF memory provider
 * (include/loci_umf.h, docs/UMF.md).
 *
 * A provider (provider.c, the ops table) is one loci arena made from its
 * params (params.c); a shared one is a shared arena whose blocks other
 * processes open through UMF's IPC handles (ipc.c). What each provider
 * handed out is in the ledger (ledger.c), which is what catches a pointer
 * it never made. Failures are UMF codes, with loci's message kept per
 * thread for umfMemoryProviderGetLastNativeError (native_error.c).
 */
#ifndef LOCI_UMF_SHIM_H
#define LOCI_UMF_SHIM_H

#include "log.h" /* src/util */

#include <loci.h>
#include <loci_umf.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything is hidden (-fvisibility=hidden) but loci_umf.h's functions. */
#define UMF_SHIM_EXPORT __attribute__((visibility("default")))

/** "loci-umf: <level>: message" on stderr, filtered by LOCI_LOG. */
#define umf_shim_log(level, ...) loci__log_as("loci-umf", level, __VA_ARGS__)

/** Whether umf_shim_log prints messages of this level. */
#define umf_shim_log_on(level) loci__log_on(level)

/* Names as UMF wants them (get_name), and shared arenas' names: 1-64 chars. */
#define UMF_SHIM_NAME_MAX 64

/* --- params.c: what a provider is made from -------------------------------- */

typedef struct {
    char *intent; /* malloc'd copy, never NULL */
    size_t max_size;
    bool shared;
    char name[UMF_SHIM_NAME_MAX + 1];
} umf_shim_params_t;

/** A copy of the params at `params` (the caller frees out->intent), or
 *  false when they were not made by umfLociMemoryProviderParamsCreate, are
 *  destroyed already, or there is no memory for the copy (*no_memory). */
bool params_copy(const void *params, umf_shim_params_t *out, bool *no_memory);

/* --- provider.c: one provider ---------------------------------------------- */

typedef struct {
    loci_arena_t *arena;
    bool shared;
    char name[UMF_SHIM_NAME_MAX + 1];
    char arena_name[UMF_SHIM_NAME_MAX + 1]; /* a shared provider's arena, for its IPC handles */
    atomic_size_t allocated, peak;          /* bytes handed out now, and at most (UMF's CTL stats) */
} umf_shim_provider_t;

/* --- ledger.c: pieces handed out and the loci blocks under them ------------- */

/** Record [ptr, ptr + size), a new block of owner's arena, as one piece.
 *  0, or LOCI_ENOMEM (nothing recorded). */
int ledger_add(const void *owner, void *ptr, size_t size);

/** Forget owner's piece starting at ptr, of `size` bytes (0: whatever its
 *  size), and loci_free the blocks no piece covers any more. *freed gets its
 *  size. LOCI_EINVAL when owner has no piece there, or it has another size
 *  (*freed says which; nothing changes). */
int ledger_free(const void *owner, void *ptr, size_t size, size_t *freed);

/** Whether [ptr, ptr + size) lies inside one piece of owner's. */
bool ledger_holds(const void *owner, const void *ptr, size_t size);

/** Owner's piece at ptr, of total bytes, becomes two: first bytes, and the
 *  rest. 0, LOCI_EINVAL (no such piece, or first not inside it), LOCI_ENOMEM. */
int ledger_split(const void *owner, void *ptr, size_t total, size_t first);

/** Owner's adjacent pieces at low and high become one of total bytes (their
 *  sizes' sum). 0 or LOCI_EINVAL. */
int ledger_merge(const void *owner, void *low, void *high, size_t total);

/** Forget every piece and block of owner's: its arena goes with them. */
void ledger_forget(const void *owner);

/* --- ipc.c: shared providers and UMF's IPC handles -------------------------- */

/** A shared arena of a name of its own (written to name) for a shared
 *  provider; NULL + errno and loci_last_error() as loci_arena_create_shared. */
loci_arena_t *ipc_arena_create(const char *intent, size_t max_size, char name[UMF_SHIM_NAME_MAX + 1]);

umf_result_t ipc_handle_size(void *provider, size_t *size);
umf_result_t ipc_handle_get(void *provider, const void *ptr, size_t size, void *data);
umf_result_t ipc_handle_put(void *provider, void *data);
umf_result_t ipc_handle_open(void *provider, void *data, void **ptr);
umf_result_t ipc_handle_close(void *provider, void *ptr, size_t size);

/* --- native_error.c: failures as UMF codes ---------------------------------- */

/** Record the calling thread's native error, code (a LOCI_E* code) and
 *  message, and return `result`. */
umf_result_t native_error_set(umf_result_t result, int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** The UMF code for a failed loci call that returned rc (a LOCI_E* code),
 *  its message (loci_last_error()) recorded as the native error. */
umf_result_t native_error_loci(int rc);

/** The same for a loci call that returned NULL and set errno. */
umf_result_t native_error_errno(int err);

/** The calling thread's last native error. */
void native_error_last(const char **message, int32_t *code);

#endif
