/*
 * The front-end sections of LOCI_CONFIG ([omp], [shmem], [checkpoint]) as
 * intents: the config reader keeps their values as text (topo/config.c);
 * here a value is checked when a front end asks for it, and the message
 * says the file and line it came from.
 */
#include "intent/intent.h"

#include <strings.h>

static const struct {
    const char *section;
    bool where_only;  /* placement terms only: the front end sets the allocator's traits */
    bool target_name; /* values name a target (checked by their user), not intents */
} sections[] = {
    {"omp", true, false},
    {"shmem", false, false}, /* docs/SHMEM.md: hints are advice, an intent may say what to do when it cannot be met */
    {"checkpoint", false, true},
};

const char *loci_config_intent(const char *section, const char *key, const char **origin)
{
    if (origin)
        *origin = NULL;
    if (!section || !key)
        return loci__fail_null(LOCI_EINVAL, "loci_config_intent: NULL section or key");
    const char *where;
    const char *value = topo_config_value(section, key, &where);
    if (!value)
        return NULL;
    size_t s = 0;
    while (s < sizeof sections / sizeof *sections && strcasecmp(sections[s].section, section) != 0)
        s++;
    if (s < sizeof sections / sizeof *sections && !sections[s].target_name) {
        intent_t in;
        if (intent_parse(value, &in) != 0)
            return loci__fail_null(LOCI_EINVAL, "%s: [%s] %s = %s: %s", where, section, key, value, loci_last_error());
        static const intent_key_t traits[] = {TERM_FALLBACK, TERM_ALIGN, TERM_PARTITION, TERM_PINNED};
        for (size_t i = 0; sections[s].where_only && i < sizeof traits / sizeof *traits; i++)
            if (intent_find(&in, traits[i]))
                return loci__fail_null(LOCI_EINVAL,
                                       "%s: [%s] %s = %s: give only where the memory is; fallback, align, "
                                       "partition and pinned are allocator traits the program sets",
                                       where, section, key, value);
    }
    if (origin)
        *origin = where;
    return value;
}
