/*
 * LOCI_CONFIG asked by the layers above: the text of a front-end section's
 * key, which intent/config.c turns into an intent. It reads the config as
 * read at discovery, kept with the process's topology (current.c); it asks
 * current.c for that topology, and nothing of discovery itself.
 */
#include "topo/topo_internal.h"

#include <errno.h>

const char *topo_config_value(const char *section, const char *key, const char **origin)
{
    *origin = NULL;
    int rc = topo_ensure();
    if (rc) { /* loci_last_error() already says why */
        errno = loci__errno_of(rc);
        return NULL;
    }
    const topo_frontend_t *f = topo_config_frontend_find(topo_get()->config, section, key);
    if (!f)
        return loci__fail_null(LOCI_ENOENT, "LOCI_CONFIG gives no [%s] %s", section, key);
    *origin = f->origin;
    return f->value;
}
