/*
 * Front-end sections of LOCI_CONFIG: a front end's own names for places.
 *
 *   [omp]                the OpenMP front end's memory spaces (docs/OPENMP.md): one intent
 *   high_bw = kind=hbm!  each for default, large_cap, const, high_bw, low_lat. Placement
 *                        terms only: the front end adds the allocator's traits itself.
 *   [shmem]              the OpenSHMEM hints (docs/SHMEM.md): an intent each for high_bw,
 *   high_bw = kind=hbm!,fallback=default   low_lat, near_nic
 *   [checkpoint]         the store target checkpoints are drained to (docs/CHECKPOINT.md)
 *   drain = agg0         (a target name, checked by its user)
 *   [tiering]            tier=auto arenas (docs/TIERING.md): source, interval, budget,
 *   budget = 90%         rate, sample (checked by src/tiering/config.c)
 *
 * Their values are kept as text, with where they were given; the intent
 * layer interprets them when a front end asks (loci_config_intent, through
 * config_query.c). Here: which sections and keys exist, so that a misspelt
 * one is refused at once.
 */
#include "topo/topo_internal.h"
#include "grow.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct frontend_section {
    const char *name;
    const char *const keys[8];
    const char *expected; /* for messages */
} frontend_sections[] = {
    {"omp", {"default", "large_cap", "const", "high_bw", "low_lat"}, "default, large_cap, const, high_bw or low_lat"},
    {"shmem", {"high_bw", "low_lat", "near_nic"}, "high_bw, low_lat or near_nic"},
    {"checkpoint", {"drain"}, "drain (the store target checkpoints are drained to)"},
    {"tiering", {"source", "interval", "budget", "rate", "sample", "floor", "node_budget"},
     "source, interval, budget, rate, sample, floor or node_budget"},
};
_Static_assert(sizeof frontend_sections / sizeof *frontend_sections == TOPO_FRONTEND_SECTIONS,
               "topo_config_t keeps a header line per front-end section");

static const struct frontend_section *frontend_section(const char *section)
{
    char word[32], extra[2];
    if (sscanf(section, "%31s %1s", word, extra) != 1)
        return NULL;
    for (int i = 0; i < TOPO_FRONTEND_SECTIONS; i++)
        if (strcasecmp(word, frontend_sections[i].name) == 0)
            return &frontend_sections[i];
    return NULL;
}

bool topo_config_is_frontend(const char *section) { return frontend_section(section) != NULL; }

void topo_config_frontend_section(topo_config_t *c, const char *section)
{
    const struct frontend_section *fs = frontend_section(section);
    int *first = &c->frontend_line[fs - frontend_sections];
    if (c->source != SRC_CONFIG)
        topo_config_fail(c, "[%s] belongs in the LOCI_CONFIG file, not in saved measurements", fs->name);
    else if (*first)
        topo_config_fail(c, "duplicate section [%s] (first at line %d)", fs->name, *first);
    else
        *first = c->line;
}

const topo_frontend_t *topo_config_frontend_find(const topo_config_t *c, const char *section, const char *key)
{
    for (int i = 0; c && i < c->nfrontend; i++)
        if (strcasecmp(c->frontend[i].section, section) == 0 && strcasecmp(c->frontend[i].key, key) == 0)
            return &c->frontend[i];
    return NULL;
}

/* `key = value`: a known key, once. */
void topo_config_frontend_key(topo_config_t *c, const char *section, const char *key, const char *value)
{
    const struct frontend_section *fs = frontend_section(section);
    int k = 0;
    while (fs->keys[k] && strcasecmp(fs->keys[k], key) != 0)
        k++;
    if (!fs->keys[k]) {
        topo_config_fail(c, "[%s]: unknown key '%s'; expected %s", fs->name, key, fs->expected);
        return;
    }
    if (topo_config_frontend_find(c, fs->name, fs->keys[k])) {
        topo_config_fail(c, "[%s]: '%s' given twice", fs->name, fs->keys[k]);
        return;
    }
    topo_frontend_t *grown = grow_for_one(c->frontend, c->nfrontend, &c->cap_frontend, sizeof *grown, 8);
    if (!grown) {
        topo_config_fail(c, "out of memory");
        return;
    }
    c->frontend = grown;
    topo_frontend_t *f = &c->frontend[c->nfrontend];
    *f = (topo_frontend_t){.value = strdup(value)};
    if (!f->value) {
        topo_config_fail(c, "out of memory");
        return;
    }
    c->nfrontend++;
    snprintf(f->section, sizeof f->section, "%s", fs->name);
    snprintf(f->key, sizeof f->key, "%s", fs->keys[k]);
    snprintf(f->origin, sizeof f->origin, "%s:%d", c->path, c->line);
}
