/*
 * UMF's IPC handles over loci's shared arenas (docs/ARENAS.md).
 *
 * A shared provider is a shared arena, mapped at one address in every
 * process that attaches it; a handle names the arena and the block.
 * Opening one attaches the arena and maps a view of the block of its own: a
 * second mapping of the same shared pages (mremap with an old size of 0).
 * UMF keeps every opened mapping by its address, so two openings of one
 * block in a process (two pools of a consumer, or the producer opening its
 * own) must not land on one address; UMF's own providers map their memory
 * anew at each opening too. loci's API has no call for a second view of a
 * range, hence this one kernel call outside libloci.
 */
#include "umf_shim.h"

#include "addr_table.h" /* src/util */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HANDLE_MAGIC 0x6c6f63692d756d66ull /* "loci-umf" */
#define DEFAULT_SHARED_SIZE (256u << 20)

typedef struct {
    uint64_t magic;
    uint64_t base, size; /* the block: the same address in every process */
    char arena[UMF_SHIM_NAME_MAX + 1];
} handle_t;

/* An opened handle: the view of its block, and this process's attachment. */
typedef struct {
    void *ptr;   /* what open returned */
    void *map;   /* the view, whole pages */
    size_t len;
    loci_arena_t *arena;
} view_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static addr_table_t views = ADDR_TABLE_INIT;

static void fork_lock(void) { pthread_mutex_lock(&lock); }
static void fork_unlock(void) { pthread_mutex_unlock(&lock); }
__attribute__((constructor)) static void watch_forks(void) { pthread_atfork(fork_lock, fork_unlock, fork_unlock); }

loci_arena_t *ipc_arena_create(const char *intent, size_t max_size, char name[UMF_SHIM_NAME_MAX + 1])
{
    static atomic_uint serial;
    loci_arena_t *ar = NULL;
    /* a name taken is one a killed process of the same pid left: the next serial number */
    for (int tries = 0; !ar && tries < 16; tries++) {
        snprintf(name, UMF_SHIM_NAME_MAX + 1, "umf-%ld-%u", (long)getpid(), atomic_fetch_add(&serial, 1));
        ar = loci_arena_create_shared(name, intent, max_size ? max_size : DEFAULT_SHARED_SIZE);
        if (!ar && errno != EEXIST)
            break;
    }
    return ar;
}

static umf_result_t not_shared(const umf_shim_provider_t *pv, const char *call)
{
    return native_error_set(UMF_RESULT_ERROR_NOT_SUPPORTED, LOCI_ENOTSUP,
                            "loci provider %s: %s: its memory is private; make the provider with "
                            "umfLociMemoryProviderParamsSetVisibility(params, UMF_MEM_MAP_SHARED) to share it",
                            pv->name, call);
}

/* The handle at data when it is one of ours; NULL with the native error set. */
static const handle_t *handle_of(const umf_shim_provider_t *pv, const char *call, const void *data)
{
    const handle_t *h = data;
    if (h->magic == HANDLE_MAGIC && memchr(h->arena, 0, sizeof h->arena))
        return h;
    native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                     "loci provider %s: %s: not an IPC handle of a loci provider", pv->name, call);
    return NULL;
}

umf_result_t ipc_handle_size(void *provider, size_t *size)
{
    umf_shim_provider_t *pv = provider;
    if (!pv->shared)
        return not_shared(pv, "get_ipc_handle_size");
    *size = sizeof(handle_t);
    return UMF_RESULT_SUCCESS;
}

umf_result_t ipc_handle_get(void *provider, const void *ptr, size_t size, void *data)
{
    umf_shim_provider_t *pv = provider;
    if (!pv->shared)
        return not_shared(pv, "get_ipc_handle");
    if (!ledger_holds(pv, ptr, size))
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "loci provider %s: get_ipc_handle of %zu bytes at %p, not memory it handed out",
                                pv->name, size, ptr);
    handle_t *h = data;
    *h = (handle_t){.magic = HANDLE_MAGIC, .base = (uintptr_t)ptr, .size = size};
    memcpy(h->arena, pv->arena_name, sizeof h->arena);
    return UMF_RESULT_SUCCESS;
}

umf_result_t ipc_handle_put(void *provider, void *data)
{
    umf_shim_provider_t *pv = provider;
    if (!pv->shared)
        return not_shared(pv, "put_ipc_handle");
    return handle_of(pv, "put_ipc_handle", data) ? UMF_RESULT_SUCCESS : UMF_RESULT_ERROR_INVALID_ARGUMENT;
}

umf_result_t ipc_handle_open(void *provider, void *data, void **ptr)
{
    umf_shim_provider_t *pv = provider;
    if (!pv->shared)
        return not_shared(pv, "open_ipc_handle");
    const handle_t *h = handle_of(pv, "open_ipc_handle", data);
    if (!h)
        return UMF_RESULT_ERROR_INVALID_ARGUMENT;
    loci_arena_t *ar = loci_arena_attach(h->arena);
    if (!ar)
        return native_error_errno(errno);
    void *first = (void *)(uintptr_t)h->base, *last = (void *)(uintptr_t)(h->base + h->size - 1);
    if (h->size == 0 || loci_ptr_arena(first) != ar || loci_ptr_arena(last) != ar) {
        loci_arena_destroy(ar);
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "loci provider %s: open_ipc_handle: %llu bytes at %p are not inside shared arena "
                                "\"%s\"", pv->name, (unsigned long long)h->size, first, h->arena);
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = h->base & ~(page - 1),
              to = (h->base + h->size + page - 1) & ~(page - 1);
    view_t *v = malloc(sizeof *v);
    void *map = v ? mremap((void *)from, 0, to - from, MREMAP_MAYMOVE) : MAP_FAILED;
    umf_result_t r = UMF_RESULT_SUCCESS;
    if (!v)
        r = native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM, "loci provider %s: out of memory",
                             pv->name);
    else if (map == MAP_FAILED)
        r = native_error_set(UMF_RESULT_ERROR_MEMORY_PROVIDER_SPECIFIC, LOCI_EIO,
                             "loci provider %s: open_ipc_handle: no second view of %p-%p of shared arena \"%s\" "
                             "(mremap: %s)", pv->name, (void *)from, (void *)to, h->arena, strerror(errno));
    if (r == UMF_RESULT_SUCCESS) {
        *v = (view_t){(char *)map + (h->base - from), map, to - from, ar};
        pthread_mutex_lock(&lock);
        bool added = addr_table_add(&views, (uintptr_t)map, v->len, v);
        pthread_mutex_unlock(&lock);
        if (!added)
            r = native_error_set(UMF_RESULT_ERROR_OUT_OF_HOST_MEMORY, LOCI_ENOMEM,
                                 "loci provider %s: out of memory", pv->name);
    }
    if (r != UMF_RESULT_SUCCESS) {
        if (map != MAP_FAILED)
            munmap(map, to - from);
        free(v);
        loci_arena_destroy(ar);
        return r;
    }
    *ptr = v->ptr;
    return UMF_RESULT_SUCCESS;
}

umf_result_t ipc_handle_close(void *provider, void *ptr, size_t size)
{
    umf_shim_provider_t *pv = provider;
    if (!pv->shared)
        return not_shared(pv, "close_ipc_handle");
    pthread_mutex_lock(&lock);
    view_t *v = addr_table_find(&views, (uintptr_t)ptr);
    if (v && v->ptr == ptr)
        addr_table_remove(&views, (uintptr_t)v->map);
    else
        v = NULL;
    pthread_mutex_unlock(&lock);
    if (!v)
        return native_error_set(UMF_RESULT_ERROR_INVALID_ARGUMENT, LOCI_EINVAL,
                                "loci provider %s: close_ipc_handle of %p, which open_ipc_handle did not return",
                                pv->name, ptr);
    munmap(v->map, v->len);
    loci_arena_destroy(v->arena);
    free(v);
    return UMF_RESULT_SUCCESS;
}
