/*
 * A process's own copy of shared memory it maps (shared_map.h): what a
 * fork's child does with memory that is shared only because loci needs it
 * so (tier=auto arenas under the heat layer's faults source), so that it
 * gets malloc's fork semantics — a private copy as of the fork.
 *
 * The data is read from the memory file, not through the mapping: the
 * parent's heat sampler keeps some pages unmapped (they stay in the file),
 * and a read of a hole through a shared mapping would allocate a page of
 * the parent's file. Only the file's data segments (SEEK_DATA) are copied,
 * each faulted in at once in the copy (placed by the range's policy, a full
 * bound node saying ENOMEM there instead of killing), then filled by pread.
 */
#include "os/shared_map.h"
#include "os/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* [at, at+len) of fd into dst. */
static int read_fully(int fd, char *dst, size_t len, off_t at)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = pread(fd, dst + done, len - done, at + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; /* the file is shorter than its mapping */
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Every data segment of fd below size into copy (mapped at tmp). */
static int copy_data(int fd, char *tmp, size_t size, bool *placed)
{
    off_t at = 0;
    while ((at = lseek(fd, at, SEEK_DATA)) >= 0 && (size_t)at < size) {
        off_t end = lseek(fd, at, SEEK_HOLE);
        if (end < 0 || (size_t)end > size)
            end = (off_t)size;
        size_t len = (size_t)(end - at);
        if (vm_populate(tmp + at, len) != 0 && *placed) {
            /* the range's node is full: the rest goes where the kernel puts it */
            *placed = false;
            if (vm_reset_policy(tmp, size) != 0 || vm_populate(tmp + at, len) != 0)
                return -1;
        }
        if (read_fully(fd, tmp + at, len, at) != 0)
            return -1;
        at = end;
    }
    return at < 0 && errno != ENXIO ? -1 : 0; /* ENXIO: no data after `at` */
}

int shared_map_copy_over(void *base, size_t size, int fd, const char *name, bool *placed)
{
    *placed = true;
    int copy = shared_map_memfd(name);
    if (copy < 0)
        return -1;
    char *tmp = MAP_FAILED;
    int rc = ftruncate(copy, (off_t)size);
    if (rc == 0 && (tmp = shared_map_file(copy, size, true)) == MAP_FAILED)
        rc = -1;
    if (rc == 0 && vm_copy_policy(base, tmp, size) != 0)
        *placed = false;
    if (rc == 0)
        rc = copy_data(fd, tmp, size, placed);
    if (rc == 0 && vm_remap_over(base, tmp, size) != 0) {
        errno = ENOMEM;
        rc = -1;
    }
    if (rc == 0)
        return copy;
    int e = errno;
    if (tmp != MAP_FAILED)
        vm_unmap(tmp, size);
    close(copy);
    errno = e;
    return -1;
}
