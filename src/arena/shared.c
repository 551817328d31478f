/*
 * Shared arenas (SICM §2.5): one arena for the processes of a job on a node.
 *
 * An arena named NAME is two named segments of the calling user in
 * $LOCI_SHM_DIR (default /dev/shm): loci-<uid>-NAME.data holds only user
 * data, bound to the arena's NUMA node; loci-<uid>-NAME.meta holds the
 * allocator's state and its robust process-shared lock (shared_heap.c).
 * The data is mapped at the same address in every process, recorded in the
 * metadata, so pointers stored inside it are valid everywhere; a process in
 * which that range is taken cannot attach, and is told what is in the way.
 * Both files are 0600, opened without following links, and their owner is
 * checked: only the same user attaches.
 */
#include "arena/arena.h"
#include "provider/named.h"
#include "addr_table.h"
#include "dir.h"
#include "units.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Atomic unsigned arena__nshared;

/* The shared arenas attached in this process, by their data's addresses. */
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static addr_table_t table;

void arena_shared_fork(loci_fork_phase_t phase) { loci__fork_rwlock(&table_lock, NULL, phase); }

static int check_name(const char *name)
{
    if (!name || !*name)
        return loci__fail(LOCI_EINVAL, "a shared arena needs a name");
    size_t len = strlen(name);
    if (len > SHARED_NAME_MAX)
        return loci__fail(LOCI_EINVAL, "shared arena name of %zu characters: at most %d", len, SHARED_NAME_MAX);
    if (strchr(name, '/') || strstr(name, "..") || name[0] == '.')
        return loci__fail(LOCI_EINVAL, "shared arena name \"%s\": a name is one file name, without '/' or \"..\" "
                                       "and not starting with '.'", name);
    for (const char *c = name; *c; c++)
        if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') &&
            !strchr("._-", *c))
            return loci__fail(LOCI_EINVAL, "shared arena name \"%s\": character '%c' is not allowed (letters, "
                                           "digits, '.', '_' and '-')", name, *c);
    return 0;
}

/* "<dir>/loci-<uid>-<name>.<ext>", its directory checked component by
 * component: no link planted above the arena's files may redirect them. */
static int path_of(const char *name, const char *ext, char *buf, size_t len)
{
    const char *dir = getenv("LOCI_SHM_DIR");
    dir = dir && *dir ? dir : "/dev/shm";
    int n = snprintf(buf, len, "%s/loci-%u-%s.%s", dir, (unsigned)geteuid(), name, ext);
    if (n <= 0 || (size_t)n >= len)
        return loci__fail(LOCI_EINVAL, "LOCI_SHM_DIR is too long");
    int fd = dir_open_checked("shared arena directory", dir, true);
    if (fd < 0)
        return fd;
    close(fd);
    return 0;
}

static uint64_t name_seed(const char *name)
{
    uint64_t h = 1469598103934665603ull ^ geteuid();
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return h | 1;
}

/* ---- the table of attached arenas ------------------------------------------- */

static loci_arena_t *table_find_name(const char *name)
{
    for (size_t i = 0; i < table.n; i++) {
        loci_arena_t *ar = table.v[i].value;
        if (strcmp(ar->sh->name, name) == 0)
            return ar;
    }
    return NULL;
}

static int table_add(loci_arena_t *ar) /* table_lock held */
{
    if (!addr_table_add(&table, (uintptr_t)ar->sh->data, ar->sh->data_size, ar))
        return loci__fail(LOCI_ENOMEM, "out of memory attaching a shared arena");
    atomic_fetch_add_explicit(&arena__nshared, 1, memory_order_relaxed);
    return 0;
}

loci_arena_t *arena_shared_of(const void *p)
{
    pthread_rwlock_rdlock(&table_lock);
    loci_arena_t *found = addr_table_find(&table, (uintptr_t)p);
    pthread_rwlock_unlock(&table_lock);
    return found;
}

/* ---- create, attach, detach, unlink ------------------------------------------- */

/* The arena handle for mapped segments; NULL + fail (the caller unmaps). */
static loci_arena_t *handle(const char *name, const char *intent, const struct loci_target *t, sh_meta_t *meta,
                            size_t meta_size, pid_t creator)
{
    shared_arena_t *sh = calloc(1, sizeof *sh);
    loci_arena_t *ar = sh ? arena_new(intent, t, meta->data_size) : NULL;
    if (ar) {
        *sh = (shared_arena_t){meta, meta_size, (char *)meta->data_base, meta->data_size, "", creator, 1};
        snprintf(sh->name, sizeof sh->name, "%s", name);
        ar->sh = sh;
    }
    if (!ar || table_add(ar) != 0) {
        free(sh);
        if (ar)
            arena_free(ar);
        return loci__fail_null(LOCI_ENOMEM, "out of memory for shared arena \"%s\"", name);
    }
    arena_register(ar);
    return ar;
}

loci_arena_t *loci_arena_create_shared(const char *name, const char *intent, size_t max_bytes)
{
    char mpath[PATH_MAX], dpath[PATH_MAX];
    int rc = topo_ensure();
    if (rc == 0)
        rc = check_name(name);
    if (rc == 0 && (max_bytes == 0 || max_bytes / SH_PAGE >= SH_MAX_PAGES))
        rc = loci__fail(LOCI_EINVAL, "shared arena \"%s\": max_bytes must be between 1 and %llu: its address "
                                     "range is reserved at that size in every process", name,
                        (unsigned long long)SH_MAX_PAGES * SH_PAGE);
    intent_t in;
    resolution_t res;
    if (rc == 0 && (rc = intent_parse(intent, &in)) == 0)
        rc = intent_resolve(&in, &res);
    const struct loci_target *t = rc == 0 ? res.candidates[0] : NULL;
    if (rc == 0 && res.tier_auto)
        rc = loci__fail(LOCI_EINVAL, "shared arena \"%s\": intent \"%s\" asks for tier=auto, but a shared arena "
                                     "stays on the node it was created on (other processes map its pages); drop "
                                     "tier=auto, or use a private arena (loci_arena_create)", name, in.canonical);
    if (rc == 0 && t->numa_node < 0)
        rc = loci__fail(LOCI_ENOTSUP, "shared arena \"%s\": intent \"%s\" gives %s, which is not a NUMA node; "
                                      "shared arenas live in shared memory on a NUMA node", name, in.canonical,
                        t->name);
    if (rc == 0 && (rc = path_of(name, "meta", mpath, sizeof mpath)) == 0)
        rc = path_of(name, "data", dpath, sizeof dpath);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    size_t size = (max_bytes + SH_PAGE - 1) & ~(size_t)(SH_PAGE - 1), meta_size = shheap_meta_size(size);
    place_t place;
    arena_place(t, false, true, &place);
    sh_meta_t *meta = NULL;
    char *data = NULL;
    rc = named_create(mpath, meta_size, 0, NULL, (void **)&meta);
    if (rc == 0)
        rc = named_create(dpath, size, name_seed(name), &place, (void **)&data);
    if (rc == 0)
        rc = shheap_init(meta, meta_size, (uintptr_t)data, size, place_is_strict(&place));
    loci_arena_t *ar = NULL;
    if (rc == 0) {
        snprintf(meta->target, sizeof meta->target, "%s", t->name);
        snprintf(meta->intent, sizeof meta->intent, "%s", in.canonical);
        atomic_store_explicit(&meta->ready, 1, memory_order_release);
        pthread_rwlock_wrlock(&table_lock);
        ar = handle(name, in.canonical, t, meta, meta_size, getpid());
        pthread_rwlock_unlock(&table_lock);
        rc = ar ? 0 : LOCI_ENOMEM;
    }
    if (rc == 0)
        return ar;
    char why[600];
    snprintf(why, sizeof why, "%s", loci_last_error());
    if (data) { /* only what this call made goes */
        named_unmap(data, size);
        named_unlink(dpath);
    }
    if (meta) {
        named_unmap(meta, meta_size);
        named_unlink(mpath);
    }
    if (rc == LOCI_EEXIST)
        return loci__fail_null(rc, "shared arena \"%s\" exists (%s): attach to it with loci_arena_attach, or "
                                   "remove what a crashed job left with loci_arena_unlink_shared(\"%s\")",
                               name, why, name);
    return loci__fail_null(rc, "cannot create shared arena \"%s\": %s", name, why);
}

/* Map NAME's segments and check them; the arena handle, or NULL + fail. */
static loci_arena_t *attach(const char *name)
{
    char mpath[PATH_MAX], dpath[PATH_MAX];
    int rc = path_of(name, "meta", mpath, sizeof mpath);
    if (rc == 0)
        rc = path_of(name, "data", dpath, sizeof dpath);
    sh_meta_t *meta = NULL;
    void *data = NULL;
    size_t msize = 0, dsize = 0;
    if (rc == 0)
        rc = named_open(mpath, 0, (void **)&meta, &msize);
    if (rc == LOCI_ENOENT)
        rc = loci__fail(rc, "no shared arena named \"%s\" (no %s); create it with loci_arena_create_shared", name,
                        mpath);
    if (rc == 0 && (msize < sizeof *meta || !atomic_load_explicit(&meta->ready, memory_order_acquire)))
        rc = loci__fail(LOCI_EBUSY, "shared arena \"%s\" is being created, or a crash left it half made (%s): "
                                    "retry, or remove it with loci_arena_unlink_shared", name, mpath);
    if (rc == 0 && (!shheap_valid(meta, msize) || meta->uid != geteuid()))
        rc = loci__fail(LOCI_EINVAL, "%s is not the metadata of a shared arena of this loci version and user",
                        mpath);
    if (rc == 0)
        rc = named_open(dpath, meta->data_base, &data, &dsize);
    if (rc == 0 && dsize != meta->data_size)
        rc = loci__fail(LOCI_EINVAL, "%s has %zu bytes, its metadata says %llu", dpath, dsize,
                        (unsigned long long)meta->data_size);
    const loci_target_t *t = rc == 0 ? loci_target_by_name(meta->target) : NULL;
    if (rc == 0 && !t)
        rc = LOCI_ENOENT;
    loci_arena_t *ar = rc == 0 ? handle(name, meta->intent, t, meta, msize, 0) : NULL;
    if (ar)
        return ar;
    char why[600];
    snprintf(why, sizeof why, "%s", loci_last_error());
    if (data)
        named_unmap(data, dsize);
    if (meta)
        named_unmap(meta, msize);
    return loci__fail_null(rc ? rc : LOCI_ENOMEM, "cannot attach shared arena \"%s\": %s", name, why);
}

loci_arena_t *loci_arena_attach(const char *name)
{
    int rc = topo_ensure();
    if (rc == 0)
        rc = check_name(name);
    if (rc != 0) {
        errno = loci__errno_of(rc);
        return NULL;
    }
    /* serialised: two threads attaching one name would race for its range */
    pthread_rwlock_wrlock(&table_lock);
    loci_arena_t *ar = table_find_name(name);
    if (ar)
        ar->sh->refs++;
    else
        ar = attach(name);
    pthread_rwlock_unlock(&table_lock);
    return ar;
}

void arena_shared_destroy(loci_arena_t *ar)
{
    shared_arena_t *sh = ar->sh;
    pthread_rwlock_wrlock(&table_lock);
    bool last = --sh->refs == 0;
    if (last && addr_table_remove(&table, (uintptr_t)sh->data))
        atomic_fetch_sub_explicit(&arena__nshared, 1, memory_order_relaxed);
    pthread_rwlock_unlock(&table_lock);
    if (!last)
        return;
    arena_unregister(ar);
    named_unmap(sh->data, sh->data_size);
    named_unmap(sh->meta, sh->meta_size);
    char path[PATH_MAX];
    if (sh->creator == getpid()) /* not a child that inherited the handle */
        for (int i = 0; i < 2; i++)
            if (path_of(sh->name, i ? "data" : "meta", path, sizeof path) == 0)
                named_unlink(path);
    free(sh);
    arena_free(ar);
}

int loci_arena_unlink_shared(const char *name)
{
    int rc = topo_ensure();
    if (rc == 0)
        rc = check_name(name);
    char path[PATH_MAX];
    int removed = 0;
    for (int i = 0; rc == 0 && i < 2; i++) { /* the metadata first: no new attach once it is gone */
        int r = path_of(name, i ? "data" : "meta", path, sizeof path);
        if (r == 0)
            r = named_unlink(path);
        if (r == 0)
            removed++;
        else if (r != LOCI_ENOENT)
            rc = r;
    }
    if (rc == 0 && removed == 0)
        rc = loci__fail(LOCI_ENOENT, "no shared arena named \"%s\" to remove", name);
    return rc;
}

/* ---- allocation through the shared allocator ------------------------------------ */

void *arena_shared_alloc(loci_arena_t *ar, size_t align, size_t size)
{
    shared_arena_t *sh = ar->sh;
    if (shheap_lock(sh->meta) != 0) {
        errno = EIO;
        return NULL;
    }
    void *p = shheap_alloc(sh->meta, align, size);
    shheap_unlock(sh->meta);
    if (p)
        return p;
    int e = errno;
    char why[600];
    snprintf(why, sizeof why, "%s", loci_last_error());
    loci__fail(e == ENOMEM ? LOCI_ENOMEM : LOCI_EIO, "shared arena \"%s\": %s", sh->name, why);
    errno = e;
    return NULL;
}

bool arena_shared_free(void *p)
{
    loci_arena_t *ar = arena_shared_of(p);
    if (!ar)
        return false;
    if (shheap_lock(ar->sh->meta) == 0) {
        shheap_free(ar->sh->meta, p);
        shheap_unlock(ar->sh->meta);
    }
    return true;
}

size_t arena_shared_usable(const void *p)
{
    loci_arena_t *ar = arena_shared_of(p);
    if (!ar || shheap_lock(ar->sh->meta) != 0)
        return 0;
    size_t n = shheap_usable(ar->sh->meta, p);
    shheap_unlock(ar->sh->meta);
    return n;
}

int arena_shared_stats(const loci_arena_t *ar, loci_stats_t *out)
{
    int rc = shheap_lock(ar->sh->meta);
    if (rc == 0) {
        shheap_stats(ar->sh->meta, out);
        shheap_unlock(ar->sh->meta);
    }
    return rc;
}
