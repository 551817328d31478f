/*
 * The discovery sources, called by discover.c in order of increasing trust
 * (DESIGN.md §4): each offers attribute values with its own source tag and
 * topo_attr_offer() keeps the most trusted.
 */
#ifndef LOCI_TOPO_SOURCES_H
#define LOCI_TOPO_SOURCES_H

#include "rados/rados_pool.h"
#include "topo/topo.h"

/* Room for targets beyond the NUMA nodes: file tiers and GPUs. */
#define TOPO_MAX_EXTRA_TARGETS 32

/** hwloc_source.c: load the machine (xml == NULL) or an XML file; nodes,
 *  node targets with capacity and subtype, distances. */
int topo_source_hwloc(topo_t *t, const char *xml, hwloc_topology_t *out);
/** hwloc_source.c: memory attributes (after has_cpus is known) and devices. */
void topo_source_hwloc_attrs(topo_t *t, hwloc_topology_t h);

/** sysfs_source.c (live machine only): which nodes have CPUs, HMAT
 *  access0/access1 figures, kernel memory tiers, free memory, DAX nodes. */
void topo_source_sysfs(topo_t *t, const char *sysfs_root);
void topo_source_sysfs_hmat(topo_t *t, const char *sysfs_root);

/** config.c: an admin config or a saved measurement file (INI). */
typedef struct topo_config topo_config_t;
int topo_config_load(const char *path, topo_source_t source, topo_config_t **out);
/** Apply NUMA entries (attributes, kind) before classification. */
int topo_config_apply_nodes(const topo_config_t *c, topo_t *t);
/** After naming: renames, attributes of named targets, new file tiers. */
int topo_config_apply_named(const topo_config_t *c, topo_t *t);
void topo_config_free(topo_config_t *c);

/** gpu_source.c: GPUs from the CUDA driver (provider/cuda_driver.h): a gpuN
 *  target per device (its memory, capacity and free bytes), matched by PCI
 *  bus id to hwloc's device so its locality is known, or to a GPU-memory
 *  NUMA node (Grace Hopper) that is then that device's. No driver = no GPU
 *  targets. Runs after naming. */
void topo_source_gpus(topo_t *t);

/** estimate.c: fill pairs without a figure from NUMA distance, then defaults. */
void topo_estimate(topo_t *t);

/** classify.c: kinds from subtypes, ratios to local DRAM, memory tiers; then
 *  stable names (kind + ordinal). */
void topo_classify(topo_t *t);
void topo_name(topo_t *t);

/** file_tier.c: the default ssd0 tier and tiers from the config. */
int topo_add_file_tier(topo_t *t, const char *name, topo_kind_t kind, const char *dir,
                       topo_source_t source);
int topo_add_default_store(topo_t *t);

/** store_target.c: the aggregate store target `name` on the RADOS pool of
 *  `p`, connected now; a cluster that does not answer leaves it listed but
 *  unreachable, with a warning (never a failed init). */
int topo_add_store(topo_t *t, const char *name, const rados_params_t *p);
/** config.c: the store targets of the config (before any named entry). */
int topo_config_add_stores(const topo_config_t *c, topo_t *t);

#endif
