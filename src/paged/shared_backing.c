/*
 * The memory behind a paged region: anonymous memory filled by copies
 * (UFFDIO_COPY, cache_fill.c's install), or a memory file (memfd) the
 * region's size, mapped MAP_SHARED at the region and a second time
 * elsewhere (the alias), filled in place: the store is read straight into
 * the alias's pages and UFFDIO_CONTINUE maps them at the region,
 * write-protected; an eviction removes the file's pages (both mappings lose
 * them, the memory is freed). No bounce buffer and no copy per page; but
 * each fill still allocates the file's pages, which in 4 KiB pages costs
 * the kernel more than the anonymous page and copy it replaces
 * (docs/BENCHMARKS.md, 2026-11-28). So a region is shared-memory backed
 * only where the system gives shared memory huge pages
 * (transparent_hugepage/shmem_enabled, the administrator's setting) and its
 * chunks are whole huge pages — one page allocated, zeroed and freed per
 * chunk — or where LOCI_UFFD_SHM=1 asks for it (tests); never where the
 * process's userfaultfd cannot serve shared memory (Linux before 6.4) or
 * LOCI_UFFD_SHM=0.
 *
 * The resident pages of the file are the cache's: a fill populates exactly
 * its chunks, an eviction removes them. Both mappings are MADV_DONTFORK: a
 * child of fork() has neither, as with anonymous regions.
 */
#include "paged/paged_internal.h"
#include "os/shared_map.h"
#include "os/vm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool backing_shared_for(size_t chunk, bool uffd_shares)
{
    int want = uffd_shared_wanted();
    if (want == 0 || !uffd_shares)
        return false;
    size_t huge = shared_map_huge_size();
    return want == 1 || (huge && chunk % huge == 0);
}

void *backing_map_shared(paged_region_t *r, size_t size, size_t alignment)
{
    int fd = shared_map_memfd("loci-paged");
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        errno = e;
        return MAP_FAILED;
    }
    void *alias = shared_map_file(fd, size, true);
    void *p = alias == MAP_FAILED ? MAP_FAILED : vm_map_aligned(size, alignment, fd, MAP_SHARED);
    if (p == MAP_FAILED) {
        int e = errno;
        if (alias != MAP_FAILED)
            vm_unmap(alias, size);
        close(fd);
        errno = e;
        return MAP_FAILED;
    }
    shared_map_advise_huge(alias, size); /* where pages are allocated: the region's own faults go to loci */
    r->mem = fd;
    r->alias = alias;
    return p;
}

void backing_close(paged_region_t *r)
{
    if (r->alias) {
        /* Freed now, not when the file's last descriptor closes: a child of
         * fork() holds one too (only exec closes it). */
        (void)shared_map_remove(r->alias, r->size);
        vm_unmap(r->alias, r->size);
    }
    if (r->mem >= 0)
        close(r->mem);
    r->alias = NULL;
    r->mem = -1;
}

int backing_drop(const paged_region_t *r, uintptr_t addr, size_t len)
{
    if (!r->alias)
        return vm_drop((void *)addr, len);
    return shared_map_remove(r->alias + (addr - r->base), len); /* through the alias: r may be read-only */
}

char *backing_io_at(const paged_region_t *r, uintptr_t addr)
{
    return r->alias ? r->alias + (addr - r->base) : (char *)addr;
}

char *backing_fill_at(const paged_region_t *r, uintptr_t addr, size_t len)
{
    char *at = backing_io_at(r, addr);
    int rc = vm_populate(at, len);
    if (rc != 0) {
        char why[512]; /* (a copy: the message is rewritten in the same buffer) */
        snprintf(why, sizeof why, "%s", loci_last_error());
        return loci__fail_null(rc, "mode=paged: pages of shared memory for a chunk: %s", why);
    }
    return at;
}

int backing_install(int uffd, const paged_region_t *r, uintptr_t base, size_t len, size_t from, size_t to)
{
    bool wp = !r->readonly;
    int rc = from > 0 ? uffd_map_cached(uffd, (void *)base, from, wp) : 0;
    if (rc == 0 && to > from)
        rc = uffd_map_cached(uffd, (void *)(base + from), to - from, false);
    if (rc == 0 && len > to)
        rc = uffd_map_cached(uffd, (void *)(base + to), len - to, wp);
    return rc;
}
