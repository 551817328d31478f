/*
 * topo's internal header: what crosses files inside src/topo (the layers
 * above see topo.h only). Discovery (discover.c) runs the sources in order
 * of increasing trust (DESIGN.md §4): each offers attribute values with its
 * own source tag and topo_attr_offer() keeps the most trusted. A config file
 * is one of them: read into a topo_config_t (config.c), then applied to the
 * targets (config_source.c).
 *
 * The files call each other one way, each only files listed before it:
 * attr; the config file (config_ini, config_frontend, config_target,
 * config); model (the container); merge; the sources (hwloc_source,
 * sysfs_source, devdax_source, gpu_source, file_tier, store_target,
 * estimate, classify, config_source); discover; live (the process's
 * topology and its refreshes); watch (the watcher thread, which refreshes
 * it); current (topo_ensure, which starts the watcher); and the entry points
 * config_query, initiator, target_api.
 */
#ifndef LOCI_TOPO_INTERNAL_H
#define LOCI_TOPO_INTERNAL_H

#include "jobstore/jobstore.h"
#include "topo/topo.h"

#include <stdio.h>

/* Room for targets beyond the NUMA nodes: file tiers and GPUs. */
#define TOPO_MAX_EXTRA_TARGETS 32
/* Room for targets that appear at run time (topo_refresh): each node or
 * device-DAX instance that comes takes one slot for good (one that goes and
 * comes back keeps its own). */
#define TOPO_MAX_RUNTIME_TARGETS 32
/* Node numbers that can exist beyond those found at discovery are sized
 * for up to this span (arrays indexed by node number never grow). */
#define TOPO_MAX_NODE_SPAN 256

/* --- attributes and names (attr.c) --------------------------------------- */

const char *topo_source_name(topo_source_t s);
/** Offer `value` from `source`: kept if the source is at least as trusted as the
 *  current one. A zero value is "unknown" and never replaces anything. */
void topo_attr_offer(topo_attr_t *a, uint64_t value, topo_source_t source);
/** KIND_COUNT when `name` is no kind. */
topo_kind_t topo_kind_parse(const char *name);

/* --- the container (model.c) --------------------------------------------- */

struct loci_target *topo_add_target(topo_t *t, topo_kind_t kind, int numa_node);
/** Free p with fn when t is freed, not before: a refresh replaced it while
 *  other threads may still read it. p NULL: nothing. */
void topo_free_later(topo_t *t, void *p, void (*fn)(void *));

/* --- discovery (discover.c), run by live.c ------------------------------- */

/** Discover the machine (or LOCI_TOPOLOGY), apply sources, classify, name.
 *  On failure returns a LOCI_E* code with loci_last_error() set. */
int topo_discover(topo_t **out);

/* --- the sources, in the order discover.c runs them ---------------------- */

/** hwloc_source.c: load the machine (xml == NULL) or an XML file; nodes,
 *  node targets with capacity and subtype, distances. */
int topo_source_hwloc(topo_t *t, const char *xml, hwloc_topology_t *out);
/** hwloc_source.c: memory attributes (after has_cpus is known) and devices. */
void topo_source_hwloc_attrs(topo_t *t, hwloc_topology_t h);

/** sysfs_source.c (live machine only): which nodes have CPUs, HMAT
 *  access0/access1 figures, kernel memory tiers, free memory, DAX nodes. */
void topo_source_sysfs(topo_t *t, const char *sysfs_root);
void topo_source_sysfs_hmat(topo_t *t, const char *sysfs_root);
/** sysfs_source.c: the HMAT figures of proximity domain `node` for tg. */
void topo_sysfs_hmat_target(topo_t *t, struct loci_target *tg, int node, const char *sysfs_root);
/** sysfs_source.c: whether the dax device at sysfs directory `dir` is bound
 *  to `driver` ("device_dax": mappable; "kmem": onlined as a NUMA node). */
bool topo_dax_bound_to(const char *dir, const char *driver);

/** devdax_source.c (live machine only, after naming): a target per
 *  device-DAX instance bound to device_dax, pmemN (its region is an
 *  NVDIMM's: persistent) or cxlN (volatile), path the node under dev_root,
 *  with its HMAT figures; unreachable, with the reason, when this process
 *  may not read and write the node. */
int topo_source_devdax(topo_t *t, const char *sysfs_root, const char *dev_root);
/** devdax_source.c: a config's `path =` that is no directory: the
 *  device-DAX node `path` as target `name` (renaming the discovered one),
 *  kind pmem or cxl (KIND_COUNT: from its region; the caller refuses any
 *  other). A regular file, a symbolic link out of /dev, or a device that is
 *  no device-DAX instance is refused (LOCI_ECONFIG, `where` = "file:line" of
 *  the path). */
int topo_config_devdax(topo_t *t, const char *where, const char *name, topo_kind_t kind, const char *path,
                       const char *sysfs_root, topo_source_t source);
/** devdax_source.c: LOCI_ECONFIG unless a configured capacity of device-DAX
 *  target tg is whole align units and fits the device. */
int topo_devdax_check_capacity(const struct loci_target *tg, uint64_t capacity, const char *where);

/** merge.c: merge `fresh` (a discovery just made) into `live` (the
 *  process's topology, read by other threads meanwhile): targets found in
 *  both keep live's object (gone ones come back, capacities follow),
 *  fresh's others are appended to live with names unique there, live's
 *  others are marked gone with what happened. What fresh gave live is no
 *  longer fresh's. Returns how many targets appeared, went, came back or
 *  changed capacity. */
int topo_merge(topo_t *live, topo_t *fresh);
/** merge.c: what happened to tg, which is not (or no longer) there, for
 *  its `gone` (malloc'd; NULL when out of memory). */
char *topo_what_happened(const struct loci_target *tg);

/** live.c: the process's topology (topo_get), discovered unless it is
 *  there already: 0, or the discovery's LOCI_E* code, logged. */
int topo_live_discover(void);
/** live.c: set by a discovery of the live machine (not LOCI_TOPOLOGY's):
 *  the watcher is due (current.c starts it, watch.c takes the flag). */
extern _Atomic bool topo_watch_pending;
/** live.c: topo_refresh's work once the topology is there: discover again,
 *  merge, tell the listeners (the watcher calls it as it is). */
int topo_live_refresh(void);
/** live.c: the refresh lock around fork (topo_fork). */
void topo_live_fork(loci_fork_phase_t phase);
/** live.c: topo_retire once the watcher is stopped. */
topo_t *topo_live_detach(void (*teardown)(void));

/** watch.c: the thread that refreshes the process's topology by itself
 *  when the kernel says memory came or went (uevents of the memory, node,
 *  dax and cxl subsystems) or /sys/devices/system/node/has_memory or a dax
 *  device's driver changed (checked every 2 s, for where uevents do not
 *  arrive: a container's network namespace). Started on the first topo_ensure after a live discovery
 *  (topo_watch_pending), not for LOCI_TOPOLOGY nor with
 *  LOCI_TOPOLOGY_WATCH=0 (=sysfs: the sysfs check alone); stopped (joined)
 *  by topo_watch_stop; after fork,
 *  topo_watch_forked forgets it in the child, which starts none (watch.c). */
void topo_watch_start(void);
void topo_watch_stop(void);
void topo_watch_forked(void);

/** estimate.c: fill pairs without a figure from NUMA distance, then defaults. */
void topo_estimate(topo_t *t);

/** classify.c: kinds from subtypes, ratios to local DRAM, memory tiers; then
 *  stable names of the NUMA nodes (prefix + ordinal). */
void topo_classify(topo_t *t);
void topo_name(topo_t *t);
/** classify.c: what a target's name starts with: its kind's name, but
 *  "kmem" for a NUMA node of kind pmem (an NVDIMM onlined as system RAM:
 *  volatile), so that "pmem" only ever names persistent memory. */
const char *topo_name_prefix(const struct loci_target *tg);

/** file_tier.c: the default ssd0 tier and tiers from the config. */
int topo_add_file_tier(topo_t *t, const char *name, topo_kind_t kind, const char *dir,
                       topo_source_t source);
int topo_add_default_store(topo_t *t);

/** gpu_source.c: GPUs from the CUDA driver (os/cuda_driver.h): a gpuN
 *  target per device (its memory, capacity and free bytes), matched by PCI
 *  bus id to hwloc's device so its locality is known, or to a GPU-memory
 *  NUMA node (Grace Hopper) that is then that device's. No driver = no GPU
 *  targets. Runs after naming. */
void topo_source_gpus(topo_t *t);

/** store_target.c: the aggregate store target `name` on the RADOS pool of
 *  `p`, connected now; a cluster that does not answer leaves it listed but
 *  unreachable, with a warning (never a failed init). */
int topo_add_store(topo_t *t, const char *name, const jobstore_params_t *p);

/* --- a config file as read (config.c and the config_*.c it calls) -------- */

enum { TOPO_CONFIG_TARGET_KEYS = 24 }; /* room for the keys config_target.c knows */

/** One [target NAME] section (config_target.c). */
typedef struct {
    char name[16];
    int line;          /* of the [target NAME] header */
    int key_line[TOPO_CONFIG_TARGET_KEYS]; /* of each key given, in config_target.c's order; 0: not given */
    int numa_node;     /* -1: not given */
    int initiator;     /* -1: not given */
    char *path;
    topo_kind_t kind;  /* KIND_COUNT: not given */
    uint64_t capacity, bandwidth, latency;
    char store[16];    /* kind = store: the engine ("rados") */
    jobstore_params_t rados;
    unsigned dirty_limit, dirty_background; /* %, 0: not given */
    unsigned seen;     /* bit per key, to refuse a key given twice */
    topo_budget_t tiering_budget;
} topo_config_target_t;

/** One `key = value` line of a front-end section ([omp]), as text: the
 *  intent layer interprets it (loci_config_intent). config_frontend.c. */
typedef struct {
    char section[16], key[16];
    char *value;
    char origin[560];  /* "file:line" */
} topo_frontend_t;

enum { TOPO_FRONTEND_SECTIONS = 4 }; /* [omp], [shmem], [checkpoint], [tiering] */

struct topo_config {
    char path[512];
    topo_source_t source;  /* SRC_CONFIG (LOCI_CONFIG) or SRC_MEASURED (saved measurements) */
    topo_config_target_t *targets;
    int ntargets;
    size_t cap_targets;
    topo_frontend_t *frontend;
    int nfrontend;
    size_t cap_frontend;
    int frontend_line[TOPO_FRONTEND_SECTIONS]; /* of each [section] header, 0 = none */
    /* while reading */
    FILE *file;
    int line;
    bool failed;
};
typedef struct topo_config topo_config_t;

/** config.c: read the admin config (SRC_CONFIG) or a saved measurement file
 *  (SRC_MEASURED); a mistake fails with "file:line: ..." in loci_last_error(). */
int topo_config_load(const char *path, topo_source_t source, topo_config_t **out);
void topo_config_free(topo_config_t *c);

/** config_ini.c: report a mistake on line c->line ("file:line: ..."), the
 *  first one only: later ones are often its consequences. LOCI_ECONFIG. */
LOCI_PRINTF(2, 3)
int topo_config_fail(topo_config_t *c, const char *fmt, ...);
typedef void topo_config_section_fn(topo_config_t *c, const char *section);
typedef void topo_config_key_fn(topo_config_t *c, const char *section, const char *key, const char *value);
/** config_ini.c: read c->file from its start, c->line the number of each
 *  line: each [section] header to on_section, each `key = value` line with
 *  the section it is in to on_key; NULL skips them. 0, or LOCI_ECONFIG once
 *  a mistake was reported. */
int topo_config_read(topo_config_t *c, topo_config_section_fn *on_section, topo_config_key_fn *on_key);

/** config_target.c: a [target NAME] header (or an unknown section), and a
 *  key of one; then each target as a whole, once the file is read. */
void topo_config_target_section(topo_config_t *c, const char *section);
void topo_config_target_key(topo_config_t *c, const char *section, const char *key, const char *value);
int topo_config_target_check(const topo_config_t *c);
/** config_target.c: the line a mistake about `key` of section e cites: the
 *  key's own, or the section's header when the key is not given. */
int topo_config_line(const topo_config_target_t *e, const char *key);

/** config_frontend.c: whether `section` is a front end's ([omp]); its
 *  header, and a key of it; the line giving `key` of `section` (NULL: none,
 *  or no config). */
bool topo_config_is_frontend(const char *section);
void topo_config_frontend_section(topo_config_t *c, const char *section);
void topo_config_frontend_key(topo_config_t *c, const char *section, const char *key, const char *value);
const topo_frontend_t *topo_config_frontend_find(const topo_config_t *c, const char *section, const char *key);

/** config_source.c: the config as a source: NUMA entries (attributes, kind)
 *  before classification; after naming, its store targets (before any named
 *  entry), then renames, attributes of named targets, new file tiers. */
int topo_config_apply_nodes(const topo_config_t *c, topo_t *t);
int topo_config_add_stores(const topo_config_t *c, topo_t *t);
int topo_config_apply_named(const topo_config_t *c, topo_t *t);

#endif
