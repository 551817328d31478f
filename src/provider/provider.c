/* Which provider serves a target (see provider.h). */
#include "provider/provider.h"

const provider_ops_t *provider_for(const struct loci_target *t, bool shared)
{
    if (!t)
        return NULL;
    if (t->path && t->path[0])
        return &provider_file;
    if (t->numa_node >= 0)
        return shared ? &provider_shm : &provider_numa;
    return NULL;
}
