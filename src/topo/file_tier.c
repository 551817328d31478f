/*
 * File tiers: directories on SSDs or DAX file systems used as memory. ssd0
 * exists out of the box in a per-user directory; the config adds more.
 */
#include "topo/topo_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int topo_default_store_dir(char *buf, size_t len)
{
    const char *dir = getenv("LOCI_STORE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    int n;
    if (dir && *dir)
        n = snprintf(buf, len, "%s", dir);
    else if (xdg && *xdg)
        n = snprintf(buf, len, "%s/loci", xdg);
    else
        n = snprintf(buf, len, "/var/tmp/loci-%u", (unsigned)getuid());
    return n > 0 && (size_t)n < len ? 0 : LOCI_EINVAL;
}

int topo_add_file_tier(topo_t *t, const char *name, topo_kind_t kind, const char *dir,
                       topo_source_t source)
{
    if (t->ntargets >= t->nnodes + TOPO_MAX_EXTRA_TARGETS)
        return loci__fail(LOCI_ECONFIG, "too many file tiers (at most %d)", TOPO_MAX_EXTRA_TARGETS);
    struct loci_target *tg = topo_add_target(t, kind, -1);
    if (!tg || !(tg->path = strdup(dir)))
        return loci__fail(LOCI_ENOMEM, "out of memory adding file tier %s", name);
    snprintf(tg->name, sizeof tg->name, "%s", name);
    tg->kind_source = source;
    tg->flags = LOCI_TARGET_PERSISTENT | LOCI_TARGET_SHAREABLE | LOCI_TARGET_CPU_ACCESSIBLE;
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) {
        topo_attr_offer(&tg->capacity, (uint64_t)vfs.f_blocks * vfs.f_frsize, SRC_OS);
        topo_attr_offer(&tg->available, (uint64_t)vfs.f_bavail * vfs.f_frsize, SRC_OS);
    }
    return 0;
}

/* The default tier's directory is created (0700) if missing: it is ours.
 * Directories named in the config belong to the admin and must exist. */
int topo_add_default_store(topo_t *t)
{
    char dir[512];
    if (topo_default_store_dir(dir, sizeof dir) != 0)
        return loci__fail(LOCI_EINVAL, "LOCI_STORE_DIR is too long");
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        loci__log(LOCI_LOG_WARN, "ssd0: cannot create %s (%s); set LOCI_STORE_DIR to a writable "
                  "directory", dir, strerror(errno));
    return topo_add_file_tier(t, "ssd0", KIND_SSD, dir, SRC_DEFAULT);
}
