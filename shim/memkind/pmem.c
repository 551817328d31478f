/*
 * File-backed kinds: memkind_create_pmem, its configuration object, and
 * memkind_check_dax_path. memkind makes a temporary file in any directory;
 * loci places file-backed memory on its file tiers, so the directory must be
 * one (or lie inside one): ssd0 ($LOCI_STORE_DIR) or a `[target X] path =`
 * of LOCI_CONFIG (docs/MEMKIND.md). The kind is an arena there, capped at
 * max_size, whose files loci removes when the kind is destroyed.
 */
#include "memkind_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct memkind_config {
    const char *pmem_dir;
    size_t pmem_size;
    memkind_mem_usage_policy policy;
};

/* The name of the loci file tier whose directory holds dir (resolved). */
static bool tier_of(const char *dir, char *name, size_t len)
{
    int count = loci_target_count();
    for (int i = 0; i < count; i++) {
        const loci_target_t *t = loci_target_at(i);
        const char *path = loci_target_path(t);
        char tier[PATH_MAX];
        loci_target_info_t info;
        if (!path || !realpath(path, tier) || loci_target_info(t, &info) != 0 || info.numa_node >= 0 ||
            (info.flags & (LOCI_TARGET_JOB_WIDE | LOCI_TARGET_GONE)))
            continue;
        size_t n = strlen(tier);
        if (strncmp(dir, tier, n) == 0 && (dir[n] == '\0' || dir[n] == '/' || strcmp(tier, "/") == 0)) {
            snprintf(name, len, "%s", info.name);
            return true;
        }
    }
    return false;
}

MK_EXPORT int memkind_create_pmem(const char *dir, size_t max_size, memkind_t *kind)
{
    if (!dir || !kind || (max_size && max_size < MEMKIND_PMEM_MIN_SIZE)) {
        mk_log(LOCI_LOG_WARN, "memkind_create_pmem: %s", !dir || !kind ? "NULL directory or kind"
                                                                       : "max_size is neither 0 nor at least "
                                                                         "MEMKIND_PMEM_MIN_SIZE (16 MiB)");
        return MEMKIND_ERROR_INVALID;
    }
    char path[PATH_MAX], tier[64];
    struct stat st;
    if (!realpath(dir, path) || stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || access(path, W_OK | X_OK) != 0) {
        mk_log(LOCI_LOG_WARN, "memkind_create_pmem: %s is not a directory this process may write (%s)", dir,
               strerror(errno ? errno : ENOTDIR));
        return MEMKIND_ERROR_INVALID;
    }
    if (!tier_of(path, tier, sizeof tier)) {
        mk_log(LOCI_LOG_ERROR, "memkind_create_pmem: %s is in no loci file tier; name it in LOCI_CONFIG "
                               "([target pmem0] path = %s, kind = pmem) or set LOCI_STORE_DIR=%s", dir, path, path);
        return MEMKIND_ERROR_UNAVAILABLE;
    }
    struct memkind *k = registry_take();
    if (!k) {
        mk_log(LOCI_LOG_WARN, "memkind_create_pmem: %d kinds exist already (MEMKIND_MAX_KIND)", MEMKIND_MAX_KIND);
        return MEMKIND_ERROR_TOOMANY;
    }
    snprintf(k->intent, sizeof k->intent, "target=%s!", tier);
    k->take = TAKE_BEST | TAKE_FILES;
    k->max_bytes = max_size;
    *kind = k;
    return MEMKIND_SUCCESS;
}

MK_EXPORT struct memkind_config *memkind_config_new(void) { return calloc(1, sizeof(struct memkind_config)); }

MK_EXPORT void memkind_config_delete(struct memkind_config *cfg) { free(cfg); }

MK_EXPORT void memkind_config_set_path(struct memkind_config *cfg, const char *pmem_dir)
{
    if (cfg)
        cfg->pmem_dir = pmem_dir;
}

MK_EXPORT void memkind_config_set_size(struct memkind_config *cfg, size_t pmem_size)
{
    if (cfg)
        cfg->pmem_size = pmem_size;
}

MK_EXPORT void memkind_config_set_memory_usage_policy(struct memkind_config *cfg, memkind_mem_usage_policy policy)
{
    if (cfg)
        cfg->policy = policy;
}

/* The usage policy tunes jemalloc's page purging; loci gives a freed
 * extent back itself, so it is checked and has no other effect. */
MK_EXPORT int memkind_create_pmem_with_config(struct memkind_config *cfg, memkind_t *kind)
{
    if (!cfg || (unsigned)cfg->policy >= MEMKIND_MEM_USAGE_POLICY_MAX_VALUE) {
        mk_log(LOCI_LOG_WARN, "memkind_create_pmem_with_config: %s", cfg ? "unknown memory usage policy"
                                                                         : "NULL configuration");
        return MEMKIND_ERROR_INVALID;
    }
    return memkind_create_pmem(cfg->pmem_dir, cfg->pmem_size, kind);
}

MK_EXPORT int memkind_check_dax_path(const char *pmem_dir)
{
    if (!pmem_dir)
        return MEMKIND_ERROR_INVALID;
    int fd = open(pmem_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return MEMKIND_ERROR_RUNTIME;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int rc = MEMKIND_SUCCESS;
    if (ftruncate(fd, (off_t)page) != 0) {
        rc = MEMKIND_ERROR_RUNTIME;
    } else {
        /* only a DAX file system grants MAP_SYNC */
        void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
        if (p == MAP_FAILED)
            rc = MEMKIND_ERROR_MMAP;
        else
            munmap(p, page);
    }
    close(fd);
    return rc;
}
