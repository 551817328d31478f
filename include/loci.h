/*
 * loci — place data in heterogeneous memory by intent.
 *
 * This header is the manual: every function is documented where it is declared.
 * Names documented here are a contract (see docs/API.md); they are never renamed.
 *
 * Conventions
 *  - Functions returning int return 0 on success or a negative LOCI_E* code.
 *  - Functions returning a pointer return NULL on failure and set errno.
 *  - After any failure, loci_last_error() describes it for the calling thread:
 *    what was asked, what the machine has, what to change.
 *  - Every function is thread-safe and initialises the library lazily; calling
 *    loci_init() first is only needed to catch configuration errors early.
 *  - Strings and objects returned by loci are owned by loci: never free them.
 *    They stay valid until loci_fini().
 *
 * Names (docs/API.md, "Naming")
 *  - loci_<object>_<verb>: the thing first, then what is done to it or asked
 *    of it, as hwloc_<object>_<verb> (loci_arena_move, loci_target_info,
 *    loci_initiator_set). A getter is the object and its attribute alone
 *    (loci_initiator, loci_arena_target).
 *  - "What does this pointer belong to" is loci_ptr_<owner>(ptr):
 *    loci_ptr_target, loci_ptr_arena.
 *  - Calls on a range of memory (addr, len) are loci_range_<verb>:
 *    loci_range_place, loci_range_flush.
 *  - Persistent named regions are regions everywhere: loci_region_*,
 *    LOCI_REGION_* ("persist" is the intent term that picks their tier).
 *  - Types are nouns, loci_<noun>_t (loci_arena_move_request_t: a move in
 *    flight; loci_ckpt_gc_stats_t: what a collection did).
 *  - The malloc family keeps the C library's names: loci_alloc, loci_calloc,
 *    loci_aligned_alloc, loci_realloc, loci_free, loci_usable_size, and
 *    loci_strerror.
 *  Older names that drifted from this stay, declared beside the new name:
 *  "alias of X; both stay" where the contract fixes the old name (DESIGN.md
 *  §2), "deprecated alias of X" where it does not: it keeps working, new
 *  code uses X. Every alias is an exported function (or a typedef, or an
 *  enum constant) with exactly the meaning of X.
 */
#ifndef LOCI_H
#define LOCI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- version -- */

/** The version of this header, defined here once (CMakeLists.txt reads it
 *  for the library, loci.pc and the CMake package). LOCI_VERSION is the
 *  same as text, "MAJOR.MINOR.PATCH". */
#define LOCI_VERSION_MAJOR 0
#define LOCI_VERSION_MINOR 1
#define LOCI_VERSION_PATCH 0
#define LOCI_VERSION LOCI__TEXT(LOCI_VERSION_MAJOR) "." LOCI__TEXT(LOCI_VERSION_MINOR) "." LOCI__TEXT(LOCI_VERSION_PATCH)
#define LOCI__TEXT(n) LOCI__TEXT_OF(n)
#define LOCI__TEXT_OF(n) #n

/** The version of the library loaded at run time, "MAJOR.MINOR.PATCH": a
 *  program built against one loci.h may run with another libloci.so.0 of
 *  the same major version. Owned by loci. */
const char *loci_version(void);

/* ---------------------------------------------------------------- errors -- */

/** Error codes, always returned negated (e.g. `return LOCI_EINVAL;` is < 0). */
enum {
    LOCI_OK = 0,
    LOCI_EINVAL = -1,   /**< an argument is malformed (bad intent, size, alignment...) */
    LOCI_ENOMEM = -2,   /**< no memory left on the targets the request allows */
    LOCI_ENOENT = -3,   /**< unknown target, name or object */
    LOCI_ECONFIG = -4,  /**< the LOCI_CONFIG file (or a saved measurement file) is malformed */
    LOCI_ETOPO = -5,    /**< the machine's topology (or LOCI_TOPOLOGY file) cannot be read */
    LOCI_ENOTSUP = -6,  /**< not supported on this machine or target */
    LOCI_EPERM = -7,    /**< missing privilege (e.g. userfaultfd, mbind on another user's memory) */
    LOCI_EIO = -8,      /**< an I/O error on a file tier or store */
    LOCI_EEXIST = -9,   /**< the object already exists */
    LOCI_EBUSY = -10,   /**< the object is in use */
    LOCI_ENOSPC = -11,  /**< a file tier's file system is full */
    LOCI_ENODEV = -12,  /**< the target went away at run time (memory offlined, device reconfigured or removed) */
};

/** Static English description of a LOCI_E* code (positive or negative). Never NULL. */
const char *loci_strerror(int code);

/** The calling thread's description of its last failure, or "" if none.
 *  Owned by loci, valid until the thread's next failing loci call. */
const char *loci_last_error(void);

/* ------------------------------------------------------------- lifecycle -- */

/** Discover the machine's memory targets (or load LOCI_TOPOLOGY), read
 *  LOCI_CONFIG and saved measurements, and ask the CUDA driver (libcuda.so.1,
 *  or LOCI_CUDA_LIBRARY; loaded once per process) for GPUs: none there is no
 *  error (docs/GPU.md). Idempotent and thread-safe.
 *  Returns LOCI_ECONFIG with "file:line: what is wrong" in loci_last_error()
 *  for a malformed configuration, LOCI_ETOPO for an unreadable topology. */
int loci_init(void);

/** Release everything loci holds. Targets obtained before are invalid after.
 *  A later call to any function initialises again. */
void loci_fini(void);

/** The intent LOCI_CONFIG maps a front end's name to: `key` in section
 *  `section`, e.g. ("omp", "high_bw") for `[omp] high_bw = kind=hbm!`
 *  (docs/OPENMP.md). *origin (when origin is not NULL) gets "file:line".
 *  NULL + errno ENOENT when the config says nothing there (the front end's
 *  built-in default applies); NULL + errno EINVAL when the value is no
 *  intent, or in [omp] names allocator traits (checked when asked, the
 *  message saying file:line); or loci_init's error. */
const char *loci_config_intent(const char *section, const char *key, const char **origin);

/* --------------------------------------------------------------- targets -- */

/** A memory target: one NUMA node, one file tier, one GPU's memory. */
typedef struct loci_target loci_target_t;

/** Target flags (loci_target_info_t.flags). */
enum {
    LOCI_TARGET_PERSISTENT = 1u << 0,     /**< data survives process exit (file tiers, pmem) */
    LOCI_TARGET_SHAREABLE = 1u << 1,      /**< other processes of the node can map it */
    LOCI_TARGET_CPU_ACCESSIBLE = 1u << 2, /**< CPU loads and stores work on it */
    LOCI_TARGET_GPU_ACCESSIBLE = 1u << 3, /**< a GPU can access it directly */
    LOCI_TARGET_SIMULATED = 1u << 4,      /**< comes from an injected LOCI_TOPOLOGY: placement is recorded, not applied */
    LOCI_TARGET_JOB_WIDE = 1u << 5,       /**< every node of the job reaches it (the aggregate store, kind "store") */
    LOCI_TARGET_UNREACHABLE = 1u << 6,    /**< configured but not usable now (a store whose cluster did not answer at
                                               init; loci_target_unreachable() says why): never chosen */
    LOCI_TARGET_GONE = 1u << 7,           /**< went away at run time (a NUMA node whose memory was offlined, a
                                               device-DAX instance reconfigured or removed; loci_target_gone() says
                                               what happened): still listed, never chosen, nothing placed there */
};

/** Number of targets on this machine (>= 1 after a successful init: at least
 *  local DRAM and the ssd0 file tier). Negative LOCI_E* code if init fails. */
int loci_target_count(void);

/** Target number index (0 <= index < loci_target_count()), NULL + errno=EINVAL otherwise.
 *  Targets are ordered: NUMA targets by node number, then file tiers, then GPUs. */
const loci_target_t *loci_target_at(int index);

/** Look a target up by its stable name ("dram0", "hbm1", "cxl0", "pmem0", "ssd0",
 *  "gpu0") or by NUMA node ("node:N"). Case-insensitive.
 *  NULL + errno=ENOENT for an unknown name; loci_last_error() lists the names this machine has. */
const loci_target_t *loci_target_by_name(const char *name);

/** What a target is and how fast it is. Strings are owned by loci. */
typedef struct {
    const char *name;        /**< stable: kind + ordinal, e.g. "hbm0" */
    const char *kind;        /**< "dram" "hbm" "cxl" "pmem" "ssd" "gpu" "gpu-host" "store" */
    int numa_node;           /**< -1 when not a NUMA node */
    uint64_t capacity;       /**< bytes */
    uint64_t available;      /**< bytes free now (as far as the OS says) */
    uint64_t bandwidth_mbps; /**< read bandwidth from the initiator, MB/s (10^6 bytes/s); 0 = unknown */
    uint64_t latency_ns;     /**< idle load latency from the initiator, ns; 0 = unknown */
    const char *source;      /**< where bandwidth/latency came from: "config" "measured" "hmat" "hwloc" "distance" "default" */
    unsigned flags;          /**< LOCI_TARGET_* */
} loci_target_info_t;

/** Fill *out for target t as seen from the calling thread's initiator (see
 *  loci_initiator()). Returns LOCI_EINVAL for NULL arguments. */
int loci_target_info(const loci_target_t *t, loci_target_info_t *out);

/** The NUMA node (with CPUs) whose view the calling thread gets: the node of the
 *  CPU it runs on, unless loci_initiator_set() chose another. */
int loci_initiator(void);

/** Make the calling thread see the machine from NUMA node `node` (which must
 *  have CPUs), e.g. to plan placement for threads that will run there.
 *  -1 returns to the node of the current CPU. LOCI_EINVAL for a node without CPUs. */
int loci_initiator_set(int node);
/** Deprecated alias of loci_initiator_set (verb first). */
int loci_set_initiator(int node);

/** Where each attribute of the target came from, for tools and diagnostics:
 *  source of the capacity, of the bandwidth and of the latency from the calling
 *  thread's initiator, and of the kind. Any pointer may be NULL. */
int loci_target_sources(const loci_target_t *t, const char **capacity_src,
                        const char **bandwidth_src, const char **latency_src,
                        const char **kind_src);

/** Filesystem directory of a file tier (ssd/pmem directory), NULL for others. */
const char *loci_target_path(const loci_target_t *t);

/** Why target t cannot be used now, or NULL when it can. Only a store target
 *  (kind "store", docs/STORE.md) can be unreachable: its cluster did not
 *  answer when loci initialised (the message names the conf and the error).
 *  Such a target keeps its name and is listed, flagged LOCI_TARGET_UNREACHABLE,
 *  but no intent resolves to it until the next loci_init. */
const char *loci_target_unreachable(const loci_target_t *t);

/** Names of the devices near target t, by kind ("nic" or "gpu"), written as a
 *  comma-separated list into buf (e.g. "nic0(eth0)"). Returns the number of
 *  devices found, or a negative LOCI_E* code. */
int loci_target_near_devices(const loci_target_t *t, const char *device_kind, char *buf,
                             size_t buflen);

/** CPUs local to target t as a Linux cpulist string ("0-3,8"), "" if none. */
int loci_target_cpus(const loci_target_t *t, char *buf, size_t buflen);

/** The kernel memory tier target t's NUMA node is in (Linux 6.1+,
 *  /sys/devices/virtual/memory_tiering/memory_tierN: a larger N is slower
 *  memory, toward which the kernel demotes pages): returns N >= 0, writes the
 *  nodes of that tier as a Linux nodelist ("0-1,3") into nodes (when not
 *  NULL, truncated to len) and where that came from ("os": sysfs) into
 *  *source (when not NULL). LOCI_ENOENT when none is known: not a NUMA node,
 *  a kernel without memory tiers, an injected LOCI_TOPOLOGY. */
int loci_target_memory_tier(const loci_target_t *t, char *nodes, size_t len, const char **source);

/** Discover the machine again and merge what changed into the live topology
 *  (docs/DISCOVERY.md, "Memory that appears at run time"): memory onlined
 *  since (a device-DAX instance made system RAM by `daxctl
 *  reconfigure-device --mode=system-ram`, a hot-added CXL region) becomes new
 *  targets, appended (indexes and pointers already handed out stay valid;
 *  names are never reused); targets no longer found (a node whose memory was
 *  offlined, a device reconfigured or removed) stay listed, flagged
 *  LOCI_TARGET_GONE: no intent resolves to them any more and allocations
 *  there fail with LOCI_ENODEV naming the target and what happened. A target
 *  found again is usable again. Allocator objects re-resolve their intents
 *  (the pointers stay valid); an arena on a target that went away is moved to
 *  the best remaining target of its intent, with a warning naming it.
 *  Thread-safe against allocations and resolutions in other threads. A live
 *  machine does this by itself within about 2 s of a change (a thread that
 *  listens to the kernel's uevents and checks
 *  /sys/devices/system/node/has_memory; LOCI_TOPOLOGY_WATCH=0 turns it off;
 *  a fork child has none); this call is for doing it now. With LOCI_TOPOLOGY it reads the XML file
 *  again. Returns the number of targets that appeared, went away, came back
 *  or changed capacity (0: nothing changed), or a negative LOCI_E* code (LOCI_ECONFIG for a
 *  config file that became malformed: the live topology stays as it was). */
int loci_topology_refresh(void);

/** What happened to target t when it went away at run time (e.g. "NUMA node
 *  1 has no memory online any more (...)"), or NULL while it is here. */
const char *loci_target_gone(const loci_target_t *t);

/* ------------------------------------------------------------ allocators -- */

/** An allocator object (SharP): an intent resolved on this machine, ready to
 *  allocate. See docs/INTENTS.md for the intent language, e.g.
 *  "bandwidth=high", "latency=low!,fallback=null", "near=nic", "kind=cxl".
 *
 *  Objects are cached by (normalised intent, initiator): creating one for an
 *  intent already seen from the same NUMA node returns the same object
 *  cheaply. Memory allocated through an allocator stays valid until it is
 *  freed, whatever happens to the allocator handle. */
typedef struct loci_allocator loci_allocator_t;

/** Resolve `intent` (NULL or "" = the calling thread's local DRAM) from the
 *  calling thread's initiator. NULL + errno (EINVAL: malformed intent; ENOENT:
 *  nothing on this machine satisfies its constraints; and when only one
 *  target would: EPERM, a device this process may not open, e.g. a
 *  /dev/daxX.Y without read and write permission; EIO, a store that did not
 *  answer at init; ENODEV, a target that went away at run time) and
 *  loci_last_error() naming the offending term and the targets this machine
 *  has. */
loci_allocator_t *loci_allocator_create(const char *intent);

/** Release a handle from loci_allocator_create. Its memory stays valid. NULL ok. */
void loci_allocator_destroy(loci_allocator_t *a);

/** The ranked candidate targets of `a`, best first: fills out[0..max-1] and
 *  returns how many there are (possibly more than max), or a LOCI_E* code. */
int loci_allocator_targets(const loci_allocator_t *a, const loci_target_t **out, int max);

/** The normalised text of a's intent (owned by loci). */
const char *loci_allocator_intent(const loci_allocator_t *a);

/** `size` bytes placed per a's intent. size 0 returns a unique pointer to be
 *  freed (malloc(0) semantics). When the best target is full, the intent's
 *  fallback decides: next candidate (default), local DRAM (fallback=default),
 *  NULL + ENOMEM (fallback=null), or a message and abort() (fallback=abort). */
void *loci_alloc(loci_allocator_t *a, size_t size);

/** n * size zeroed bytes; NULL + ENOMEM when n * size overflows. */
void *loci_calloc(loci_allocator_t *a, size_t n, size_t size);

/** `size` bytes aligned to `alignment` (a power of two; NULL + EINVAL otherwise). */
void *loci_aligned_alloc(loci_allocator_t *a, size_t alignment, size_t size);

/** Resize a loci block, staying under the allocator that made it (and its
 *  fallback). ptr NULL: like loci_alloc on local DRAM. size 0: frees ptr and
 *  returns NULL. On failure returns NULL and ptr is untouched. */
void *loci_realloc(void *ptr, size_t size);

/** Free any loci block, no allocator needed. NULL is fine. A pointer loci did
 *  not make, or one already freed, is reported (log and loci_last_error())
 *  and ignored: nothing is corrupted. Memory of an open persistent region is
 *  not a block either: a region is closed (loci_region_close), never freed,
 *  so loci_free (and loci_realloc) refuse it the same way, with a message
 *  naming the region. */
void loci_free(void *ptr);

/** Usable bytes of a loci block (>= the size asked), 0 if ptr is not one
 *  (an address in a region too: loci_region_size tells its size). */
size_t loci_usable_size(const void *ptr);

/** The target the memory at ptr lives on, for any address loci mapped: in
 *  a block of an allocator or of an arena (private or shared; GPU memory
 *  too), or in a persistent region open in this process (its file tier, or
 *  the job's store for access=job). NULL (errno ENOENT, loci_last_error())
 *  for memory loci did not map, or a region already closed. In an auto
 *  arena that tiering placed by granule (docs/TIERING.md), the target of
 *  the node the kernel holds ptr's page on. */
const loci_target_t *loci_ptr_target(const void *ptr);

/** Place memory that loci did not allocate (an MPI window, a shared segment)
 *  per `intent`, as an allocator would place its own: bind the pages of
 *  [addr, addr+len), rounded out to whole pages, to the NUMA target the
 *  intent resolves to from the calling thread (constraints bind, hints
 *  prefer; a target without room for len bytes gives way per the intent's
 *  fallback; when no candidate has room, hints with the default fallback
 *  still prefer the best one — the kernel puts what it cannot take on other
 *  nodes — while constraints fail with LOCI_ENOMEM rather than bind more than
 *  the node has). Pages not touched yet land there when first touched; in a
 *  shared mapping of tmpfs, SysV or memfd memory the policy belongs to the
 *  memory, so this holds for every process that maps it. Pages already
 *  present that only this process maps are moved. The memory is not loci's
 *  afterwards either: loci_ptr_target() does not know it, and whoever
 *  allocated it frees it. With an injected topology nothing is applied.
 *  len 0 is nothing to place: 0 is returned and nothing is done or checked,
 *  whatever addr (NULL included) and intent — an empty part of an MPI
 *  window, whose base MPICH makes NULL, is such a range.
 *  Returns 0, or LOCI_EINVAL (malformed intent; addr NULL; part of the
 *  range unmapped), LOCI_ENOENT (nothing satisfies the intent), LOCI_ENOTSUP
 *  (it resolves to a file tier or GPU: only NUMA memory can be bound),
 *  LOCI_ENOMEM (fallback=null and no room), with loci_last_error(). */
int loci_range_place(void *addr, size_t len, const char *intent);
/** Deprecated alias of loci_range_place (verb first). */
int loci_place_range(void *addr, size_t len, const char *intent);

/* ----------------------------------------------------------------- stats -- */

/** Counters of what loci placed: per allocator and per target. */
typedef struct {
    uint64_t bytes_in_use; /**< usable bytes of live blocks */
    uint64_t bytes_peak;   /**< high-water mark of bytes handed out */
    uint64_t allocations;  /**< successful allocations so far */
    uint64_t frees;        /**< frees so far */
} loci_stats_t;

/** Counters of all memory allocated through allocator a (all its targets). */
int loci_allocator_stats(const loci_allocator_t *a, loci_stats_t *out);

/** Counters of all memory loci placed on target t. */
int loci_target_stats(const loci_target_t *t, loci_stats_t *out);

/** Print a table of the counters per allocator and per target on f (and of
 *  each paged chunk cache, see loci_cache_stats). LOCI_STATS=1 in the
 *  environment prints it on stderr at exit. */
void loci_stats_print(FILE *f);

/* ---------------------------------------------------------------- arenas -- */
/*
 * Arenas (SICM): data that "travels together", placed and moved as a whole;
 * docs/ARENAS.md. An arena has memory of its own: its blocks never share a
 * page with another arena's or an allocator's, so moving it moves exactly
 * its data. It lives on one target at a time (the best candidate of its
 * intent, bound there) and, once it holds data, does not spill to another
 * when that is full; only an empty arena follows its intent's fallback (see
 * loci_arena_create).
 * loci_free, loci_realloc, loci_usable_size and loci_ptr_target work on
 * arena blocks; loci_realloc keeps a block in its arena.
 */

/** An arena. Handles stay valid until loci_arena_destroy or loci_fini. */
typedef struct loci_arena loci_arena_t;

/** Create an arena on the target `intent` resolves to (as
 *  loci_allocator_create; NULL or "" = the calling thread's local DRAM).
 *  The arena is empty until its first block: no block ever allocated from
 *  it (loci_arena_stats: allocations == 0) and not moved by loci_arena_move.
 *  When its target cannot take that first block (full), the block and the
 *  whole arena go where the intent's fallback says, as an allocator's would:
 *  fallback=next (the default) the next ranked candidate that takes it,
 *  default the local DRAM, null NULL with ENOMEM (the arena stays), abort a
 *  message and abort(); loci_arena_target then says where it is. Once it has
 *  held a block it stays on its target (freeing every block does not make
 *  it empty again): an allocation there fails with ENOMEM, and only
 *  loci_arena_move moves it. docs/ARENAS.md.
 *  max_bytes caps the usable bytes of its live blocks (0 = unbounded): an
 *  allocation that would pass it returns NULL with ENOMEM. NULL + errno
 *  (EINVAL: malformed intent; ENOENT: unsatisfiable; ENOTSUP: the target
 *  cannot hold an arena) and loci_last_error(). On a GPU, "use=gpu[:N]" makes
 *  an arena of device memory (it cannot move), "use=cpu+gpu[:N]" one of
 *  managed memory (docs/GPU.md). */
loci_arena_t *loci_arena_create(const char *intent, size_t max_bytes);

/** `size` bytes in arena ar (size 0: a unique pointer to free). NULL + ENOMEM
 *  when the target is full or max_bytes would be passed. Waits while the
 *  arena is being moved. */
void *loci_arena_alloc(loci_arena_t *ar, size_t size);

/** `size` bytes aligned to `alignment` (a power of two; NULL + EINVAL otherwise). */
void *loci_arena_aligned_alloc(loci_arena_t *ar, size_t alignment, size_t size);

/** Move every page of arena ar to target dst, keeping every address; later
 *  allocations go to dst too. Returns once the pages are there, checked page
 *  by page.
 *  - NUMA node to NUMA node: other threads may keep reading and writing the
 *    arena's data meanwhile (allocations in it wait).
 *  - NUMA node to a file tier (e.g. "ssd0") or back: other threads may keep
 *    reading and writing the arena's data too, and no store is lost, where
 *    this process may use a userfaultfd (root, CAP_SYS_PTRACE,
 *    vm.unprivileged_userfaultfd=1 or access to /dev/userfaultfd; Linux 5.7
 *    or later): a thread storing meanwhile waits until its page is in the
 *    new memory (docs/ARENAS.md). Without one, and between two file tiers,
 *    the memory is copied and remapped over the same range with nothing
 *    touching it: nothing may touch the arena's data during the move; if
 *    another thread is inside the arena (allocating, moving) the move is
 *    refused with LOCI_EBUSY. tier=auto arenas are only moved the first way.
 *  - managed GPU memory (an arena made with "use=cpu+gpu") to another GPU or
 *    a NUMA node: the driver's preferred location and a prefetch of every
 *    page; threads may keep using the data. Device memory ("use=gpu") cannot
 *    move: LOCI_ENOTSUP.
 *  Errors, with nothing moved: LOCI_EINVAL (NULL argument), LOCI_ENOTSUP
 *  (shared arena, or no way to move there keeping addresses), LOCI_ENOMEM /
 *  LOCI_ENOSPC (dst cannot hold the arena). When an extent fails midway
 *  (LOCI_EIO: e.g. pages shared with another process), the extents already
 *  moved are moved back; loci_last_error() says so, or names what could not
 *  be moved back. The arena then still counts as on its old target, and
 *  moving it again finishes the job. */
int loci_arena_move(loci_arena_t *ar, const loci_target_t *dst);

/** A move in flight, running on a thread of its own (loci_arena_move_async):
 *  a request, as MPI's for its nonblocking calls. */
typedef struct loci_arena_move loci_arena_move_request_t;
/** Deprecated alias of loci_arena_move_request_t (the type was named after the verb). */
typedef loci_arena_move_request_t loci_arena_move_t;

/** Start loci_arena_move(ar, dst) in the background and return at once.
 *  What loci_arena_move refuses before moving anything (bad arguments, a
 *  shared arena, an impossible destination) gives NULL + errno here; any
 *  other outcome comes from loci_arena_move_wait, which must be called once
 *  for every move started. */
loci_arena_move_request_t *loci_arena_move_async(loci_arena_t *ar, const loci_target_t *dst);

/** 1 when the move has finished (loci_arena_move_wait will not block), 0
 *  while it runs; LOCI_EINVAL for NULL. */
int loci_arena_move_done(const loci_arena_move_request_t *m);

/** Wait for the move, release m, and return what loci_arena_move would have
 *  (with its message in loci_last_error()). */
int loci_arena_move_wait(loci_arena_move_request_t *m);

/** The arena whose memory contains ptr (any address inside one of its
 *  blocks), or NULL + ENOENT. O(1) for private arenas. */
loci_arena_t *loci_ptr_arena(const void *ptr);
/** Alias of loci_ptr_arena; both stay (the contract fixes loci_arena_of). */
loci_arena_t *loci_arena_of(const void *ptr);

/** The target arena ar lives on now (where an empty arena's fallback or
 *  loci_arena_move took it, else where it was created). */
const loci_target_t *loci_arena_target(const loci_arena_t *ar);

/** Counters of arena ar (for a shared arena: of all its processes). */
int loci_arena_stats(const loci_arena_t *ar, loci_stats_t *out);

/** Release arena ar and everything allocated in it: its blocks must not be
 *  used any more, nor ar. Waits for its moves to end. For a shared arena:
 *  detaches this process; in the process that created it, also removes its
 *  name (processes still attached keep their mapping). NULL is fine. */
void loci_arena_destroy(loci_arena_t *ar);

/* Shared arenas (SICM §2.5): one arena for the processes of a job on one
 * node, which trust each other. Its data is mapped at the same address in
 * every process, so pointers stored in it stay valid; any process can
 * allocate and free in it. Its bookkeeping is in a shared segment of its
 * own, never in the data, under a robust process-shared lock: a process
 * killed while holding it does not stop the others. Both segments are files
 * of the calling user, mode 0600, in $LOCI_SHM_DIR (default /dev/shm):
 * only the same user can attach. Shared arenas stay on the NUMA node they
 * were created on. */

/** Create shared arena `name` (letters, digits, '.', '_', '-'; no '/', no
 *  "..", at most 64) on the NUMA node `intent` resolves to, with room for
 *  max_bytes (required: the address range is reserved at that size).
 *  NULL + errno: EEXIST (the name is taken: attach, or remove a stale one
 *  with loci_arena_unlink_shared), EINVAL, ENOTSUP (not a NUMA node). */
loci_arena_t *loci_arena_create_shared(const char *name, const char *intent, size_t max_bytes);

/** Attach shared arena `name` created by another process of the same user
 *  (attaching twice in one process gives the same handle; destroy it as
 *  often). NULL + errno: ENOENT (no such arena), EPERM (not the caller's,
 *  a link, or not mode 0600), EBUSY (its address range is taken in this
 *  process: loci_last_error() names what is there), EINVAL (bad name). */
loci_arena_t *loci_arena_attach(const char *name);

/** Remove the name of shared arena `name` (e.g. left by a crashed job):
 *  processes attached keep it, none can attach any more. LOCI_ENOENT,
 *  LOCI_EPERM (another user's), LOCI_EINVAL (bad name). */
int loci_arena_unlink_shared(const char *name);

/* Automatic tiering (docs/TIERING.md): an arena created with tier=auto in
 * its intent (e.g. "bandwidth=high,tier=auto") starts on the best candidate
 * with room under its tiering budget and is moved among its intent's
 * candidates by measured heat per byte, by a thread of loci's, keeping its
 * addresses: hot arenas fill the best candidates up to their budgets
 * ([tiering] budget, [target X] tiering_budget in LOCI_CONFIG), colder ones
 * go down. */

/** What tiering knows of one auto arena. */
typedef struct {
    uint64_t bytes;               /**< its memory at the last interval */
    double heat;                  /**< heat per byte, smoothed: the share of its memory found accessed per interval, 0..1 */
    const loci_target_t *target;  /**< where it is now */
    uint64_t bytes_moved;         /**< by tiering, all moves together */
    uint64_t moves;               /**< moves tiering made of it */
} loci_tier_stats_t;

/** Counters of arena ar, which must be a tier=auto arena (LOCI_EINVAL
 *  otherwise, and for NULL). */
int loci_tier_stats(const loci_arena_t *ar, loci_tier_stats_t *out);

/** Tiering of the whole process. */
typedef struct {
    uint64_t arenas;              /**< auto arenas now */
    uint64_t bytes_promoted;      /**< moved to a better candidate */
    uint64_t bytes_demoted;       /**< moved to a lower one */
    uint64_t bytes_pingpong;      /**< moved back where they came from within 10 intervals */
    uint64_t moves, intervals;
    double cpu_seconds;           /**< the tiering thread's and its heat source's CPU time */
    const char *source;           /**< the heat source: "perf", "damon", "faults", "dirty", or "none" */
    int paused;                   /**< 1: the source stopped working; nothing moves any more */
} loci_tier_totals_t;

/** Totals since the first auto arena (zeros before). */
int loci_tier_totals(loci_tier_totals_t *out);

/* Profiles (docs/TIERING.md "Profiles"): with LOCI_TIER_PROFILE=FILE, what
 * a run learned of each auto arena's *site* — the target it ended on, its
 * size and heat — is written to FILE at exit (or loci_fini), and the next
 * run of the same program starts each site's arena there when the target's
 * budget has room; tiering corrects it from then on. A site is the caller
 * of loci_arena_create (its module's path and offset, so the same from run
 * to run), the size class log2(max_bytes) (0 for unbounded), and the
 * ordinal among the live auto arenas of that site (a loop making 16 arenas
 * at one line is 16 sites, in their order of creation). */

/** loci_arena_create for a front end that knows the site better than its
 *  own call of this function. `site`: an address in the code that
 *  allocates (a calling context of that one frame); size_class: any small
 *  number that tells arenas of one site apart. */
loci_arena_t *loci_arena_create_site(const char *intent, size_t max_bytes, const void *site, unsigned size_class);

/** One frame of an allocation's calling context. */
typedef struct {
    const void *pc;    /**< a return address in native code; NULL for a frame of interpreted code: */
    const char *file;  /**< its source file (absolute: then the same from run to run) */
    unsigned line;     /**< and line */
} loci_frame_t;

/** loci_arena_create for a front end that knows the allocation's calling
 *  context: frames[0..nframes-1], innermost first — the malloc interposer
 *  of `loci run --tier auto` passes the frames past the allocators'
 *  own (C++'s operator new, CPython's and NumPy's allocators, ...) and the
 *  block's size class (log2 of its size). The site is every frame's module
 *  and offset (native) or file and line (interpreted), so the same from run
 *  to run; frames[0] in no module (JIT code): not profiled. The frames are
 *  read during the call only. NULL + errno as loci_arena_create, and
 *  EINVAL for nframes < 1 or frames NULL. */
loci_arena_t *loci_arena_create_context(const char *intent, size_t max_bytes, const loci_frame_t *frames, int nframes,
                                        unsigned size_class);

/** The site of auto arena ar as `loci tier` shows it, into buf (cut to
 *  len - 1 characters): its frames, innermost first, each module or file
 *  named where it changes, then /size class#ordinal —
 *  "app+0x1a2f<+0x1b40/20#0", "train.py:12<:40/26#0"; "?/20#0" where
 *  nothing names it. LOCI_EINVAL when ar is not a tier=auto arena, or buf
 *  is NULL or len 0. */
int loci_tier_site_name(const loci_arena_t *ar, char *buf, size_t len);

/* ------------------------------------------------------------------- nvm -- */
/*
 * SSD and other file tiers as a memory partition (NVMalloc); docs/NVM.md.
 *
 * A file tier holds memory in one of two modes, chosen by the intent:
 *  - mode=mmap (the default): files mapped MAP_SHARED; the kernel's page
 *    cache decides what stays in DRAM.
 *  - mode=paged[,cache=SIZE][,chunk=SIZE]: loci's own DRAM cache of
 *    cache=SIZE bytes (default 64 MiB) in chunks of chunk=SIZE (default
 *    256 KiB), filled on page faults (userfaultfd); evicting a chunk writes
 *    back only its dirty pages. The store file is read and written with
 *    O_DIRECT, so DRAM held stays within the cache size plus a few chunks.
 *    Dirty chunks are written back in the background once more than
 *    dirty_background=PCT (default 10%) of the cache is dirty; a writer
 *    waits while dirty_limit=PCT (default 50%) is (both also in [target X]).
 *    Paged memory (blocks and regions) with the same target, cache, chunk
 *    and dirty limits shares one cache. Needs userfaultfd: without the permission, mode=paged
 *    falls back to mode=mmap with a warning naming what to allow; mode=paged!
 *    does not fall back (see docs/NVM.md). Paged memory is private to the
 *    process and is not inherited by fork().
 *
 * Memory from loci_alloc on a file tier lives until freed. Persistent named
 * regions below outlive the process: NVMalloc's variables with a lifetime.
 */

/** Flags of loci_region_open. */
enum {
    LOCI_REGION_CREATE = 1u << 0,   /**< create the region, zero-filled, if it does not exist */
    LOCI_REGION_READONLY = 1u << 1, /**< map it read-only: stores to it fault (SIGSEGV) */
    LOCI_REGION_SHARED = 1u << 2,   /**< other processes may have it open at the same time */
    LOCI_CREATE = LOCI_REGION_CREATE,     /**< deprecated alias of LOCI_REGION_CREATE */
    LOCI_READONLY = LOCI_REGION_READONLY, /**< deprecated alias of LOCI_REGION_READONLY */
    LOCI_SHARED = LOCI_REGION_SHARED,     /**< deprecated alias of LOCI_REGION_SHARED */
};

/** Map the persistent region `name` ([A-Za-z0-9_.-], at most 128 characters,
 *  no "..", not starting with '.' or '-'), "<tier dir>/<name>.region" of the
 *  first file tier `intent` resolves to (NULL or "" = "persist": the default
 *  tier ssd0, or persistent memory where the machine has some), or an entry
 *  of a device-DAX target's region directory (below). Its mode (mmap or paged, cache, chunk) comes from the intent
 *  too. A region created with mode=mmap (the default) is one file; one
 *  created with mode=paged is a directory of chunk files (chunk=SIZE each,
 *  made as they are written; checkpoints share them) and is always opened
 *  paged, with its own chunk size, whatever the intent's mode.
 *
 *  `size` is rounded up to the page size. Creating (LOCI_REGION_CREATE, when the
 *  region is missing) needs size > 0; a file has its space reserved at once,
 *  a directory of chunks has the tier's free space checked (LOCI_ENOSPC when
 *  the tier is full). Opening an existing region needs its size, or 0 to take
 *  it as it is; loci_region_size() tells it.
 *
 *  Opening locks the region: a writer without LOCI_REGION_SHARED has it to itself;
 *  LOCI_REGION_SHARED or LOCI_REGION_READONLY openers may be many. Read-only and shared
 *  openings of a file use mode=mmap, so that every process maps the same
 *  single copy in the page cache; mode=paged! keeps a private cache for
 *  LOCI_REGION_READONLY alone and is refused with LOCI_REGION_SHARED (ENOTSUP). A directory
 *  of chunks has no file to map: LOCI_REGION_READONLY gives a private read-only
 *  cache, LOCI_REGION_SHARED is refused (ENOTSUP; create it with mode=mmap to share
 *  it).
 *
 *  On a persistent device-DAX target (pmem0 on /dev/daxX.Y, placed first by
 *  "persist" or "kind=pmem" where the machine has one), a region is a named
 *  range of the device kept in the device's own region directory (docs/NVM.md
 *  "Regions on devdax"): the same bytes at every opening, durable once
 *  written back from the CPU caches (loci_region_sync, loci_range_flush,
 *  loci_region_close), its space in whole align units (usually 2 MiB). It
 *  records its owner's uid: no other uid opens it (EPERM). A process opens it
 *  once (EBUSY for a second opening); a device whose directory fails its
 *  checksum is refused (EIO), never reformatted.
 *
 *  Returns the address, or NULL + errno (EINVAL: bad name, size or flags;
 *  ENOENT: no such region without LOCI_REGION_CREATE, or an intent nothing
 *  here satisfies; EBUSY: open elsewhere in a conflicting way; EPERM: a
 *  tier directory or file that is not safely yours, or one you may not write,
 *  a device this process may not open (its node's permissions); EIO: the
 *  store did not answer; ENOSPC; ENOTSUP) with loci_last_error() saying
 *  what to change. Every address in it names its target while it is open
 *  (loci_ptr_target). */
void *loci_region_open(const char *name, size_t size, const char *intent, unsigned flags);
/** Deprecated alias of loci_region_open. */
void *loci_persist_open(const char *name, size_t size, const char *intent, unsigned flags);

/** Make the region's contents durable: data written before this call
 *  survives a crash of the process or the machine. addr: any address in it. */
int loci_region_sync(void *addr);
/** Deprecated alias of loci_region_sync. */
int loci_persist_sync(void *addr);

/** Sync (unless read-only) and unmap the region; its file (or directory)
 *  stays. The one way to let go of a region: loci_free refuses its memory. */
int loci_region_close(void *addr);
/** Deprecated alias of loci_region_close. */
int loci_persist_close(void *addr);

/** Delete the region `name` of the tier `intent` resolves to (as in
 *  loci_region_open): its file, or its directory and the region's names of
 *  its chunk files (a checkpoint's links to them stay). LOCI_EBUSY while this
 *  or another process has it open, LOCI_ENOENT when there is none. */
int loci_region_remove(const char *name, const char *intent);
/** Deprecated alias of loci_region_remove. */
int loci_persist_remove(const char *name, const char *intent);

/** Size in bytes of the open region containing addr, 0 if none. */
size_t loci_region_size(const void *addr);
/** Deprecated alias of loci_region_size. */
size_t loci_persist_size(const void *addr);

/** Read [addr, addr+len) into DRAM now (paged: its chunks fill the cache, at
 *  most the cache's size; mmap: asynchronous readahead). addr is any loci
 *  memory or region; nothing happens for memory not on a file tier.
 *  LOCI_EINVAL when the range is not inside one loci block or region. */
int loci_range_prefetch(const void *addr, size_t len);
/** Deprecated alias of loci_range_prefetch (named after no object). */
int loci_nvm_prefetch(const void *addr, size_t len);

/** Write what changed in [addr, addr+len) back to the tier and make it
 *  durable (paged: the dirty pages, in runs; mmap: msync). Reports a failed
 *  write-back of that memory since the last call (LOCI_EIO, LOCI_ENOSPC). */
int loci_range_flush(const void *addr, size_t len);
/** Deprecated alias of loci_range_flush (named after no object). */
int loci_nvm_flush(const void *addr, size_t len);

/** Write [addr, addr+len) back and drop it from DRAM (the loci cache and the
 *  kernel's page cache): the next access reads it from the tier again. */
int loci_range_evict(const void *addr, size_t len);
/** Deprecated alias of loci_range_evict (named after no object). */
int loci_nvm_evict(const void *addr, size_t len);

/** Counters of a paged chunk cache. */
typedef struct {
    uint64_t cache_bytes;    /**< the DRAM budget (cache=) */
    uint64_t resident_bytes; /**< DRAM holding chunks now */
    uint64_t resident_peak;  /**< high-water mark of resident_bytes */
    uint64_t faults;         /**< missing-page faults loci served */
    uint64_t hits;           /**< faults and prefetches that found their chunk in the cache */
    uint64_t misses;         /**< chunks filled (read from the store, or zeros never written) */
    uint64_t prefetched;     /**< of those, filled by loci_range_prefetch */
    uint64_t pages_dirtied;  /**< first writes to clean pages: each page made dirty once */
    uint64_t bytes_read;     /**< read from the store */
    uint64_t bytes_written;  /**< written to the store */
    uint64_t writebacks;     /**< store writes (runs of adjacent dirty pages) */
    uint64_t evictions;      /**< chunks dropped from DRAM */
    uint64_t dirty_bytes;    /**< chunks with dirty pages now (or being written back) */
    uint64_t dirty_peak;     /**< high-water mark of dirty_bytes */
    uint64_t written_behind; /**< of bytes_written, written by the background write-behind */
    uint64_t throttled;      /**< write faults that waited at the dirty limit */
} loci_cache_stats_t;
/** Deprecated alias of loci_cache_stats_t (named after no object). */
typedef loci_cache_stats_t loci_nvm_stats_t;

/** Counters of the chunk cache serving the paged memory at addr, or with
 *  addr NULL the sum over every cache this process had. LOCI_ENOENT when
 *  addr is not paged memory. */
int loci_cache_stats(const void *addr, loci_cache_stats_t *out);
/** Deprecated alias of loci_cache_stats (named after no object). */
int loci_nvm_stats(const void *addr, loci_nvm_stats_t *out);


/* ------------------------------------------------------------ checkpoint -- */
/*
 * Checkpoint and restart of DRAM and SSD variables (NVMalloc §III-E);
 * docs/CHECKPOINT.md. A checkpoint is one restart image of
 *  - every registered variable: any memory the program owns (static, stack,
 *    malloc) or a loci allocation on any CPU-accessible tier, and
 *  - every persistent region open read-write in this process (by name).
 *
 * Checkpoints live in "<dir>/ckpt/" (dir: the directory of the file tier
 * "persist" resolves to, ssd0 by default; LOCI_CKPT_DIR overrides it): one
 * manifest per checkpoint, "<name>.manifest", and a pool of chunks,
 * "chunks/<id>", shared by all of them. Data is stored in chunks, each with
 * an XXH3-128 checksum:
 *  - memory (registered variables, mode=mmap regions) in 1 MiB chunks; a
 *    chunk equal to the same chunk of the previous checkpoint is shared,
 *    not written again (incremental checkpoints), an all-zero one is not
 *    stored at all;
 *  - mode=paged regions are one file per chunk; saving hard-links the
 *    region's chunk files into the pool (no data copied; unchanged chunks
 *    are not even read), and the region's next write to such a chunk goes
 *    to a copy (copy-on-write), so the checkpoint keeps the old content.
 * "The previous checkpoint" is the one saved last in that directory (by any
 * process). Chunks are counted by the manifests referring to them;
 * loci_ckpt_gc() deletes the others.
 *
 * Saves are crash-safe: a save killed at any moment leaves every earlier
 * checkpoint intact, and what it left behind is reclaimed by the next
 * loci_ckpt_gc(). Nothing may write the variables or regions while a save
 * or restore of them runs, nor close the regions.
 *
 * Checkpoint and variable names: 1-128 of [A-Za-z0-9._-], not starting with
 * '.' or '-', no "..", as region names.
 */

/** Register the variable `name`: the `len` bytes at `ptr`, saved by every
 *  loci_ckpt_save and restored by loci_ckpt_restore until unregistered.
 *  Returns 0, or LOCI_EINVAL (bad name, NULL ptr, len 0, or [ptr, ptr+len)
 *  overlapping a variable registered already: the message names both),
 *  LOCI_EEXIST (the name is registered already), LOCI_ENOTSUP (memory the
 *  CPU cannot read, e.g. GPU memory). */
int loci_ckpt_register(const char *name, const void *ptr, size_t len);

/** Forget the variable `name` (LOCI_ENOENT when not registered). */
int loci_ckpt_unregister(const char *name);

/** Save checkpoint `ckpt`: every registered variable and every persistent
 *  region open read-write here, replacing an older checkpoint of that name
 *  once the new one is complete (never before). Returns 0, or LOCI_EINVAL
 *  (bad name), LOCI_ENOENT (nothing to save), LOCI_ENOSPC (the file system
 *  is full: the save is abandoned, older checkpoints are intact), LOCI_EIO,
 *  LOCI_ENOTSUP (a variable the CPU cannot read any more: the save is
 *  abandoned). */
int loci_ckpt_save(const char *ckpt);

/** Restore checkpoint `ckpt` into every registered variable and every
 *  persistent region open read-write here, matched by name. Every variable
 *  must be in the checkpoint with its size, and every checksum of what is
 *  to be written is verified first: on any mismatch nothing is overwritten.
 *  Variables of the checkpoint that are not registered here are left alone.
 *  Returns 0, or LOCI_ENOENT (no such checkpoint, or a variable or region
 *  missing from it), LOCI_EINVAL (bad name, a size that differs), LOCI_EIO
 *  (a corrupt manifest or chunk: the message names the variable and chunk),
 *  LOCI_ENOTSUP (a variable that is not writable now: nothing overwritten). */
int loci_ckpt_restore(const char *ckpt);

/** Check every chunk and the manifest of checkpoint `ckpt` against their
 *  checksums. 0, LOCI_ENOENT, or LOCI_EIO naming the first bad chunk. */
int loci_ckpt_verify(const char *ckpt);

/** Wait until checkpoint `ckpt` is drained to the store (level 2, with
 *  `[checkpoint] drain = TARGET` in LOCI_CONFIG: loci_ckpt_save returns once
 *  level 1 is written and a background thread drains it). A checkpoint this
 *  process did not queue (one a killed process left pending) is drained now.
 *  0 once the store holds it whole; LOCI_EIO (the store unreachable: it
 *  stays at level 1, `loci ckpt drain` retries), LOCI_ENOENT. */
int loci_ckpt_wait(const char *ckpt);

/** Drain checkpoint `ckpt` of the checkpoint directory to store target
 *  `target` (NULL: the [checkpoint] drain target) now: the chunks the store
 *  lacks, then its manifest. 0 or LOCI_E*. */
int loci_ckpt_drain(const char *ckpt, const char *target);

/** Levels of a checkpoint (loci_ckpt_info_t.levels). */
#define LOCI_CKPT_LOCAL 1u /**< level 1: in this node's checkpoint directory */
#define LOCI_CKPT_STORE 2u /**< level 2: whole in the store (found by every node) */

/** One checkpoint, as loci_ckpt_list describes it. */
typedef struct {
    char name[129];   /**< the checkpoint's name */
    uint64_t seq;     /**< save number in its directory: the highest is the latest */
    int64_t saved;    /**< when it was saved, seconds since the Epoch */
    uint64_t vars;    /**< variables and regions in it */
    uint64_t bytes;   /**< their total size */
    uint64_t chunks;  /**< chunks stored (zero chunks not counted) */
    unsigned levels;  /**< LOCI_CKPT_LOCAL and/or LOCI_CKPT_STORE */
    int drain_pending; /**< 1: queued or being drained by this process */
    uint64_t store_bytes;   /**< chunk bytes level 2 holds or needs (store regions' snapshots
                             *   not counted: they are there already) */
    uint64_t drained_bytes; /**< of those, in the store: all when whole there; while this
                             *   process drains it, how far the drain is; else 0 */
} loci_ckpt_info_t;

/** Describe the checkpoints in the checkpoint directory, oldest first: fill
 *  out[0..max-1] and return how many there are (possibly more than max), or
 *  a LOCI_E* code. A manifest that fails its checksum is left out (with a
 *  warning); loci_ckpt_verify names it. */
int loci_ckpt_list(loci_ckpt_info_t *out, int max);

/** Delete checkpoint `ckpt` (its manifest); its chunks go at the next
 *  loci_ckpt_gc unless other checkpoints share them. LOCI_ENOENT, LOCI_EINVAL. */
int loci_ckpt_remove(const char *ckpt);

/** What loci_ckpt_gc did. */
typedef struct {
    uint64_t chunks_kept;    /**< pool chunks some checkpoint refers to */
    uint64_t chunks_removed; /**< pool chunks none refers to, deleted */
    uint64_t bytes_removed;  /**< their size */
    uint64_t temps_removed;  /**< files left by interrupted saves, deleted */
    uint64_t snaps_kept;     /**< store snapshots of regions some checkpoint refers to */
    uint64_t snaps_removed;  /**< store snapshots none refers to, deleted (their clones go) */
    uint64_t store_chunks_kept;    /**< chunks drained to the store ([checkpoint] drain) some
                                    *   checkpoint there or here refers to */
    uint64_t store_chunks_removed; /**< drained chunks none refers to (left by removed
                                    *   checkpoints or killed drains), deleted */
} loci_ckpt_gc_stats_t;
/** Deprecated alias of loci_ckpt_gc_stats_t (the type was named after the verb). */
typedef loci_ckpt_gc_stats_t loci_ckpt_gc_t;

/** Delete the pool chunks no checkpoint refers to and what interrupted saves
 *  left (mark and sweep, excluding saves). out may be NULL. 0 or LOCI_E*;
 *  LOCI_EIO when a manifest cannot be read (nothing is deleted then). */
int loci_ckpt_gc(loci_ckpt_gc_stats_t *out);

/** Counters of a save (loci_ckpt_last_save). */
typedef struct {
    uint64_t vars;           /**< variables and regions saved */
    uint64_t bytes;          /**< their total size */
    uint64_t chunks;         /**< chunks in the checkpoint */
    uint64_t chunks_written; /**< chunks whose bytes were written to the pool */
    uint64_t chunks_linked;  /**< region chunks hard-linked into the pool, or kept by a store
                              *   snapshot (no data written) */
    uint64_t chunks_shared;  /**< chunks taken over from the previous checkpoint, unchanged */
    uint64_t chunks_zero;    /**< all-zero chunks: nothing stored */
    uint64_t bytes_written;  /**< chunk data and manifest written */
    uint64_t bytes_linked;   /**< bytes of the linked chunks */
    uint64_t bytes_hashed;   /**< bytes read to checksum them */
    double seconds;          /**< wall time of the save */
} loci_ckpt_stats_t;

/** Counters of the last successful loci_ckpt_save of this process
 *  (LOCI_ENOENT before the first). */
int loci_ckpt_last_save(loci_ckpt_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif /* LOCI_H */
