/* Shared mappings of memory files and files (see shared_map.h). */
#include "os/shared_map.h"
#include "text_file.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#define THP "/sys/kernel/mm/transparent_hugepage/"

/* The [selected] word of a THP setting file into out ("" when unreadable). */
static void thp_setting(const char *path, char *out, size_t len)
{
    char line[256];
    text_first_line(path, line, sizeof line);
    char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
    size_t n = open && close ? (size_t)(close - open - 1) : 0;
    if (n >= len)
        n = len - 1;
    memcpy(out, open ? open + 1 : "", n);
    out[n] = '\0';
}

static size_t huge_size;

/* PMD-sized pages for shared memory that asks: the size's own setting
 * (Linux 6.11) unless it says inherit, else the global one. */
static void read_huge_size(void)
{
    char line[32], path[128], mode[32];
    text_first_line(THP "hpage_pmd_size", line, sizeof line);
    unsigned long size = strtoul(line, NULL, 10);
    snprintf(path, sizeof path, THP "hugepages-%lukB/shmem_enabled", size / 1024);
    thp_setting(path, mode, sizeof mode);
    if (mode[0] == '\0' || strcmp(mode, "inherit") == 0)
        thp_setting(THP "shmem_enabled", mode, sizeof mode);
    bool yes = strcmp(mode, "always") == 0 || strcmp(mode, "within_size") == 0 || strcmp(mode, "advise") == 0 ||
               strcmp(mode, "force") == 0;
    huge_size = yes ? (size_t)size : 0;
}

size_t shared_map_huge_size(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_huge_size);
    return huge_size;
}

void shared_map_advise_huge(void *addr, size_t size)
{
    madvise(addr, size, MADV_DONTFORK);
    madvise(addr, size, MADV_HUGEPAGE);
}
