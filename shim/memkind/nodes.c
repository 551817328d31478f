/*
 * Which NUMA nodes are high-bandwidth, kmem-onlined persistent memory, or
 * regular: loci's classification of this machine (hbm, pmem and dram NUMA
 * targets), unless MEMKIND_HBW_NODES or MEMKIND_DAX_KMEM_NODES names them —
 * memkind's overrides, parsed as memkind does (libnuma's
 * numa_parse_nodestring: "1-3,5"), once per process. Also the three node
 * masks of memkind's internal interface that memkind's own tests call.
 */
#include "memkind_shim.h"

#include <numa.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MASK_WORDS 16 /* 1024 nodes */
#define WORD_BITS (8 * sizeof(unsigned long))

typedef struct {
    const char *variable;
    pthread_once_t once;
    int rc; /* MEMKIND_SUCCESS, or MEMKIND_ERROR_ENVIRON when the variable does not parse */
    bool set;
    unsigned long mask[MASK_WORDS];
} override_t;

static override_t overrides[] = {
    [NODES_HBW] = {.variable = "MEMKIND_HBW_NODES", .once = PTHREAD_ONCE_INIT},
    [NODES_DAX_KMEM] = {.variable = "MEMKIND_DAX_KMEM_NODES", .once = PTHREAD_ONCE_INIT},
};

static void read_override(override_t *o)
{
    const char *text = getenv(o->variable);
    if (!text)
        return;
    o->set = true;
    struct bitmask *bm = numa_available() < 0 ? NULL : numa_parse_nodestring(text);
    if (!bm) {
        mk_log(LOCI_LOG_ERROR, "%s=\"%s\": not a list of this machine's NUMA nodes (e.g. 1-3,5): the kinds it "
                               "names are unavailable", o->variable, text);
        o->rc = MEMKIND_ERROR_ENVIRON;
        return;
    }
    for (unsigned long n = 0; n < bm->size && n < MASK_WORDS * WORD_BITS; n++)
        if (numa_bitmask_isbitset(bm, (unsigned)n))
            o->mask[n / WORD_BITS] |= 1ul << (n % WORD_BITS);
    numa_bitmask_free(bm);
}

static void read_hbw(void) { read_override(&overrides[NODES_HBW]); }
static void read_dax_kmem(void) { read_override(&overrides[NODES_DAX_KMEM]); }

static override_t *override_of(node_class_t c)
{
    override_t *o = &overrides[c];
    pthread_once(&o->once, c == NODES_HBW ? read_hbw : read_dax_kmem);
    return o;
}

bool nodes_overridden(node_class_t c) { return c != NODES_OWN && override_of(c)->set; }

/* The NUMA targets loci classified as `kind`, that are here now. */
static void classified(const char *kind, unsigned long *mask)
{
    int count = loci_target_count();
    for (int i = 0; i < count; i++) {
        loci_target_info_t info;
        if (loci_target_info(loci_target_at(i), &info) == 0 && info.numa_node >= 0 &&
            info.numa_node < (int)(MASK_WORDS * WORD_BITS) && !(info.flags & LOCI_TARGET_GONE) &&
            strcmp(info.kind, kind) == 0)
            mask[info.numa_node / WORD_BITS] |= 1ul << (info.numa_node % WORD_BITS);
    }
}

/* Copy mask into memkind's (nodemask, maxnode) bitmask; whether any bit is set. */
static bool copy_out(const unsigned long *mask, unsigned long *nodemask, unsigned long maxnode)
{
    bool any = false;
    unsigned long words = (maxnode + WORD_BITS - 1) / WORD_BITS;
    memset(nodemask, 0, words * sizeof *nodemask);
    for (unsigned long n = 0; n < maxnode && n < MASK_WORDS * WORD_BITS; n++)
        if (mask[n / WORD_BITS] & (1ul << (n % WORD_BITS))) {
            nodemask[n / WORD_BITS] |= 1ul << (n % WORD_BITS);
            any = true;
        }
    return any;
}

int nodes_of_class(node_class_t c, unsigned long *nodemask, unsigned long maxnode)
{
    unsigned long mask[MASK_WORDS] = {0};
    if (nodes_overridden(c)) {
        override_t *o = override_of(c);
        if (o->rc != MEMKIND_SUCCESS)
            return o->rc;
        memcpy(mask, o->mask, sizeof mask);
    } else {
        classified(c == NODES_HBW ? "hbm" : "pmem", mask);
    }
    return copy_out(mask, nodemask, maxnode) ? MEMKIND_SUCCESS : MEMKIND_ERROR_UNAVAILABLE;
}

/* memkind's internal interface, called by its test suite (and so by programs
 * built like it): the nodes each family of kinds may use. */
MK_EXPORT int memkind_hbw_all_get_mbind_nodemask(memkind_t kind, unsigned long *nodemask, unsigned long maxnode)
{
    return nodemask ? nodes_of_class(NODES_HBW, nodemask, maxnode) : MEMKIND_ERROR_INVALID;
}

MK_EXPORT int memkind_dax_kmem_all_get_mbind_nodemask(memkind_t kind, unsigned long *nodemask, unsigned long maxnode)
{
    return nodemask ? nodes_of_class(NODES_DAX_KMEM, nodemask, maxnode) : MEMKIND_ERROR_INVALID;
}

MK_EXPORT int memkind_regular_all_get_mbind_nodemask(memkind_t kind, unsigned long *nodemask, unsigned long maxnode)
{
    if (!nodemask)
        return MEMKIND_ERROR_INVALID;
    unsigned long mask[MASK_WORDS] = {0};
    classified("dram", mask);
    return copy_out(mask, nodemask, maxnode) ? MEMKIND_SUCCESS : MEMKIND_ERROR_UNAVAILABLE;
}
