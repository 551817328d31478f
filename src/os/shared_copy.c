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
 * file to file (copy_file_range; pread where the kernel cannot). The copy's
 * pages follow its memory file's policy, which mbind on its mapping sets
 * (shared memory keeps the policy with the file): the range's own. A bound
 * node that is full (ENOMEM) leaves the rest of the copy to the kernel.
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

/* [at, at+len) of fd into the same offsets of copy (mapped at tmp): in the
 * kernel, file to file (the fastest here), else through pread. */
static int copy_segment(int fd, int copy, char *tmp, off_t at, size_t len)
{
    off64_t in = at, out = at;
    while (len > 0) {
        ssize_t n = copy_file_range(fd, &in, copy, &out, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP))
            return read_fully(fd, tmp + in, len, in); /* a kernel that cannot: through the mapping */
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        len -= (size_t)n;
    }
    return 0;
}

/* Every data segment of fd below size into copy (mapped at tmp). */
static int copy_data(int fd, int copy, char *tmp, size_t size, bool *placed)
{
    off_t at = 0;
    while ((at = lseek(fd, at, SEEK_DATA)) >= 0 && (size_t)at < size) {
        off_t end = lseek(fd, at, SEEK_HOLE);
        if (end < 0 || (size_t)end > size)
            end = (off_t)size;
        if (copy_segment(fd, copy, tmp, at, (size_t)(end - at)) != 0) {
            if (errno != ENOMEM || !*placed)
                return -1;
            /* the range's node is full: the rest goes where the kernel puts it */
            *placed = false;
            if (vm_reset_policy(tmp, size) != 0)
                return -1;
            continue; /* this segment again */
        }
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
        rc = copy_data(fd, copy, tmp, size, placed);
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
