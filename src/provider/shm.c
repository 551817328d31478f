/*
 * shm provider: memory other processes of the node can map (access=node).
 * alloc = memfd_create + ftruncate + mmap MAP_SHARED, then mbind like numa
 * (shmem honours the mapping's policy). The memfd stays open, recorded out of
 * band by address, so provider_shm_fd() can hand it to other processes
 * (through /proc/<pid>/fd/<n> or SCM_RIGHTS).
 *
 * Its memory behaves across fork() as private memory does: the child gets
 * a copy as of the fork, and neither process sees the other's later stores.
 * Were it shared, the child's copy of the pool's tables would hand out,
 * write and free blocks its parent uses too; and for shared memory used
 * privately (tier=auto arenas whose heat source sees only shared memory)
 * private is what the program asked for. Memory shared with other
 * processes on purpose is a shared arena's (named segments, named.c). The
 * fork handler does it: in the child, before fork() returns there, each extent is copied into a
 * memfd of the child's own, mapped over the same addresses
 * (shared_map_copy_over); the parent's forking thread waits in the
 * providers' handler until the child says it is done (provider_fork), with
 * every lock of loci still held (core/fork.c), so that nothing the parent
 * does after its fork() returns reaches the child. Stores by the parent's other threads while it
 * forks are concurrent with the fork(): as with private memory, which of
 * them the child sees is not defined (docs/TIERING.md, "Shared memory").
 */
#include "provider/provider_impl.h"
#include "os/shared_map.h"
#include "os/vm.h"
#include "units.h"

#include <errno.h>
#include <stdlib.h>
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

static int shm_adopt(void *addr, size_t size, const place_t *to, const provider_ops_t *from, bool live)
{
    return provider_adopt(&provider_shm, &shms, addr, size, to, from, live);
}

/* A copy under write-protection, read whole: shared memory keeps pages its
 * mapping does not show (sampled by a heat source, swapped). */
static int shm_hand_over(void *addr, void *into, size_t size, const place_t *to)
{
    (void)to; /* `into` is placed already */
    return vm_copy_over(addr, into, size, false);
}

static const char *shm_why_not_live(const provider_ops_t *into)
{
    (void)into;
    return vm_copy_over_refusal(false);
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

/* ---- fork: the child gets a copy of every extent --------------------------- */

/* In the child: r's extent becomes a copy of its own. Failing that, the
 * child would share its parent's memory, where either process's stores
 * corrupt the other's data: it stops instead, saying why. */
static void copy_for_child(xrec_t *r, void *arg)
{
    (void)arg;
    bool placed;
    int fd = shared_map_copy_over((void *)r->base, r->size, r->fd, "loci-shm", &placed);
    if (fd < 0) {
        char sz[32];
        loci__log(LOCI_LOG_ERROR, "fork: the child cannot get its own copy of %s of shm memory at %p (%s); "
                                  "it would share it with its parent, so it stops here",
                  units_format_size(r->size, sz, sizeof sz), (void *)r->base, strerror(errno));
        abort();
    }
    if (!placed)
        loci__log(LOCI_LOG_WARN, "fork: the child's copy of shm memory at %p is not on its node (full): "
                                 "the kernel placed it", (void *)r->base);
    close(r->fd);
    r->fd = fd;
}

static bool shm_fork(loci_fork_phase_t phase)
{
    if (phase == LOCI_FORK_CHILD)
        xtable_each_held(&shms, copy_for_child, NULL);
    xtable_fork(&shms, phase); /* (held from prepare until after fork: the count stays) */
    return phase == LOCI_FORK_PREPARE && shms.records.n > 0; /* the parent waits for the child's copies */
}

static const provider_move_ops_t shm_moves = {
    .move = shm_move,
    .adopt = shm_adopt,
    .hand_over = shm_hand_over,
    .why_not_live = shm_why_not_live,
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
