/*
 * Intents (DESIGN.md §3): parsed into terms, then resolved against the
 * topology into a ranked list of targets plus placement traits.
 */
#ifndef LOCI_INTENT_H
#define LOCI_INTENT_H

#include "internal.h"
#include "topo/topo.h"

#include <stdint.h>

#define INTENT_MAX_TERMS 32
#define INTENT_MAX_TEXT 512

typedef enum {
    TERM_BANDWIDTH,   /* bandwidth=high */
    TERM_LATENCY,     /* latency=low */
    TERM_CAPACITY,    /* capacity=large */
    TERM_NEAR,        /* near=pe | nic[:N] | gpu[:N] | numa:N */
    TERM_USE,         /* use=cpu | gpu[:N] | cpu+gpu[:N] */
    TERM_ACCESS,      /* access=process|node|job|global */
    TERM_PERSIST,     /* persist */
    TERM_KIND,        /* kind=dram|hbm|cxl|pmem|ssd|gpu|gpu-host */
    TERM_TARGET,      /* target=NAME */
    TERM_FALLBACK,    /* fallback=next|default|null|abort */
    TERM_ALIGN,       /* align=N */
    TERM_PARTITION,   /* partition=interleave|blocked|nearest */
    TERM_PINNED,      /* pinned */
    TERM_MODE,        /* mode=mmap|paged */
    TERM_CACHE,       /* cache=SIZE */
    TERM_CHUNK,       /* chunk=SIZE */
    TERM_OBJECT,      /* object=SIZE: the store's objects (kind=store) */
    TERM_DIRTY_LIMIT, /* dirty_limit=PCT */
    TERM_DIRTY_BACKGROUND, /* dirty_background=PCT */
    TERM_TIER,        /* tier=auto */
    TERM_KEY_COUNT
} intent_key_t;

typedef enum { NEAR_PE, NEAR_NIC, NEAR_GPU, NEAR_NUMA } intent_near_t;
typedef enum { ACCESS_PROCESS, ACCESS_NODE, ACCESS_JOB, ACCESS_GLOBAL } intent_access_t;
typedef enum { FALLBACK_NEXT, FALLBACK_DEFAULT, FALLBACK_NULL, FALLBACK_ABORT } intent_fallback_t;
typedef enum { PARTITION_NONE, PARTITION_INTERLEAVE, PARTITION_BLOCKED, PARTITION_NEAREST } intent_partition_t;
typedef enum { MODE_DEFAULT, MODE_MMAP, MODE_PAGED } intent_mode_t;
typedef enum { TIER_FIXED = 0, TIER_AUTO } intent_tier_t;

/** One term, `key[=value][!]`. */
typedef struct {
    intent_key_t key;
    bool constraint;    /* trailing '!' */
    int position;       /* 1-based term number in the text, for messages */
    union {
        int near_kind;  /* intent_near_t for TERM_NEAR */
        int use_gpu;    /* TERM_USE: 0 = cpu, 1 = gpu, 2 = cpu+gpu (managed memory) */
        int access;     /* intent_access_t */
        int kind;       /* topo_kind_t */
        int fallback;   /* intent_fallback_t */
        int partition;  /* intent_partition_t */
        int mode;       /* intent_mode_t */
        int tier;       /* intent_tier_t */
    } v;
    int index;          /* near=nic:N / gpu:N / numa:N, use=gpu:N; -1 = any */
    uint64_t size;      /* align / cache / chunk in bytes; dirty_limit / dirty_background in % */
    char name[32];      /* target=NAME, lower-cased */
} intent_term_t;

typedef struct {
    intent_term_t terms[INTENT_MAX_TERMS];
    int nterms;
    /* Canonical text: terms lower-cased, whitespace removed, sizes in bytes;
     * two intents meaning the same thing have the same canonical text. */
    char canonical[INTENT_MAX_TEXT];
} intent_t;

/** Parse `text` (NULL or "" = local DRAM). On error returns LOCI_EINVAL with
 *  loci_last_error() naming the term, its position and what would be right. */
int intent_parse(const char *text, intent_t *out);

/** The first term with `key`, or NULL. */
const intent_term_t *intent_find(const intent_t *in, intent_key_t key);

#define RESOLVE_MAX_CANDIDATES 16

/** What an intent resolves to on this machine, from one initiator. */
typedef struct {
    const struct loci_target *candidates[RESOLVE_MAX_CANDIDATES]; /* best first */
    int ncandidates;
    /* Hard constraints were given: allocations must not leave `candidates`
     * (numa provider: MPOL_BIND); otherwise MPOL_PREFERRED. */
    bool strict;
    int initiator;
    intent_fallback_t fallback;
    intent_partition_t partition;
    intent_access_t access;
    intent_mode_t mode;
    bool mode_forced;   /* mode=...! : no other mode will do */
    bool persist, pinned;
    bool managed;       /* use=cpu+gpu: GPU targets give managed memory, not device memory */
    bool gpu_pinned;    /* pinned near=gpu: host memory registered with the GPU driver */
    bool tier_auto;     /* tier=auto: an arena's place among the candidates follows measured heat (src/tiering) */
    bool by_speed;      /* tier=auto alone: the node's memory, fastest first (kernel memory tier, bandwidth) */
    uint64_t align, cache, chunk; /* 0 = default */
    uint64_t object;    /* bytes per store object (kind=store), 0 = the target's or the default */
    unsigned dirty_limit, dirty_background; /* % of a paged cache, 0 = the target's or the default */
} resolution_t;

/** Resolve a parsed intent for the calling thread's initiator. On failure
 *  (nothing satisfies the constraints) returns LOCI_ENOENT and names the
 *  constraint and this machine's targets in loci_last_error(). */
int intent_resolve(const intent_t *in, resolution_t *out);
/** The same from NUMA node `initiator`'s view (an allocator or arena
 *  resolved again after the topology changed, on another thread). */
int intent_resolve_from(const intent_t *in, int initiator, resolution_t *out);

/** Why each dropped target was dropped (for `loci resolve`): writes one line
 *  per target not among the candidates into buf. */
int intent_explain(const intent_t *in, const resolution_t *res, char *buf, size_t len);

#endif
