/*
 * [target NAME] sections of a config file: one target each, NAME its name.
 *
 *   numa_node = N        the NUMA node it describes           (or)
 *   path = /dir          a file tier in that directory
 *   kind = dram|hbm|cxl|pmem|ssd|gpu|gpu-host|store
 *   capacity = 16GiB     caps what loci places there
 *   bandwidth = 400GB/s  read bandwidth from `initiator`
 *   latency = 150ns      idle latency from `initiator`
 *   initiator = N        node the figures are seen from (default: the nearest node with CPUs)
 *   tiering_budget = 25% how much of it tier=auto arenas may fill: a share of its
 *                        capacity (0-100 %) or a size (docs/TIERING.md); else [tiering] budget
 *
 *   kind = store         the job's aggregate store (docs/STORE.md), with
 *   store = rados        the engine (Ceph RADOS),
 *   conf = /etc/ceph/ceph.conf, pool = loci   where it is, and optionally
 *   user, namespace, keyring, timeout = 30s (bound on every cluster call),
 *   lock_ttl = 30s (a dead writer's region lock expires after it),
 *   object = 4MiB (bytes per object of paged memory there; the intent's object= wins)
 *
 *   dirty_limit = 50%       file tiers (path =) and stores: mode=paged's
 *   dirty_background = 10%  write-behind (docs/NVM.md), % of the cache
 *
 * Each key is checked as it is read, each target as a whole once the file
 * is read; config_source.c applies them to the machine's targets.
 */
#include "topo/topo_internal.h"
#include "units.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const keys[] = {"numa_node", "path",    "kind",      "capacity", "bandwidth", "latency",
                                   "initiator", "store",   "conf",      "pool",     "user",      "namespace",
                                   "keyring",   "timeout", "lock_ttl",  "dirty_limit", "dirty_background",
                                   "tiering_budget", "object"};
enum {
    K_NUMA, K_PATH, K_KIND, K_CAPACITY, K_BANDWIDTH, K_LATENCY, K_INITIATOR,
    K_STORE, K_CONF, K_POOL, K_USER, K_NAMESPACE, K_KEYRING, K_TIMEOUT, K_LOCK_TTL, K_DIRTY_LIMIT,
    K_DIRTY_BACKGROUND, K_TIERING_BUDGET, K_OBJECT, K_COUNT
};
_Static_assert((int)K_COUNT <= (int)TOPO_CONFIG_TARGET_KEYS, "topo_config_target_t.key_line has no room for every key");
/* The keys of mode=paged's caches, for file tiers and stores. */
#define PAGED_KEYS ((1u << K_DIRTY_LIMIT) | (1u << K_DIRTY_BACKGROUND))
/* The keys only a store target takes. */
#define STORE_KEYS                                                                                             \
    ((1u << K_STORE) | (1u << K_CONF) | (1u << K_POOL) | (1u << K_USER) | (1u << K_NAMESPACE) | (1u << K_KEYRING) | \
     (1u << K_TIMEOUT) | (1u << K_LOCK_TTL) | (1u << K_OBJECT))

static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= 16)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= '0' && s[i] <= '9') && s[i] != '-' &&
            s[i] != '_' && !(s[i] >= 'A' && s[i] <= 'Z'))
            return false;
    return true;
}

static topo_config_target_t *find_target(topo_config_t *c, const char *name)
{
    for (int i = 0; i < c->ntargets; i++)
        if (strcasecmp(c->targets[i].name, name) == 0)
            return &c->targets[i];
    return NULL;
}

void topo_config_target_section(topo_config_t *c, const char *section)
{
    char word[32], name[64], extra[2];
    int n = sscanf(section, "%31s %63s %1s", word, name, extra);
    if (n != 2 || strcmp(word, "target") != 0) {
        topo_config_fail(c, "[%s]: unknown section; expected [target NAME], [omp], [shmem], [checkpoint] or [tiering]",
                         section);
        return;
    }
    if (!valid_name(name)) {
        topo_config_fail(c, "[target %s]: a target name is 1-15 letters, digits, '-' or '_' (e.g. hbm0)", name);
        return;
    }
    const topo_config_target_t *first = find_target(c, name);
    if (first) {
        topo_config_fail(c, "duplicate target '%s' (first defined at line %d)", name, first->line);
        return;
    }
    topo_config_target_t *grown = grow_for_one(c->targets, c->ntargets, &c->cap_targets, sizeof *grown, 8);
    if (!grown) {
        topo_config_fail(c, "out of memory");
        return;
    }
    c->targets = grown;
    topo_config_target_t *e = &c->targets[c->ntargets++];
    *e = (topo_config_target_t){.line = c->line, .numa_node = -1, .initiator = -1, .kind = KIND_COUNT};
    snprintf(e->name, sizeof e->name, "%.15s", name); /* valid_name: < 16 chars */
    for (char *p = e->name; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
}

/* Every number goes through units.c's parser; *why says what was wrong. */
static bool parse_int(const char *v, int *out, const char **why)
{
    uint64_t x;
    if (!units_parse_whole(v, 0, 1 << 20, &x, why))
        return false;
    *out = (int)x;
    return true;
}

/* A whole number of seconds, "30", "30s" or "2min", 1 s to 1 h. */
static bool parse_seconds(const char *v, unsigned *out, const char **why)
{
    uint64_t ms;
    if (!units_parse_duration(v, true, &ms, why))
        return false;
    if (ms % 1000 != 0 || ms < 1000 || ms > 3600 * 1000) {
        *why = ms % 1000 ? "not a whole number of seconds" : "out of range";
        return false;
    }
    *out = (unsigned)(ms / 1000);
    return true;
}

/* A percentage of a cache, "50%" or "50", 1 to 100, whole. */
static bool parse_percent(const char *v, unsigned *out, const char **why)
{
    double share;
    if (!units_parse_share(v, true, &share, why))
        return false;
    unsigned pct = (unsigned)(share * 100 + 0.5);
    double off = share * 100 - pct;
    if (pct < 1 || off > 1e-9 || off < -1e-9) {
        *why = pct < 1 ? "out of range" : "not a whole percentage";
        return false;
    }
    *out = pct;
    return true;
}

bool topo_budget_parse(const char *text, topo_budget_t *out, const char **why)
{
    *out = (topo_budget_t){.set = true};
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    if (n > 0 && text[n - 1] == '%')
        return units_parse_share(text, false, &out->share, why);
    if (!units_parse_size(text, &out->bytes, why))
        return false;
    if (out->bytes == 0)
        *why = "a size of 0 bytes: write 0% for none";
    return out->bytes > 0;
}

static int set_text(topo_config_t *c, const char *key, const char *value, char *dst, size_t len)
{
    if (!*value || strlen(value) >= len)
        return topo_config_fail(c, "%s = %s: expected 1 to %zu characters", key, value, len - 1);
    memcpy(dst, value, strlen(value) + 1);
    return 0;
}

static int set_store_key(topo_config_t *c, topo_config_target_t *e, int key, const char *value)
{
    const char *why;
    jobstore_params_t *r = &e->rados;
    switch (key) {
    case K_STORE:
        if (strcasecmp(value, "rados") != 0)
            return topo_config_fail(c, "store = %s: unknown store engine; expected rados (Ceph RADOS)", value);
        snprintf(e->store, sizeof e->store, "rados");
        return 0;
    case K_CONF:
        if (value[0] != '/')
            return topo_config_fail(c, "conf = %s: expected the absolute path of a ceph.conf", value);
        return set_text(c, "conf", value, r->conf, sizeof r->conf);
    case K_POOL: return set_text(c, "pool", value, r->pool, sizeof r->pool);
    case K_USER: return set_text(c, "user", value, r->user, sizeof r->user);
    case K_NAMESPACE: return set_text(c, "namespace", value, r->ns, sizeof r->ns);
    case K_KEYRING:
        if (value[0] != '/')
            return topo_config_fail(c, "keyring = %s: expected the absolute path of a keyring file", value);
        return set_text(c, "keyring", value, r->keyring, sizeof r->keyring);
    case K_TIMEOUT:
    case K_LOCK_TTL:
        if (!parse_seconds(value, key == K_TIMEOUT ? &r->timeout_s : &r->lock_ttl_s, &why))
            return topo_config_fail(c, "%s = %s: %s; expected seconds from 1 to 3600, e.g. 30s or 2min", keys[key],
                                    value, why);
        return 0;
    case K_OBJECT:
        if (!units_parse_size(value, &r->object, &why) || (r->object == 0 && (why = "0 bytes")) ||
            (r->object % 4096 && (why = "not whole 4 KiB pages")) ||
            (r->object > JOBSTORE_OBJECT_MAX && (why = "more than 64 MiB")))
            return topo_config_fail(c, "object = %s: %s; expected a size of whole 4 KiB pages up to 64 MiB, e.g. 4MiB",
                                    value, why);
        return 0;
    }
    return 0;
}

static int set_key(topo_config_t *c, topo_config_target_t *e, int key, const char *value)
{
    const char *why;
    switch (key) {
    case K_NUMA:
        if (!parse_int(value, &e->numa_node, &why))
            return topo_config_fail(c, "numa_node = %s: %s; expected a NUMA node number (e.g. 1)", value, why);
        return 0;
    case K_INITIATOR:
        if (!parse_int(value, &e->initiator, &why))
            return topo_config_fail(c, "initiator = %s: %s; expected a NUMA node number with CPUs (e.g. 0)", value,
                                    why);
        return 0;
    case K_PATH:
        if (value[0] != '/')
            return topo_config_fail(c, "path = %s: expected an absolute directory path", value);
        free(e->path);
        if (!(e->path = strdup(value)))
            return topo_config_fail(c, "out of memory");
        return 0;
    case K_KIND:
        if ((e->kind = topo_kind_parse(value)) == KIND_COUNT)
            return topo_config_fail(c, "kind = %s: unknown kind; expected dram, hbm, cxl, pmem, ssd, gpu or gpu-host",
                                    value);
        return 0;
    case K_CAPACITY:
        if (!units_parse_size(value, &e->capacity, &why) || (e->capacity == 0 && (why = "0 bytes")))
            return topo_config_fail(c, "capacity = %s: %s; expected a size such as 16GiB, 512M or 1T", value, why);
        return 0;
    case K_BANDWIDTH:
        if (!units_parse_bandwidth(value, &e->bandwidth, &why) || (e->bandwidth == 0 && (why = "0 MB/s")))
            return topo_config_fail(c, "bandwidth = %s: %s; expected a bandwidth such as 400GB/s or 12000MB/s", value,
                                    why);
        return 0;
    case K_LATENCY:
        if (!units_parse_latency(value, &e->latency, &why) || (e->latency == 0 && (why = "0 ns")))
            return topo_config_fail(c, "latency = %s: %s; expected a latency such as 120ns or 1.5us", value, why);
        return 0;
    case K_DIRTY_LIMIT:
    case K_DIRTY_BACKGROUND:
        if (!parse_percent(value, key == K_DIRTY_LIMIT ? &e->dirty_limit : &e->dirty_background, &why))
            return topo_config_fail(c, "%s = %s: %s; expected a percentage of the paged cache from 1%% to 100%%, "
                                    "e.g. %s", keys[key], value, why, key == K_DIRTY_LIMIT ? "50%" : "10%");
        return 0;
    case K_TIERING_BUDGET:
        if (!topo_budget_parse(value, &e->tiering_budget, &why))
            return topo_config_fail(c, "tiering_budget = %s: %s; expected a share of the target's capacity from 0%% "
                                       "to 100%% (e.g. 25%%) or a size (e.g. 16GiB)", value, why);
        return 0;
    default:
        return set_store_key(c, e, key, value);
    }
}

void topo_config_target_key(topo_config_t *c, const char *section, const char *key, const char *value)
{
    char word[32], name[64];
    topo_config_target_t *e = sscanf(section, "%31s %63s", word, name) == 2 ? find_target(c, name) : NULL;
    if (!e) {
        topo_config_fail(c, "'%s' outside a [target NAME] section", key);
        return;
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (strcasecmp(key, keys[k]) != 0)
            continue;
        if (e->seen & (1u << k)) {
            topo_config_fail(c, "[target %s]: '%s' given twice", e->name, keys[k]);
            return;
        }
        e->seen |= 1u << k;
        e->key_line[k] = c->line;
        set_key(c, e, k, value);
        return;
    }
    topo_config_fail(c,
                     "[target %s]: unknown key '%s'; expected numa_node, path, kind, capacity, "
                     "bandwidth, latency, initiator, dirty_limit, dirty_background or tiering_budget (and for "
                     "kind = store: store, conf, pool, user, namespace, keyring, timeout, lock_ttl, object)",
                     e->name, key);
}

int topo_config_line(const topo_config_target_t *e, const char *key)
{
    for (int k = 0; k < K_COUNT; k++)
        if (strcmp(keys[k], key) == 0 && e->key_line[k])
            return e->key_line[k];
    return e->line;
}

/* The line of the first of the keys in `mask` the section gives. */
static int first_line(const topo_config_target_t *e, unsigned mask)
{
    int line = 0;
    for (int k = 0; k < K_COUNT; k++)
        if ((mask & (1u << k)) && e->key_line[k] && (!line || e->key_line[k] < line))
            line = e->key_line[k];
    return line ? line : e->line;
}

/* A store target has its engine, conf and pool, and nothing of a node or a
 * directory; store keys belong to store targets only. */
static int check_store(const topo_config_t *c, const topo_config_target_t *e)
{
    if (e->kind != KIND_STORE) {
        if (!(e->seen & STORE_KEYS))
            return 0;
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: store, conf, pool, user, namespace, keyring, timeout, "
                                        "lock_ttl and object belong to a store target; add kind = store", c->path,
                          first_line(e, STORE_KEYS), e->name);
    }
    int kind_line = topo_config_line(e, "kind");
    const char *missing = !e->store[0] ? "store = rados" : !e->rados.conf[0] ? "conf = /path/to/ceph.conf"
                          : !e->rados.pool[0] ? "pool = NAME" : NULL;
    if (missing)
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: kind = store needs %s (docs/STORE.md)", c->path,
                          kind_line, e->name, missing);
    if (e->numa_node >= 0 || e->path)
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: a store target has no %s; remove it", c->path,
                          topo_config_line(e, e->path ? "path" : "numa_node"), e->name, e->path ? "path" : "numa_node");
    if (c->source != SRC_CONFIG)
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: store targets are defined in LOCI_CONFIG, not in saved "
                                        "measurements", c->path, kind_line, e->name);
    return 0;
}

int topo_config_target_check(const topo_config_t *c)
{
    for (int i = 0; i < c->ntargets; i++) {
        const topo_config_target_t *e = &c->targets[i];
        int numa = e->key_line[K_NUMA], path = e->key_line[K_PATH];
        if (e->numa_node >= 0 && e->path) /* the second of the two is the one too many */
            return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: give numa_node or path, not both", c->path,
                              numa > path ? numa : path, e->name);
        if ((e->seen & PAGED_KEYS) && e->numa_node >= 0)
            return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: dirty_limit and dirty_background belong to a file tier "
                                            "(path =) or a store (kind = store): memory paged through loci's cache",
                              c->path, first_line(e, PAGED_KEYS), e->name);
        if ((e->seen & (1u << K_DIRTY_LIMIT)) && (e->seen & (1u << K_DIRTY_BACKGROUND)) &&
            e->dirty_background >= e->dirty_limit)
            return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: dirty_background = %u%% must be below dirty_limit = "
                                            "%u%% (write-behind starts at the first, writers wait at the second)",
                              c->path, e->key_line[K_DIRTY_BACKGROUND], e->name, e->dirty_background, e->dirty_limit);
        int rc = check_store(c, e);
        if (rc)
            return rc;
    }
    return 0;
}
