/*
 * Source "devdax" (live machine only): device-DAX instances, memory mapped
 * whole through a character device /dev/daxX.Y rather than through a file
 * system or as a NUMA node. /sys/bus/dax/devices/daxX.Y gives its size, its
 * align (what mmap demands of a mapping's start and length), target_node
 * (the proximity domain, whose HMAT figures apply) and, through where the
 * device sits in sysfs, its region: under an NVDIMM bus (ndbusN) it is
 * persistent memory (kind pmem), anywhere else (a CXL region, soft-reserved
 * "hmem") volatile memory (kind cxl). Only instances bound to device_dax are
 * mappable; one onlined as system RAM (kmem) is a NUMA node, which the other
 * sources see. A config may name a device by path (topo_config_devdax).
 *
 * Names: a persistent device is named after itself, as the kernel names
 * the pmem block devices of NVDIMM namespaces (region R, instance I:
 * /dev/daxR.I is pmemR, or pmemR-I for a second namespace of a region), so
 * that it has the same name in every process whatever else is onlined or
 * gone; a volatile one takes the next ordinal of its kind (cxlN), as NUMA
 * nodes of volatile memory do (classify.c).
 *
 * Access is the device node's: loci checks it and never changes it. A
 * device loci may not open is listed, unreachable, with the reason.
 */
#include "topo/topo_internal.h"
#include "dir.h"
#include "units.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

typedef struct {
    uint64_t size, align;
    int target_node;    /* -1: not said */
    bool persistent;    /* its region is an NVDIMM's */
} devdax_info_t;

static bool read_attr(const char *dir, const char *attr, uint64_t *v)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, attr);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fscanf(f, "%" SCNu64, v) == 1;
    fclose(f);
    return ok;
}

/* The sysfs directory `dir` of a dax device, if bound to device_dax (the
 * mappable driver): its size, align, node and persistence. */
static bool read_info(const char *dir, devdax_info_t *out)
{
    char real[PATH_MAX];
    if (!topo_dax_bound_to(dir, "device_dax"))
        return false;
    uint64_t node;
    if (!read_attr(dir, "size", &out->size) || out->size == 0)
        return false;
    if (!read_attr(dir, "align", &out->align) || out->align == 0)
        out->align = 2u << 20; /* kernels before 5.10 say nothing: 2 MiB was their only choice */
    out->target_node = read_attr(dir, "target_node", &node) && node < INT_MAX ? (int)node : -1;
    out->persistent = realpath(dir, real) && strstr(real, "/ndbus");
    return true;
}

/* The ordinal after every target of `kind` named kindN. */
static int next_ordinal(const topo_t *t, topo_kind_t kind)
{
    const char *prefix = topo_kind_name(kind);
    size_t len = strlen(prefix);
    int next = 0;
    for (int i = 0; i < t->ntargets; i++) {
        const char *name = t->targets[i].name;
        char *end;
        long n = strncmp(name, prefix, len) == 0 ? strtol(name + len, &end, 10) : -1;
        if (n >= next && end != name + len && *end == '\0')
            next = (int)n + 1;
    }
    return next;
}

/* Why this process may not map `dev` (NULL: it may), as a message for the
 * target's `unreachable`, and the error that is (*code). */
static char *no_access(const char *dev, const struct stat *st, int *code)
{
    if (access(dev, R_OK | W_OK) == 0)
        return NULL;
    int e = errno;
    *code = e == EACCES || e == EPERM || e == EROFS ? LOCI_EPERM : LOCI_EIO;
    char *why = NULL;
    if (asprintf(&why, "%s: %s (mode %04o, owner uid %u gid %u): the device's permissions decide, loci never "
                       "changes them; ask for read and write access (e.g. membership of its group)",
                 dev, strerror(e), (unsigned)(st->st_mode & 07777), (unsigned)st->st_uid, (unsigned)st->st_gid) < 0)
        why = NULL;
    return why ? why : strdup("no access to the device");
}

/* The name of device `entry` (daxR.I) of `kind`, discovered (not named by the config). */
static void name_device(const topo_t *t, struct loci_target *tg, const char *entry, topo_kind_t kind)
{
    unsigned region, instance;
    if (tg->flags & LOCI_TARGET_PERSISTENT && sscanf(entry, "dax%u.%u", &region, &instance) == 2 &&
        region < 100000 && instance < 1000) { /* within a name's 15 characters */
        if (instance)
            snprintf(tg->name, sizeof tg->name, "pmem%u-%u", region, instance);
        else
            snprintf(tg->name, sizeof tg->name, "pmem%u", region);
    } else {
        snprintf(tg->name, sizeof tg->name, "%s%d", topo_kind_name(kind), next_ordinal(t, kind));
    }
}

static int add_target(topo_t *t, const char *name, topo_kind_t kind, const char *dev, const struct stat *st,
                      const devdax_info_t *in, const char *sysfs_root, topo_source_t source)
{
    if (t->ntargets >= t->nnodes + TOPO_MAX_EXTRA_TARGETS)
        return loci__fail(LOCI_ECONFIG, "too many targets beyond the NUMA nodes (at most %d)", TOPO_MAX_EXTRA_TARGETS);
    struct loci_target *tg = topo_add_target(t, kind, -1);
    if (!tg || !(tg->path = strdup(dev)))
        return loci__fail(LOCI_ENOMEM, "out of memory adding %s", dev);
    tg->kind_source = source;
    tg->dax_align = in->align;
    tg->dax_node = in->target_node;
    tg->flags = LOCI_TARGET_CPU_ACCESSIBLE | (in->persistent ? LOCI_TARGET_PERSISTENT : 0);
    if (name)
        snprintf(tg->name, sizeof tg->name, "%s", name);
    else
        name_device(t, tg, strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev, kind);
    uint64_t usable = in->size / in->align * in->align; /* mmap takes whole align units only */
    topo_attr_offer(&tg->capacity, usable, SRC_OS);
    topo_attr_offer(&tg->available, usable, SRC_OS);
    if (in->target_node >= 0)
        topo_sysfs_hmat_target(t, tg, in->target_node, sysfs_root);
    if ((tg->unreachable = no_access(dev, st, &tg->unreachable_code)))
        tg->flags |= LOCI_TARGET_UNREACHABLE;
    return 0;
}

/* The target of device `dev` (rdev), if one exists. */
static struct loci_target *find_device(topo_t *t, dev_t rdev)
{
    for (int i = 0; i < t->ntargets; i++) {
        struct stat st;
        struct loci_target *tg = &t->targets[i];
        if (tg->dax_align && stat(tg->path, &st) == 0 && st.st_rdev == rdev)
            return tg;
    }
    return NULL;
}

struct scan {
    topo_t *t;
    const char *sysfs_root, *dev_root;
    int rc;
};

static int add_instance(int dirfd, const char *dir, const char *entry, void *arg)
{
    (void)dirfd;
    struct scan *s = arg;
    char sys[PATH_MAX], dev[PATH_MAX];
    devdax_info_t in;
    struct stat st;
    snprintf(sys, sizeof sys, "%s/%s", dir, entry);
    snprintf(dev, sizeof dev, "%s/%s", s->dev_root, entry);
    if (entry[0] == '.' || !read_info(sys, &in))
        return 0;
    if (stat(dev, &st) != 0 || !S_ISCHR(st.st_mode)) {
        loci__log(LOCI_LOG_INFO, "device-DAX %s has no device node %s: not used", entry, dev);
        return 0;
    }
    s->rc = add_target(s->t, NULL, in.persistent ? KIND_PMEM : KIND_CXL, dev, &st, &in, s->sysfs_root, SRC_OS);
    return s->rc;
}

int topo_source_devdax(topo_t *t, const char *sysfs_root, const char *dev_root)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/bus/dax/devices", sysfs_root);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* no dax bus: no device-DAX */
    struct scan s = {t, sysfs_root, dev_root, 0};
    dir_each_entry(fd, dir, add_instance, &s);
    close(fd);
    return s.rc;
}

int topo_config_devdax(topo_t *t, const char *where, const char *name, topo_kind_t kind, const char *path,
                       const char *sysfs_root, topo_source_t source)
{
    struct stat lst, st;
    char real[PATH_MAX], sys[PATH_MAX];
    if (lstat(path, &lst) != 0)
        return loci__fail(LOCI_ECONFIG, "%s: [target %s]: path = %s: %s", where, name, path, strerror(errno));
    if (S_ISLNK(lst.st_mode) && (!realpath(path, real) || strncmp(real, "/dev/", 5) != 0))
        return loci__fail(LOCI_ECONFIG, "%s: [target %s]: path = %s is a symbolic link to %s, outside /dev: "
                                        "refused (name the device-DAX node /dev/daxX.Y itself)",
                          where, name, path, S_ISLNK(lst.st_mode) && realpath(path, real) ? real : "nowhere");
    if (stat(path, &st) != 0 || !S_ISCHR(st.st_mode))
        return loci__fail(LOCI_ECONFIG, "%s: [target %s]: path = %s is a %s, not a device-DAX node (/dev/daxX.Y): "
                                        "refused (a file tier is path = DIR, a directory)",
                          where, name, path, S_ISREG(st.st_mode) ? "regular file" : "file of another type");
    devdax_info_t in;
    snprintf(sys, sizeof sys, "%s/dev/char/%u:%u", sysfs_root, major(st.st_rdev), minor(st.st_rdev));
    if (!read_info(sys, &in))
        return loci__fail(LOCI_ECONFIG, "%s: [target %s]: path = %s is a character device but no device-DAX "
                                        "instance bound to device_dax (see %s)", where, name, path, sys);
    if (kind == KIND_COUNT)
        kind = in.persistent ? KIND_PMEM : KIND_CXL;
    struct loci_target *found = find_device(t, st.st_rdev);
    if (!found)
        return add_target(t, name, kind, path, &st, &in, sysfs_root, source);
    snprintf(found->name, sizeof found->name, "%s", name); /* discovered already: the config names it */
    found->kind = kind;
    found->kind_source = source;
    return 0;
}

int topo_devdax_check_capacity(const struct loci_target *tg, uint64_t capacity, const char *where)
{
    char cap[32], al[32], size[32];
    if (capacity % tg->dax_align)
        return loci__fail(LOCI_ECONFIG, "%s: [target %s]: capacity = %s is not a multiple of %s's align (%s): a "
                                        "device-DAX mapping takes whole align units",
                          where, tg->name, units_format_size(capacity, cap, sizeof cap), tg->path,
                          units_format_size(tg->dax_align, al, sizeof al));
    if (capacity > tg->capacity.value)
        return loci__fail(LOCI_ECONFIG, "%s: [target %s]: capacity = %s is larger than %s (%s)", where, tg->name,
                          units_format_size(capacity, cap, sizeof cap), tg->path,
                          units_format_size(tg->capacity.value, size, sizeof size));
    return 0;
}
