/*
 * partition=interleave: a block spread page by page over several NUMA nodes.
 * Where the kernel weighs the nodes (MPOL_WEIGHTED_INTERLEAVE, Linux 6.9+),
 * a node should take pages in proportion to its bandwidth: a stream over the
 * block then draws on every node at that node's own rate instead of waiting
 * on the slowest one, which plain round-robin does. The weights the kernel
 * uses are the system's (provider/interleave_weights.c): loci derives the
 * ones the bandwidths ask for, compares, and says once per process when the
 * system's differ; `loci weights --set` (root) writes them.
 */
#include "os/vm.h"
#include "alloc/allocator.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

int interleave_weights(const uint64_t *bandwidth, int n, unsigned *weights)
{
    uint64_t lo = UINT64_MAX;
    double total = 0;
    if (n > PLACE_MAX_NODES)
        return loci__fail(LOCI_EINVAL, "interleave weights for %d nodes: at most %d", n, PLACE_MAX_NODES);
    for (int i = 0; i < n; i++)
        weights[i] = 1;
    for (int i = 0; i < n; i++) {
        if (bandwidth[i] == 0)
            return LOCI_ENOTSUP; /* even shares: nothing to weigh by */
        lo = bandwidth[i] < lo ? bandwidth[i] : lo;
        total += (double)bandwidth[i];
    }
    /* The smallest weights whose shares are within 1 % of the bandwidths'
     * (small weights: a short cycle, so even a small block gets its share);
     * else the closest the kernel's 1..255 allows. */
    unsigned cand[PLACE_MAX_NODES]; /* not thread-local: libloci's static TLS must stay small enough to dlopen */
    double best = INFINITY;
    for (unsigned scale = 1; scale <= VM_MAX_WEIGHT; scale++) {
        double sum = 0, err = 0;
        bool clamped = false;
        for (int i = 0; i < n; i++) {
            double x = (double)bandwidth[i] * scale / (double)lo;
            clamped |= x > VM_MAX_WEIGHT + 0.5;
            cand[i] = x > VM_MAX_WEIGHT ? VM_MAX_WEIGHT : (unsigned)lround(x);
            sum += cand[i];
        }
        if (clamped && scale > 1)
            break; /* larger scales only clamp more */
        for (int i = 0; i < n; i++) {
            double want = (double)bandwidth[i] / total, e = fabs(cand[i] / sum - want) / want;
            err = e > err ? e : err;
        }
        if (err < best) {
            best = err;
            memcpy(weights, cand, (size_t)n * sizeof *weights);
        }
        if (err <= 0.01 || clamped)
            break;
    }
    return 0;
}

int interleave_nodes(int initiator, const uint64_t *nodemask, int *nodes, uint64_t *bandwidth, int max)
{
    const topo_t *t = topo_get();
    int n = 0;
    for (int i = 0; t && i < t->ntargets && n < max; i++) {
        const struct loci_target *tg = &t->targets[i];
        int node = tg->numa_node;
        if (node < 0 || node >= PLACE_MAX_NODES || !(nodemask[node / 64] >> (node % 64) & 1))
            continue;
        nodes[n] = node;
        bandwidth[n++] = topo_bandwidth(tg, initiator);
    }
    return n;
}

/* "2:8:1" (sep ':') or "0,1,2" (sep ',') into buf. */
static const char *join(const unsigned *v, int n, const char *sep, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%u", i ? sep : "", v[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    return buf;
}

void interleave_check(const place_t *place, int initiator)
{
    static atomic_bool checked;
    if (place->simulated || place->policy != PLACE_WEIGHTED_INTERLEAVE ||
        atomic_exchange_explicit(&checked, true, memory_order_relaxed))
        return;
    if (!vm_has_weighted_interleave())
        return; /* the probe said so already: plain round-robin */
    enum { MAX = 64 };
    int nodes[MAX];
    uint64_t bw[MAX];
    unsigned want[MAX], now[MAX], ids[MAX];
    int n = interleave_nodes(initiator, place->nodemask, nodes, bw, MAX);
    if (n < 2 || interleave_weights(bw, n, want) != 0)
        return;
    double sum_want = 0, sum_now = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        if (vm_interleave_weight(nodes[i], &now[i]) != 0)
            return;
        ids[i] = (unsigned)nodes[i];
        sum_want += want[i];
        sum_now += now[i];
    }
    for (int i = 0; i < n; i++) {
        double w = want[i] / sum_want, e = fabs(now[i] / sum_now - w) / w;
        worst = e > worst ? e : worst;
    }
    if (worst <= 0.02)
        return;
    char nodes_txt[128], a[256], b[256];
    loci__log(LOCI_LOG_INFO,
              "partition=interleave over nodes %s: the kernel's interleave weights are %s, the nodes' bandwidths "
              "ask for %s; `loci weights --set` (root) sets them for the whole system",
              join(ids, n, ",", nodes_txt, sizeof nodes_txt), join(now, n, ":", a, sizeof a),
              join(want, n, ":", b, sizeof b));
}
