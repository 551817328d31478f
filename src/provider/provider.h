/*
 * Providers: where extents of memory come from. Each is a const ops table;
 * the pool above never knows which one it talks to. Every kernel call that
 * places memory (mmap, mbind, move_pages, memfd, userfaultfd) lives below here.
 *
 * Common rules for every provider:
 *  - alloc returns zero-filled memory (fresh pages), aligned as asked,
 *    readable and writable by the CPU unless the provider has a `device`
 *    group; the provider keeps any bookkeeping it needs (fds, file names)
 *    out of band, never inside the extent.
 *  - free, and every other slot taking (addr, size), is called with exactly
 *    the range alloc returned (free) or a page-aligned sub-range of it.
 *  - Errors return a negative LOCI_E* code (NULL for alloc) with
 *    loci_last_error() saying what was asked and what to change.
 *  - A place with `simulated` set (injected topology) is recorded, not
 *    applied: memory is mapped, no NUMA policy is set, nothing is moved.
 */
#ifndef LOCI_PROVIDER_H
#define LOCI_PROVIDER_H

#include "internal.h"
#include "os/place.h"
#include "topo/topo.h"

#include <stddef.h>
#include <stdint.h>

/* The shape (after UMF's memory provider ops: core ops plus optional ext_
 * groups). A provider is one const provider_ops_t: the core slots the pool
 * calls for every extent, a few properties callers may ask about, and
 * pointers to const capability groups, NULL when the provider cannot do that
 * at all. Inside a group a slot is required unless its comment says
 * otherwise; an optional single operation (purge, populate, fork) stays an
 * optional core slot rather than a group of one. Callers ask for a
 * capability (ops->file, provider_can_move(), provider_has(ops,
 * PROVIDER_...)) and never compare ops with a named table: only the
 * selection in provider.c names providers. */

struct provider_ops;

/** Arenas moving to another target keeping their addresses (arena/move.c). */
typedef struct provider_move_ops {
    /** Optional (NULL = cannot move in place): move the extent's pages to
     *  `to`, same addresses, same provider, while other threads read and
     *  write them. */
    int (*move)(void *addr, size_t size, const place_t *to);
    /** Optional (NULL = cannot take memory over): take over [addr,
     *  addr+size), an extent of provider `from` (an arena moving between a
     *  NUMA node and a file tier): map memory of this provider placed per `to`
     *  elsewhere, and have `from` hand the extent over to it (its hand_over):
     *  addresses and contents kept (provider_adopt). `live`: other threads may
     *  be reading and writing the extent, and every store they make must be
     *  kept: where `from` cannot hand it over so, LOCI_EBUSY saying why and
     *  nothing changed; not live, the caller vouches that nothing touches it,
     *  and a plain copy does. On failure the range is as it was. After a
     *  success `from`'s `disown` must be called: the extent is now this
     *  provider's. */
    int (*adopt)(void *addr, size_t size, const place_t *to, const struct provider_ops *from, bool live);
    /** Optional (NULL = its extents cannot go to another provider): put
     *  `into` — memory of another provider, as large as the extent, mapped
     *  elsewhere, zero-filled and untouched, placed per `to` — over [addr,
     *  addr+size) holding its contents, keeping every store other threads make
     *  meanwhile. 0; 1, with the reason in loci_last_error() and nothing
     *  changed, where it cannot be done so here; LOCI_E* (the extent as it
     *  was). `into` stays the caller's unless done. */
    int (*hand_over)(void *addr, void *into, size_t size, const place_t *to);
    /** Optional (NULL = never): NULL when hand_over can give this provider's
     *  extents to memory of `into` keeping every store (what tiering's moves
     *  need), else why not. */
    const char *(*why_not_live)(const struct provider_ops *into);
    /** Optional (NULL = keeps nothing per extent): forget an extent another
     *  provider adopted. Its mapping is already replaced; drop what the
     *  provider kept for it (file, fd, record). */
    void (*disown)(void *addr, size_t size);
} provider_move_ops_t;

/** Memory with a file (or chunk store) under it: file tiers, mode=paged. */
typedef struct provider_file_ops {
    /** Make the extent's contents durable. */
    int (*flush)(void *addr, size_t size);
    /** Bring the range into DRAM ahead of use. */
    int (*prefetch)(void *addr, size_t size);
    /** Write the range back to its file (without waiting for it to be
     *  durable) and drop it from DRAM; the next access reads it again. */
    int (*evict)(void *addr, size_t size);
    /** Map the persistent region `name` of place->target. flags:
     *  LOCI_CREATE, LOCI_READONLY, LOCI_SHARED. *size: the size wanted (a
     *  page multiple; 0 = as it is), then its size. free() unmaps it and
     *  keeps the file. NULL + loci__fail. */
    void *(*open)(const place_t *place, const char *name, size_t *size, unsigned flags);
    /** Delete the persistent region `name` of place->target. */
    int (*remove)(const place_t *place, const char *name);
} provider_file_ops_t;

/** Memory the CPU must not write (device memory; managed memory, which a
 *  CPU write would pull to the host): the pool calls these instead of
 *  memset and memcpy. */
typedef struct provider_device_ops {
    /** Zero [addr, addr+size) of an extent of this provider. */
    int (*zero)(void *addr, size_t size);
    /** Copy size bytes from src to dst where either may be this provider's
     *  memory and the other any memory (a realloc that moves a block). */
    int (*copy)(void *dst, const void *src, size_t size);
} provider_device_ops_t;

/** Properties (provider_ops_t.props) for callers that must treat a kind of
 *  memory apart. */
enum {
    /** The CPU cannot read or write it (GPU device memory, cuMemAlloc): an
     *  arena there cannot move, since another target needs other addresses. */
    PROVIDER_NO_CPU = 1u << 0,
    /** Managed memory whose home follows advice (a GPU or the host): an
     *  arena moving between GPUs and host memory stays with this provider,
     *  whose `move` re-homes it (provider_for_move). */
    PROVIDER_FOLLOWS_GPU = 1u << 1,
    /** Loci's chunk cache (src/paged/): its pages cannot be handed to
     *  another provider, and a persistent region may be in chunk layout
     *  (paged_chunks answers for it: checkpoints). */
    PROVIDER_CHUNKED = 1u << 2,
};

typedef struct provider_ops {
    /** "numa", "file", "shm", ...: for messages. */
    const char *name;
    /** PROVIDER_* properties; 0 for plain CPU memory. */
    unsigned props;
    /* --- core: what the pool calls ------------------------------------- */
    /** Map `size` bytes (a multiple of the page size) aligned to `alignment`
     *  (a power of two >= page size), placed per `place`. Zero-filled.
     *  NULL + loci__fail. */
    void *(*alloc)(const place_t *place, size_t size, size_t alignment);
    /** Unmap an extent returned by alloc. */
    int (*free)(void *addr, size_t size);
    /** Optional (NULL = cannot: the pool unmaps where it would purge, and
     *  clears memory it reuses): give the pages back to the OS, keep the
     *  range reserved and placed. The range reads as zeros afterwards. */
    int (*purge)(void *addr, size_t size);
    /** Optional (NULL = nothing to gain): fault the range in now, placed per
     *  the extent's policy, so a full node answers LOCI_ENOMEM here instead
     *  of killing on first touch. */
    int (*populate)(void *addr, size_t size);
    /** Bytes `place` can still get before the kernel must fail or kill
     *  (NUMA: MemFree of the nodes; file tier: free space of the file
     *  system). LOCI_ENOTSUP when unknown for this placement. */
    int (*available)(const place_t *place, uint64_t *bytes);
    /** Optional (NULL = no lock of its own): around fork(), take, release or
     *  renew the provider's locks (provider_fork). In prepare, true when the
     *  child's handler must be done before the parent goes on (it reaches
     *  what the parent could change: the parent's handler waits for it). */
    bool (*fork)(loci_fork_phase_t phase);
    /* --- capability groups (NULL = not capable) ------------------------- */
    /** Optional: its extents can change place keeping their addresses
     *  (numa, shm, file, cuda_managed); NULL: an arena here cannot move. */
    const provider_move_ops_t *move;
    /** Optional: a file or chunk store is under the memory (file, paged):
     *  flush/prefetch/evict mean something, persistent regions open here,
     *  and the pool neither carves its blocks from segments nor caches freed
     *  extents (a block's file goes with it). NULL: no file under it, and
     *  loci_range_flush/prefetch/evict have nothing to do. */
    const provider_file_ops_t *file;
    /** Optional: the CPU must not write the memory (cuda_device,
     *  cuda_managed); NULL: the pool uses memset and memcpy. */
    const provider_device_ops_t *device;
} provider_ops_t;

/** True when ops has every property in `props`. */
static inline bool provider_has(const provider_ops_t *ops, unsigned props) { return (ops->props & props) == props; }

/** True when ops can move its own extents' pages in place (move group). */
static inline bool provider_can_move(const provider_ops_t *ops) { return ops->move && ops->move->move; }

/** True when ops can take over extents of another provider (move group,
 *  adopt) and hand its own to another (hand_over). */
static inline bool provider_can_adopt(const provider_ops_t *ops)
{
    return ops->move && ops->move->adopt && ops->move->hand_over;
}

/** NULL when an arena's extents of `from` can go to `to`'s memory while
 *  other threads read and write them, no store lost — the same provider
 *  moving its pages, or `from` handing them over live — else why not: the
 *  only moves tiering makes. */
const char *provider_why_not_live(const provider_ops_t *from, const provider_ops_t *to);

extern const provider_ops_t provider_numa;
extern const provider_ops_t provider_file;
extern const provider_ops_t provider_shm;
extern const provider_ops_t provider_paged;
extern const provider_ops_t provider_devdax;       /* device-DAX targets: carved from one mapping of the device */
extern const provider_ops_t provider_devdax_region; /* persistent regions on device-DAX: the file group and free
                                                      * (= close) only; the pool never gets it */
extern const provider_ops_t provider_cuda_device;  /* use=gpu: device memory (cuMemAlloc) */
extern const provider_ops_t provider_cuda_managed; /* use=cpu+gpu: managed memory (cuMemAllocManaged) */
extern const provider_ops_t provider_cuda_host;    /* near=gpu,pinned: NUMA memory registered with the driver */

/** The provider serving a target and access mode (numa for NUMA targets,
 *  shm for shareable NUMA memory, file for file tiers, devdax for
 *  device-DAX targets (not shareable), cuda_device for a
 *  GPU's device memory). NULL if none can. */
const provider_ops_t *provider_for(const struct loci_target *t, bool shared);

/** The provider for a place: provider_for(), except that file tiers asked
 *  for mode=paged get provider_paged — unless paging cannot run here (no
 *  userfaultfd permission, shareable or pinned memory) and the mode was not
 *  forced with `!`: then file (mmap), with a warning saying why, once. */
const provider_ops_t *provider_for_place(const place_t *place);

/** fork() handler of the providers (core/fork.c): each one's `fork`. Their
 *  locks are the innermost of loci's: taken last. When a provider's prepare
 *  asks, the parent's handler first waits until the child's handlers are
 *  done (a byte on a pipe, or EOF should the child die), every lock of loci
 *  still held. */
void provider_fork(loci_fork_phase_t phase);

/** The provider that serves `dst` for memory now served by `from` when an
 *  arena moves there: memory PROVIDER_FOLLOWS_GPU stays with its provider
 *  (managed GPU memory: the driver moves it between GPUs and host memory),
 *  anything else provider_for(dst). */
const provider_ops_t *provider_for_move(const provider_ops_t *from, const struct loci_target *dst, bool shared);

/** True when p is GPU device memory the CPU cannot read (asked of the CUDA
 *  driver, if there is one): whoever allocated it, loci or not. */
bool provider_cuda_device_pointer(const void *p);

/** The memfd behind an shm extent containing `addr`, and the offset of `addr`
 *  in it: another process maps it through /proc/<pid>/fd/<fd> or an fd passed
 *  over a socket. The fd stays owned by loci (do not close it) and lives until
 *  the extent is freed. LOCI_ENOENT when addr is in no shm extent. */
int provider_shm_fd(const void *addr, size_t *offset);

/** The file behind a file-tier extent containing `addr` (into buf) and the
 *  offset of `addr` in it. LOCI_ENOENT when addr is in no file extent. */
int provider_file_path(const void *addr, char *buf, size_t buflen, size_t *offset);

/** Called by provider_devdax_regions for each region of a device's
 *  directory: its name, place (offset and length in bytes), owner and the
 *  directory generation that created it. */
typedef void (*provider_devdax_region_fn)(const char *name, uint64_t offset, uint64_t length, unsigned uid,
                                          uint64_t generation, void *arg);

/** The regions of device-DAX target tg's directory, each to fn (none when
 *  the device has no directory yet). LOCI_EIO with a message when the
 *  directory fails its checks (`loci devdax ls`). */
int provider_devdax_regions(const struct loci_target *tg, provider_devdax_region_fn fn, void *arg);

/** Forget the region directory of device-DAX target tg: its superblock and
 *  commit word zeroed, every region on it lost (their bytes stay until
 *  handed out again). The way out of a directory that fails its checks
 *  (`loci devdax wipe`); the caller makes sure nobody uses the device. */
int provider_devdax_wipe(const struct loci_target *tg);

/** The provider of persistent regions on place->target: provider_for_place,
 *  except on device-DAX targets, whose regions sit in the device's region
 *  directory (provider_devdax_region). */
const provider_ops_t *provider_for_persistent(const place_t *place);

/** The provider that opens the persistent region `name` of place->target
 *  with `flags` (LOCI_CREATE, LOCI_READONLY, LOCI_SHARED): *ops is the one
 *  the intent chose (provider_for_place, mode=paged already turned into
 *  mmap for shared and read-only openings), kept for a flat or new region.
 *  A region in chunk layout is paged whatever the intent's mode (it has no
 *  file to map): *ops and place->file_mode change to paged; LOCI_SHARED,
 *  shareable (access=node and wider) and pinned intents are refused
 *  (LOCI_ENOTSUP), and so is paging that cannot run here unless forced with
 *  mode=paged!. 0 or LOCI_E* with a message. */
int provider_for_region(place_t *place, const char *name, unsigned flags, const provider_ops_t **ops);

#endif
