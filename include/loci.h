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
 */
#ifndef LOCI_H
#define LOCI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOCI_VERSION_MAJOR 0
#define LOCI_VERSION_MINOR 1
#define LOCI_VERSION_PATCH 0

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
};

/** Static English description of a LOCI_E* code (positive or negative). Never NULL. */
const char *loci_strerror(int code);

/** The calling thread's description of its last failure, or "" if none.
 *  Owned by loci, valid until the thread's next failing loci call. */
const char *loci_last_error(void);

/* ------------------------------------------------------------- lifecycle -- */

/** Discover the machine's memory targets (or load LOCI_TOPOLOGY), read
 *  LOCI_CONFIG and saved measurements. Idempotent and thread-safe.
 *  Returns LOCI_ECONFIG with "file:line: what is wrong" in loci_last_error()
 *  for a malformed configuration, LOCI_ETOPO for an unreadable topology. */
int loci_init(void);

/** Release everything loci holds. Targets obtained before are invalid after.
 *  A later call to any function initialises again. */
void loci_fini(void);

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
    const char *kind;        /**< "dram" "hbm" "cxl" "pmem" "ssd" "gpu" "gpu-host" */
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
 *  CPU it runs on, unless loci_set_initiator() chose another. */
int loci_initiator(void);

/** Make the calling thread see the machine from NUMA node `node` (which must
 *  have CPUs), e.g. to plan placement for threads that will run there.
 *  -1 returns to the node of the current CPU. LOCI_EINVAL for a node without CPUs. */
int loci_set_initiator(int node);

/** Where each attribute of the target came from, for tools and diagnostics:
 *  source of the capacity, of the bandwidth and of the latency from the calling
 *  thread's initiator, and of the kind. Any pointer may be NULL. */
int loci_target_sources(const loci_target_t *t, const char **capacity_src,
                        const char **bandwidth_src, const char **latency_src,
                        const char **kind_src);

/** Filesystem directory of a file tier (ssd/pmem directory), NULL for others. */
const char *loci_target_path(const loci_target_t *t);

/** Names of the devices near target t, by kind ("nic" or "gpu"), written as a
 *  comma-separated list into buf (e.g. "nic0(eth0)"). Returns the number of
 *  devices found, or a negative LOCI_E* code. */
int loci_target_near_devices(const loci_target_t *t, const char *device_kind, char *buf,
                             size_t buflen);

/** CPUs local to target t as a Linux cpulist string ("0-3,8"), "" if none. */
int loci_target_cpus(const loci_target_t *t, char *buf, size_t buflen);

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
 *  nothing on this machine satisfies its constraints) and loci_last_error()
 *  naming the offending term and the targets this machine has. */
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
 *  and ignored: nothing is corrupted. */
void loci_free(void *ptr);

/** Usable bytes of a loci block (>= the size asked), 0 if ptr is not one. */
size_t loci_usable_size(const void *ptr);

/** The target a loci block lives on, NULL (errno ENOENT) if ptr is not loci's. */
const loci_target_t *loci_ptr_target(const void *ptr);

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

/** Print a table of the counters per allocator and per target on f.
 *  LOCI_STATS=1 in the environment prints it on stderr at exit. */
void loci_stats_print(FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* LOCI_H */
