/*
 * shm provider: memory other processes of the node can map (access=node).
 * alloc = memfd_create + ftruncate + mmap MAP_SHARED, then mbind like numa
 * (shmem honours the mapping's policy). The memfd stays open, recorded out of
 * band by address, so provider_shm_fd() can hand it to other processes
 * (through /proc/<pid>/fd/<n> or SCM_RIGHTS).
 */
#include "provider/provider_impl.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static xtable_t shms = XTABLE_INIT;

static void *shm_alloc(const place_t *place, size_t size, size_t alignment)
{
    char sz[32];
    units_format_size(size, sz, sizeof sz);
    if (size > (size_t)INT64_MAX) /* off_t: before ftruncate takes it for a negative size */
        return loci__fail_null(LOCI_ENOMEM, "shm: %s is more than a memory file can hold", sz);
    int fd = shared_map_memfd("loci-shm");
    if (fd < 0)
        return loci__fail_null(LOCI_ENOMEM, "shm: memfd_create for %s: %s", sz, strerror(errno));
    if (ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        close(fd);
        return loci__fail_null(LOCI_ENOMEM, "shm: ftruncate of a memfd to %s: %s", sz, strerror(e));
    }
    void *p = vm_map_aligned(size, alignment, fd, MAP_SHARED);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return loci__fail_null(LOCI_ENOMEM, "shm: mmap of a %s memfd: %s", sz, strerror(e));
    }
    int rc = vm_apply_policy(p, size, place, 0);
    if (rc == 0 && place->pinned)
        rc = vm_pin(p, size);
    if (rc == 0)
        rc = xtable_add(&shms, &(xrec_t){.base = (uintptr_t)p, .size = size, .fd = fd});
    if (rc != 0) {
        vm_unmap(p, size);
        close(fd);
        errno = loci__errno_of(rc);
        return NULL;
    }
    return p;
}

/* Forget the extent at addr and close its memfd. False when unknown. */
static bool forget(void *addr)
{
    xrec_t r;
    if (!xtable_remove(&shms, (uintptr_t)addr, &r))
        return false;
    close(r.fd);
    return true;
}

static int shm_free(void *addr, size_t size) { return provider_unmap("shm", addr, size, forget(addr)); }

static int shm_move(void *addr, size_t size, const place_t *to) { return numa_node_move(addr, size, to, true); }

static int shm_adopt(void *addr, size_t size, const place_t *to)
{
    return provider_adopt(&provider_shm, &shms, addr, size, to);
}

static void shm_disown(void *addr, size_t size) { forget(addr); }

/* Shared memory keeps its pages after MADV_DONTNEED; MADV_REMOVE frees them. */
static int shm_purge(void *addr, size_t size)
{
    if (shared_map_remove(addr, size) != 0)
        return loci__fail(LOCI_EINVAL, "shm: madvise(REMOVE, %p, %zu): %s", addr, size, strerror(errno));
    return 0;
}

int provider_shm_fd(const void *addr, size_t *offset)
{
    xrec_t r;
    if (!xtable_find(&shms, (uintptr_t)addr, &r, NULL, 0))
        return LOCI_ENOENT;
    if (offset)
        *offset = (uintptr_t)addr - r.base;
    return r.fd;
}

static void shm_fork(loci_fork_phase_t phase) { xtable_fork(&shms, phase); }

static const provider_move_ops_t shm_moves = {
    .move = shm_move,
    .adopt = shm_adopt,
    .disown = shm_disown,
};

const provider_ops_t provider_shm = {
    .name = "shm",
    .alloc = shm_alloc,
    .free = shm_free,
    .purge = shm_purge,
    .populate = vm_populate,
    .available = numa_node_available,
    .fork = shm_fork,
    .move = &shm_moves,
};
