/* Which provider serves a target (see provider.h). */
#include "provider/provider.h"
#include "paged/paged.h"
#include "filetier/filetier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

const provider_ops_t *provider_for(const struct loci_target *t, bool shared)
{
    if (!t)
        return NULL;
    if (t->kind == KIND_STORE) /* objects, no file to map: always loci's chunk cache */
        return &provider_paged;
    if (t->dax_align) /* one mapping per process: nothing another process could map */
        return shared ? NULL : &provider_devdax;
    if (t->path && t->path[0])
        return &provider_file;
    if (t->cuda_device >= 0 && t->numa_node < 0)
        return shared ? NULL : &provider_cuda_device;
    if (t->numa_node >= 0)
        return shared ? &provider_shm : &provider_numa;
    return NULL;
}

static int child_done[2] = {-1, -1}; /* the child writes a byte when its providers' handlers are done */

/* In the parent: wait until the child's handlers are done (EOF should the
 * child die, or fork() have failed). */
static void wait_for_child(void)
{
    if (child_done[0] < 0)
        return;
    close(child_done[1]);
    char done;
    while (read(child_done[0], &done, 1) < 0 && errno == EINTR)
        ;
    close(child_done[0]);
    child_done[0] = child_done[1] = -1;
}

/* In the child: its handlers are done; the parent may go on. */
static void tell_parent(void)
{
    if (child_done[1] < 0)
        return;
    (void)!write(child_done[1], "", 1);
    close(child_done[0]);
    close(child_done[1]);
    child_done[0] = child_done[1] = -1;
}

void provider_fork(loci_fork_phase_t phase)
{
    static const provider_ops_t *const all[] = {&provider_numa, &provider_file, &provider_shm, &provider_paged,
                                                &provider_devdax};
    if (phase == LOCI_FORK_PARENT)
        wait_for_child();
    bool wait = false;
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (all[i]->fork)
            wait |= all[i]->fork(phase);
    if (phase == LOCI_FORK_CHILD)
        tell_parent();
    else if (phase == LOCI_FORK_PREPARE && wait && pipe2(child_done, O_CLOEXEC) != 0) {
        loci__log(LOCI_LOG_WARN, "fork: no pipe to wait for the child's own copies of shm and file memory (%s): "
                                 "what this process does right after fork() may reach the child",
                  strerror(errno));
        child_done[0] = child_done[1] = -1;
    }
}

const provider_ops_t *provider_for_place(const place_t *place)
{
    const struct loci_target *t = place->target;
    if (t && t->cuda_device >= 0 && t->numa_node < 0 && place->managed && !place->shared)
        return &provider_cuda_managed;
    if (t && t->numa_node >= 0 && place->gpu_pinned && !place->shared)
        return &provider_cuda_host;
    if (!t || !t->path || !t->path[0] || t->dax_align || place->file_mode == FILE_MMAP) /* stores: paged all the same */
        return provider_for(t, place->shared);
    if (place->file_mode == FILE_PAGED_ONLY)
        return &provider_paged; /* it fails with the reason if it cannot run */
    const char *why = place->shared ? "access=node/job/global needs memory other processes can map"
                      : place->pinned ? "pinned memory cannot leave DRAM"
                                      : NULL;
    if (!why && paged_check_access(&why) == 0)
        return &provider_paged;
    static _Atomic bool told;
    if (!atomic_exchange(&told, true))
        loci__log(LOCI_LOG_WARN, "%s: mode=paged falls back to mode=mmap: %s (write mode=paged! to refuse instead)",
                  t->name, why);
    return &provider_file;
}

const provider_ops_t *provider_for_persistent(const place_t *place)
{
    return place->target && place->target->dax_align ? &provider_devdax_region : provider_for_place(place);
}

const provider_ops_t *provider_for_move(const provider_ops_t *from, const struct loci_target *dst, bool shared)
{
    bool host_or_gpu = dst && !dst->path && (dst->numa_node >= 0 || dst->cuda_device >= 0);
    if (provider_has(from, PROVIDER_FOLLOWS_GPU) && host_or_gpu && !shared)
        return from;
    return provider_for(dst, shared);
}

const char *provider_why_not_live(const provider_ops_t *from, const provider_ops_t *to)
{
    if (from == to)
        return provider_can_move(to) ? NULL : "its provider cannot move pages";
    if (!provider_can_adopt(to) || !provider_can_adopt(from) || !from->move->why_not_live)
        return "its memory cannot be handed to another provider";
    return from->move->why_not_live(to);
}

int provider_for_region(place_t *place, const char *name, unsigned flags, const provider_ops_t **ops)
{
    if (!place->target || !place->target->path || place->target->dax_align || filetier_region_layout(place, name) != REGION_CHUNKS)
        return 0;
    if ((flags & LOCI_SHARED) || place->shared)
        return loci__fail(LOCI_ENOTSUP, "region \"%s\" was created with mode=paged (a directory of chunk files): it "
                                        "is paged through each process's private cache, so it cannot be shared "
                                        "(%s); open it LOCI_READONLY alone (many readers), or create it with "
                                        "mode=mmap to share one copy", name,
                          flags & LOCI_SHARED ? "LOCI_SHARED" : "access=node/job/global");
    if (place->pinned)
        return loci__fail(LOCI_ENOTSUP, "region \"%s\" was created with mode=paged (a directory of chunk files): its "
                                        "pages leave DRAM when evicted, so it cannot be pinned; drop pinned from "
                                        "the intent", name);
    const char *why;
    if (place->file_mode != FILE_PAGED_ONLY && paged_check_access(&why) != 0)
        return loci__fail(LOCI_ENOTSUP, "region \"%s\" was created with mode=paged (a directory of chunk files, no "
                                        "file to map) and mode=paged cannot run here: %s; or pass mode=paged! to page "
                                        "it with user-mode faults only", name, why);
    if (place->file_mode == FILE_MMAP)
        place->file_mode = FILE_PAGED;
    *ops = &provider_paged;
    return 0;
}
