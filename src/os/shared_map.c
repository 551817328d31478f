/* Shared mappings of memory files and files (see shared_map.h). */
#include "os/shared_map.h"

#include <errno.h>
#include <sys/mman.h>

#ifndef MADV_REMOVE
#define MADV_REMOVE 9
#endif

int shared_map_memfd(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

void *shared_map_file(int fd, size_t size, bool writable)
{
    return mmap(NULL, size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
}

void *shared_map_file_at(uintptr_t at, size_t size, int fd)
{
    void *p = mmap((void *)at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
    if (p != MAP_FAILED && p != (void *)at) { /* an old kernel (or a sanitizer) took it as a hint */
        munmap(p, size);
        errno = EEXIST;
        return MAP_FAILED;
    }
    return p;
}

void *shared_map_file_private_over(uintptr_t at, size_t size, int fd)
{
    return mmap((void *)at, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
}

void *shared_map_zero_over(uintptr_t at, size_t size)
{
    return mmap((void *)at, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

int shared_map_sync(void *addr, size_t size) { return msync(addr, size, MS_SYNC); }

int shared_map_remove(void *addr, size_t size) { return madvise(addr, size, MADV_REMOVE); }
