/*
 * What crosses files in the OpenMP front end, libloci-omp.so (docs/OPENMP.md).
 *
 * An OpenMP allocator is a memory space, which names an intent (memspace.c),
 * plus traits (traits.c). Each allocation resolves that intent from the
 * calling thread's NUMA node (allocator.c), applies the OpenMP fallback when
 * loci says no (alloc.c), and records who made the block (blocks.c) so that
 * omp_free can route it and catch mistakes. Handles and pointers loci did not
 * make go to the real runtime (runtime.c). The exported names live in
 * entry_omp.c (OpenMP API), entry_gomp.c (GCC) and entry_kmpc.c (Clang).
 */
#ifndef LOCI_OMP_SHIM_H
#define LOCI_OMP_SHIM_H

#include "abi.h"
#include "log.h" /* src/util */

#include <loci.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Everything is hidden (-fvisibility=hidden) but the interposed entry points. */
#define SHIM_EXPORT __attribute__((visibility("default")))

/* Allocator handles: 0 null, 1-8 predefined, [SHIM_HANDLE_FIRST, SHIM_HANDLE_END)
 * loci's. The runtimes' own handles are pointers, never below 64 KiB (the
 * kernel leaves the lowest pages unmapped, heaps are far above), and libomp's
 * llvm_omp_target_* (100-102): neither can collide with loci's. */
#define SHIM_HANDLE_FIRST 1024
#define SHIM_HANDLE_END 65536

/* --- log: libloci's (src/util/log.c, compiled in) ------------------------ */

/** "loci-omp: <level>: message" on stderr, filtered like loci's own messages
 *  by LOCI_LOG=error|warn|info|debug (default warn); level: LOCI_LOG_*. */
#define shim_log(level, ...) loci__log_as("loci-omp", level, __VA_ARGS__)

/** Whether shim_log prints messages of this level. */
#define shim_log_on(level) loci__log_on(level)

/* --- runtime.c: the OpenMP runtime the program runs with ------------------ */

typedef struct {
    const char *name; /* "libgomp", "libomp" or "no OpenMP runtime" */
    char path[256];   /* where it was loaded from, "" if unknown */
    /* Its own entry points (dlsym RTLD_NEXT): NULL where it has none. */
    void *(*aligned_alloc)(size_t alignment, size_t size, omp_handle_t a);
    void *(*aligned_calloc)(size_t alignment, size_t n, size_t size, omp_handle_t a);
    void *(*realloc)(void *p, size_t size, omp_handle_t a, omp_handle_t free_a);
    void (*free)(void *p, omp_handle_t a);
    omp_handle_t (*init_allocator)(omp_handle_t memspace, int n, const omp_trait_t *traits);
    void (*destroy_allocator)(omp_handle_t a);
    void (*set_default_allocator)(omp_handle_t a);
    omp_handle_t (*get_default_allocator)(void);
    const omp_handle_t *own; /* its own predefined handles beyond OpenMP's, 0-terminated */
} shim_runtime_t;

/** The runtime loaded in this process, found on first use. */
const shim_runtime_t *shim_runtime(void);

/** An allocator handle the runtime made or defines itself: it goes to the runtime. */
bool shim_runtime_allocator(omp_handle_t a);

/** A memory space only the runtime knows (libomp's llvm_omp_target_*). */
bool shim_runtime_memspace(omp_handle_t m);

/* --- memspace.c: memory spaces as intents -------------------------------- */

typedef struct {
    const char *name;   /* "omp_high_bw_mem_space" */
    const char *key;    /* its key in [omp] of LOCI_CONFIG: "high_bw" */
    const char *intent; /* where loci places it */
    const char *otherwise; /* where, when intent has no target here (NULL: absent) */
    const char *origin; /* "built-in" or the "file:line" of LOCI_CONFIG */
} shim_memspace_t;

/** False when loci cannot start (a malformed LOCI_CONFIG...): the reason was
 *  printed once and every call goes to the runtime unplaced. Starts loci and
 *  reads the memory-space map on first use. */
bool shim_ready(void);

/** The memory space m (OMP_*_MEM_SPACE), NULL if m is not one of the five. */
const shim_memspace_t *shim_memspace(omp_handle_t m);

/** The memory space named `name` ("omp_high_bw_mem_space"), or -1. */
int shim_memspace_by_name(const char *name);

/* --- traits.c: omp_alloctrait_t decoded ------------------------------------ */

typedef struct {
    uintptr_t sync_hint, access, fallback, partition; /* OMP_ATV_* */
    uintptr_t alignment;   /* a power of two, 1 = none */
    uintptr_t pool_size;   /* bytes (0 too: a pool nothing fits in), SHIM_NO_POOL = none */
    omp_handle_t fb_data;  /* the allocator fallback=allocator_fb goes to */
    bool pinned;
} shim_traits_t;

#define SHIM_NO_POOL UINTPTR_MAX /* as libgomp: the pool_size default is "no pool" */

/** Every trait at its OpenMP default. */
void shim_traits_default(shim_traits_t *t);

/** Decode traits[0..n-1] over the defaults in *out. Returns 0, or -1 with
 *  what is wrong (naming the trait and the values it takes) in why. */
int shim_traits_decode(int n, const omp_trait_t *traits, shim_traits_t *out, char *why, size_t len);

/** OMP_ATK_* of a trait name ("alignment"), or -1. */
int shim_trait_key(const char *name);

/** OMP_ATV_* of a value name ("null_fb"); false if there is none. */
bool shim_trait_value(const char *name, uintptr_t *out);

/** The name of trait value v ("null_fb"), or NULL. */
const char *shim_trait_value_name(uintptr_t v);

/* --- allocator.c: allocator objects and their handles -------------------- */

#define SHIM_MAX_INITIATORS 64

typedef struct {
    omp_handle_t handle;
    omp_handle_t memspace;
    shim_traits_t traits;
    char intent[512];         /* what loci is asked for: memory space + traits */
    char otherwise[512];      /* the same over the space's "otherwise", if it has one */
    bool has_otherwise;
    loci_arena_t *pool;       /* pool_size: an arena holding the pool's blocks */
    _Atomic(size_t) pool_used; /* bytes charged to the pool (pool.c) */
    /* Per initiator NUMA node: its loci allocator, SHIM_ABSENT, or 0 (not yet). */
    _Atomic(uintptr_t) resolved[SHIM_MAX_INITIATORS];
    atomic_flag reported;     /* its first failed allocation was reported */
} shim_allocator_t;

/** A new allocator on memory space m (decoded traits t), or
 *  OMP_NULL_ALLOCATOR with the reason printed (fn names the caller). */
omp_handle_t shim_allocator_create(omp_handle_t m, const shim_traits_t *t, const char *fn);

/** Release a loci-made allocator (its pool and the pool's blocks). */
void shim_allocator_destroy(omp_handle_t a, const char *fn);

/** The predefined or live loci allocator behind a, else NULL. */
shim_allocator_t *shim_allocator(omp_handle_t a);

/** The loci allocator placing a's memory for the calling thread, NULL (errno
 *  ENOENT and loci_last_error()) when a's memory space is absent from here. */
loci_allocator_t *shim_resolve(shim_allocator_t *a);

/** The predefined allocator named `name` ("omp_high_bw_mem_alloc"), or 0. */
omp_handle_t shim_predefined_by_name(const char *name);

/** A's name for messages: "omp_high_bw_mem_alloc", "allocator 1025", "0x...". */
const char *shim_handle_name(omp_handle_t a, char *buf, size_t len);

/* --- default.c: def-allocator-var and OMP_ALLOCATOR ----------------------- */

/** The calling thread's default allocator (initially from OMP_ALLOCATOR). */
omp_handle_t shim_default_allocator(void);

/** Set the calling thread's default allocator; an invalid handle is refused. */
void shim_set_default_allocator(omp_handle_t a);

/* --- pool.c: what a pool_size pool has in use ---------------------------- */

/** What a block of `size` bytes aligned to `alignment` costs its pool: the
 *  bytes plus libgomp's per-block header and alignment padding, so a pool
 *  holds the same blocks as under libgomp 12. 0 on overflow. */
size_t shim_pool_charge(size_t size, size_t alignment);

/** Charge `add` to al's pool after giving back `give` (a realloc: in use -
 *  old + new), if that stays within pool_size; false (nothing changed) if not. */
bool shim_pool_take(shim_allocator_t *al, size_t give, size_t add);

/** Give `charge` bytes back to al's pool. */
void shim_pool_give(shim_allocator_t *al, size_t charge);

/** Charge them again, whatever the pool holds: a block that stays after all. */
void shim_pool_keep(shim_allocator_t *al, size_t charge);

/* --- pinned.c: omp_atk_pinned ------------------------------------------------ */

/** Lock the pages [p, p + len) (page-aligned), within RLIMIT_MEMLOCK counted
 *  over every block the shim pinned. -1 with why when refused. */
int shim_pin(void *p, size_t len, char *why, size_t why_len);

/** Unlock them again (before the block goes back to loci). */
void shim_unpin(void *p, size_t len);

/* --- partition.c: partition=blocked ---------------------------------------- */

/** The memory policy a blocked block had before it was split. */
typedef struct {
    int mode;             /* -1: nothing to undo */
    unsigned long nodes;  /* nodemask of NUMA nodes 0-63 */
} shim_undo_t;

/** Split the page-aligned block [p, p + size) into one part per NUMA target
 *  of loci allocator a, in rank order; *undo says how to put it back. */
void shim_partition_blocked(void *p, size_t size, loci_allocator_t *a, shim_undo_t *undo);

/** Give the block its policy back (and its pages) before loci reuses it. */
void shim_partition_undo(void *p, size_t size, const shim_undo_t *undo);

/* --- blocks.c: who made each block ---------------------------------------- */

typedef struct {
    void *ptr;
    size_t size;          /* bytes asked for */
    size_t span;          /* bytes the block covers (blocked and pinned round to pages) */
    size_t charge;        /* bytes charged to made_by's pool, 0 if none */
    bool pinned;          /* [ptr, ptr + span) is locked */
    omp_handle_t asked;   /* the allocator the program named */
    omp_handle_t made_by; /* the one whose memory it is, after fallbacks */
    bool runtime;         /* made by the runtime, not loci */
    bool tiered;          /* in an auto-tiered arena of its site (tiered.c) */
    shim_undo_t undo;
} shim_block_t;

/** Record b; false when there is no memory to record it. */
bool shim_block_add(const shim_block_t *b);

/** Find ptr's record (take: and remove it); false if there is none. */
bool shim_block_find(const void *ptr, shim_block_t *out);
bool shim_block_take(const void *ptr, shim_block_t *out);

/** Give ptr's record a new size and pool charge (an in-place realloc). */
void shim_block_resize(const void *ptr, size_t size, size_t charge);

/** Forget every block made by allocator a (its pool is going away). */
void shim_blocks_forget(omp_handle_t a);

/* --- tiered.c: LOCI_TIER=auto, the default allocator by allocation site -- */

/** Under `loci run --tier auto` (LOCI_TIER=auto, libloci-tier.so loaded):
 *  a block of al's from an arena of the program's allocation site `site`
 *  when al is omp_default_mem_alloc and size is at least libloci-tier's
 *  threshold, as malloc's big blocks are; NULL otherwise (allocate as
 *  usual). Memory spaces the program names keep their meaning. */
void *shim_tiered_alloc(const shim_allocator_t *al, const void *site, size_t alignment, size_t size, bool zero);

/** Free a block shim_tiered_alloc made. */
void shim_tiered_free(void *p);

/* --- alloc.c: the allocation routines ------------------------------------- */

enum {
    SHIM_ZERO = 1u << 0,      /* calloc */
    SHIM_DIRECTIVE = 1u << 1, /* an allocate directive or clause: null_fb acts as abort_fb */
};

/** Where the program called an entry point from: its allocation site
 *  (tiered.c). Only meaningful in the exported function itself. */
#define SHIM_CALLER() __builtin_return_address(0)

/** n * size bytes aligned to `alignment` (1: any) from allocator a, with the
 *  OpenMP 5.1 semantics: NULL for 0 bytes, overflow and failures go through
 *  the fallback trait. site: SHIM_CALLER() of the entry point; fn names it
 *  in messages. */
void *shim_alloc(omp_handle_t a, size_t alignment, size_t n, size_t size, unsigned flags, const void *site,
                 const char *fn);
void *shim_realloc(void *p, size_t size, omp_handle_t a, omp_handle_t free_a, const void *site, const char *fn);
void shim_free(void *p, omp_handle_t a, const char *fn);
omp_handle_t shim_init_allocator(omp_handle_t m, int n, const omp_trait_t *traits, const char *fn);
void shim_destroy_allocator(omp_handle_t a, const char *fn);

#endif
