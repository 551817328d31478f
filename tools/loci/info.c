/* `loci info`: the memory targets of this machine, as a table or JSON. */
#include "commands.h"
#include "format.h"
#include "loci.h"
#include "os/cuda_driver.h"
#include "heat/heat.h"
#include "topo/topo.h"
#include "units.h"

#include <inttypes.h>
#include <stdio.h>

typedef struct {
    loci_target_info_t info;
    const char *capacity_src, *bandwidth_src, *latency_src, *kind_src, *path, *unreachable, *gone;
    uint64_t dax_align; /* a device-DAX target's: path is its device node */
    char cpus[256], nics[256], gpus[256];
    int memtier;              /* the kernel's memory tier of its node, < 0 if unknown */
    const char *memtier_src;
    char memtier_nodes[256];
} row_t;

static int read_row(const loci_target_t *t, row_t *r)
{
    if (loci_target_info(t, &r->info) || loci_target_sources(t, &r->capacity_src, &r->bandwidth_src,
                                                             &r->latency_src, &r->kind_src))
        return -1;
    r->path = loci_target_path(t);
    r->dax_align = t->dax_align;
    r->unreachable = loci_target_unreachable(t);
    r->gone = loci_target_gone(t);
    loci_target_cpus(t, r->cpus, sizeof r->cpus);
    loci_target_near_devices(t, "nic", r->nics, sizeof r->nics);
    loci_target_near_devices(t, "gpu", r->gpus, sizeof r->gpus);
    r->memtier = loci_target_memory_tier(t, r->memtier_nodes, sizeof r->memtier_nodes, &r->memtier_src);
    return 0;
}

static const char *or_dash(const char *s) { return s && *s ? s : "-"; }

/* The target holding GPU device's memory (a gpuN target, or a GPU-memory
 * NUMA node), found through the device bit it carries. */
static const struct loci_target *gpu_memory_of(const topo_t *topo, int device)
{
    for (int i = 0; i < topo->ntargets; i++)
        if (topo->targets[i].cuda_device >= 0 && (topo->targets[i].near_devices & (1ull << device)))
            return &topo->targets[i];
    return NULL;
}

/* Each GPU: its PCI device, the host memory near it, its memory and the
 * intents that reach each kind (docs/GPU.md). */
static void print_gpus(const topo_t *topo)
{
    const char *why;
    bool driver = cuda_driver(&why) != NULL;
    int shown = 0;
    for (int i = 0; i < topo->ntargets; i++) {
        const struct loci_target *tg = &topo->targets[i];
        if (tg->cuda_device < 0)
            continue;
        if (!shown++)
            printf("\nGPUs (CUDA driver):\n");
        const topo_device_t *pci = NULL;
        for (int d = 0; d < topo->ndevices && !pci; d++)
            if (topo->devices[d].kind == DEV_GPU && gpu_memory_of(topo, d) == tg)
                pci = &topo->devices[d];
        char cap[32], avail[32], node[16] = "unknown";
        size_t free_bytes = tg->available.value, total;
        if (tg->numa_node < 0 && cuda_enter(tg->cuda_device) == 0) { /* live: discovery creates no context */
            cuda_driver(NULL)->MemGetInfo(&free_bytes, &total);
            cuda_leave();
        }
        if (pci && pci->numa_node >= 0)
            snprintf(node, sizeof node, "node %d", pci->numa_node);
        printf("  %s: CUDA device %d, PCI %s, near %s; memory %s (%s free) on %s%s\n", tg->name, tg->cuda_device,
               pci ? pci->busid : "(not in the topology)", node,
               units_format_size(tg->capacity.value, cap, sizeof cap),
               units_format_size(free_bytes, avail, sizeof avail), tg->name,
               tg->numa_node >= 0 ? " (a NUMA node)" : "");
        if (tg->numa_node >= 0)
            printf("    device memory: use=gpu:%d (NUMA node %d)\n", tg->cuda_device, tg->numa_node);
        else
            printf("    device memory: use=gpu:%d   managed: use=cpu+gpu:%d   pinned host: near=gpu:%d,pinned\n",
                   tg->cuda_device, tg->cuda_device, tg->cuda_device);
    }
    if (!shown)
        printf("\nGPUs: none from the CUDA driver (%s)\n", driver ? "it reports no usable device" : why);
}

static void print_table(int n)
{
    topo_t *topo = topo_get();
    printf("Memory targets of %s, seen from NUMA node %d%s\n\n", topo->origin, loci_initiator(),
           topo->simulated ? " (simulated: placement is recorded, not applied)" : "");
    printf("%-8s %-5s %4s %4s %10s %10s %10s %8s  %-17s %-10s %-12s %s\n", "NAME", "KIND", "NODE", "TIER",
           "CAPACITY", "AVAILABLE", "BANDWIDTH", "LATENCY", "SOURCE (bw/lat)", "NEAR CPUS", "NICS",
           "GPUS");
    for (int i = 0; i < n; i++) {
        row_t r;
        if (read_row(loci_target_at(i), &r))
            continue;
        char cap[32], avail[32], bw[32], lat[32], node[8], tier[8], src[40];
        snprintf(node, sizeof node, r.info.numa_node >= 0 ? "%d" : "-", r.info.numa_node);
        snprintf(tier, sizeof tier, r.memtier >= 0 ? "%d" : "-", r.memtier);
        printf("%-8s %-5s %4s %4s %10s %10s %10s %8s  %-17s %-10s %-12s %s\n", r.info.name, r.info.kind,
               node, tier, units_format_size(r.info.capacity, cap, sizeof cap),
               units_format_size(r.info.available, avail, sizeof avail),
               format_bandwidth(r.info.bandwidth_mbps, bw, sizeof bw),
               format_latency(r.info.latency_ns, lat, sizeof lat),
               format_sources(r.bandwidth_src, r.latency_src, src, sizeof src), or_dash(r.cpus), or_dash(r.nics),
               or_dash(r.gpus));
        if (r.path && r.dax_align)
            printf("%8s device-DAX %s, align %s\n", "", r.path, units_format_size(r.dax_align, cap, sizeof cap));
        else if (r.path)
            printf("%8s directory %s\n", "", r.path);
        if (r.info.flags & LOCI_TARGET_JOB_WIDE)
            printf("%8s reached by every node of the job%s\n", "",
                   r.info.flags & LOCI_TARGET_PERSISTENT ? ", outlives it (access=job, access=global)" : "");
        if (r.unreachable)
            printf("%8s unreachable: %s\n", "", r.unreachable);
        if (r.gone)
            printf("%8s gone: %s\n", "", r.gone);
    }
    print_gpus(topo);
    char why[1024];
    heat_source_t access = heat_probe(NULL, why, sizeof why); /* (leaves no thread, kdamond or event behind) */
    printf("\nAccess measurement (tier=auto): %s%s%s%s\n", heat_source_name(access), why[0] ? " (skipped: " : "",
           why, why[0] ? ")" : "");
    printf("\nSources: config > measured (loci bench --save) > hmat > hwloc > os > distance > default.\n");
    printf("TIER: the kernel's memory tier of the node (os: /sys/devices/virtual/memory_tiering/memory_tierN; "
           "higher is slower).\n");
}

static void print_json(int n)
{
    static const struct {
        unsigned bit;
        const char *name;
    } flag_names[] = {{LOCI_TARGET_PERSISTENT, "persistent"},
                      {LOCI_TARGET_SHAREABLE, "shareable"},
                      {LOCI_TARGET_CPU_ACCESSIBLE, "cpu_accessible"},
                      {LOCI_TARGET_GPU_ACCESSIBLE, "gpu_accessible"},
                      {LOCI_TARGET_SIMULATED, "simulated"},
                      {LOCI_TARGET_JOB_WIDE, "job_wide"},
                      {LOCI_TARGET_UNREACHABLE, "unreachable"},
                      {LOCI_TARGET_GONE, "gone"}};
    topo_t *topo = topo_get();
    printf("{\n  \"version\": \"%s\",\n  \"origin\": ", loci_version());
    json_string(stdout, topo->origin);
    printf(",\n  \"simulated\": %s,\n  \"initiator\": %d,\n  \"targets\": [\n",
           topo->simulated ? "true" : "false", loci_initiator());
    for (int i = 0; i < n; i++) {
        row_t r;
        if (read_row(loci_target_at(i), &r))
            continue;
        printf("    {\"name\": \"%s\", \"kind\": \"%s\", \"kind_source\": \"%s\", \"numa_node\": %d, "
               "\"cuda_device\": %d, ",
               r.info.name, r.info.kind, r.kind_src, r.info.numa_node, topo->targets[i].cuda_device);
        if (r.memtier >= 0)
            printf("\"memory_tier\": %d, \"memory_tier_nodes\": \"%s\", \"memory_tier_source\": \"%s\",\n",
                   r.memtier, r.memtier_nodes, r.memtier_src);
        else
            printf("\"memory_tier\": null, \"memory_tier_nodes\": null, \"memory_tier_source\": null,\n");
        printf("     \"capacity\": %" PRIu64 ", \"capacity_source\": \"%s\", \"available\": %" PRIu64 ",\n",
               r.info.capacity, r.capacity_src, r.info.available);
        printf("     \"bandwidth_mbps\": %" PRIu64 ", \"bandwidth_source\": \"%s\", \"latency_ns\": %" PRIu64
               ", \"latency_source\": \"%s\", \"source\": \"%s\",\n     \"flags\": [",
               r.info.bandwidth_mbps, r.bandwidth_src, r.info.latency_ns, r.latency_src, r.info.source);
        int k = 0;
        for (size_t f = 0; f < sizeof flag_names / sizeof *flag_names; f++)
            if (r.info.flags & flag_names[f].bit)
                printf("%s\"%s\"", k++ ? ", " : "", flag_names[f].name);
        printf("], \"path\": ");
        if (r.path)
            json_string(stdout, r.path);
        else
            printf("null");
        if (r.unreachable) {
            printf(", \"unreachable\": ");
            json_string(stdout, r.unreachable);
        }
        if (r.gone) {
            printf(", \"gone\": ");
            json_string(stdout, r.gone);
        }
        printf(", \"cpus\": ");
        json_string(stdout, r.cpus);
        printf(",\n     ");
        json_list(stdout, "nics", r.nics);
        printf(", ");
        json_list(stdout, "gpus", r.gpus);
        printf("}%s\n", i + 1 < n ? "," : "");
    }
    printf("  ],\n  \"devices\": [\n");
    for (int i = 0; i < topo->ndevices; i++) {
        const topo_device_t *d = &topo->devices[i];
        printf("    {\"name\": \"%s\", \"kind\": \"%s\", \"busid\": \"%s\", \"osdev\": ", d->name,
               d->kind == DEV_NIC ? "nic" : "gpu", d->busid);
        json_string(stdout, d->osdev);
        printf(", \"numa_node\": %d}%s\n", d->numa_node, i + 1 < topo->ndevices ? "," : "");
    }
    printf("  ]\n}\n");
}

int cmd_info(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        int rc = tool_view_option(argc, argv, &i, &json);
        if (rc > 0)
            return rc;
        if (rc < 0) {
            fprintf(stderr, "loci info: unknown option '%s'; usage: loci info [--json] [--from NODE]\n",
                    argv[i]);
            return 2;
        }
    }
    int n = loci_target_count();
    if (json)
        print_json(n);
    else
        print_table(n);
    return 0;
}
