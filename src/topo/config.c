/*
 * The admin config file (LOCI_CONFIG) and files saved by `loci bench --save`:
 * INI (read here: lines of any length, with their numbers). Every mistake is reported as "file:line: what is
 * wrong" and fails loci_init — a silently ignored line would misplace data.
 *
 *   [target NAME]        one target; NAME becomes its name
 *   numa_node = N        the NUMA node it describes           (or)
 *   path = /dir          a file tier in that directory
 *   kind = dram|hbm|cxl|pmem|ssd|gpu|gpu-host|store
 *   capacity = 16GiB     caps what loci places there
 *   bandwidth = 400GB/s  read bandwidth from `initiator`
 *   latency = 150ns      idle latency from `initiator`
 *   initiator = N        node the figures are seen from (default: the nearest node with CPUs)
 *
 *   kind = store         the job's aggregate store (docs/STORE.md), with
 *   store = rados        the engine (Ceph RADOS),
 *   conf = /etc/ceph/ceph.conf, pool = loci   where it is, and optionally
 *   user, namespace, keyring, timeout = 30s (bound on every cluster call),
 *   lock_ttl = 30s (a dead writer's region lock expires after it)
 *
 *   [omp]                the OpenMP front end's memory spaces (docs/OPENMP.md): one intent
 *   high_bw = kind=hbm!  each for default, large_cap, const, high_bw, low_lat. Placement
 *                        terms only: the front end adds the allocator's traits itself.
 *   [shmem]              the OpenSHMEM hints (docs/SHMEM.md): an intent each for high_bw,
 *   high_bw = kind=hbm!,fallback=default   low_lat, near_nic
 */
#include "rados/rados_pool.h"
#include "topo/sources.h"
#include "units.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

typedef struct {
    char name[16];
    int line;          /* of the [target NAME] header */
    int numa_node;     /* -1: not given */
    int numa_line;
    int initiator;     /* -1: not given */
    char *path;
    topo_kind_t kind;  /* KIND_COUNT: not given */
    uint64_t capacity, bandwidth, latency;
    char store[16];    /* kind = store: the engine ("rados") */
    rados_params_t rados;
    unsigned seen;     /* bit per key, to refuse a key given twice */
} config_entry_t;

/* Front-end sections: a front end's own names for places. Their values are
 * kept as text, with where they were given; the intent layer interprets
 * them when a front end asks (loci_config_intent). Here: which sections and
 * keys exist, so that a misspelt one is refused at once. */
static const struct frontend_section {
    const char *name;
    const char *const keys[8];
    const char *expected; /* for messages */
} frontend_sections[] = {
    {"omp", {"default", "large_cap", "const", "high_bw", "low_lat"}, "default, large_cap, const, high_bw or low_lat"},
    {"shmem", {"high_bw", "low_lat", "near_nic"}, "high_bw, low_lat or near_nic"},
    {"checkpoint", {"drain"}, "drain (the store target checkpoints are drained to)"},
};
enum { FRONTEND_SECTIONS = sizeof frontend_sections / sizeof *frontend_sections };

struct topo_config {
    char path[512];
    topo_source_t source;
    config_entry_t *entries;
    int n, cap;
    topo_frontend_t *frontend;
    int nfrontend, capfrontend;
    int frontend_line[FRONTEND_SECTIONS]; /* of each [section] header, 0 = none */
    /* parse state */
    int line;
    config_entry_t *current;
    bool failed;
    FILE *file;
};

static const char *const keys[] = {"numa_node", "path",    "kind",      "capacity", "bandwidth", "latency",
                                   "initiator", "store",   "conf",      "pool",     "user",      "namespace",
                                   "keyring",   "timeout", "lock_ttl"};
enum {
    K_NUMA, K_PATH, K_KIND, K_CAPACITY, K_BANDWIDTH, K_LATENCY, K_INITIATOR,
    K_STORE, K_CONF, K_POOL, K_USER, K_NAMESPACE, K_KEYRING, K_TIMEOUT, K_LOCK_TTL, K_COUNT
};
/* The keys only a store target takes. */
#define STORE_KEYS                                                                                             \
    ((1u << K_STORE) | (1u << K_CONF) | (1u << K_POOL) | (1u << K_USER) | (1u << K_NAMESPACE) | (1u << K_KEYRING) | \
     (1u << K_TIMEOUT) | (1u << K_LOCK_TTL))

LOCI_PRINTF(3, 4)
static int config_fail(topo_config_t *c, int line, const char *fmt, ...)
{
    if (c->failed)
        return 0; /* keep the first error: later ones are often consequences */
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    loci__fail(LOCI_ECONFIG, "%s:%d: %s", c->path, line, msg);
    c->failed = true;
    return 0;
}

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

static bool parse_int(const char *v, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < 0 || x > 1 << 20)
        return false;
    *out = (int)x;
    return true;
}

static const struct frontend_section *frontend_section(const char *section)
{
    char word[32], extra[2];
    if (sscanf(section, "%31s %1s", word, extra) != 1)
        return NULL;
    for (int i = 0; i < FRONTEND_SECTIONS; i++)
        if (strcasecmp(word, frontend_sections[i].name) == 0)
            return &frontend_sections[i];
    return NULL;
}

static int begin_frontend(topo_config_t *c, const struct frontend_section *fs)
{
    int *first = &c->frontend_line[fs - frontend_sections];
    if (c->source != SRC_CONFIG)
        return config_fail(c, c->line, "[%s] belongs in the LOCI_CONFIG file, not in saved measurements",
                           fs->name);
    if (*first)
        return config_fail(c, c->line, "duplicate section [%s] (first at line %d)", fs->name, *first);
    *first = c->line;
    return 1;
}

static int begin_section(topo_config_t *c, const char *section)
{
    const struct frontend_section *fs = frontend_section(section);
    if (fs)
        return begin_frontend(c, fs);
    char word[32], name[64], extra[2];
    int n = sscanf(section, "%31s %63s %1s", word, name, extra);
    if (n != 2 || strcmp(word, "target") != 0)
        return config_fail(c, c->line, "[%s]: unknown section; expected [target NAME], [omp], [shmem] or [checkpoint]",
                           section);
    if (!valid_name(name))
        return config_fail(c, c->line,
                           "[target %s]: a target name is 1-15 letters, digits, '-' or '_' (e.g. hbm0)",
                           name);
    for (int i = 0; i < c->n; i++)
        if (strcasecmp(c->entries[i].name, name) == 0)
            return config_fail(c, c->line, "duplicate target '%s' (first defined at line %d)", name,
                               c->entries[i].line);
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        config_entry_t *e = realloc(c->entries, (size_t)cap * sizeof *e);
        if (!e)
            return config_fail(c, c->line, "out of memory");
        c->entries = e;
        c->cap = cap;
    }
    config_entry_t *e = &c->entries[c->n++];
    *e = (config_entry_t){.line = c->line, .numa_node = -1, .initiator = -1, .kind = KIND_COUNT};
    snprintf(e->name, sizeof e->name, "%.15s", name); /* valid_name: < 16 chars */
    for (char *p = e->name; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    c->current = e;
    return 1;
}

/* A whole number of seconds, "30", "30s" or "2min", 1 s to 1 h. */
static bool parse_seconds(const char *v, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (end == v || errno || v[0] == '-')
        return false;
    if (strcmp(end, "min") == 0)
        x *= 60;
    else if (*end && strcmp(end, "s") != 0)
        return false;
    if (x < 1 || x > 3600)
        return false;
    *out = (unsigned)x;
    return true;
}

static int set_text(topo_config_t *c, const char *key, const char *value, char *dst, size_t len)
{
    if (!*value || strlen(value) >= len)
        return config_fail(c, c->line, "%s = %s: expected 1 to %zu characters", key, value, len - 1);
    memcpy(dst, value, strlen(value) + 1);
    return 1;
}

static int set_store_key(topo_config_t *c, config_entry_t *e, int key, const char *value)
{
    rados_params_t *r = &e->rados;
    switch (key) {
    case K_STORE:
        if (strcasecmp(value, "rados") != 0)
            return config_fail(c, c->line, "store = %s: unknown store engine; expected rados (Ceph RADOS)", value);
        snprintf(e->store, sizeof e->store, "rados");
        return 1;
    case K_CONF:
        if (value[0] != '/')
            return config_fail(c, c->line, "conf = %s: expected the absolute path of a ceph.conf", value);
        return set_text(c, "conf", value, r->conf, sizeof r->conf);
    case K_POOL: return set_text(c, "pool", value, r->pool, sizeof r->pool);
    case K_USER: return set_text(c, "user", value, r->user, sizeof r->user);
    case K_NAMESPACE: return set_text(c, "namespace", value, r->ns, sizeof r->ns);
    case K_KEYRING:
        if (value[0] != '/')
            return config_fail(c, c->line, "keyring = %s: expected the absolute path of a keyring file", value);
        return set_text(c, "keyring", value, r->keyring, sizeof r->keyring);
    case K_TIMEOUT:
    case K_LOCK_TTL:
        if (!parse_seconds(value, key == K_TIMEOUT ? &r->timeout_s : &r->lock_ttl_s))
            return config_fail(c, c->line, "%s = %s: expected seconds from 1 to 3600, e.g. 30s or 2min", keys[key],
                               value);
        return 1;
    }
    return 1;
}

static int set_key(topo_config_t *c, config_entry_t *e, int key, const char *value)
{
    int line = c->line;
    switch (key) {
    case K_NUMA:
        if (!parse_int(value, &e->numa_node))
            return config_fail(c, line, "numa_node = %s: expected a NUMA node number (e.g. 1)", value);
        e->numa_line = line;
        break;
    case K_INITIATOR:
        if (!parse_int(value, &e->initiator))
            return config_fail(c, line, "initiator = %s: expected a NUMA node number with CPUs (e.g. 0)",
                               value);
        break;
    case K_PATH:
        if (value[0] != '/')
            return config_fail(c, line, "path = %s: expected an absolute directory path", value);
        free(e->path);
        if (!(e->path = strdup(value)))
            return config_fail(c, line, "out of memory");
        break;
    case K_KIND:
        if ((e->kind = topo_kind_parse(value)) == KIND_COUNT)
            return config_fail(c, line,
                               "kind = %s: unknown kind; expected dram, hbm, cxl, pmem, ssd, gpu or gpu-host",
                               value);
        break;
    case K_CAPACITY:
        if (!units_parse_size(value, &e->capacity) || e->capacity == 0)
            return config_fail(c, line, "capacity = %s: expected a size such as 16GiB, 512M or 1T", value);
        break;
    case K_BANDWIDTH:
        if (!units_parse_bandwidth(value, &e->bandwidth) || e->bandwidth == 0)
            return config_fail(c, line,
                               "bandwidth = %s: expected a bandwidth such as 400GB/s or 12000MB/s", value);
        break;
    case K_LATENCY:
        if (!units_parse_latency(value, &e->latency) || e->latency == 0)
            return config_fail(c, line, "latency = %s: expected a latency such as 120ns or 1.5us", value);
        break;
    default:
        return set_store_key(c, e, key, value);
    }
    return 1;
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    topo_config_t *c = user;
    if (c->failed)
        return 1;
    if (!c->current)
        return config_fail(c, c->line, "'%s' outside a [target NAME] section", name);
    config_entry_t *e = c->current;
    for (int k = 0; k < K_COUNT; k++) {
        if (strcasecmp(name, keys[k]) != 0)
            continue;
        if (e->seen & (1u << k))
            return config_fail(c, c->line, "[target %s]: '%s' given twice", e->name, keys[k]);
        e->seen |= 1u << k;
        return set_key(c, e, k, value);
    }
    return config_fail(c, c->line,
                       "[target %s]: unknown key '%s'; expected numa_node, path, kind, capacity, "
                       "bandwidth, latency or initiator (and for kind = store: store, conf, pool, user, "
                       "namespace, keyring, timeout, lock_ttl)",
                       e->name, name);
}

/* `key = value` in a front-end section: a known key, once. */
static int frontend_key(topo_config_t *c, const struct frontend_section *fs, const char *key,
                        const char *value)
{
    int k = 0;
    while (fs->keys[k] && strcasecmp(fs->keys[k], key) != 0)
        k++;
    if (!fs->keys[k])
        return config_fail(c, c->line, "[%s]: unknown key '%s'; expected %s", fs->name, key, fs->expected);
    for (int i = 0; i < c->nfrontend; i++)
        if (strcmp(c->frontend[i].section, fs->name) == 0 && strcmp(c->frontend[i].key, fs->keys[k]) == 0)
            return config_fail(c, c->line, "[%s]: '%s' given twice", fs->name, fs->keys[k]);
    if (c->nfrontend == c->capfrontend) {
        int cap = c->capfrontend ? 2 * c->capfrontend : 8;
        topo_frontend_t *f = realloc(c->frontend, (size_t)cap * sizeof *f);
        if (!f)
            return config_fail(c, c->line, "out of memory");
        c->frontend = f;
        c->capfrontend = cap;
    }
    topo_frontend_t *f = &c->frontend[c->nfrontend];
    *f = (topo_frontend_t){.value = strdup(value)};
    if (!f->value)
        return config_fail(c, c->line, "out of memory");
    c->nfrontend++;
    snprintf(f->section, sizeof f->section, "%s", fs->name);
    snprintf(f->key, sizeof f->key, "%s", fs->keys[k]);
    snprintf(f->origin, sizeof f->origin, "%s:%d", c->path, c->line);
    return 1;
}

/* A `key = value` line of `section` (pass 2): a front end's, or a target's. */
static void on_key(topo_config_t *c, const char *section, const char *name, const char *value)
{
    const struct frontend_section *fs = frontend_section(section);
    if (fs) {
        frontend_key(c, fs, name, value);
        return;
    }
    c->current = NULL;
    char word[32], tname[64];
    if (sscanf(section, "%31s %63s", word, tname) == 2)
        for (int i = 0; i < c->n; i++)
            if (strcasecmp(c->entries[i].name, tname) == 0)
                c->current = &c->entries[i];
    on_entry(c, section, name, value);
}

/* Cut a value at a comment: whitespace followed by '#' or ';' (admins
 * write "# why" after values), then trailing whitespace. In place. */
static void cut_comment(char *value)
{
    char *p = value;
    while (*p && !((*p == '#' || *p == ';') && p > value && (p[-1] == ' ' || p[-1] == '\t')))
        p++;
    while (p > value && (p[-1] == ' ' || p[-1] == '\t'))
        p--;
    *p = '\0';
}

/* Read the file line by line, each whole however long (the file's size is
 * bounded before), with its number in c->line; a UTF-8 byte-order mark
 * before the first line is skipped. Pass 1 (`with_keys` false) sees the section
 * headers, pass 2 the keys, with the section they are in. */
static int parse_lines(topo_config_t *c, bool with_keys)
{
    char *line = NULL, *section = NULL;
    size_t cap = 0;
    c->line = 0;
    c->current = NULL;
    rewind(c->file);
    while (!c->failed && getline(&line, &cap, c->file) >= 0) {
        char *p = line;
        if (++c->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
            p += 3;
        p += strspn(p, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        if (*p == '\0' || *p == '#' || *p == ';')
            continue;
        if (*p == '[') {
            char *end = strchr(p, ']');
            if (!end) {
                config_fail(c, c->line, "section header without ']'");
                break;
            }
            *end = '\0';
            free(section);
            if (!(section = strdup(p + 1)))
                config_fail(c, c->line, "out of memory");
            else if (!with_keys)
                begin_section(c, section);
            continue;
        }
        if (!with_keys)
            continue;
        char *eq = p + strcspn(p, "=:");
        if (*eq == '\0' || eq == p) {
            config_fail(c, c->line, "not an INI line; expected 'key = value', '[target NAME]', '[omp]', '[shmem]' "
                                    "or '# comment'");
            break;
        }
        char *key_end = eq;
        while (key_end > p && (key_end[-1] == ' ' || key_end[-1] == '\t'))
            key_end--;
        *key_end = '\0';
        char *value = eq + 1 + strspn(eq + 1, " \t");
        cut_comment(value);
        on_key(c, section ? section : "", p, value);
    }
    free(line);
    free(section);
    c->current = NULL;
    return c->failed ? LOCI_ECONFIG : 0;
}

/* A config is a regular file of sensible size: a directory would read as
 * empty, a device (/dev/zero) forever. */
static int regular_file(topo_config_t *c)
{
    enum { MAX_BYTES = 1 << 20 };
    struct stat st;
    const char *hint = c->source == SRC_CONFIG ? "; LOCI_CONFIG names an INI file" : "";
    if (fstat(fileno(c->file), &st) != 0)
        return loci__fail(LOCI_ECONFIG, "%s: cannot read (%s)%s", c->path, strerror(errno), hint);
    if (S_ISDIR(st.st_mode))
        return loci__fail(LOCI_ECONFIG, "%s: is a directory%s", c->path, hint);
    if (!S_ISREG(st.st_mode))
        return loci__fail(LOCI_ECONFIG, "%s: not a regular file%s", c->path, hint);
    if (st.st_size > MAX_BYTES)
        return loci__fail(LOCI_ECONFIG, "%s: %lld bytes; a config has at most %d%s", c->path, (long long)st.st_size,
                          MAX_BYTES, hint);
    return 0;
}

/* A store target has its engine, conf and pool, and nothing of a node or a
 * directory; store keys belong to store targets only. */
static int check_store_entry(const topo_config_t *c, const config_entry_t *e)
{
    if (e->kind != KIND_STORE) {
        if (!(e->seen & STORE_KEYS))
            return 0;
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: store, conf, pool, user, namespace, keyring, timeout and "
                                        "lock_ttl belong to a store target; add kind = store", c->path, e->line, e->name);
    }
    const char *missing = !e->store[0] ? "store = rados" : !e->rados.conf[0] ? "conf = /path/to/ceph.conf"
                          : !e->rados.pool[0] ? "pool = NAME" : NULL;
    if (missing)
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: kind = store needs %s (docs/STORE.md)", c->path, e->line,
                          e->name, missing);
    if (e->numa_node >= 0 || e->path)
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: a store target has no %s; remove it", c->path, e->line,
                          e->name, e->path ? "path" : "numa_node");
    if (c->source != SRC_CONFIG)
        return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: store targets are defined in LOCI_CONFIG, not in saved "
                                        "measurements", c->path, e->line, e->name);
    return 0;
}

int topo_config_load(const char *path, topo_source_t source, topo_config_t **out)
{
    topo_config_t *c = calloc(1, sizeof *c);
    if (!c)
        return loci__fail(LOCI_ENOMEM, "out of memory reading %s", path);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->source = source;
    c->file = fopen(path, "re");
    if (!c->file) {
        int e = errno;
        free(c);
        return loci__fail(LOCI_ECONFIG, "%s: cannot open (%s)%s", path, strerror(e),
                          source == SRC_CONFIG ? "; fix LOCI_CONFIG or unset it" : "");
    }
    int rc = regular_file(c);
    if (rc == 0)
        rc = parse_lines(c, false);
    if (rc == 0)
        rc = parse_lines(c, true);
    fclose(c->file);
    c->file = NULL;
    for (int i = 0; rc == 0 && i < c->n; i++) {
        config_entry_t *e = &c->entries[i];
        if (e->numa_node >= 0 && e->path)
            rc = loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: give numa_node or path, not both",
                            path, e->line, e->name);
        else
            rc = check_store_entry(c, e);
    }
    if (rc != 0) {
        topo_config_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

void topo_config_free(topo_config_t *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++)
        free(c->entries[i].path);
    free(c->entries);
    for (int i = 0; i < c->nfrontend; i++)
        free(c->frontend[i].value);
    free(c->frontend);
    free(c);
}

/* The node whose view figures are given from when `initiator` is not set:
 * the node itself if it has CPUs, else the nearest one that has. */
static int nearest_initiator(topo_t *t, int node)
{
    topo_node_t *n = topo_node(t, node);
    if (n && n->has_cpus)
        return node;
    int best = -1, best_d = 0;
    for (int i = 0; i < t->nnodes; i++) {
        int d = topo_distance(t, t->nodes[i].os_index, node);
        if (t->nodes[i].has_cpus && (best < 0 || (d && d < best_d))) {
            best = t->nodes[i].os_index;
            best_d = d;
        }
    }
    return best;
}

static int apply_attributes(const topo_config_t *c, const config_entry_t *e, topo_t *t,
                            struct loci_target *tg)
{
    topo_attr_offer(&tg->capacity, e->capacity, c->source);
    if (e->kind != KIND_COUNT && c->source >= tg->kind_source) {
        tg->kind = e->kind;
        tg->kind_source = c->source;
    }
    if (!e->bandwidth && !e->latency)
        return 0;
    int ini = e->initiator >= 0 ? e->initiator : nearest_initiator(t, tg->numa_node);
    topo_node_t *n = topo_node(t, ini);
    if (!n || !n->has_cpus)
        return loci__fail(LOCI_ECONFIG,
                          "%s:%d: [target %s]: initiator = %d is not a NUMA node with CPUs here", c->path,
                          e->line, e->name, ini);
    topo_attr_offer(&tg->bandwidth[ini], e->bandwidth, c->source);
    topo_attr_offer(&tg->latency[ini], e->latency, c->source);
    return 0;
}

int topo_config_apply_nodes(const topo_config_t *c, topo_t *t)
{
    for (int i = 0; i < c->n; i++) {
        const config_entry_t *e = &c->entries[i];
        if (e->numa_node < 0)
            continue;
        struct loci_target *tg = topo_target_of_node(t, e->numa_node);
        if (!tg)
            return loci__fail(LOCI_ECONFIG,
                              "%s:%d: [target %s]: numa_node = %d, but %s has NUMA nodes %d to %d", c->path,
                              e->numa_line, e->name, e->numa_node, t->origin, t->nodes[0].os_index,
                              t->nodes[t->nnodes - 1].os_index);
        int rc = apply_attributes(c, e, t, tg);
        if (rc)
            return rc;
    }
    return 0;
}

static struct loci_target *find_named(topo_t *t, const char *name)
{
    for (int i = 0; i < t->ntargets; i++)
        if (strcasecmp(t->targets[i].name, name) == 0)
            return &t->targets[i];
    return NULL;
}

static void list_names(topo_t *t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < t->ntargets; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->targets[i].name);
    }
}

/* The topology keeps its own copy of the front-end sections: the config is
 * freed after discovery, loci_config_intent() answers until loci_fini. */
static int copy_frontend(const topo_config_t *c, topo_t *t)
{
    if (!c->nfrontend)
        return 0;
    topo_frontend_t *f = calloc((size_t)c->nfrontend, sizeof *f);
    if (!f)
        return loci__fail(LOCI_ENOMEM, "out of memory reading %s", c->path);
    for (int i = 0; i < c->nfrontend; i++) {
        f[i] = c->frontend[i];
        if (!(f[i].value = strdup(c->frontend[i].value))) {
            while (i--)
                free(f[i].value);
            free(f);
            return loci__fail(LOCI_ENOMEM, "out of memory reading %s", c->path);
        }
    }
    t->frontend = f;
    t->nfrontend = c->nfrontend;
    return 0;
}

int topo_config_apply_named(const topo_config_t *c, topo_t *t)
{
    if (copy_frontend(c, t) != 0)
        return LOCI_ENOMEM;
    for (int i = 0; i < c->n; i++) {
        const config_entry_t *e = &c->entries[i];
        struct loci_target *named = find_named(t, e->name);
        if (e->numa_node >= 0) {
            struct loci_target *tg = topo_target_of_node(t, e->numa_node);
            if (c->source != SRC_CONFIG) /* saved measurements never rename */
                continue;
            if (named && named != tg)
                return loci__fail(LOCI_ECONFIG,
                                  "%s:%d: [target %s]: that name is already taken by NUMA node %d; "
                                  "choose another name",
                                  c->path, e->line, e->name, named->numa_node);
            snprintf(tg->name, sizeof tg->name, "%s", e->name);
        } else if (e->path) {
            topo_kind_t kind = e->kind != KIND_COUNT ? e->kind : KIND_SSD;
            if (kind != KIND_SSD && kind != KIND_PMEM)
                return loci__fail(LOCI_ECONFIG,
                                  "%s:%d: [target %s]: a path tier is kind ssd or pmem, not %s", c->path,
                                  e->line, e->name, topo_kind_name(kind));
            if (named && named->path) { /* e.g. moving ssd0 elsewhere */
                free(named->path);
                named->path = strdup(e->path);
                named->kind = kind;
            } else if (named) {
                return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: that name is NUMA node %d's",
                                  c->path, e->line, e->name, named->numa_node);
            } else {
                int rc = topo_add_file_tier(t, e->name, kind, e->path, c->source);
                if (rc)
                    return rc;
                named = find_named(t, e->name);
            }
            topo_attr_offer(&named->capacity, e->capacity, c->source);
        } else if (e->kind == KIND_STORE && named && named->kind == KIND_STORE) {
            topo_attr_offer(&named->capacity, e->capacity, c->source);
            int rc = apply_attributes(c, e, t, named);
            if (rc)
                return rc;
        } else if (!named) {
            char names[512];
            list_names(t, names, sizeof names);
            return loci__fail(LOCI_ECONFIG,
                              "%s:%d: unknown target '%s'; this machine has %s (add numa_node = N or "
                              "path = DIR to define a new one)",
                              c->path, e->line, e->name, names);
        } else {
            int rc = apply_attributes(c, e, t, named);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int topo_config_add_stores(const topo_config_t *c, topo_t *t)
{
    for (int i = 0; i < c->n; i++) {
        const config_entry_t *e = &c->entries[i];
        if (e->kind != KIND_STORE)
            continue;
        if (find_named(t, e->name))
            return loci__fail(LOCI_ECONFIG, "%s:%d: [target %s]: that name is taken by another target; choose another "
                                            "name for the store (e.g. agg0)", c->path, e->line, e->name);
        int rc = topo_add_store(t, e->name, &e->rados);
        if (rc)
            return rc;
    }
    return 0;
}

const char *topo_config_value(const char *section, const char *key, const char **origin)
{
    *origin = NULL;
    int rc = topo_ensure();
    if (rc) { /* loci_last_error() already says why */
        errno = loci__errno_of(rc);
        return NULL;
    }
    const topo_t *t = topo_get();
    for (int i = 0; i < t->nfrontend; i++)
        if (strcasecmp(t->frontend[i].section, section) == 0 && strcasecmp(t->frontend[i].key, key) == 0) {
            *origin = t->frontend[i].origin;
            return t->frontend[i].value;
        }
    return loci__fail_null(LOCI_ENOENT, "LOCI_CONFIG gives no [%s] %s", section, key);
}
