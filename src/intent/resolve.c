/*
 * Resolution of a parsed intent on this machine, from the calling thread's
 * initiator (DESIGN.md §3):
 *  1. the pool: which targets could hold the data at all — CPU memory unless
 *     the intent asks for GPU memory, file tiers only when it asks for
 *     persistence, a file mode or one of them by kind or name, the job's
 *     aggregate store only for access=job/global or by kind or name; a store
 *     that did not answer at init never, nor a target that went away at run
 *     time;
 *  2. filters: every constraint (`!`), and the terms that state requirements
 *     rather than preferences (use=, access=, persist, mode=) — data that must
 *     survive the job never silently lands in DRAM;
 *  3. ranking: hints in the order written, lexicographically (an earlier hint
 *     decides unless two targets are within 10 % of each other on it), then
 *     distance to the initiator, then capacity. kind=pmem, hint or
 *     constraint, ranks persistent memory before an NVDIMM onlined as system
 *     RAM (volatile, and a NUMA node: nearer) — an earlier hint may say
 *     otherwise.
 */
#include "intent/intent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const topo_t *topo;
    int initiator;
    const struct loci_target *dram; /* the initiator's own DRAM */
} view_t;

/* ---- what each term says about one target -------------------------------- */

/* nicN / gpuN by name: GPUs are numbered as the CUDA driver numbers them
 * where it knows them (gpu_source.c), so hwloc's order is not theirs. */
static int device_index(const topo_t *t, topo_device_kind_t kind, int ordinal)
{
    char name[16];
    snprintf(name, sizeof name, "%s%d", kind == DEV_NIC ? "nic" : "gpu", ordinal);
    for (int i = 0; i < t->ndevices; i++)
        if (t->devices[i].kind == kind && strcmp(t->devices[i].name, name) == 0)
            return i;
    return -1;
}

/* Which GPU a target's memory is: its CUDA device, or the N of a gpuN
 * NUMA node the driver did not claim; -1 for other memory. */
static int gpu_ordinal(const struct loci_target *tg)
{
    int n;
    if (tg->cuda_device >= 0)
        return tg->cuda_device;
    return tg->kind == KIND_GPU && sscanf(tg->name, "gpu%d", &n) == 1 ? n : -1;
}

/* Device memory: a GPU's own memory, outside every NUMA node. */
static bool is_device_memory(const struct loci_target *tg)
{
    return tg->cuda_device >= 0 && tg->numa_node < 0;
}

static bool near_device(const view_t *v, const struct loci_target *tg, topo_device_kind_t kind, int ordinal)
{
    for (int i = 0; i < v->topo->ndevices; i++) {
        bool wanted = ordinal < 0 ? v->topo->devices[i].kind == kind : i == device_index(v->topo, kind, ordinal);
        if (wanted && (tg->near_devices & (1ull << i)))
            return true;
    }
    return false;
}

static bool near_pe(const view_t *v, const struct loci_target *tg)
{
    const topo_node_t *ini = topo_node((topo_t *)v->topo, v->initiator);
    const topo_node_t *n = topo_node((topo_t *)v->topo, tg->numa_node);
    return ini && n && hwloc_bitmap_isincluded(ini->cpuset, n->cpuset);
}

static bool is_near(const view_t *v, const struct loci_target *tg, const intent_term_t *term)
{
    switch (term->v.near_kind) {
    case NEAR_PE: return near_pe(v, tg);
    case NEAR_NIC: return near_device(v, tg, DEV_NIC, term->index);
    case NEAR_GPU: return near_device(v, tg, DEV_GPU, term->index);
    default: return tg->numa_node == term->index;
    }
}

/* access=node: other processes of this node map it; job: every node of the
 * job reaches it — only the aggregate store, never node-local memory;
 * global: that, and it outlives the job. */
static bool shareable_enough(const struct loci_target *tg, int access)
{
    switch (access) {
    case ACCESS_PROCESS: return true;
    case ACCESS_NODE: return tg->flags & LOCI_TARGET_SHAREABLE;
    case ACCESS_JOB: return tg->flags & LOCI_TARGET_JOB_WIDE;
    default: return (tg->flags & LOCI_TARGET_JOB_WIDE) && (tg->flags & LOCI_TARGET_PERSISTENT);
    }
}

/* Does the target satisfy the term as a filter? If not, say why in `why`. */
static bool passes(const view_t *v, const struct loci_target *tg, const intent_term_t *term, char *why,
                   size_t len)
{
    const struct loci_target *d = v->dram;
    int ini = v->initiator;
    switch (term->key) {
    case TERM_BANDWIDTH:
        if (topo_bandwidth(tg, ini) > topo_bandwidth(d, ini))
            return true;
        snprintf(why, len, "%llu MB/s is not above %s's %llu MB/s", (unsigned long long)topo_bandwidth(tg, ini),
                 d->name, (unsigned long long)topo_bandwidth(d, ini));
        return false;
    case TERM_LATENCY:
        if (topo_latency(tg, ini) && topo_latency(tg, ini) < topo_latency(d, ini))
            return true;
        snprintf(why, len, "%llu ns is not below %s's %llu ns", (unsigned long long)topo_latency(tg, ini), d->name,
                 (unsigned long long)topo_latency(d, ini));
        return false;
    case TERM_CAPACITY:
        if (tg->capacity.value > d->capacity.value)
            return true;
        snprintf(why, len, "its capacity is not above %s's", d->name);
        return false;
    case TERM_NEAR:
        if (is_near(v, tg, term))
            return true;
        snprintf(why, len, "not near %s", term->v.near_kind == NEAR_PE    ? "the calling CPU"
                                          : term->v.near_kind == NEAR_NIC ? "the NIC"
                                          : term->v.near_kind == NEAR_GPU ? "the GPU"
                                                                          : "that NUMA node");
        return false;
    case TERM_USE: {
        /* use=cpu+gpu: device memory qualifies, served as managed memory */
        bool cpu = (tg->flags & LOCI_TARGET_CPU_ACCESSIBLE) || (term->v.use_gpu == 2 && is_device_memory(tg));
        bool gpu = (tg->flags & LOCI_TARGET_GPU_ACCESSIBLE) != 0;
        bool ok = term->v.use_gpu == 0 ? cpu : term->v.use_gpu == 1 ? gpu : cpu && gpu;
        if (ok && term->v.use_gpu && term->index >= 0 && gpu_ordinal(tg) != term->index) {
            snprintf(why, len, "memory of another GPU than gpu%d", term->index);
            return false;
        }
        if (ok)
            return true;
        snprintf(why, len, "not %s-accessible", term->v.use_gpu == 0 ? "CPU" : term->v.use_gpu == 1 ? "GPU" : "CPU and GPU");
        return false;
    }
    case TERM_ACCESS:
        if (shareable_enough(tg, term->v.access))
            return true;
        snprintf(why, len, "%s", term->v.access >= ACCESS_JOB ? "node-local: other nodes of the job cannot reach it"
                                                              : "cannot be shared that widely");
        return false;
    case TERM_PERSIST:
        if (tg->flags & LOCI_TARGET_PERSISTENT)
            return true;
        snprintf(why, len, "not persistent");
        return false;
    case TERM_KIND:
        if ((int)tg->kind == term->v.kind)
            return true;
        snprintf(why, len, "kind %s", topo_kind_name(tg->kind));
        return false;
    case TERM_TARGET:
        if (strcmp(tg->name, term->name) == 0)
            return true;
        snprintf(why, len, "not %s", term->name);
        return false;
    case TERM_MODE:
        if (tg->path || (tg->kind == KIND_STORE && term->v.mode != MODE_MMAP))
            return true;
        snprintf(why, len, "%s", tg->kind == KIND_STORE ? "the store is always paged (no file to map)"
                                                        : "mode= needs a file tier");
        return false;
    default:
        return true; /* traits: no effect on which targets qualify */
    }
}

/* Requirements filter whether or not they carry a `!`. */
static bool always_filters(const intent_term_t *term)
{
    return term->key == TERM_USE || term->key == TERM_ACCESS || term->key == TERM_PERSIST ||
           (term->key == TERM_MODE && term->v.mode != MODE_DEFAULT);
}

static bool is_hint(const intent_term_t *term)
{
    switch (term->key) {
    case TERM_BANDWIDTH: case TERM_LATENCY: case TERM_CAPACITY: case TERM_NEAR:
    case TERM_KIND: case TERM_TARGET:
        return !term->constraint;
    default:
        return false;
    }
}

/* ---- the pool of targets an intent may draw from -------------------------- */

static bool asks_for(const intent_t *in, const struct loci_target *tg)
{
    for (int i = 0; i < in->nterms; i++) {
        const intent_term_t *term = &in->terms[i];
        if ((term->key == TERM_KIND && term->v.kind == (int)tg->kind) ||
            (term->key == TERM_TARGET && strcmp(term->name, tg->name) == 0))
            return true;
    }
    return false;
}

static bool prefers_something(const intent_t *in)
{
    for (int i = 0; i < in->nterms; i++)
        switch (in->terms[i].key) {
        case TERM_BANDWIDTH: case TERM_LATENCY: case TERM_CAPACITY: case TERM_NEAR:
        case TERM_KIND: case TERM_TARGET:
            return true;
        default:
            break;
        }
    return false;
}

/* tier=auto with no preference of its own: the arena tiers over all of the
 * node's memory (DESIGN.md §3), not over DRAM alone — one candidate would
 * leave tiering nothing to do and the fallback nowhere to go. */
static bool tiers_by_default(const intent_t *in)
{
    const intent_term_t *tier = intent_find(in, TERM_TIER);
    return tier && tier->v.tier == TIER_AUTO && !prefers_something(in);
}

/* Memory a plain program may use: a NUMA node of DRAM, HBM, CXL or memory
 * onlined from a device (kmem); not GPU memory, a file tier, a device-DAX
 * mapping or the store (the caller has ruled those out already). */
static bool is_node_memory(const struct loci_target *tg)
{
    return tg->numa_node >= 0 && (tg->flags & LOCI_TARGET_CPU_ACCESSIBLE) &&
           (tg->kind == KIND_DRAM || tg->kind == KIND_HBM || tg->kind == KIND_CXL || tg->kind == KIND_PMEM);
}

static bool in_pool(const intent_t *in, const struct loci_target *tg)
{
    if (asks_for(in, tg))
        return true;
    const intent_term_t *use = intent_find(in, TERM_USE);
    bool wants_gpu = use && use->v.use_gpu;
    if (tg->kind == KIND_GPU)
        return wants_gpu;
    if (tg->kind == KIND_STORE) { /* only for data every node must reach */
        const intent_term_t *access = intent_find(in, TERM_ACCESS);
        return access && access->v.access >= ACCESS_JOB;
    }
    if (tg->path) { /* file tiers: only for data meant to be there */
        const intent_term_t *access = intent_find(in, TERM_ACCESS);
        return intent_find(in, TERM_PERSIST) || intent_find(in, TERM_MODE) ||
               (access && access->v.access == ACCESS_GLOBAL);
    }
    if (wants_gpu)
        return tg->flags & LOCI_TARGET_GPU_ACCESSIBLE;
    /* Without a preference the data is ordinary: DRAM (the empty intent is the
     * initiator's DRAM, then the other DRAM by distance), not HBM or CXL —
     * unless tier=auto is to place it over the node's memory. */
    return prefers_something(in) || tg->kind == KIND_DRAM || (tiers_by_default(in) && is_node_memory(tg));
}

/* ---- ranking ---------------------------------------------------------------- */

/* Score of a target on a hint: higher is better; 0 = unknown/worst. */
static double score(const view_t *v, const struct loci_target *tg, const intent_term_t *term)
{
    switch (term->key) {
    case TERM_BANDWIDTH: return (double)topo_bandwidth(tg, v->initiator);
    case TERM_LATENCY: {
        uint64_t lat = topo_latency(tg, v->initiator);
        return lat ? 1e12 / (double)lat : 0; /* unknown latency is never "low" */
    }
    case TERM_CAPACITY: return (double)tg->capacity.value;
    case TERM_NEAR: return is_near(v, tg, term);
    case TERM_KIND: /* persistence is what pmem is asked for first */
        return (int)tg->kind != term->v.kind ? 0 : tg->kind == KIND_PMEM && (tg->flags & LOCI_TARGET_PERSISTENT) ? 2 : 1;
    case TERM_TARGET: return strcmp(tg->name, term->name) == 0;
    default: return 0;
    }
}

typedef struct {
    const view_t *view;
    const intent_t *intent;
    bool by_tiers; /* compare_speed: every candidate has a kernel memory tier */
} rank_ctx_t;

static _Thread_local rank_ctx_t rank_ctx; /* qsort has no context argument */

static int distance_to(const view_t *v, const struct loci_target *tg)
{
    if (tg->numa_node < 0)
        return 1 << 20; /* file tiers and GPUs: farther than any NUMA node */
    int d = topo_distance(v->topo, v->initiator, tg->numa_node);
    return d ? d : (tg->numa_node == v->initiator ? 10 : 20);
}

static int compare_targets(const void *pa, const void *pb)
{
    const struct loci_target *a = *(const struct loci_target *const *)pa;
    const struct loci_target *b = *(const struct loci_target *const *)pb;
    const view_t *v = rank_ctx.view;
    for (int i = 0; i < rank_ctx.intent->nterms; i++) {
        const intent_term_t *term = &rank_ctx.intent->terms[i];
        if (!is_hint(term) && term->key != TERM_PERSIST && term->key != TERM_KIND)
            continue;
        double sa = score(v, a, term), sb = score(v, b, term);
        /* figures are approximate: within 10 % is a tie, decided by later terms */
        if (sa > sb * 1.1 || (sb == 0 && sa > 0))
            return -1;
        if (sb > sa * 1.1 || (sa == 0 && sb > 0))
            return 1;
    }
    int da = distance_to(v, a), db = distance_to(v, b);
    if (da != db)
        return da < db ? -1 : 1;
    if (a->capacity.value != b->capacity.value)
        return a->capacity.value > b->capacity.value ? -1 : 1;
    return a->index - b->index;
}

/* The kernel's memory tier of a NUMA target (a larger one is slower
 * memory), -1 when the kernel gives none. */
static int memory_tier(const view_t *v, const struct loci_target *tg)
{
    const topo_node_t *n = tg->numa_node >= 0 ? topo_node((topo_t *)v->topo, tg->numa_node) : NULL;
    return n ? __atomic_load_n(&n->memtier, __ATOMIC_RELAXED) : -1; /* a refresh may change it (merge.c) */
}

/* tier=auto alone: fastest first, so that the plan puts hot arenas there
 * and lets the rest go down to the largest (DESIGN.md §3). The kernel's
 * memory tiers come first when it gives one for every candidate — they are
 * the order its own demotion follows, and on 6.12 they come from HMAT —
 * then bandwidth from the initiator (measured where `loci bench --save`
 * measured it), which orders the nodes of one tier (6.1 puts every node in
 * the default tier), then latency, distance and capacity. */
static int compare_speed(const void *pa, const void *pb)
{
    const struct loci_target *a = *(const struct loci_target *const *)pa;
    const struct loci_target *b = *(const struct loci_target *const *)pb;
    const view_t *v = rank_ctx.view;
    int ta = memory_tier(v, a), tb = memory_tier(v, b);
    if (rank_ctx.by_tiers && ta != tb)
        return ta < tb ? -1 : 1;
    double ba = (double)topo_bandwidth(a, v->initiator), bb = (double)topo_bandwidth(b, v->initiator);
    if (ba > bb * 1.1 || bb > ba * 1.1)
        return ba > bb ? -1 : 1;
    uint64_t la = topo_latency(a, v->initiator), lb = topo_latency(b, v->initiator);
    if (la && lb && (la > lb * 1.1 || lb > la * 1.1))
        return la < lb ? -1 : 1;
    return compare_targets(pa, pb); /* no hint: distance, then capacity */
}

/* ---- resolution ------------------------------------------------------------- */

static void describe_targets(const view_t *v, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < v->topo->ntargets; i++) {
        const struct loci_target *tg = &v->topo->targets[i];
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s (%s, %llu MB/s, %llu ns)", i ? ", " : "", tg->name,
                 topo_kind_name(tg->kind), (unsigned long long)topo_bandwidth(tg, v->initiator),
                 (unsigned long long)topo_latency(tg, v->initiator));
    }
}

static bool has_store(const topo_t *t)
{
    for (int i = 0; i < t->ntargets; i++)
        if (t->targets[i].kind == KIND_STORE)
            return true;
    return false;
}

static int check_names(const view_t *v, const intent_t *in)
{
    for (int i = 0; i < in->nterms; i++) {
        const intent_term_t *term = &in->terms[i];
        if (term->key != TERM_TARGET)
            continue;
        bool found = false;
        for (int k = 0; k < v->topo->ntargets && !found; k++) {
            const struct loci_target *tg = &v->topo->targets[k];
            char node_name[24];
            snprintf(node_name, sizeof node_name, "node:%d", tg->numa_node);
            found = strcmp(tg->name, term->name) == 0 || (tg->numa_node >= 0 && strcmp(node_name, term->name) == 0);
        }
        if (!found) {
            char names[1024];
            describe_targets(v, names, sizeof names);
            return loci__fail(LOCI_ENOENT, "intent \"%s\": unknown target '%s' at %d; this machine has %s",
                              in->canonical, term->name, term->position, names);
        }
    }
    return 0;
}

/* target=node:N names a NUMA node: compare with the node's own name. */
static void canonical_target_names(const view_t *v, intent_t *in)
{
    for (int i = 0; i < in->nterms; i++) {
        intent_term_t *term = &in->terms[i];
        int node;
        char end;
        if (term->key == TERM_TARGET && sscanf(term->name, "node:%d%c", &node, &end) == 1) {
            const struct loci_target *tg = topo_target_of_node((topo_t *)v->topo, node);
            if (tg)
                snprintf(term->name, sizeof term->name, "%s", tg->name);
        }
    }
}

/* The text of a term, taken from the canonical intent. */
static const char *term_text(const intent_t *in, const intent_term_t *term, char *buf, size_t len)
{
    const char *p = in->canonical;
    for (int i = 1; i < term->position && p; i++)
        if ((p = strchr(p, ',')))
            p++;
    size_t n = p ? strcspn(p, ",") : 0;
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p ? p : "");
    return buf;
}

/* The first filter a target fails, or NULL. */
static const intent_term_t *failed_filter(const view_t *v, const intent_t *in, const struct loci_target *tg,
                                          char *why, size_t len)
{
    for (int i = 0; i < in->nterms; i++) {
        const intent_term_t *term = &in->terms[i];
        if ((term->constraint || always_filters(term)) && !passes(v, tg, term, why, len))
            return term;
    }
    return NULL;
}

static void apply_traits(const intent_t *in, resolution_t *out)
{
    for (int i = 0; i < in->nterms; i++) {
        const intent_term_t *term = &in->terms[i];
        switch (term->key) {
        case TERM_FALLBACK: out->fallback = term->v.fallback; break;
        case TERM_PARTITION: out->partition = term->v.partition; break;
        case TERM_ACCESS: out->access = term->v.access; break;
        case TERM_MODE:
            out->mode = term->v.mode;
            out->mode_forced = term->constraint;
            break;
        case TERM_PERSIST: out->persist = true; break;
        case TERM_PINNED: out->pinned = true; break;
        case TERM_ALIGN: out->align = term->size; break;
        case TERM_CACHE: out->cache = term->size; break;
        case TERM_CHUNK: out->chunk = term->size; break;
        case TERM_OBJECT: out->object = term->size; break;
        case TERM_DIRTY_LIMIT: out->dirty_limit = (unsigned)term->size; break;
        case TERM_DIRTY_BACKGROUND: out->dirty_background = (unsigned)term->size; break;
        case TERM_TIER: out->tier_auto = term->v.tier == TIER_AUTO; break;
        default:
            if (term->constraint)
                out->strict = true;
        }
    }
}

/* GPU terms this machine or the memory kinds cannot honour, said plainly
 * rather than as "no target satisfies". */
static int check_gpu_terms(const view_t *v, const intent_t *in)
{
    const intent_term_t *use = intent_find(in, TERM_USE);
    if (!use || !use->v.use_gpu)
        return 0;
    int gpus = 0;
    char names[256] = "";
    for (int i = 0; i < v->topo->ntargets; i++) {
        const struct loci_target *tg = &v->topo->targets[i];
        if (gpu_ordinal(tg) < 0)
            continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", gpus++ ? ", " : "", tg->name);
    }
    if (use->index >= gpus && gpus == 0)
        return loci__fail(LOCI_ENOENT, "intent \"%s\": term %d asks for GPU %d, but this machine has no GPU "
                                       "(see `loci info`)", in->canonical, use->position, use->index);
    if (use->index >= gpus)
        return loci__fail(LOCI_ENOENT, "intent \"%s\": term %d asks for GPU %d, but this machine has %d GPU%s (%s); "
                                       "GPUs count from 0", in->canonical, use->position, use->index, gpus,
                          gpus == 1 ? "" : "s", names);
    if (intent_find(in, TERM_PERSIST))
        return loci__fail(LOCI_EINVAL, "intent \"%s\": GPU memory does not outlive the process, so 'persist' "
                                       "cannot go with use=%s; persistent data goes to a file tier or the store "
                                       "(persist without use=)", in->canonical, use->v.use_gpu == 1 ? "gpu" : "cpu+gpu");
    return 0;
}

/* use=gpu with pinned: device memory is always resident; pinned is a trait
 * of host memory. */
static int check_pinned(const intent_t *in, const resolution_t *res)
{
    if (!res->pinned || res->managed || !is_device_memory(res->candidates[0]))
        return 0;
    return loci__fail(LOCI_EINVAL, "intent \"%s\": 'pinned' is for host memory the GPU reaches by DMA, and %s is "
                                   "device memory (always resident on the GPU); for pinned host memory near a GPU "
                                   "write near=gpu:N,pinned, for memory CPU and GPU share use=cpu+gpu",
                      in->canonical, res->candidates[0]->name);
}

/* tier=auto moves the arena among its candidates: terms that leave it
 * nowhere to go, or memory that cannot move keeping its addresses, are
 * refused naming the term (a pool of one target, the machine's doing, is
 * the arena creator's warning: it works, and tiering changes nothing). */
static int check_tier(const view_t *v, const intent_t *in, const resolution_t *res)
{
    if (!res->tier_auto)
        return 0;
    const intent_term_t *tier = intent_find(in, TERM_TIER), *target = intent_find(in, TERM_TARGET);
    const intent_term_t *use = intent_find(in, TERM_USE);
    char text[64];
    if (target)
        return loci__fail(LOCI_EINVAL, "intent \"%s\": '%s' (term %d) names one target, and tier=auto (term %d) "
                                       "moves the arena among several; drop one of them (rank with bandwidth=high, "
                                       "latency=low, kind=... instead)", in->canonical,
                          term_text(in, target, text, sizeof text), target->position, tier->position);
    if (res->mode == MODE_PAGED)
        return loci__fail(LOCI_EINVAL, "intent \"%s\": tier=auto (term %d) moves the arena, and an arena in loci's "
                                       "chunk cache (mode=paged) cannot move keeping its addresses; use mode=mmap",
                          in->canonical, tier->position);
    if (use && use->v.use_gpu == 1)
        return loci__fail(LOCI_EINVAL, "intent \"%s\": tier=auto (term %d) moves the arena, and GPU device memory "
                                       "(use=gpu) cannot move keeping its addresses; use=cpu+gpu gives managed "
                                       "memory, which can", in->canonical, tier->position);
    if (res->ncandidates != 1)
        return 0;
    for (int i = 0; i < v->topo->ntargets; i++) {
        const struct loci_target *tg = &v->topo->targets[i];
        char why[256];
        const intent_term_t *failed;
        if (tg == res->candidates[0] || !in_pool(in, tg) || (tg->flags & LOCI_TARGET_UNREACHABLE) ||
            !(failed = failed_filter(v, in, tg, why, sizeof why)) || !failed->constraint)
            continue;
        return loci__fail(LOCI_EINVAL, "intent \"%s\": '%s' (term %d) leaves %s as the only target, so tier=auto "
                                       "(term %d) could never move the arena (%s also would hold it, but: %s); "
                                       "write it as a hint, without '!'", in->canonical,
                          term_text(in, failed, text, sizeof text), failed->position, res->candidates[0]->name,
                          tier->position, tg->name, why);
    }
    return 0;
}

static bool has_cuda_gpu(const topo_t *t)
{
    for (int i = 0; i < t->ntargets; i++)
        if (t->targets[i].cuda_device >= 0)
            return true;
    return false;
}

static int resolve_view(const view_t *v, const intent_t *original, resolution_t *out)
{
    intent_t in = *original;
    canonical_target_names(v, &in);
    int rc = check_names(v, &in);
    if (rc == 0)
        rc = check_gpu_terms(v, &in);
    if (rc)
        return rc;
    *out = (resolution_t){.initiator = v->initiator};
    apply_traits(&in, out);
    const intent_term_t *use = intent_find(&in, TERM_USE), *near = intent_find(&in, TERM_NEAR);
    out->managed = use && use->v.use_gpu == 2;
    out->gpu_pinned = out->pinned && near && near->v.near_kind == NEAR_GPU && has_cuda_gpu(v->topo);
    const struct loci_target *pool[RESOLVE_MAX_CANDIDATES * 4];
    int n = 0;
    const intent_term_t *first_failed = NULL;
    char why[256];
    const struct loci_target *unreachable = NULL;
    for (int i = 0; i < v->topo->ntargets && n < (int)(sizeof pool / sizeof *pool); i++) {
        const struct loci_target *tg = &v->topo->targets[i];
        if (!in_pool(&in, tg))
            continue;
        if ((tg->flags & LOCI_TARGET_UNREACHABLE) || topo_target_gone(tg)) {
            unreachable = tg;
            continue;
        }
        const intent_term_t *failed = failed_filter(v, &in, tg, why, sizeof why);
        if (!failed)
            pool[n++] = tg;
        else if (!first_failed)
            first_failed = failed;
    }
    if (n == 0) {
        char names[1024];
        describe_targets(v, names, sizeof names);
        char text[64];
        const char *gone = unreachable ? topo_target_gone(unreachable) : NULL;
        if (gone)
            return loci__fail(LOCI_ENODEV, "intent \"%s\": %s would hold it, but it went away at run time: %s",
                              original->canonical, unreachable->name, gone);
        if (unreachable)
            return loci__fail(unreachable->unreachable_code,
                              "intent \"%s\": %s would hold it, but it is unreachable: %s", original->canonical, unreachable->name, unreachable->unreachable);
        const intent_term_t *access = intent_find(&in, TERM_ACCESS);
        if (access && access->v.access >= ACCESS_JOB && !has_store(v->topo))
            return loci__fail(LOCI_ENOENT,
                              "intent \"%s\": access=%s needs memory every node of the job reaches, and only an "
                              "aggregate store does; none is configured: add a [target agg0] section with kind = "
                              "store, store = rados, conf = /path/to/ceph.conf and pool = NAME to LOCI_CONFIG "
                              "(docs/STORE.md); this machine has %s",
                              original->canonical, access->v.access == ACCESS_JOB ? "job" : "global", names);
        if (first_failed)
            return loci__fail(LOCI_ENOENT,
                              "intent \"%s\": no target satisfies '%s' (term %d, seen from NUMA node %d); "
                              "this machine has %s",
                              original->canonical, term_text(original, first_failed, text, sizeof text),
                              first_failed->position, v->initiator, names);
        return loci__fail(LOCI_ENOENT, "intent \"%s\": no target of this kind here; this machine has %s",
                          original->canonical, names);
    }
    rank_ctx = (rank_ctx_t){v, &in, false};
    out->by_speed = tiers_by_default(&in);
    if (out->by_speed) {
        rank_ctx.by_tiers = true;
        for (int i = 0; i < n; i++)
            rank_ctx.by_tiers &= memory_tier(v, pool[i]) >= 0;
        qsort(pool, (size_t)n, sizeof *pool, compare_speed);
    } else {
        qsort(pool, (size_t)n, sizeof *pool, compare_targets);
    }
    out->ncandidates = n < RESOLVE_MAX_CANDIDATES ? n : RESOLVE_MAX_CANDIDATES;
    memcpy(out->candidates, pool, (size_t)out->ncandidates * sizeof *pool);
    rc = check_pinned(original, out);
    return rc ? rc : check_tier(v, &in, out);
}

/* initiator -1: the calling thread's. */
static int make_view(view_t *v, int initiator)
{
    int rc = topo_ensure();
    if (rc)
        return rc;
    v->topo = topo_get();
    v->initiator = initiator >= 0 ? initiator : topo_initiator(v->topo);
    v->dram = topo_local_dram(v->topo, v->initiator);
    if (!v->dram)
        return loci__fail(LOCI_ETOPO, "NUMA node %d has no memory target", v->initiator);
    return 0;
}

int intent_resolve(const intent_t *in, resolution_t *out)
{
    view_t v;
    int rc = make_view(&v, -1);
    return rc ? rc : resolve_view(&v, in, out);
}

int intent_resolve_from(const intent_t *in, int initiator, resolution_t *out)
{
    view_t v;
    int rc = make_view(&v, initiator);
    return rc ? rc : resolve_view(&v, in, out);
}

int intent_explain(const intent_t *original, const resolution_t *res, char *buf, size_t len)
{
    view_t v;
    int rc = make_view(&v, -1);
    if (rc)
        return rc;
    intent_t in = *original;
    canonical_target_names(&v, &in);
    buf[0] = '\0';
    for (int i = 0; i < v.topo->ntargets; i++) {
        const struct loci_target *tg = &v.topo->targets[i];
        bool chosen = false;
        for (int k = 0; k < res->ncandidates; k++)
            chosen |= res->candidates[k] == tg;
        if (chosen)
            continue;
        char why[256] = "ranked below the first 16 candidates";
        const intent_term_t *failed = NULL;
        const intent_term_t *use = intent_find(&in, TERM_USE);
        if (topo_target_gone(tg))
            snprintf(why, sizeof why, "went away at run time: %s", topo_target_gone(tg));
        else if (tg->flags & LOCI_TARGET_UNREACHABLE)
            snprintf(why, sizeof why, "unreachable: %s", tg->unreachable);
        else if (!in_pool(&in, tg))
            snprintf(why, sizeof why, "%s", tg->kind == KIND_STORE ? "the job's aggregate store: ask with access=job, "
                                                                     "access=global, kind=store or target="
                                            : tg->path ? "a file tier: ask with persist, mode= or kind=/target="
                                            : tg->kind == KIND_GPU ? "GPU memory: ask with use=gpu, kind=gpu or target="
                                            : use && use->v.use_gpu ? "no GPU reaches it: use=gpu asks for GPU memory"
                                                                    : "not asked for: ordinary data goes to DRAM unless "
                                                                      "a hint (bandwidth=, latency=, capacity=, near=, "
                                                                      "kind=, target=) says otherwise");
        else
            failed = failed_filter(&v, &in, tg, why, sizeof why);
        size_t used = strlen(buf);
        char text[64];
        if (failed)
            snprintf(buf + used, len - used, "%s: dropped by '%s': %s\n", tg->name,
                     term_text(&in, failed, text, sizeof text), why);
        else
            snprintf(buf + used, len - used, "%s: %s\n", tg->name, why);
    }
    return 0;
}
