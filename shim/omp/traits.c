/*
 * Allocator traits (OpenMP 5.1 §2.13.2): omp_alloctrait_t arrays decoded and
 * checked, with the values each key takes named in every message. What loci
 * does with them is in allocator.c; sync_hint and access are accepted and
 * recorded (loci is thread-safe, and its memory reachable by every thread).
 */
#include "shim.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const key_names[] = {
    [OMP_ATK_SYNC_HINT] = "sync_hint", [OMP_ATK_ALIGNMENT] = "alignment",
    [OMP_ATK_ACCESS] = "access",       [OMP_ATK_POOL_SIZE] = "pool_size",
    [OMP_ATK_FALLBACK] = "fallback",   [OMP_ATK_FB_DATA] = "fb_data",
    [OMP_ATK_PINNED] = "pinned",       [OMP_ATK_PARTITION] = "partition",
};
enum { KEYS = sizeof key_names / sizeof *key_names };

static const struct {
    const char *name;
    uintptr_t value;
} value_names[] = {
    {"false", OMP_ATV_FALSE},
    {"true", OMP_ATV_TRUE},
    {"contended", OMP_ATV_CONTENDED},
    {"uncontended", OMP_ATV_UNCONTENDED},
    {"serialized", OMP_ATV_SERIALIZED},
    {"sequential", OMP_ATV_SERIALIZED}, /* OpenMP 5.0's name */
    {"private", OMP_ATV_PRIVATE},
    {"all", OMP_ATV_ALL},
    {"thread", OMP_ATV_THREAD},
    {"pteam", OMP_ATV_PTEAM},
    {"cgroup", OMP_ATV_CGROUP},
    {"default_mem_fb", OMP_ATV_DEFAULT_MEM_FB},
    {"null_fb", OMP_ATV_NULL_FB},
    {"abort_fb", OMP_ATV_ABORT_FB},
    {"allocator_fb", OMP_ATV_ALLOCATOR_FB},
    {"environment", OMP_ATV_ENVIRONMENT},
    {"nearest", OMP_ATV_NEAREST},
    {"blocked", OMP_ATV_BLOCKED},
    {"interleaved", OMP_ATV_INTERLEAVED},
};
enum { VALUES = sizeof value_names / sizeof *value_names };

/* The values a key takes, its default first. */
static const struct {
    int n;
    uintptr_t v[4];
} choices[KEYS] = {
    [OMP_ATK_SYNC_HINT] = {4, {OMP_ATV_CONTENDED, OMP_ATV_UNCONTENDED, OMP_ATV_SERIALIZED, OMP_ATV_PRIVATE}},
    [OMP_ATK_ACCESS] = {4, {OMP_ATV_ALL, OMP_ATV_CGROUP, OMP_ATV_PTEAM, OMP_ATV_THREAD}},
    [OMP_ATK_FALLBACK] = {4, {OMP_ATV_DEFAULT_MEM_FB, OMP_ATV_NULL_FB, OMP_ATV_ABORT_FB, OMP_ATV_ALLOCATOR_FB}},
    [OMP_ATK_PINNED] = {2, {OMP_ATV_FALSE, OMP_ATV_TRUE}},
    [OMP_ATK_PARTITION] = {4, {OMP_ATV_ENVIRONMENT, OMP_ATV_NEAREST, OMP_ATV_BLOCKED, OMP_ATV_INTERLEAVED}},
};

void shim_traits_default(shim_traits_t *t)
{
    *t = (shim_traits_t){.sync_hint = OMP_ATV_CONTENDED,
                         .access = OMP_ATV_ALL,
                         .fallback = OMP_ATV_DEFAULT_MEM_FB,
                         .partition = OMP_ATV_ENVIRONMENT,
                         .alignment = 1,
                         .pool_size = SHIM_NO_POOL};
}

const char *shim_trait_value_name(uintptr_t v)
{
    for (int i = 0; i < VALUES; i++)
        if (value_names[i].value == v)
            return value_names[i].name;
    return NULL;
}

bool shim_trait_value(const char *name, uintptr_t *out)
{
    for (int i = 0; i < VALUES; i++)
        if (strcasecmp(name, value_names[i].name) == 0) {
            *out = value_names[i].value;
            return true;
        }
    return false;
}

int shim_trait_key(const char *name)
{
    for (int k = 1; k < KEYS; k++)
        if (strcasecmp(name, key_names[k]) == 0)
            return k;
    return -1;
}

/* A value among a key's choices: it, or its default for omp_atv_default. */
static bool choose(int key, uintptr_t v, uintptr_t *out, char *why, size_t len)
{
    if (v == OMP_ATV_DEFAULT) {
        *out = choices[key].v[0];
        return true;
    }
    char list[128] = "";
    for (int i = 0; i < choices[key].n; i++) {
        if (choices[key].v[i] == v) {
            *out = v;
            return true;
        }
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                 shim_trait_value_name(choices[key].v[i]));
    }
    const char *name = shim_trait_value_name(v);
    if (name)
        snprintf(why, len, "trait %s = %s: expected one of %s", key_names[key], name, list);
    else
        snprintf(why, len, "trait %s = %lu: expected one of %s", key_names[key], (unsigned long)v, list);
    return false;
}

static int decode_one(const omp_trait_t *tr, shim_traits_t *t, char *why, size_t len)
{
    uintptr_t v = tr->value;
    switch (tr->key) {
    case OMP_ATK_SYNC_HINT: return choose(tr->key, v, &t->sync_hint, why, len) ? 0 : -1;
    case OMP_ATK_ACCESS: return choose(tr->key, v, &t->access, why, len) ? 0 : -1;
    case OMP_ATK_FALLBACK: return choose(tr->key, v, &t->fallback, why, len) ? 0 : -1;
    case OMP_ATK_PARTITION: return choose(tr->key, v, &t->partition, why, len) ? 0 : -1;
    case OMP_ATK_PINNED: {
        uintptr_t pinned;
        if (!choose(tr->key, v, &pinned, why, len))
            return -1;
        t->pinned = pinned == OMP_ATV_TRUE;
        return 0;
    }
    case OMP_ATK_ALIGNMENT:
        if (v == OMP_ATV_DEFAULT)
            v = 1;
        if (v == 0 || (v & (v - 1))) {
            snprintf(why, len, "trait alignment = %lu: expected a power of two (e.g. 64, 4096, 2097152)",
                     (unsigned long)v);
            return -1;
        }
        t->alignment = v;
        return 0;
    case OMP_ATK_POOL_SIZE:
        t->pool_size = v; /* omp_atv_default is SHIM_NO_POOL; 0 is a pool that holds nothing (libgomp) */
        return 0;
    case OMP_ATK_FB_DATA:
        t->fb_data = v == OMP_ATV_DEFAULT ? OMP_NULL_ALLOCATOR : v;
        return 0;
    default:
        snprintf(why, len, "unknown trait key %d: OpenMP defines 1 (sync_hint) to 8 (partition)", tr->key);
        return -1;
    }
}

int shim_traits_decode(int n, const omp_trait_t *traits, shim_traits_t *out, char *why, size_t len)
{
    if (n > 0 && !traits) {
        snprintf(why, len, "%d traits at NULL: expected an array of them", n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (decode_one(&traits[i], out, why, len) != 0)
            return -1;
    return 0; /* n < 0: no traits, and allocator_fb without fb_data falls back to the default, as libgomp */
}
