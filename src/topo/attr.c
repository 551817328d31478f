/* Attribute values with provenance, and the names of sources and kinds. */
#include "topo/topo_internal.h"

#include <string.h>
#include <strings.h>

static const char *const source_names[] = {
    [SRC_NONE] = "none",         [SRC_DEFAULT] = "default", [SRC_DISTANCE] = "distance",
    [SRC_OS] = "os",    [SRC_HWLOC] = "hwloc",       [SRC_HMAT] = "hmat",       [SRC_MEASURED] = "measured",
    [SRC_CONFIG] = "config",
};

const char *topo_source_name(topo_source_t s) { return source_names[s]; }

void topo_attr_offer(topo_attr_t *a, uint64_t value, topo_source_t source)
{
    if (value != 0 && source >= a->source) {
        a->value = value;
        a->source = source;
    }
}

static const char *const kind_names[] = {
    [KIND_DRAM] = "dram", [KIND_HBM] = "hbm", [KIND_CXL] = "cxl",          [KIND_PMEM] = "pmem",
    [KIND_SSD] = "ssd",   [KIND_GPU] = "gpu", [KIND_GPU_HOST] = "gpu-host",
    [KIND_STORE] = "store",
};

const char *topo_kind_name(topo_kind_t k) { return k < KIND_COUNT ? kind_names[k] : "unknown"; }

topo_kind_t topo_kind_parse(const char *name)
{
    for (int k = 0; k < KIND_COUNT; k++)
        if (strcasecmp(name, kind_names[k]) == 0)
            return (topo_kind_t)k;
    return KIND_COUNT;
}
