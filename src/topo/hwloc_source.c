/*
 * Source "hwloc": NUMA nodes, capacities, subtypes, distances, memory
 * attributes (HMAT, as hwloc exposes them) and the PCI locality of NICs and
 * GPUs — from this machine or from an injected XML topology.
 */
#include "topo/topo_internal.h"
#include "text_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static bool subtype_is_special(const char *subtype)
{
    static const char *const special[] = {"MCDRAM", "HBM", "GPUMemory", "CXL", "NVM", "SPM"};
    for (size_t i = 0; subtype && i < sizeof special / sizeof *special; i++)
        if (strncasecmp(subtype, special[i], strlen(special[i])) == 0)
            return true;
    return false;
}

/* In an XML topology there is no sysfs cpulist: a node has CPUs when, walking
 * up from some PU to the first ancestor with memory children, it is that
 * ancestor's lowest-numbered ordinary (non-special) memory child. CPU-less
 * nodes (HBM, CXL, GPU memory) hang higher up or carry a subtype. */
static void mark_nodes_with_cpus(hwloc_topology_t h, topo_t *t)
{
    hwloc_obj_t pu = NULL;
    while ((pu = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PU, pu))) {
        hwloc_obj_t anc = pu;
        while (anc && anc->memory_arity == 0)
            anc = anc->parent;
        if (!anc)
            continue;
        hwloc_obj_t best = NULL;
        for (hwloc_obj_t m = anc->memory_first_child; m; m = m->next_sibling) {
            /* memory children may be a MemCache chain above the NUMA node */
            hwloc_obj_t n = m;
            while (n && n->type != HWLOC_OBJ_NUMANODE)
                n = n->memory_first_child;
            if (n && !subtype_is_special(n->subtype) && (!best || n->os_index < best->os_index))
                best = n;
        }
        topo_node_t *node = best ? topo_node(t, (int)best->os_index) : NULL;
        if (node)
            node->has_cpus = true;
    }
}

/* 1 + the largest node number that may exist while the process runs:
 * memory comes at run time (hot-added, a device-DAX instance onlined by
 * kmem) only on the kernel's possible nodes, which hwloc's complete nodeset
 * holds where it knows them (an XML keeps it) and sysfs says on a live
 * machine. Arrays indexed by node number are sized for them all, so that a
 * refresh never reallocates one another thread reads. */
static int possible_span(hwloc_topology_t h, const topo_t *t)
{
    int span = hwloc_bitmap_last(hwloc_topology_get_complete_nodeset(h)) + 1;
    char list[4096];
    hwloc_bitmap_t possible = hwloc_bitmap_alloc();
    if (!t->simulated && possible && text_first_line("/sys/devices/system/node/possible", list, sizeof list) &&
        hwloc_bitmap_list_sscanf(possible, list) == 0 && hwloc_bitmap_last(possible) + 1 > span)
        span = hwloc_bitmap_last(possible) + 1;
    hwloc_bitmap_free(possible);
    return span < TOPO_MAX_NODE_SPAN ? span : TOPO_MAX_NODE_SPAN;
}

static int load_nodes(hwloc_topology_t h, topo_t *t)
{
    int n = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_NUMANODE);
    if (n <= 0)
        return loci__fail(LOCI_ETOPO, "%s: the topology has no NUMA node", t->origin);
    t->node_span = possible_span(h, t);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if ((int)o->os_index + 1 > t->node_span)
            t->node_span = (int)o->os_index + 1;
    }
    t->cap_nodes = n > t->node_span ? n : t->node_span;
    t->nodes = calloc((size_t)t->cap_nodes, sizeof *t->nodes);
    if (!t->nodes)
        return loci__fail(LOCI_ENOMEM, "out of memory reading the topology");
    /* hwloc orders NUMA nodes by logical index; keep them by OS number. */
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(h, HWLOC_OBJ_NUMANODE, (unsigned)i);
        int pos = t->nnodes++;
        while (pos > 0 && t->nodes[pos - 1].os_index > (int)o->os_index) {
            t->nodes[pos] = t->nodes[pos - 1];
            pos--;
        }
        t->nodes[pos] = (topo_node_t){.os_index = (int)o->os_index,
                                      .cpuset = hwloc_bitmap_dup(o->cpuset),
                                      .memtier = -1};
    }
    return 0;
}

static int add_node_targets(hwloc_topology_t h, topo_t *t)
{
    for (int i = 0; i < t->nnodes; i++) {
        hwloc_obj_t o = hwloc_get_numanode_obj_by_os_index(h, (unsigned)t->nodes[i].os_index);
        struct loci_target *tg = topo_add_target(t, KIND_DRAM, t->nodes[i].os_index);
        if (!tg)
            return loci__fail(LOCI_ENOMEM, "out of memory building targets");
        tg->flags = LOCI_TARGET_CPU_ACCESSIBLE | LOCI_TARGET_SHAREABLE |
                    (t->simulated ? LOCI_TARGET_SIMULATED : 0);
        topo_attr_offer(&tg->capacity, o->attr->numanode.local_memory, SRC_HWLOC);
        if (o->subtype)
            snprintf(tg->subtype, sizeof tg->subtype, "%s", o->subtype);
    }
    return 0;
}

static void load_distances(hwloc_topology_t h, topo_t *t)
{
    unsigned nr = 1;
    struct hwloc_distances_s *d = NULL;
    if (hwloc_distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, &d,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0)
        return;
    for (unsigned i = 0; i < d->nbobjs; i++)
        for (unsigned j = 0; j < d->nbobjs; j++) {
            int a = (int)d->objs[i]->os_index, b = (int)d->objs[j]->os_index;
            t->distance[a * t->node_span + b] = (int)d->values[i * d->nbobjs + j];
        }
    hwloc_distances_release(h, d);
}

/* Apply every (initiator location, value) hwloc knows for `attr` on target
 * node `o` to each initiator node whose CPUs lie in that location. */
static void apply_memattr(hwloc_topology_t h, topo_t *t, hwloc_obj_t o, hwloc_memattr_id_t attr,
                          topo_attr_t *per_initiator)
{
    unsigned nr = 0;
    if (hwloc_memattr_get_initiators(h, attr, o, 0, &nr, NULL, NULL) != 0 || nr == 0)
        return;
    struct hwloc_location *locs = calloc(nr, sizeof *locs);
    hwloc_uint64_t *values = calloc(nr, sizeof *values);
    if (locs && values && hwloc_memattr_get_initiators(h, attr, o, 0, &nr, locs, values) == 0) {
        for (unsigned k = 0; k < nr; k++) {
            hwloc_const_cpuset_t where = locs[k].type == HWLOC_LOCATION_TYPE_CPUSET
                                             ? locs[k].location.cpuset
                                             : locs[k].location.object->cpuset;
            for (int i = 0; i < t->nnodes; i++) {
                topo_node_t *ini = &t->nodes[i];
                if (ini->has_cpus && where && !hwloc_bitmap_iszero(ini->cpuset) &&
                    hwloc_bitmap_isincluded(ini->cpuset, where))
                    topo_attr_offer(&per_initiator[ini->os_index], values[k], SRC_HMAT);
            }
        }
    }
    free(locs);
    free(values);
}

static void load_memattrs(hwloc_topology_t h, topo_t *t)
{
    for (int i = 0; i < t->ntargets; i++) {
        struct loci_target *tg = &t->targets[i];
        hwloc_obj_t o = hwloc_get_numanode_obj_by_os_index(h, (unsigned)tg->numa_node);
        /* generic first, then the read-specific figure overrides it */
        apply_memattr(h, t, o, HWLOC_MEMATTR_ID_BANDWIDTH, tg->bandwidth);
        apply_memattr(h, t, o, HWLOC_MEMATTR_ID_READ_BANDWIDTH, tg->bandwidth);
        apply_memattr(h, t, o, HWLOC_MEMATTR_ID_LATENCY, tg->latency);
        apply_memattr(h, t, o, HWLOC_MEMATTR_ID_READ_LATENCY, tg->latency);
    }
}

/* A compute runtime's OS device under a PCI device: CUDA, OpenCL, Level
 * Zero... (hwloc's co-processors), or a GPU management device of NVIDIA's
 * or AMD's (nvml0, rsmi0) — not a display's DRM card0 or renderD128. */
static bool has_compute_osdev(hwloc_obj_t pci)
{
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
        if (c->type == HWLOC_OBJ_OS_DEVICE &&
            (c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC ||
             (c->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU && c->name &&
              (strncmp(c->name, "nvml", 4) == 0 || strncmp(c->name, "rsmi", 4) == 0))))
            return true;
    return false;
}

static bool device_kind(hwloc_obj_t o, topo_device_kind_t *kind)
{
    if (o->type == HWLOC_OBJ_PCI_DEVICE) {
        unsigned id = o->attr->pcidev.class_id, cls = id >> 8;
        if (cls == 0x02) { /* network controller */
            *kind = DEV_NIC;
            return true;
        }
        /* 3D controllers and processing accelerators compute; other display
         * controllers (VGA: a BMC's, QEMU's) only when a compute runtime
         * drives them (a GeForce with CUDA). */
        if (id == 0x0302 || id == 0x1200 || (cls == 0x03 && has_compute_osdev(o))) {
            *kind = DEV_GPU;
            return true;
        }
        if (o->attr->pcidev.class_id == 0x0c06) { /* InfiniBand */
            *kind = DEV_NIC;
            return true;
        }
    }
    return false;
}

/* The first OS device (eth0, mlx5_0, cuda0...) under a PCI device. */
static void osdev_name(hwloc_obj_t pci, char *buf, size_t len)
{
    buf[0] = '\0';
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
        if (c->type == HWLOC_OBJ_OS_DEVICE && c->name) {
            snprintf(buf, len, "%s", c->name);
            return;
        }
}

static int initiator_count(const topo_t *t)
{
    int n = 0;
    for (int i = 0; i < t->nnodes; i++)
        n += t->nodes[i].has_cpus;
    return n;
}

static void load_devices(hwloc_topology_t h, topo_t *t)
{
    int ordinal[DEV_KIND_COUNT] = {0};
    static const char *const prefix[DEV_KIND_COUNT] = {"nic", "gpu"};
    int total = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PCI_DEVICE);
    t->devices = calloc((size_t)(total > 0 ? total : 1), sizeof *t->devices);
    if (!t->devices)
        return;
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_pcidev(h, o)) && t->ndevices < 64) {
        topo_device_kind_t kind;
        if (!device_kind(o, &kind))
            continue;
        topo_device_t *d = &t->devices[t->ndevices++];
        d->kind = kind;
        snprintf(d->name, sizeof d->name, "%s%d", prefix[kind], ordinal[kind]++);
        snprintf(d->busid, sizeof d->busid, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain,
                 o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func);
        osdev_name(o, d->osdev, sizeof d->osdev);
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(h, o);
        d->locality = hwloc_bitmap_dup(anc ? anc->cpuset : hwloc_topology_get_topology_cpuset(h));
        d->numa_node = -1;
        /* nearest node: the first node with CPUs inside the device's locality */
        for (int i = 0; i < t->nnodes && d->numa_node < 0; i++)
            if (t->nodes[i].has_cpus && !hwloc_bitmap_iszero(t->nodes[i].cpuset) &&
                hwloc_bitmap_isincluded(t->nodes[i].cpuset, d->locality))
                d->numa_node = t->nodes[i].os_index;
        /* On a machine with several initiators, a device whose locality is
         * the whole machine is near nothing in particular: mark no target
         * rather than all of them. */
        if (hwloc_bitmap_isequal(d->locality, hwloc_topology_get_topology_cpuset(h)) &&
            initiator_count(t) > 1)
            continue;
        for (int i = 0; i < t->ntargets; i++) {
            topo_node_t *n = topo_node(t, t->targets[i].numa_node);
            if (n && !hwloc_bitmap_iszero(n->cpuset) && hwloc_bitmap_isincluded(n->cpuset, d->locality))
                t->targets[i].near_devices |= 1ull << (t->ndevices - 1);
        }
    }
}

int topo_source_hwloc(topo_t *t, const char *xml, hwloc_topology_t *out)
{
    hwloc_topology_t h;
    if (hwloc_topology_init(&h) != 0)
        return loci__fail(LOCI_ETOPO, "hwloc cannot initialise: %s", strerror(errno));
    hwloc_topology_set_io_types_filter(h, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (xml) {
        if (access(xml, R_OK) != 0) {
            int e = errno;
            hwloc_topology_destroy(h);
            return loci__fail(LOCI_ETOPO,
                              "LOCI_TOPOLOGY=%s: cannot read it (%s); give the path of an hwloc "
                              "XML file as written by `lstopo --of xml`, or unset LOCI_TOPOLOGY",
                              xml, strerror(e));
        }
        if (hwloc_topology_set_xml(h, xml) != 0) {
            hwloc_topology_destroy(h);
            return loci__fail(LOCI_ETOPO,
                              "LOCI_TOPOLOGY=%s: hwloc refuses it (%s); give an hwloc XML file as "
                              "written by `lstopo --of xml`",
                              xml, strerror(errno));
        }
    }
    if (hwloc_topology_load(h) != 0) {
        int e = errno;
        hwloc_topology_destroy(h);
        return loci__fail(LOCI_ETOPO,
                          "%s: hwloc cannot load the topology (%s)%s", t->origin, strerror(e),
                          xml ? "; is it an hwloc XML file as written by `lstopo --of xml`?" : "");
    }
    int rc = load_nodes(h, t);
    if (rc == 0) {
        t->cap_targets = t->nnodes + TOPO_MAX_EXTRA_TARGETS + TOPO_MAX_RUNTIME_TARGETS;
        t->targets = calloc((size_t)t->cap_targets, sizeof *t->targets);
        t->distance = calloc((size_t)t->node_span * (size_t)t->node_span, sizeof *t->distance);
        if (!t->targets || !t->distance)
            rc = loci__fail(LOCI_ENOMEM, "out of memory reading the topology");
    }
    if (rc == 0) {
        if (xml)
            mark_nodes_with_cpus(h, t); /* a live machine uses sysfs cpulist instead */
        rc = add_node_targets(h, t);
    }
    if (rc != 0) {
        hwloc_topology_destroy(h);
        return rc;
    }
    load_distances(h, t);
    *out = h;
    return 0;
}

void topo_source_hwloc_attrs(topo_t *t, hwloc_topology_t h)
{
    if (!t->simulated && t->nnodes > 0) {
        /* sysfs decided has_cpus; if it could not (no sysfs), use the XML rule */
        bool any = false;
        for (int i = 0; i < t->nnodes; i++)
            any |= t->nodes[i].has_cpus;
        if (!any)
            mark_nodes_with_cpus(h, t);
    }
    load_memattrs(h, t);
    load_devices(h, t);
}
