/*
 * The machine model: memory targets, the NUMA nodes that initiate accesses,
 * and the devices (NICs, GPUs) near them. Built once by topo_discover() from
 * several sources, each attribute keeping the most trusted value offered.
 */
#ifndef LOCI_TOPO_H
#define LOCI_TOPO_H

#include "internal.h"

#include <hwloc.h>
#include <stdatomic.h>
#include <stdint.h>

/* Sources in increasing order of trust (DESIGN.md §4). An attribute keeps the
 * value of the most trusted source that offered one. */
typedef enum {
    SRC_NONE = 0,
    SRC_DEFAULT,
    SRC_DISTANCE,
    SRC_OS,       /* sysfs, statvfs, kernel memory tiers */
    SRC_HWLOC,
    SRC_HMAT,
    SRC_MEASURED,
    SRC_CONFIG,
} topo_source_t;

typedef struct {
    uint64_t value;
    topo_source_t source;
} topo_attr_t;

typedef enum {
    KIND_DRAM = 0,
    KIND_HBM,
    KIND_CXL,
    KIND_PMEM,
    KIND_SSD,
    KIND_GPU,
    KIND_GPU_HOST,
    KIND_STORE,   /* the job's aggregate store (RADOS): every node reaches it */
    KIND_COUNT
} topo_kind_t;

/** "dram", "hbm"... (topo/attr.c). */
const char *topo_kind_name(topo_kind_t k);

typedef enum { DEV_NIC = 0, DEV_GPU, DEV_KIND_COUNT } topo_device_kind_t;

/** A PCI device whose locality matters to placement (a NIC or a GPU). */
typedef struct {
    char name[16];       /* "nic0", "gpu1" */
    char osdev[32];      /* OS name if known ("eth0", "mlx5_0", "cuda0"), else "" */
    char busid[16];      /* "0000:40:00.0" */
    topo_device_kind_t kind;
    int numa_node;       /* nearest NUMA node with CPUs, -1 if unknown */
    hwloc_bitmap_t locality; /* CPUs of its closest non-I/O ancestor */
} topo_device_t;

/** One NUMA node as the OS sees it. */
typedef struct {
    int os_index;
    bool has_cpus;       /* from sysfs cpulist (live) or PU locality (XML) */
    hwloc_bitmap_t cpuset; /* locality: the CPUs near this node (not "its" CPUs) */
    /* The kernel memory tier it is in (sysfs memory_tiering/memory_tierN:
     * a larger N is slower memory), the nodes of that tier, and where that
     * came from: -1, NULL and SRC_NONE if unknown. */
    int memtier;
    hwloc_bitmap_t memtier_nodes;
    topo_source_t memtier_source;
} topo_node_t;

/** A tiering budget (docs/TIERING.md): how much of a target auto arenas may
 *  fill — a share of its capacity ("90%") or a size ("16GiB"). */
typedef struct {
    bool set;       /* given (else the [tiering] default applies) */
    double share;   /* 0..1 of the capacity, when bytes is 0 */
    uint64_t bytes; /* a size, else 0 */
} topo_budget_t;

/** "90%" (0 to 100 %) or a size into *out; false on anything else,
 *  including shares over 100 %, with *why saying what was wrong (units.h). */
bool topo_budget_parse(const char *text, topo_budget_t *out, const char **why);

struct loci_target {
    char name[16];
    topo_kind_t kind;
    topo_source_t kind_source;
    int numa_node;             /* -1 for file tiers and GPUs */
    int index;                 /* position in topo->targets */
    char subtype[32];          /* hwloc subtype ("MCDRAM", "HBM", "GPUMemory"...) or "" */
    unsigned flags;            /* LOCI_TARGET_* */
    topo_attr_t capacity, available;
    /* Per initiator node, indexed by NUMA node number (0 .. node_span-1). */
    topo_attr_t *bandwidth;    /* MB/s */
    topo_attr_t *latency;      /* ns */
    char *path;                /* file tier directory, device-DAX node (/dev/daxX.Y), else NULL */
    uint64_t dax_align;        /* device-DAX: what mmap's start and length must be multiples of; else 0 */
    int dax_node;              /* device-DAX: its proximity domain (HMAT figures), -1 unknown */
    uint64_t near_devices;     /* bit i set: topo->devices[i] is local to this target */
    int cuda_device;           /* CUDA device ordinal of a GPU's memory (gpu_source.c), else -1 */
    struct jobstore *store;  /* kind store: the connection to its pool, else NULL */
    char *unreachable;         /* why it cannot be used now (NULL: it can): a store that did not answer at
                                  init, a device-DAX node this process may not open */
    int unreachable_code;      /* and the error an intent only it satisfies gets: LOCI_EIO (the store),
                                  LOCI_EPERM (the device's permissions) */
    unsigned dirty_limit, dirty_background; /* file tiers, stores: mode=paged's write-behind, % (0: default) */
    /* Why it went away at run time (topo_refresh: a node's memory offlined,
     * a device reconfigured or removed), NULL while it is here. The target
     * itself stays: layers above keep pointers to it. */
    _Atomic(const char *) gone;
    topo_budget_t tiering_budget; /* [target X] tiering_budget, else unset */
};

typedef struct topo {
    /* Targets and nodes only grow, by topo_refresh appending what appeared at
     * run time to arrays sized once (cap_*), so that pointers handed out stay
     * valid; a reader that loaded the count sees every entry below it whole. */
    struct loci_target *targets;
    _Atomic int ntargets;
    int cap_targets;
    topo_node_t *nodes;        /* nodes[0..nnodes-1], by os_index (those that came at run time last) */
    _Atomic int nnodes;
    int cap_nodes;
    int node_span;             /* 1 + largest NUMA node number that can exist (the kernel's possible nodes) */
    int *distance;             /* node_span x node_span SLIT, 0 = unknown */
    topo_device_t *devices;
    int ndevices;
    bool simulated;            /* loaded from LOCI_TOPOLOGY */
    char origin[256];          /* "this machine" or the XML path */
    struct topo_config *config; /* LOCI_CONFIG as read (config.c), NULL without one */
    struct topo_retired *retired; /* what refreshes replaced while others may read it: freed with the topology */
} topo_t;

/* --- the process's topology (topo/current.c, live.c) --------------------- */

/** 0 when the topology is discovered (discovering it now if needed: the
 *  library's lazy initialisation), else the discovery's LOCI_E* code with
 *  loci_last_error() saying why. Cheap after the first success: one atomic
 *  load. Every public entry point that needs the machine starts here. */
int topo_ensure(void);

/** The discovered topology (NULL before topo_ensure succeeded). */
topo_t *topo_get(void);

/** Detach the topology for loci_fini: with discovery held off, run
 *  `teardown` (the layers above let go of its targets) if there was one,
 *  and return it for topo_free. */
topo_t *topo_retire(void (*teardown)(void));

/* --- what changes at run time (topo/current.c, live.c, merge.c, watch.c) - */

/** Discover again and merge the result into the process's topology
 *  (merge.c): new targets appended, those no longer found marked gone, those
 *  found again back. When something changed, the generation goes up and the
 *  listeners run (on the calling thread, one refresh at a time). The number
 *  of targets that changed, or a LOCI_E* code (the topology unchanged). */
int topo_refresh(void);

/** Counts the refreshes that changed something: a layer that caches what it
 *  derived from the targets compares it with the value it derived it at. */
unsigned topo_generation(void);

/** Run fn after every refresh that changed something (at most 8 listeners;
 *  registering one twice registers it once). The layers above re-resolve
 *  what they cached here: topo never calls them otherwise. */
void topo_on_change(void (*fn)(void));

/** Why target tg went away at run time, NULL while it is here. */
static inline const char *topo_target_gone(const struct loci_target *tg)
{
    return atomic_load_explicit(&((struct loci_target *)tg)->gone, memory_order_acquire);
}

/** fork() handler (core/fork.c, first of all layers: a refresh's listeners
 *  take the locks of the layers above): the refresh lock; in the child, the
 *  watcher thread (watch.c) that stayed in the parent is forgotten. */
void topo_fork(loci_fork_phase_t phase);

/* --- LOCI_CONFIG's front-end sections (topo/config_query.c) -------------- */

/** The text of `key` in the front-end section `section` of LOCI_CONFIG
 *  (discovering the topology if needed), with where it was given
 *  ("file:line") in *origin; NULL with LOCI_ENOENT when it is not given. */
const char *topo_config_value(const char *section, const char *key, const char **origin);

/* --- the container (topo/model.c) ---------------------------------------- */

topo_node_t *topo_node(topo_t *t, int os_index);
struct loci_target *topo_target_of_node(topo_t *t, int os_index);
int topo_distance(const topo_t *t, int from, int to);
/** Free a topology (the one topo_retire returned) and all it holds. */
void topo_free(topo_t *t);

/* --- per-thread initiator (topo/initiator.c) ----------------------------- */

/** NUMA node whose view the calling thread gets (always a node with CPUs). */
int topo_initiator(const topo_t *t);

/* --- attribute queries shared by info and the resolver (topo/model.c) --- */

/** Bandwidth / latency of target from initiator node, 0 if unknown. */
uint64_t topo_bandwidth(const struct loci_target *tg, int initiator);
uint64_t topo_latency(const struct loci_target *tg, int initiator);
/** The initiator's own DRAM target: the node itself. */
const struct loci_target *topo_local_dram(const topo_t *t, int initiator);

#endif
